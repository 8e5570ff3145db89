//! An agent's command: the one type the referee keeps agent commands in,
//! and the one tokenizer that splits them into words as POSIX `sh` would.
//! It lives in the process layer (which imports nothing above it) so the
//! runner and the sandbox can use it as well as the game and run layers.

use std::fmt;

/// An agent's shell command, run by `sh -c` in the agent's working
/// directory. The files it names are already made absolute where the
/// referee could (see `crate::process::resolve::resolve_in_home`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentCommand(String);

impl AgentCommand {
    /// The command `cmd`, to be run as it is.
    pub fn new(cmd: impl Into<String>) -> AgentCommand {
        AgentCommand(cmd.into())
    }

    /// The command as the shell gets it.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AgentCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The words of an agent command as POSIX `sh` splits them: quotes and
/// backslashes group and escape, a word starting with `#` starts a
/// comment. The one tokenizer for agent commands in the referee.
pub(crate) fn words(cmd: &str) -> Result<Vec<String>, String> {
    shell_words::split(cmd).map_err(|_| format!("unbalanced quote in the agent command `{cmd}`"))
}

/// Characters that make a command the shell's business: quoting,
/// expansion, redirection, pipes, lists, globbing, comments, subshells.
const SHELL_SYNTAX: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', ']', '#', '~', '{', '}', '\n',
];

/// The words of `cmd` when it has no shell syntax and its program is an
/// executable file (found on `path` for a bare name): the command can be
/// executed directly, without a shell in between. `None` sends it to
/// `sh -c`, which also reports a missing or non-executable program in its
/// own words (status 127 or 126).
pub(crate) fn direct(cmd: &str, path: Option<&str>) -> Option<(std::path::PathBuf, Vec<String>)> {
    use std::os::unix::fs::PermissionsExt;
    if cmd.contains(SHELL_SYNTAX) {
        return None;
    }
    let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
    let prog = words.first()?;
    // VAR=value before the program is an assignment, a shell builtin's job.
    if prog.contains('=') {
        return None;
    }
    let found = if prog.contains('/') {
        Some(std::path::PathBuf::from(prog))
    } else {
        path?
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(prog))
            .find(|p| p.is_file())
    }?;
    let runnable = std::fs::metadata(&found).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    // A relative path is taken from the working directory at exec time.
    (runnable || (prog.contains('/') && !found.is_absolute())).then_some((found, words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_without_shell_syntax_run_directly() {
        let path = Some("/usr/bin:/bin");
        let (prog, words) = direct("sh -c true", path).unwrap();
        assert!(prog.ends_with("sh") && prog.is_absolute(), "{}", prog.display());
        assert_eq!(words, ["sh", "-c", "true"]);
        for shell in [
            "agent > log",
            "a | b",
            "a; b",
            "FOO=1 agent",
            "python3 'my agent.py'",
            "echo $HOME",
            "exit 3",
            "no-such-program-here",
            "cd / && ls",
        ] {
            assert_eq!(direct(shell, path), None, "{shell}");
        }
        assert_eq!(direct("/bin/sh x", path).unwrap().1, ["/bin/sh", "x"]);
    }

    #[test]
    fn words_split_like_the_shell() {
        assert_eq!(
            words("python3  my_agent.py --x 1").unwrap(),
            ["python3", "my_agent.py", "--x", "1"]
        );
        assert_eq!(
            words(r#"a 'b c' "d \"e\"" f\ g"#).unwrap(),
            ["a", "b c", "d \"e\"", "f g"]
        );
        assert_eq!(words("agent # a comment").unwrap(), ["agent"]);
        assert_eq!(words("  ").unwrap(), Vec::<String>::new());
        let e = words("python3 'my agent.py").unwrap_err();
        assert_eq!(e, "unbalanced quote in the agent command `python3 'my agent.py`");
        assert_eq!(AgentCommand::new("a b").to_string(), "a b");
    }
}

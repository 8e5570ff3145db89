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

#[cfg(test)]
mod tests {
    use super::*;

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

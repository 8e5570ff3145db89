//! The directories an agent's command names (its program, its script, a
//! data directory, a Python venv), which its view shows read-only.

use std::path::{Path, PathBuf};

/// Absolute paths named in an agent command that exist: the program, its
/// script, a data directory. A file stands for its directory, and for the
/// directory of the file it links to (a venv's `bin/python`, an
/// alternatives link); a program in a Python venv's `bin/` brings the
/// whole venv (its `pyvenv.cfg` and `lib/`), so it runs as on the user's
/// shell.
pub(crate) fn command_paths(cmd: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |dir: PathBuf| {
        if let Ok(dir) = dir.canonicalize() {
            if dir != Path::new("/") && !out.contains(&dir) {
                out.push(dir);
            }
        }
    };
    // The command's words as sh splits them (the referee's one tokenizer),
    // then the parts of a word around spaces (a quoted inner command, as
    // in `sh -c 'cat /x'`), `=` and shell operators: a path may follow
    // `VAR=` or sit against a `;` or a redirection.
    let words =
        crate::process::command::words(cmd).unwrap_or_else(|_| cmd.split_whitespace().map(String::from).collect());
    let parts = words
        .iter()
        .flat_map(|w| w.split(|c: char| c.is_whitespace() || matches!(c, '=' | ';' | '&' | '|' | '<' | '>')))
        .map(str::to_string)
        .collect::<Vec<_>>();
    for tok in parts.iter().map(String::as_str) {
        if !tok.starts_with('/') || tok == "/" {
            continue;
        }
        let p = Path::new(tok);
        if p.is_dir() {
            add(p.to_path_buf());
            continue;
        }
        if !p.is_file() {
            continue;
        }
        let Some(dir) = p.parent() else { continue };
        add(dir.to_path_buf());
        if let Some(target_dir) = p.canonicalize().ok().and_then(|t| t.parent().map(Path::to_path_buf)) {
            add(target_dir);
        }
        if let Some(venv) = dir.parent().filter(|v| v.join("pyvenv.cfg").is_file()) {
            add(venv.to_path_buf());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_paths_are_existing_absolute_directories() {
        let sh = Path::new("/bin/sh").canonicalize().unwrap();
        let got = command_paths("/bin/sh -c 'cat /etc/passwd' /no/such/file relative/x");
        assert_eq!(got, vec![sh.parent().unwrap().to_path_buf(), PathBuf::from("/etc")]);
        assert!(
            command_paths("cd / && ls").is_empty(),
            "the whole file system is never shown"
        );
    }
}

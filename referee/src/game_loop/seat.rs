//! Who sits in a seat: an agent command or the person at the terminal.

use std::path::PathBuf;

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatKind {
    /// An agent program: a shell command run in its working directory.
    Agent(String),
    /// The person at the terminal.
    Human,
}

impl SeatKind {
    /// Parses a seat argument: `human` or an agent command.
    pub fn parse(s: &str) -> SeatKind {
        if s.trim() == "human" {
            SeatKind::Human
        } else {
            SeatKind::Agent(resolve_command(s))
        }
    }

    /// The command as recorded (`human` for a person).
    pub fn command(&self) -> &str {
        match self {
            SeatKind::Agent(c) => c,
            SeatKind::Human => "human",
        }
    }
}

/// Agents run in their own working directories, so a program given by a
/// relative path (`./agent`, `target/release/agent`) that exists from the
/// referee's directory is made absolute; anything else is left to `sh`.
pub fn resolve_command(cmd: &str) -> String {
    let trimmed = cmd.trim_start();
    let prog = trimmed.split_whitespace().next().unwrap_or("");
    if prog.contains('/') && !prog.starts_with('/') && !prog.contains(['\'', '"', '$', '`']) {
        if let Ok(abs) = std::fs::canonicalize(prog) {
            if abs.is_file() {
                let abs = abs.display().to_string();
                if !abs.contains(char::is_whitespace) {
                    return format!("{abs}{}", &trimmed[prog.len()..]);
                }
            }
        }
    }
    cmd.to_string()
}

/// A named participant.
#[derive(Clone, Debug)]
pub struct Contestant {
    /// Display name (unique within a run).
    pub name: String,
    /// Agent command or human.
    pub kind: SeatKind,
    /// A `calibration.txt` to copy into each game directory.
    pub calibration: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_programs_become_absolute() {
        // Unit tests run in the package directory, which holds Cargo.toml.
        let r = resolve_command("./Cargo.toml --depth 2");
        assert!(r.starts_with('/') && r.ends_with("/Cargo.toml --depth 2"), "{r}");
        assert_eq!(resolve_command("agent --x"), "agent --x");
        assert_eq!(resolve_command("./missing-program"), "./missing-program");
        assert_eq!(resolve_command("/bin/true"), "/bin/true");
        assert_eq!(SeatKind::parse(" human "), SeatKind::Human);
    }
}

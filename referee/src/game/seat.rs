//! Who sits in a seat: an agent command or the person at the terminal.

use crate::process::command::AgentCommand;
use std::path::PathBuf;

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatKind {
    /// An agent program: a shell command run in its working directory.
    Agent(AgentCommand),
    /// The person at the terminal.
    Human,
}

impl SeatKind {
    /// Parses a seat argument: `human` or an agent command.
    pub(crate) fn parse(s: &str) -> SeatKind {
        if s.trim() == "human" {
            SeatKind::Human
        } else {
            SeatKind::Agent(resolve_command(s))
        }
    }

    /// The command as recorded (`human` for a person).
    pub(crate) fn command(&self) -> &str {
        match self {
            SeatKind::Agent(c) => c.as_str(),
            SeatKind::Human => "human",
        }
    }
}

/// Agents run in their own working directories, so the files a command
/// names relative to where the referee was started (`./agent`,
/// `python3 my_agent.py`) are made absolute; see [`crate::process::resolve::resolve_in_home`].
pub(crate) fn resolve_command(cmd: &str) -> AgentCommand {
    AgentCommand::new(match std::env::current_dir() {
        Ok(start) => crate::process::resolve::resolve_in_home(cmd, &start),
        Err(_) => cmd.to_string(),
    })
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
    /// The command that writes `calibration.txt` under `--calibrate`
    /// (`--agent ...,calibrate=CMD`); by default the agent's own command
    /// with the argument `calibrate`.
    pub calibrate: Option<AgentCommand>,
    /// The agent's home (`--agent ...,dir=DIR`, absolute): shown read-only
    /// to its moves and hidden from the other agents' at the full sandbox level.
    pub home: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_programs_become_absolute() {
        // Unit tests run in the package directory, which holds Cargo.toml.
        let r = resolve_command("./Cargo.toml --depth 2").to_string();
        assert!(r.starts_with('/') && r.ends_with("/Cargo.toml --depth 2"), "{r}");
        assert_eq!(resolve_command("agent --x").as_str(), "agent --x");
        assert_eq!(resolve_command("./missing-program").as_str(), "./missing-program");
        assert_eq!(resolve_command("/bin/true").as_str(), "/bin/true");
        assert_eq!(SeatKind::parse(" human "), SeatKind::Human);
    }
}

//! A game's working directories: made fresh (bounded where the machine
//! allows, see [`crate::process::workdir`]) before the first move, and
//! kept or dropped however the game ends.

use super::{GameError, GameSetup, Rules, SeatKind};
use crate::process::sandbox::Level;
use crate::process::workdir;
use std::path::PathBuf;

/// The agent seats' working directories.
pub(super) fn agent_dirs<G>(setup: &GameSetup<'_, G>) -> Vec<PathBuf> {
    let agents = setup.seats.iter().filter(|(_, s)| s.kind != SeatKind::Human);
    agents.map(|(p, _)| setup.dirs[p].clone()).collect()
}

/// Ends a game's bounded working directories however the game ends: kept
/// on disk (a forfeit's, or all with `keep_dirs`) or simply unmounted.
pub(super) struct Settle {
    pub(super) dirs: Vec<PathBuf>,
    pub(super) keep: bool,
}

impl Drop for Settle {
    fn drop(&mut self) {
        for d in &self.dirs {
            workdir::settle(d, self.keep);
        }
    }
}

/// Gives every agent seat a fresh working directory (no `playdata.txt` or
/// `output.txt` from an earlier game), with its calibration file.
/// At every level but `none` the directory is bounded to `--disk` where
/// the machine allows (see [`workdir`]).
pub(super) fn prepare_dirs<G>(setup: &GameSetup<'_, G>, rules: &Rules) -> Result<(), GameError> {
    for (p, seat) in setup.seats.iter() {
        let d = &setup.dirs[p];
        if seat.kind == SeatKind::Human {
            continue;
        }
        let made = match rules.sandbox.level {
            Level::None => workdir::remove_all(d).and_then(|()| std::fs::create_dir_all(d)),
            _ => workdir::create(d, rules.sandbox.limits.disk),
        };
        made.map_err(|e| GameError::Io(format!("cannot create {}: {e}", d.display())))?;
        if let Some(c) = &seat.calibration {
            crate::process::agent_files::copy_in(c, d, "calibration.txt").map_err(GameError::Io)?;
        }
    }
    Ok(())
}

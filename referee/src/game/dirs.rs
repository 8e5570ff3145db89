//! A game's working directories: made fresh (bounded where the machine
//! allows, see [`crate::process::workdir`]) before the first move, and
//! kept or dropped however the game ends.

use super::{GameError, GameSetup, Rules, SeatKind};
use crate::process::sandbox::Level;
use crate::process::workdir;
use agent::Player;
use std::path::{Path, PathBuf};

/// A new, empty directory in `games` for one game's working directories,
/// named `g` and eight random hex digits: nothing in a path an agent sees
/// names a contestant, nor is it the game's place in the schedule, which,
/// with a known list of entrants, would name the opponent. The record
/// keeps the names and these paths.
pub(crate) fn opaque_dir(games: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(games).map_err(|e| format!("cannot create {}: {e}", games.display()))?;
    loop {
        let dir = games.join(format!("g{:08x}", rand::random::<u32>()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
}

/// A seat's working directory within its game's: `seat-a` for the first
/// seat, `seat-b` for the second (the seat an agent plays is in its
/// `input.txt` anyway).
pub(crate) fn seat_dir(p: Player) -> &'static str {
    match p {
        Player::One => "seat-a",
        Player::Two => "seat-b",
    }
}

/// The agent seats' working directories.
pub(super) fn agent_dirs<G>(setup: &GameSetup<'_, G>) -> Vec<PathBuf> {
    let agents = setup.seats.iter().filter(|(_, s)| s.kind != SeatKind::Human);
    agents.map(|(p, _)| setup.dirs[p].clone()).collect()
}

/// Ends a game's bounded working directories however the game ends: kept
/// on disk within `disk` bytes of data ([`Settle::finish`]: a forfeit's,
/// or all with `keep_dirs`) or, dropped unfinished, simply unmounted.
pub(super) struct Settle {
    pub(super) dirs: Vec<PathBuf>,
    pub(super) disk: u64,
}

impl Settle {
    /// Settles the directories of a finished game, kept if `keep`; what
    /// was left out of a kept one is noted in the record's `reason`.
    pub(super) fn finish(mut self, keep: bool, reason: &mut String) {
        for d in std::mem::take(&mut self.dirs) {
            if let Some(note) = workdir::settle(&d, keep.then_some(self.disk)) {
                reason.push_str(&format!(" ({note})"));
            }
        }
    }
}

impl Drop for Settle {
    fn drop(&mut self) {
        for d in &self.dirs {
            workdir::settle(d, None);
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

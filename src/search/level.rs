//! The strength ladder (`agent --level N`): ten rungs from the contest's
//! reference agent (level 1) to the default strategy at full strength
//! (level 10), in the manner of Stockfish's skill levels. This file is the
//! one place that says what each level plays ([`Level::rung`]);
//! `play::choose` plays it.
//!
//! The rungs between are budgets in depth or nodes, never in time, so that
//! a level plays the same move on a laptop and on a server; the lower ones
//! also perturb each root move's score by a bounded amount drawn from a
//! seed and the position, and play the best perturbed move. Time still
//! overrides a budget when the clock is short (the agent's usual clock
//! safety): a level never loses on time, and only then may it play a
//! different move on a slower machine.

use super::mix::splitmix64;
use std::fmt;
use std::str::FromStr;

/// A level of the ladder, 1 to 10: only valid levels can be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// What a level plays: the table's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rung {
    /// The contest's reference agent: plain minimax on the reference
    /// evaluation to `depth` (exactly `--strategy minimax --depth D`).
    Reference {
        /// Plies of the minimax.
        depth: u32,
    },
    /// Root moves scored by the agent's evaluation searched to `depth`
    /// plies in all (1: the position after the move, as greedy scores
    /// it; deeper: the `candidates` best by one ply), each score raised
    /// by a seeded amount in `0..=noise` (evaluation units), and the best
    /// raised score played. A win is never given up: win scores dwarf any
    /// noise.
    Noisy {
        /// Plies searched, the root move included.
        depth: u32,
        /// The largest raise of a move's score.
        noise: i32,
        /// Root moves searched deeper than one ply: the best by one ply
        /// (as Stockfish's skill levels choose among a few principal
        /// variations), so that a three-ply level costs milliseconds a
        /// move, not a tenth of a second as all ~150 Halma moves would.
        candidates: usize,
    },
    /// One alpha-beta search on the agent's evaluation, iterative
    /// deepening to `depth` plies or until `nodes` nodes, whichever comes
    /// first (a cut iteration's best move is kept, as the search does).
    Budget {
        /// Deepest iteration.
        depth: u32,
        /// Node budget of the whole search.
        nodes: u64,
    },
    /// Full strength: the default strategy at the given clock.
    Full,
}

/// The ladder, level 1 first. Noise is in Halma's evaluation units (one
/// anti-diagonal of one piece is worth about 26). Chosen by in-process
/// duels of neighbours (`agent duel --game halma --a level:N+1 --b
/// level:N`, 20-40 games at 3 s a side) so that each rung scores about
/// 65-95 % against the one below: noise past about 250 makes one ply as
/// weak as the reference, even depths gain little over odd ones below
/// them, and three plies over the 16 best moves by one ply lose to three
/// over 48 (hence levels 5 and 6). Nodes are a cap, not the budget, of
/// the fixed-depth levels 7-9 (depth 5 takes some 30,000 nodes in the
/// middle game). The measured table is on the results page
/// (`docs/results.md`, "The strength ladder"), made by `scripts/ladder.sh`.
const TABLE: [Rung; 10] = [
    Rung::Reference { depth: 2 },
    Rung::Noisy {
        depth: 1,
        noise: 140,
        candidates: 0,
    },
    Rung::Noisy {
        depth: 1,
        noise: 60,
        candidates: 0,
    },
    Rung::Noisy {
        depth: 2,
        noise: 80,
        candidates: 16,
    },
    Rung::Noisy {
        depth: 3,
        noise: 200,
        candidates: 16,
    },
    Rung::Noisy {
        depth: 3,
        noise: 120,
        candidates: 48,
    },
    Rung::Budget {
        depth: 3,
        nodes: 200_000,
    },
    Rung::Budget {
        depth: 4,
        nodes: 200_000,
    },
    Rung::Budget {
        depth: 5,
        nodes: 200_000,
    },
    Rung::Full,
];

impl Level {
    /// The lowest level: the contest's reference agent.
    pub const MIN: Level = Level(1);
    /// The highest level: full strength.
    pub const MAX: Level = Level(TABLE.len() as u8);

    /// The level `n`, or why there is none.
    pub fn new(n: u32) -> Result<Level, String> {
        if (u32::from(Self::MIN.0)..=u32::from(Self::MAX.0)).contains(&n) {
            Ok(Level(n as u8))
        } else {
            Err(format!(
                "there is no level {n}: levels go from {} (the contest's reference agent) to {} (full strength)",
                Self::MIN.0,
                Self::MAX.0
            ))
        }
    }

    /// The level's number, 1 to 10.
    pub fn number(self) -> u32 {
        u32::from(self.0)
    }

    /// What this level plays.
    pub fn rung(self) -> Rung {
        TABLE[usize::from(self.0 - 1)]
    }

    /// Every level, lowest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (Self::MIN.0..=Self::MAX.0).map(Level)
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let n: u32 = s
            .trim()
            .parse()
            .map_err(|_| format!("expected a level from 1 to 10, found {s:?}"))?;
        Level::new(n)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The raise of the `index`-th root move's score (in generation order) in
/// the position with hash `position` under `seed`: uniform in `0..=noise`,
/// the same for the same three inputs on every machine.
pub fn noise(seed: u64, position: u64, index: usize, noise: i32) -> i32 {
    if noise <= 0 {
        return 0;
    }
    let draw = splitmix64(splitmix64(seed ^ position) ^ index as u64);
    (draw % (noise as u64 + 1)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_one_to_ten_and_others_are_refused_in_words() {
        assert_eq!(Level::all().count(), 10);
        assert_eq!("1".parse::<Level>(), Ok(Level::MIN));
        assert_eq!(" 10 ".parse::<Level>(), Ok(Level::MAX));
        for bad in ["0", "11", "-1", "x", ""] {
            let e = bad.parse::<Level>().expect_err(bad);
            assert!(e.contains("level"), "{bad}: {e}");
        }
        assert!(Level::new(0).unwrap_err().contains("from 1"), "names the range");
        assert!(Level::new(11).unwrap_err().contains("no level 11"));
    }

    #[test]
    fn the_ends_are_the_reference_and_full_strength() {
        assert_eq!(Level::MIN.rung(), Rung::Reference { depth: 2 });
        assert_eq!(Level::MAX.rung(), Rung::Full);
    }

    #[test]
    fn noise_is_bounded_seeded_and_spread() {
        let draws: Vec<i32> = (0..1000).map(|i| noise(7, 99, i, 50)).collect();
        assert!(draws.iter().all(|&d| (0..=50).contains(&d)));
        assert!(draws.contains(&0) && draws.contains(&50), "the bounds are reached");
        assert_eq!(draws, (0..1000).map(|i| noise(7, 99, i, 50)).collect::<Vec<_>>());
        assert_ne!(draws, (0..1000).map(|i| noise(8, 99, i, 50)).collect::<Vec<_>>());
        assert_eq!(noise(7, 99, 3, 0), 0);
    }
}

//! A grading plan's `[ladder]`: how the strength ladder's placement is
//! played. Apart from the placement itself ([`super`]), which reads the
//! graded results, so that the plan needs nothing of the grading.

use serde::{Deserialize, Serialize};

/// A plan's `[ladder]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ladder {
    /// Games against each level tried (the submission opens the odd ones).
    #[serde(default = "Ladder::default_games")]
    pub games: usize,
    /// Each side's total CPU seconds for a ladder game.
    #[serde(default = "Ladder::default_clock")]
    pub clock: f64,
    /// The program that takes `--level N`; by default the program of
    /// `games.opponent` (its first word, e.g. `{agent}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

impl Ladder {
    fn default_games() -> usize {
        2
    }

    fn default_clock() -> f64 {
        10.0
    }
}

impl Default for Ladder {
    fn default() -> Self {
        Ladder {
            games: Ladder::default_games(),
            clock: Ladder::default_clock(),
            agent: None,
        }
    }
}

impl Ladder {
    /// Refuses a ladder the plan's `game` has no levels for, or that plays
    /// nothing (`program`: the plan's ladder program); the plan's own
    /// check calls it.
    pub(crate) fn check(&self, game: &str, program: &str) -> Result<(), String> {
        use agent::GameKind;
        if !GameKind::from_name(game).is_some_and(GameKind::has_levels) {
            return Err(format!(
                "the ladder placement ([ladder] in the plan, or --ladder) plays `agent --level N`, which only {} has; {game} has no levels: remove [ladder] or --ladder",
                GameKind::level_games(),
            ));
        }
        if !(1..=10).contains(&self.games) {
            return Err(format!("ladder.games must be between 1 and 10, found {}", self.games));
        }
        if !(self.clock.is_finite() && self.clock > 0.0 && self.clock <= 1e6) {
            return Err(format!(
                "ladder.clock must be a positive number of seconds, found {}",
                self.clock
            ));
        }
        if program.trim().is_empty() {
            return Err(
                "ladder.agent is not given and games.opponent is empty: name the program that takes --level".into(),
            );
        }
        Ok(())
    }
}

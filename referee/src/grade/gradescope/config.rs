//! A plan's `[gradescope]` table: when students see each kind of test,
//! and whether the ladder's level goes on the leaderboard.

use serde::{Deserialize, Serialize};

/// When students see a kind of test (Gradescope's own words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Visibility {
    /// Never shown to students.
    Hidden,
    /// After the assignment's due date.
    AfterDueDate,
    /// Once the grades are published.
    AfterPublished,
    /// At once.
    Visible,
}

/// A plan's `[gradescope]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Gradescope {
    /// When students see their single-move tests.
    #[serde(default = "visible")]
    pub singles: Visibility,
    /// When students see their games (with a hidden reference's clocks,
    /// a course may keep them for after publication).
    #[serde(default = "visible")]
    pub games: Visibility,
    /// Whether the ladder's level goes on the leaderboard.
    #[serde(default)]
    pub leaderboard: bool,
}

fn visible() -> Visibility {
    Visibility::Visible
}

impl Default for Gradescope {
    fn default() -> Self {
        Gradescope {
            singles: Visibility::Visible,
            games: Visibility::Visible,
            leaderboard: false,
        }
    }
}

impl Gradescope {
    /// Whether nothing differs from the default (then the table is left
    /// out of `plan.toml`).
    pub(crate) fn is_default(&self) -> bool {
        *self == Gradescope::default()
    }
}

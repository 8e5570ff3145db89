//! One module per game: rules, evaluation and text format live together.
//! Each game implements [`crate::search::Game`] (for the search) and
//! [`crate::protocol::FileGame`] (for the file protocol and the referee).

use crate::driver::{AgentOptions, TurnError, TurnReport};
use crate::protocol::GameKind;

/// Plays one turn of the game `kind` from its `input.txt` text.
pub fn dispatch_turn(kind: GameKind, text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let _ = (text, opts);
    #[allow(clippy::match_single_binding)]
    match kind {
        // Each game adds its arm: GameKind::X => crate::driver::turn::<x::X>(text, opts),
        other => Err(TurnError::NoMove(format!("the game {} is not built into this agent yet", other.name()))),
    }
}

//! One module per game: rules, evaluation and text format live together.
//! Each game implements [`crate::search::Game`] (for the search) and
//! [`crate::protocol::FileGame`] (for the file protocol and the referee).

pub mod connectsquare;
pub mod fifteen;
pub mod halma;
pub mod hashi;
pub mod hinger;

use crate::driver::{AgentOptions, TurnError, TurnReport};
use crate::protocol::GameKind;

/// Runs `$body` with the type alias `$G` bound to the game type of `$kind`
/// (a [`GameKind`]); a kind that is not built in evaluates `$missing` with
/// `$k` bound to it. The one place that maps kinds to types: the driver and
/// the referee dispatch through it.
///
/// ```ignore
/// with_game!(kind, |G| run::<G>(), missing(k) => Err(format!("{} not built in", k.name())))
/// ```
#[macro_export]
macro_rules! with_game {
    ($kind:expr, |$G:ident| $body:expr, missing($k:ident) => $missing:expr) => {{
        #[allow(unreachable_patterns)]
        match $kind {
            // One arm per game, e.g.:
            // $crate::protocol::GameKind::Halma => { type $G = $crate::games::halma::Halma; $body }
            $crate::protocol::GameKind::Halma => {
                type $G = $crate::games::halma::Halma;
                $body
            }
            $crate::protocol::GameKind::ConnectSquare => {
                type $G = $crate::games::connectsquare::ConnectSquare;
                $body
            }
            $crate::protocol::GameKind::Fifteen => {
                type $G = $crate::games::fifteen::Fifteen;
                $body
            }
            $crate::protocol::GameKind::Hashi => {
                type $G = $crate::games::hashi::Hashi;
                $body
            }
            $crate::protocol::GameKind::Hinger => {
                type $G = $crate::games::hinger::Hinger;
                $body
            }
            $k => $missing,
        }
    }};
}

/// Plays one turn of the game `kind` from its `input.txt` text.
pub fn dispatch_turn(kind: GameKind, text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    with_game!(kind, |G| crate::driver::turn::<G>(text, opts), missing(k) => {
        let _ = (text, opts);
        Err(TurnError::NoMove(format!("the game {} is not built into this agent", k.name())))
    })
}

//! One module per game: rules, evaluation and text format live together.
//! Each game implements [`crate::search::Game`] (for the search) and
//! [`crate::protocol::FileGame`] (for the file protocol and the referee).

pub mod connectsquare;
pub mod fifteen;
pub mod halma;
pub mod hashi;
pub mod hinger;
pub mod testnim;

use crate::protocol::{Lines, ParseError};

/// Which game an `input.txt` holds, from its first meaningful line (SPEC §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    /// Line 1 is SINGLE or GAME.
    Halma,
    /// `HINGER`
    Hinger,
    /// `CONNECTSQUARE`
    ConnectSquare,
    /// `FIFTEEN`
    Fifteen,
    /// `HASHI`
    Hashi,
}

impl GameKind {
    /// All games, in documentation order.
    pub const ALL: [GameKind; 5] = [
        GameKind::Halma,
        GameKind::Hinger,
        GameKind::ConnectSquare,
        GameKind::Fifteen,
        GameKind::Hashi,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Halma => "halma",
            GameKind::Hinger => "hinger",
            GameKind::ConnectSquare => "connectsquare",
            GameKind::Fifteen => "fifteen",
            GameKind::Hashi => "hashi",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|k| k.name() == s.to_ascii_lowercase())
    }

    /// Detects the game of an `input.txt`.
    pub fn detect(text: &str) -> Result<GameKind, ParseError> {
        let mut lines = Lines::new(text);
        let first = lines.next_line("SINGLE, GAME or a game tag (HINGER, CONNECTSQUARE, FIFTEEN, HASHI)")?;
        match first.text {
            "SINGLE" | "GAME" => Ok(GameKind::Halma),
            "HINGER" => Ok(GameKind::Hinger),
            "CONNECTSQUARE" => Ok(GameKind::ConnectSquare),
            "FIFTEEN" => Ok(GameKind::Fifteen),
            "HASHI" => Ok(GameKind::Hashi),
            other => Err(ParseError::at(
                first.number,
                format!("expected SINGLE, GAME or a game tag (HINGER, CONNECTSQUARE, FIFTEEN, HASHI), found {other:?}"),
            )),
        }
    }
}

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
            // $crate::games::GameKind::Halma => { type $G = $crate::games::halma::Halma; $body }
            $crate::games::GameKind::Halma => {
                type $G = $crate::games::halma::Halma;
                $body
            }
            $crate::games::GameKind::ConnectSquare => {
                type $G = $crate::games::connectsquare::ConnectSquare;
                $body
            }
            $crate::games::GameKind::Fifteen => {
                type $G = $crate::games::fifteen::Fifteen;
                $body
            }
            $crate::games::GameKind::Hashi => {
                type $G = $crate::games::hashi::Hashi;
                $body
            }
            $crate::games::GameKind::Hinger => {
                type $G = $crate::games::hinger::Hinger;
                $body
            }
            $k => $missing,
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_games_and_rejects_unknown_tags() {
        assert_eq!(GameKind::detect("\n\nSINGLE\r\n").unwrap(), GameKind::Halma);
        assert_eq!(GameKind::detect("HASHI  \n").unwrap(), GameKind::Hashi);
        let e = GameKind::detect("\nCHESS\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("CHESS"));
        assert_eq!(GameKind::detect("").unwrap_err().line, 0);
    }
}

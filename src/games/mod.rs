//! One module per game: rules, evaluation and text format live together.
//! Each game implements [`crate::search::Game`] (for the search) and
//! [`crate::play::FileGame`] (for the file protocol and the referee).

#[cfg(any(test, feature = "testnim"))]
pub mod testnim;
#[cfg(feature = "testnim")]
pub use testnim::TestNim;

use crate::protocol::{Lines, ParseError};
use crate::protocol::Notation;
use crate::search::Searchable;

/// The registry: every contest game, once, as `Variant => module::Type`.
/// It declares the game's module, its [`GameKind`] and its arm of
/// [`with_game!`](crate::with_game); everything else (names, `input.txt`
/// tags, board parameters, prompts) comes from the game's [`Notation`](crate::protocol::Notation) and [`Setup`](crate::protocol::Setup) items.
/// The `$` first is the dollar sign the generated macro needs.
macro_rules! registry {
    ($d:tt $($variant:ident => $module:ident :: $ty:ident),+ $(,)?) => {
        $(pub mod $module;)+
        $(pub use self::$module::$ty;)+

        /// Which game an `input.txt` holds or a command line names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum GameKind {
            $(
                #[doc = concat!("[`", stringify!($module), "::", stringify!($ty), "`]")]
                $variant,
            )+
        }

        impl GameKind {
            /// All games, in registry order.
            pub const ALL: &'static [GameKind] = &[$(GameKind::$variant),+];
        }

        /// Runs `$body` with the type alias `$G` bound to the game type of
        /// `$kind` (a [`GameKind`]): the one place that maps kinds to types;
        /// the driver, the duel, the fuzz entry points and the referee
        /// dispatch through it. Generated from the registry in `games/mod.rs`.
        ///
        /// ```
        /// use agent::{with_game, GameKind, Notation};
        /// fn name<G: Notation>() -> &'static str {
        ///     G::NAME
        /// }
        /// assert_eq!(with_game!(GameKind::Hinger, |G| name::<G>()), "hinger");
        /// ```
        #[macro_export]
        macro_rules! with_game {
            ($d kind:expr, |$d G:ident| $d body:expr) => {
                match $d kind {
                    $(
                        $d crate::GameKind::$variant => {
                            type $d G = $d crate::$ty;
                            $d body
                        }
                    )+
                }
            };
        }
    };
}

registry! {$
    Halma => halma::Halma,
    Hinger => hinger::Hinger,
    ConnectSquare => connectsquare::ConnectSquare,
    Fifteen => fifteen::Fifteen,
    Hashi => hashi::Hashi,
}

impl GameKind {
    /// Command-line name: the game's [`Notation::NAME`].
    pub fn name(self) -> &'static str {
        with_game!(self, |G| G::NAME)
    }

    /// Line 1 of the game's `input.txt` ([`Notation::TAG`]; `None`: the mode).
    pub fn tag(self) -> Option<&'static str> {
        with_game!(self, |G| G::TAG)
    }

    /// Whether `agent --level` plays this game ([`Searchable::LEVELS`]).
    pub fn has_levels(self) -> bool {
        with_game!(self, |G| G::LEVELS)
    }

    /// The names of the games `agent --level` plays, comma-separated.
    pub fn level_games() -> String {
        let names: Vec<&str> = GameKind::ALL
            .iter()
            .filter(|k| k.has_levels())
            .map(|k| k.name())
            .collect();
        names.join(", ")
    }

    /// Parses a command-line name (any letter case).
    pub fn from_name(s: &str) -> Option<GameKind> {
        GameKind::ALL.iter().copied().find(|k| k.name().eq_ignore_ascii_case(s))
    }

    /// Detects the game of an `input.txt` from its first meaningful line:
    /// a game's tag, or SINGLE/GAME for the game without one (docs/protocol.md).
    pub fn detect(text: &str) -> Result<GameKind, ParseError> {
        let tags: Vec<&str> = GameKind::ALL.iter().filter_map(|k| k.tag()).collect();
        let expected = format!("SINGLE, GAME or a game tag ({})", tags.join(", "));
        let mut lines = Lines::new(text);
        let first = lines.next_line(&expected)?;
        let wanted = match first.text {
            "SINGLE" | "GAME" => None,
            tag => Some(tag),
        };
        GameKind::ALL
            .iter()
            .copied()
            .find(|k| k.tag() == wanted)
            .ok_or_else(|| ParseError::at(first.number, format!("expected {expected}, found {:?}", first.text)))
    }
}

/// Runs `$body` with `$G` bound to the game named `$name` (a `&str`, any
/// case), or evaluates `$none` when no game has that name. With the
/// `testnim` feature (tests only) the test game answers to its name too.
#[cfg(feature = "testnim")]
#[macro_export]
macro_rules! with_named_game {
    ($name:expr, |$G:ident| $body:expr, $none:expr) => {{
        let name: &str = $name;
        if name.eq_ignore_ascii_case(<$crate::TestNim as $crate::Notation>::NAME) {
            type $G = $crate::TestNim;
            $body
        } else {
            match $crate::GameKind::from_name(name) {
                Some(kind) => $crate::with_game!(kind, |$G| $body),
                None => $none,
            }
        }
    }};
}

/// See the `testnim` version above: without the feature, only the
/// registry's games.
#[cfg(not(feature = "testnim"))]
#[macro_export]
macro_rules! with_named_game {
    ($name:expr, |$G:ident| $body:expr, $none:expr) => {{
        match $crate::GameKind::from_name($name) {
            Some(kind) => $crate::with_game!(kind, |$G| $body),
            None => $none,
        }
    }};
}

/// Games a name may name besides the registry's: the test game when the
/// `testnim` feature is on (tests), none in a released binary.
pub const FIXTURES: &[&str] = if cfg!(feature = "testnim") { &["testnim"] } else { &[] };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Setup;

    #[test]
    fn detects_games_and_rejects_unknown_tags() {
        assert_eq!(GameKind::detect("\n\nSINGLE\r\n").unwrap(), GameKind::Halma);
        assert_eq!(GameKind::detect("HASHI  \n").unwrap(), GameKind::Hashi);
        let e = GameKind::detect("\nCHESS\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("CHESS"));
        assert_eq!(GameKind::detect("").unwrap_err().line, 0);
        let e = GameKind::detect("CHESS\n").unwrap_err();
        assert!(
            e.message.contains("HINGER, CONNECTSQUARE, FIFTEEN, HASHI"),
            "{}",
            e.message
        );
    }

    #[test]
    fn every_registered_game_is_named_and_detected_by_its_own_items() {
        use crate::protocol::{GenOptions, Mode};
        for &k in GameKind::ALL {
            assert_eq!(GameKind::from_name(k.name()), Some(k));
            assert_eq!(GameKind::from_name(&k.name().to_uppercase()), Some(k));
            let text = with_game!(k, |G| G::generate(&GenOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", k.name()))
                .write_input(Mode::Game, 1.0));
            assert_eq!(GameKind::detect(&text).unwrap(), k, "{text}");
        }
        let mut names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), GameKind::ALL.len(), "two games share a name");
    }
}

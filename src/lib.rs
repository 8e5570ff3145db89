//! Contest game agent library: five games (Halma, Hinger, Connect Square,
//! Fifteen, Hashi) behind a few small traits, one alpha-beta search core,
//! and the `input.txt`/`output.txt` turn. This page is the whole public
//! surface; the referee uses nothing else.
//!
//! - The games: the search's view of a game ([`Game`], [`SearchHints`],
//!   [`Searchable`], [`Evaluator`]), the file side ([`Notation`],
//!   [`Setup`], [`View`]), how it shares its clock ([`TimePolicy`]) and
//!   what it adds to the default strategy ([`Steps`]), all under
//!   [`FileGame`]; and the
//!   registry ([`GameKind`], [`with_game!`], [`with_named_game!`]) with the
//!   game types it names ([`Halma`], [`Hinger`], [`ConnectSquare`],
//!   [`Fifteen`], [`Hashi`]).
//! - The file protocol (`docs/protocol.md`): [`Mode`], seats ([`Player`],
//!   [`ByPlayer`]), a parsed [`Input`] and its errors ([`ParseError`],
//!   [`MoveError`]), generated starts ([`GenOptions`], [`Param`]), bounded
//!   reads ([`read_bounded`], [`read_capped`]) and the time as written
//!   ([`format_time`]); a position drawn for a person ([`BoardView`],
//!   [`MoveView`] and their parts).
//! - The turn: [`run_turn`] reads `input.txt` and writes `output.txt` under
//!   a [`Strategy`] (a search's [`Limits`]; a rung of the strength ladder,
//!   [`Level`]), on the process CPU clock ([`process_cpu_seconds`]).
//! - Openings and the one-ply greedy player the referee uses to make
//!   starts and positions ([`random_opening`], [`random_plies`],
//!   [`decided`], [`greedy_move`]).
//!
//! The modules behind this page are private: one folder per game (rules,
//! format, evaluation, play policy, solvers), the search core, the time
//! policy, the driver. The `internals` feature (turned on by the binary's
//! `cli` feature) makes them reachable, hidden from these docs, for the
//! `agent` binary's developer tools, the benches and the fuzz targets;
//! nothing that plays a move needs it.

// Without `internals`, what only the tools, the benches and the fuzz targets
// call (perft, the study solvers, the opening book) is unused: the contest
// build compiles it, with those warnings off.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

/// Declares the library's modules: private, or public but hidden from the
/// docs with the `internals` feature (the binary's tools, benches, fuzzing).
macro_rules! modules {
    ($($(#[$attr:meta])* $name:ident;)+) => {$(
        $(#[$attr])*
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        mod $name;
    )+};
}

modules! {
    // First, so that the registry's `with_game!` is in scope for the modules
    // below (a macro made by a macro cannot be named by path inside its own
    // crate).
    #[macro_use]
    games;
    clock;
    driver;
    play;
    playdata;
    protocol;
    search;
    timing;
}

#[cfg(test)]
mod scratch;

/// Byte-level entry points for the fuzz targets in `fuzz/` and the corpus
/// replays of the tests.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod fuzzing;

pub use clock::process_cpu_seconds;
pub use driver::{run_turn, AgentOptions, TurnError, TurnReport};
#[cfg(feature = "testnim")]
pub use games::TestNim;
pub use games::{ConnectSquare, Fifteen, GameKind, Halma, Hashi, Hinger, FIXTURES};
pub use play::openings::{decided, random_opening, random_plies};
pub use play::{FileGame, Settle, Solved, Steps};
pub use protocol::params::unused_params;
pub use protocol::{
    format_time, read_bounded, read_capped, BoardView, ByPlayer, CellView, Drawing, GenOptions, Ground, Input,
    LegendEntry, LinkView, Mode, MoveError, MoveView, Notation, Param, ParamKey, ParseError, PieceShape, PieceView,
    Player, Sample, Setup, View,
};
pub use search::greedy::choose as greedy_move;
pub use search::level::Level;
pub use search::{Evaluator, Game, Limits, Outcome, Pacing, SearchHints, Searchable, Strategy, TimeScores};
pub use timing::TimePolicy;

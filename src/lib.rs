//! Contest game agent library.
//!
//! Layout:
//! - [`search`]: the game-independent search core (the [`search::Game`] trait and
//!   the strategies that depend only on it: alpha-beta, minimax, MCTS, greedy).
//! - [`games`]: one module per game (rules, evaluation, text format).
//! - [`protocol`]: the shared `input.txt`/`output.txt` plumbing (the
//!   [`protocol::FileGame`] trait every game implements, line-aware parsing
//!   errors, atomic output).
//! - [`clock`] and [`timing`]: the process CPU clock and the time policy.
//! - [`arena`]: choosing a move under any strategy for any game, duels,
//!   openings and perft over the traits.
//! - [`driver`]: turns one `input.txt` into one `output.txt` for any game.
//! - [`fuzzing`]: byte-level entry points for the fuzz targets in `fuzz/`.

// First, so that the registry's `with_game!` is in scope for the modules below
// (a macro made by a macro cannot be named by path inside its own crate).
#[macro_use]
pub mod games;

pub mod arena;
pub mod clock;
pub mod driver;
pub mod fuzzing;
pub mod playdata;
pub mod protocol;
pub mod search;
pub mod timing;

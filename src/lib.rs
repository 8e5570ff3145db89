//! Contest game agent library.
//!
//! Layout, from the bottom up:
//! - [`search`]: the game-independent search core (the [`search::Game`],
//!   [`search::SearchHints`] and [`search::Searchable`] traits, the
//!   [`search::Evaluator`] values they name, and the strategies that depend
//!   only on them: alpha-beta, minimax, MCTS, greedy).
//! - [`protocol`]: the shared `input.txt`/`output.txt` plumbing (the
//!   file-side traits every game implements, [`protocol::FileGame`] being
//!   their umbrella; line-aware parsing errors, atomic output).
//! - [`games`]: one folder per game (rules, format, evaluation, policy,
//!   solvers), and the registry.
//! - [`clock`] and [`timing`]: the process CPU clock and the time policy.
//! - [`play`]: choosing a move under any strategy for any game, seeded
//!   openings.
//! - [`driver`]: turns one `input.txt` into one `output.txt` for any game.
//! - [`tools`] (default feature `cli`): the developer tools and the per-game
//!   subcommands, above everything else.
//! - [`fuzzing`]: byte-level entry points for the fuzz targets in `fuzz/`.

// First, so that the registry's `with_game!` is in scope for the modules below
// (a macro made by a macro cannot be named by path inside its own crate).
#[macro_use]
pub mod games;

pub mod clock;
pub mod driver;
pub mod fuzzing;
pub mod play;
pub mod playdata;
pub mod protocol;
pub mod search;
pub mod timing;
#[cfg(feature = "cli")]
pub mod tools;

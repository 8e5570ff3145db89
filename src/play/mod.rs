//! Playing a move with any of the agent's strategies, for any game:
//! [`choose`](mod@choose) turns a [`Strategy`](crate::search::Strategy)
//! into a move (the driver's one path for a turn, and the duels' and
//! benches'; the default strategy composes a game's own steps with the
//! search), and [`openings`] gives seeded random openings (duels, the
//! referee's start positions); [`steps`] holds what a game adds to the
//! default strategy and the [`FileGame`] umbrella.

pub mod choose;
pub mod openings;
pub mod steps;

pub use choose::{choose, Choice, ChooseOptions};
pub use steps::{FileGame, Settle, Solved, Steps};

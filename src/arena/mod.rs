//! Playing games with the agent's strategies, for any game: choosing one
//! move ([`choose`](mod@choose)), in-process duels between two strategies ([`duel`]),
//! seeded random openings ([`openings`]) and move-generation counts
//! ([`perft`]). The driver plays a contest turn through [`choose::choose`];
//! the per-game tools reuse the rest.

pub mod choose;
pub mod duel;
pub mod openings;
pub mod perft;
#[cfg(feature = "cli")]
pub mod tools;

pub use choose::{choose, Choice, ChooseOptions};

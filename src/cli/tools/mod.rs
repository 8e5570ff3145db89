//! Developer tools above the games, built only with the crate's default
//! `cli` feature: the `agent <game> <tool>` subcommands, the generic tools
//! every game has (perft, openings, calibration, in-process duels), and each
//! game's benches and studies. Nothing on the play path imports this module;
//! it imports the games, never the other way round.

pub mod common;
pub mod connectsquare;
pub mod duel;
pub mod fifteen;
pub mod halma;
pub mod hashi;
pub mod hinger;
pub mod perft;

pub use common::*;

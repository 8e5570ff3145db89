//! A game as data and as text: the JSON-lines game records ([`record`]) and
//! the terminal board ([`board_text`]) and a game narrated on it
//! ([`narrator`]). The HTML report, which also needs
//! the statistics, is [`crate::report`].

pub(crate) mod board_text;
pub(crate) mod narrator;
pub mod record;

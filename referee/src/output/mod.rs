//! A game as data and as text: the JSON-lines game records ([`record`]) and
//! the terminal board ([`board_text`]). The HTML report, which also needs
//! the statistics, is [`crate::report`].

pub mod board_text;
pub mod record;

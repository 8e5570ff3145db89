//! The file protocol shared by all games (docs/protocol.md): typed parsing with
//! line-numbered errors, the file-side traits of a game ([`Notation`],
//! [`Setup`], [`View`]), and writing the agent's files so that a kill never
//! leaves a damaged move.

mod files;
pub mod limits;
pub mod lines;
pub mod params;
pub mod view;

pub(crate) use files::{write_atomic, write_file, Replace};
pub use lines::{Line, Lines};
pub use params::{Param, ParamKey};
pub use view::{BoardView, CellView, Drawing, Ground, LegendEntry, LinkView, MoveView, PieceShape, PieceView, Sample};

use crate::search::{Game, Outcome};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// `SINGLE` (spend the time on this move) or `GAME` (one move of a full game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Use the given time for this one move.
    Single,
    /// One move of a full game: budget the remaining time.
    Game,
}

impl Mode {
    /// The protocol token.
    pub fn token(self) -> &'static str {
        match self {
            Mode::Single => "SINGLE",
            Mode::Game => "GAME",
        }
    }

    /// Parses `SINGLE`/`GAME` (exact, case-sensitive as the contest writes it).
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "SINGLE" => Some(Mode::Single),
            "GAME" => Some(Mode::Game),
            _ => None,
        }
    }
}

/// One of the two seats of a game, in the order they are numbered by the
/// game's format (Halma: BLACK, WHITE; Connect Square: R, Y; others: 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// The first-listed seat (Halma BLACK, Connect Square R, player 1).
    One,
    /// The second-listed seat (Halma WHITE, Connect Square Y, player 2).
    Two,
}

impl Player {
    /// Both seats, in format order.
    pub const ALL: [Player; 2] = [Player::One, Player::Two];

    /// The other seat.
    #[inline]
    pub const fn other(self) -> Player {
        match self {
            Player::One => Player::Two,
            Player::Two => Player::One,
        }
    }
    /// 0 for `One`, 1 for `Two`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// `One` for 0, `Two` otherwise.
    pub const fn from_index(i: usize) -> Player {
        if i == 0 {
            Player::One
        } else {
            Player::Two
        }
    }
}

/// One value per seat, indexed by [`Player`] (in the spirit of shakmaty's
/// `ByColor`): per-player arrays without `usize` indices or `1 - x` flips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByPlayer<T>([T; 2]);

impl<T> ByPlayer<T> {
    /// The values of seat `One` and seat `Two`.
    pub const fn new(one: T, two: T) -> Self {
        ByPlayer([one, two])
    }

    /// Builds each seat's value from the seat.
    pub fn from_fn(mut f: impl FnMut(Player) -> T) -> Self {
        ByPlayer([f(Player::One), f(Player::Two)])
    }

    /// The value of `p`; usable in `const` contexts, unlike indexing.
    #[inline]
    pub const fn get(&self, p: Player) -> &T {
        match p {
            Player::One => &self.0[0],
            Player::Two => &self.0[1],
        }
    }

    /// Applies `f` to each seat's value.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> ByPlayer<U> {
        ByPlayer(self.0.map(f))
    }

    /// The seats with their values, in format order.
    pub fn iter(&self) -> impl Iterator<Item = (Player, &T)> {
        Player::ALL.into_iter().zip(self.0.iter())
    }

    /// The values as a plain array in format order (for formats and records).
    pub fn into_array(self) -> [T; 2] {
        self.0
    }
}

impl<T> From<[T; 2]> for ByPlayer<T> {
    fn from(a: [T; 2]) -> Self {
        ByPlayer(a)
    }
}

impl<T> std::ops::Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, p: Player) -> &T {
        &self.0[p as usize]
    }
}

impl<T> std::ops::IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, p: Player) -> &mut T {
        &mut self.0[p as usize]
    }
}

/// A problem with an input file, with the line it was found on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number in the file (0 when the problem is the file as a whole).
    pub line: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl ParseError {
    /// An error at a 1-based line.
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
    /// An error about the whole file (e.g. it ends early).
    pub fn whole(message: impl Into<String>) -> Self {
        ParseError {
            line: 0,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a move text (an agent's `output.txt`, a typed human move, a recorded
/// move) was rejected. The referee scores the two differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text does not have the format of a move.
    Malformed(String),
    /// Well-formed, but not a legal move in this position.
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Malformed(m) => write!(f, "malformed move: {m}"),
            MoveError::Illegal(m) => write!(f, "illegal move: {m}"),
        }
    }
}

impl std::error::Error for MoveError {}

/// A parsed `input.txt`: the position (with the agent to move), the mode and
/// the remaining CPU seconds.
#[derive(Clone, Debug)]
pub struct Input<G> {
    /// The position; its side to move is the agent.
    pub state: G,
    /// SINGLE or GAME.
    pub mode: Mode,
    /// Remaining CPU seconds (strictly positive).
    pub remaining: f64,
}

/// Options for generating a start position (referee `--rows`, `--size`, ...).
/// A game uses the fields that mean something to it and ignores the rest.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Board rows (Hinger, Connect Square).
    pub rows: Option<usize>,
    /// Board columns (Hinger, Connect Square).
    pub cols: Option<usize>,
    /// Square board size (Fifteen: 4 or 6; Hashi: n).
    pub size: Option<usize>,
    /// Fill density in 0..=1 (Hinger).
    pub density: Option<f64>,
    /// Seed for generated boards.
    pub seed: u64,
    /// The seat that moves first.
    pub first: Player,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            rows: None,
            cols: None,
            size: None,
            density: None,
            seed: 1,
            first: Player::One,
        }
    }
}

/// How a game is written down: its names, its `input.txt` and its moves.
pub trait Notation: Game + Sized {
    /// Lower-case name used on command lines (`halma`, `hinger`, ...).
    const NAME: &'static str;

    /// Line 1 of this game's `input.txt` (`HINGER`, ...); `None` for Halma,
    /// whose line 1 is the mode.
    const TAG: Option<&'static str>;

    /// Parses a whole `input.txt` of this game.
    fn parse_input(text: &str) -> Result<Input<Self>, ParseError>;

    /// Writes the `input.txt` an agent playing the side to move should get.
    fn write_input(&self, mode: Mode, remaining: f64) -> String;

    /// The `output.txt` text for a legal move of the side to move (with the
    /// final newline).
    fn format_move(&self, mv: Self::Move) -> String;

    /// Parses and judges a move text (an `output.txt`, a typed move) for the
    /// side to move.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// The seat to move.
    fn to_move(&self) -> Player;

    /// Seat names as the format writes them, e.g. `["BLACK", "WHITE"]`.
    fn player_names() -> [&'static str; 2];
}

/// The referee's side of a game: how it makes start positions and how it
/// judges the end.
pub trait Setup: Notation {
    /// The parameters of generated start positions ([`GenOptions`] fields
    /// this game reads), with the questions put to a person who has not given them.
    const PARAMS: &'static [Param] = &[];

    /// True when a side to move without a legal move ends the game as the
    /// move cap does, the player with more time left winning (Halma's rule
    /// 6). Otherwise a drawn [`Setup::result`] is a real draw.
    const NO_MOVE_SETTLED_BY_TIME: bool = false;

    /// A start position for the referee.
    fn generate(opts: &GenOptions) -> Result<Self, String>;

    /// `None` while the game goes on; `Some(Some(p))` when `p` has won;
    /// `Some(None)` for a draw or an end to be settled by the referee (e.g.
    /// Halma with no legal move). Default: [`Game::outcome`] seen from the
    /// seats.
    fn result(&self) -> Option<Option<Player>> {
        let me = self.to_move();
        self.outcome().map(|o| match o {
            Outcome::Win => Some(me),
            Outcome::Loss => Some(me.other()),
            Outcome::Draw => None,
        })
    }
}

/// How a position and a move are shown to a person (terminal, HTML report).
pub trait View: Notation {
    /// How a drawing (the referee's HTML report) shows this game's pieces
    /// and moves.
    const DRAWING: Drawing = Drawing::DISCS;

    /// CPU seconds an agent gets per move when a person plays it at `referee
    /// play` and no `--move-time` is given (`None`: the whole clock), so
    /// the person is not kept waiting.
    const HUMAN_MOVE_TIME: Option<f64> = None;

    /// A move as shown to a person (e.g. Fifteen's `(Row, Column, Card
    /// Number)`). Default: the output text on one line.
    fn describe_move(&self, mv: Self::Move) -> String {
        self.format_move(mv).trim_end().replace('\n', " | ")
    }

    /// The board drawn for a person (multi-line, no trailing blank line).
    fn render(&self) -> String;

    /// The position described for drawing (terminal and HTML report).
    fn board_view(&self) -> BoardView;

    /// What a legal move of the side to move touches and what it causes,
    /// for marking the last move in a drawing.
    fn move_view(&self, mv: Self::Move) -> MoveView;
}

/// The most bytes the agent reads from any of its input files (`input.txt`,
/// `playdata.txt`, `calibration.txt`). The largest legal `input.txt` (a 10x10
/// Hinger board of big piles) is a few kilobytes.
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// Reads a text file the agent was given, safely: it is opened without
/// blocking (a FIFO with no writer cannot hang the agent), anything that is
/// not a regular file (FIFO, device such as `/dev/zero`, directory) is
/// refused, at most [`MAX_INPUT_BYTES`] are accepted, bytes that are not
/// UTF-8 are replaced, and a leading UTF-8 byte-order mark is skipped. The
/// errors say what is wrong with the file in words; a missing file keeps
/// the `NotFound` kind.
pub fn read_bounded(path: &Path) -> std::io::Result<String> {
    read_capped(path, MAX_INPUT_BYTES)
}

/// [`read_bounded`] with another cap: the referee reads its `--start`,
/// `--openings` and record files through this, so a FIFO, a device or a
/// runaway file cannot hang it or exhaust its memory either.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.kind() {
            ErrorKind::NotFound => Error::new(ErrorKind::NotFound, "no such file"),
            _ => e,
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "a FIFO, socket or device"
        };
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("it is {what}, not a regular file"),
        ));
    }
    if meta.len() > cap {
        return Err(too_big(cap));
    }
    let mut bytes = Vec::new();
    // Read one byte past the cap so a file that grows meanwhile is caught too.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big(cap));
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(&bytes);
    Ok(String::from_utf8_lossy(body).into_owned())
}

fn too_big(cap: u64) -> std::io::Error {
    let size = if cap >= 1 << 20 {
        format!("{} MiB", cap >> 20)
    } else {
        format!("{} KiB", cap >> 10)
    };
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is larger than {size}, the most read from a file of this kind"),
    )
}

/// The common header of the tagged games (docs/protocol.md): tag, mode, side token,
/// remaining seconds.
#[derive(Clone, Debug)]
pub(crate) struct Header<'a> {
    /// SINGLE or GAME.
    pub mode: Mode,
    /// The side-to-move token as written (e.g. `1`, `R`), with its line number.
    pub side: Line<'a>,
    /// Remaining CPU seconds, validated strictly positive and finite.
    pub remaining: f64,
}

/// Reads the tag line (which must equal `tag`), the mode, the side token and
/// the time from `lines`.
pub(crate) fn parse_header<'a>(lines: &mut Lines<'a>, tag: &str) -> Result<Header<'a>, ParseError> {
    let t = lines.next_line(tag)?;
    if t.text != tag {
        return Err(ParseError::at(
            t.number,
            format!("expected the game tag {tag}, found {:?}", t.text),
        ));
    }
    let mode = parse_mode(lines)?;
    let side = lines.next_line("the side to move")?;
    let remaining = parse_time(lines)?;
    Ok(Header { mode, side, remaining })
}

/// Reads a `SINGLE`/`GAME` line.
pub(crate) fn parse_mode(lines: &mut Lines<'_>) -> Result<Mode, ParseError> {
    let l = lines.next_line("SINGLE or GAME")?;
    Mode::parse(l.text).ok_or_else(|| ParseError::at(l.number, format!("expected SINGLE or GAME, found {:?}", l.text)))
}

/// Reads the remaining-time line: a strictly positive, finite number.
pub(crate) fn parse_time(lines: &mut Lines<'_>) -> Result<f64, ParseError> {
    let l = lines.next_line("the remaining time in seconds")?;
    match l.text.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        Ok(_) => Err(ParseError::at(
            l.number,
            format!(
                "expected a strictly positive remaining time in seconds, found {:?}",
                l.text
            ),
        )),
        Err(_) => Err(ParseError::at(
            l.number,
            format!(
                "expected the remaining time in seconds (a number such as 100.0), found {:?}",
                l.text
            ),
        )),
    }
}

/// Times from here on (about 31 years) are written in whole seconds.
pub const WHOLE_SECONDS_FROM: f64 = 1e9;

/// Formats a remaining time the way the contest writes it (at least one
/// decimal), never above what is left: digits are cut, not rounded
/// (0.0015 is written `0.001`), and a positive time never reads as zero
/// (0.0004 is written `0.0004`; anything below a nanosecond `0.000000001`).
/// Zero or less is `0.0` (an agent with no time left is not asked to move).
/// From [`WHOLE_SECONDS_FROM`] on only whole seconds are written.
pub fn format_time(t: f64) -> String {
    if t.is_nan() || t <= 0.0 {
        return "0.0".into();
    }
    if t >= WHOLE_SECONDS_FROM {
        // Counting thousandths in an f64 is exact only below 2^53: above it
        // `units -= 1.0` below stops changing anything and looped forever
        // (a fuzzed 2.7e117 s). The floor is exact and printed digit for digit.
        return format!("{:.1}", t.floor());
    }
    const MOST: u32 = 9;
    let mut decimals = 3;
    let (units, scale) = loop {
        let scale = 10u64.pow(decimals);
        let mut units = (t * scale as f64).round();
        // What is printed must parse to at most `t`.
        while units > 0.0 && units / scale as f64 > t {
            units -= 1.0;
        }
        if units >= 1.0 || decimals == MOST {
            break ((units as u64).max(1), scale);
        }
        decimals += 1;
    };
    let s = format!("{}.{:0w$}", units / scale, units % scale, w = decimals as usize);
    // Keep "100.0" rather than "100.000" for readability.
    let trimmed = s.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests;

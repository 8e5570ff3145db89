//! Connect Square: Connect Four where a 2x2 square of one's own
//! coins wins, on any board up to 128 bitboard bits.
//!
//! The position is two bitboards in the layout of Pascal Pons' Connect Four
//! solver: column-major, `rows + 1` bits per column (bit `c * (rows + 1) + r`
//! is column `c`, row `r` counted from the bottom), the extra bit per column a
//! sentinel that is always empty. `cur` holds the coins of the side to move,
//! `mask` all coins. The sentinel stops shifts by one from wrapping between
//! columns and lets `mask + bottom` find every column's landing cell at once.
//!
//! - [`grid`]: the brief's functions on a simple grid (the specification).
//! - [`eval`]: the brief's heuristic on bitboards and the agent's evaluation.
//! - [`solver`]: exact values (transposition table + null-window search).
//! - [`player`]: the default agent's move choice and the brief's greedy player.
//!
//! The folder has the layout every game has (`docs/architecture.md`): the
//! rules here ([`Game`]), [`format`](mod@format) (notation, set-up,
//! view), [`eval`] (evaluation and search hints), [`player`] (play policy),
//! [`solver`] (exact values), [`grid`] (the specification) and the tests.

pub mod eval;
pub mod format;
pub mod grid;
pub mod player;
pub mod solver;

use crate::protocol::Player;
use crate::search::{Game, Outcome};
use grid::{Coin, Grid};

/// Bits available for `cols * (rows + 1)`.
pub(crate) const MAX_BITS: usize = crate::protocol::limits::BITBOARD_BITS;
/// The board-size limit in words, for messages.
pub(crate) const SIZE_LIMIT: &str = "columns x (rows + 1) must be at most 128 bitboard bits (e.g. 8x14, 10x11, 15x8)";
// SIZE_LIMIT spells MAX_BITS out (a const string cannot be formatted).
const _: () = assert!(MAX_BITS == 128);
/// Default board of the referee's `generate` (Connect Four's).
pub(crate) const DEFAULT_ROWS: usize = 6;
/// Default board columns.
pub(crate) const DEFAULT_COLS: usize = 7;

/// A column number: the move.
pub type Move = u8;

/// Whether a board of `rows x cols` fits the bitboards (and the game makes
/// sense on it).
pub fn check_size(rows: usize, cols: usize) -> Result<(), String> {
    if rows < 2 || cols < 2 {
        return Err(format!(
            "a board needs at least 2 rows and 2 columns to hold a 2x2 square, got {rows}x{cols}"
        ));
    }
    // Checked: a hostile `18446744073709551615 4` must not wrap to a small product.
    if !crate::protocol::limits::fits_bitboard(cols, rows) {
        return Err(format!("a {rows}x{cols} board is too large: {SIZE_LIMIT}"));
    }
    Ok(())
}

/// Cells where one more coin of `p` would complete a 2x2 square of `p`
/// (including cells already taken and sentinels: callers mask them).
/// `s` is the column stride `rows + 1`. For each corner the new cell can
/// take in the square, the other three cells are looked up by shifts.
#[inline(always)]
pub(crate) fn square_completions(p: u128, s: u32) -> u128 {
    // The new cell x is the square's bottom-left: x+1, x+s, x+s+1 owned.
    let bl = (p >> 1) & (p >> s) & (p >> (s + 1));
    // Bottom-right: x+1, x-s, x-s+1.
    let br = (p >> 1) & (p << s) & (p << (s - 1));
    // Top-left: x-1, x+s, x+s-1.
    let tl = (p << 1) & (p >> s) & (p >> (s - 1));
    // Top-right: x-1, x-s, x-s-1.
    let tr = (p << 1) & (p << s) & (p << (s + 1));
    bl | br | tl | tr
}

/// Bottom-left corners of the complete 2x2 squares of `p`.
#[inline(always)]
pub(crate) fn squares(p: u128, s: u32) -> u128 {
    // A vertical pair at x (x and x+1): the sentinel keeps pairs in a column.
    let v = p & (p >> 1);
    v & (v >> s)
}

/// The game's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Still going.
    Playing,
    /// This seat has a square.
    Won(Player),
    /// The board is full without a square.
    Draw,
}

/// A Connect Square position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectSquare {
    /// Coins of the side to move.
    cur: u128,
    /// All coins.
    mask: u128,
    /// One bit at the bottom cell of every column.
    bottom: u128,
    /// Every playable cell of the board (no sentinels).
    board: u128,
    rows: u8,
    cols: u8,
    stones: u8,
    to_move: Player,
    status: Status,
}

impl ConnectSquare {
    /// The empty board with `first` to move.
    pub fn new(rows: usize, cols: usize, first: Player) -> Result<Self, String> {
        check_size(rows, cols)?;
        let s = rows + 1;
        let mut bottom = 0u128;
        let mut board = 0u128;
        let col_bits = (1u128 << rows) - 1;
        for c in 0..cols {
            bottom |= 1u128 << (c * s);
            board |= col_bits << (c * s);
        }
        Ok(ConnectSquare {
            cur: 0,
            mask: 0,
            bottom,
            board,
            rows: rows as u8,
            cols: cols as u8,
            stones: 0,
            to_move: first,
            status: Status::Playing,
        })
    }

    /// A position from a grid (row 0 at the top) with `to_move` to move.
    /// Errors if the size is unsupported, a coin floats above an empty cell
    /// (the message gives the 0-based grid row and column), or both seats
    /// have a square.
    pub(crate) fn from_grid(g: &Grid, to_move: Player) -> Result<Self, String> {
        let (rows, cols) = (g.rows(), g.cols());
        let mut pos = ConnectSquare::new(rows, cols, to_move)?;
        if g.cells.iter().any(|r| r.len() != cols) {
            return Err("the rows of the board have different lengths".into());
        }
        let s = rows + 1;
        let (mut r_bits, mut y_bits) = (0u128, 0u128);
        for c in 0..cols {
            for i in 0..rows {
                let Some(coin) = g.cells[i][c] else { continue };
                if i + 1 < rows && g.cells[i + 1][c].is_none() {
                    return Err(format!(
                        "row {i} column {c}: a coin above an empty cell (row {}) cannot be there",
                        i + 1
                    ));
                }
                let bit = 1u128 << (c * s + (rows - 1 - i));
                match coin {
                    Coin::R => r_bits |= bit,
                    Coin::Y => y_bits |= bit,
                }
            }
        }
        let mine = if to_move == Player::One { r_bits } else { y_bits };
        pos.cur = mine;
        pos.mask = r_bits | y_bits;
        pos.stones = (r_bits | y_bits).count_ones() as u8;
        let (r_sq, y_sq) = (squares(r_bits, s as u32) != 0, squares(y_bits, s as u32) != 0);
        pos.status = match (r_sq, y_sq) {
            (true, true) => return Err("both R and Y have a 2x2 square: no game reaches this".into()),
            (true, false) => Status::Won(Player::One),
            (false, true) => Status::Won(Player::Two),
            _ if pos.stones as usize == rows * cols => Status::Draw,
            _ => Status::Playing,
        };
        Ok(pos)
    }

    /// The position as the brief's grid.
    pub(crate) fn to_grid(self) -> Grid {
        let mut g = Grid::empty(self.rows(), self.cols());
        let (r_bits, y_bits) = self.coins();
        let s = self.stride() as usize;
        for c in 0..self.cols() {
            for i in 0..self.rows() {
                let bit = 1u128 << (c * s + (self.rows() - 1 - i));
                if r_bits & bit != 0 {
                    g.cells[i][c] = Some(Coin::R);
                } else if y_bits & bit != 0 {
                    g.cells[i][c] = Some(Coin::Y);
                }
            }
        }
        g
    }

    /// R's and Y's coins.
    pub(crate) fn coins(&self) -> (u128, u128) {
        let other = self.cur ^ self.mask;
        match self.to_move {
            Player::One => (self.cur, other),
            Player::Two => (other, self.cur),
        }
    }

    /// Rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows as usize
    }
    /// Columns.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols as usize
    }
    /// Coins on the board.
    #[inline]
    pub fn stones(&self) -> usize {
        self.stones as usize
    }
    /// Cells on the board.
    #[inline]
    pub fn cells(&self) -> usize {
        self.rows() * self.cols()
    }
    /// Bits per column (rows + sentinel).
    #[inline(always)]
    pub(crate) fn stride(&self) -> u32 {
        self.rows as u32 + 1
    }
    /// Coins of the side to move.
    #[inline(always)]
    pub fn current(&self) -> u128 {
        self.cur
    }
    /// Coins of the side not to move.
    #[inline(always)]
    pub fn opponent(&self) -> u128 {
        self.cur ^ self.mask
    }
    /// All coins.
    #[inline(always)]
    pub(crate) fn mask(&self) -> u128 {
        self.mask
    }
    /// All cells of the board.
    #[inline(always)]
    pub(crate) fn board_mask(&self) -> u128 {
        self.board
    }
    /// The game's state.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The seat to move.
    pub fn side(&self) -> Player {
        self.to_move
    }

    /// The cell a coin dropped now in each column would take (one bit per
    /// non-full column).
    #[inline(always)]
    pub fn playable(&self) -> u128 {
        (self.mask + self.bottom) & self.board
    }

    /// Every cell of column `col`.
    #[inline(always)]
    pub fn column_mask(&self, col: usize) -> u128 {
        ((1u128 << self.rows) - 1) << (col as u32 * self.stride())
    }

    /// Whether a coin can go in `col`.
    #[inline]
    pub(crate) fn can_play(&self, col: usize) -> bool {
        col < self.cols() && self.mask & (1u128 << (col as u32 * self.stride() + self.rows as u32 - 1)) == 0
    }

    /// Empty cells where a coin of `p` would complete a square of `p`.
    #[inline(always)]
    pub fn winning_cells(&self, p: u128) -> u128 {
        square_completions(p, self.stride()) & self.board & !self.mask
    }

    /// Drops a coin of the side to move in `col` (which must be playable);
    /// returns the cell it took.
    #[inline]
    pub(crate) fn play_col(&mut self, col: usize) -> u128 {
        debug_assert!(self.can_play(col));
        let cell = self.playable() & self.column_mask(col);
        self.play_cell(cell);
        cell
    }

    /// Drops a coin of the side to move on `cell` (a bit of `playable()`).
    #[inline(always)]
    pub(crate) fn play_cell(&mut self, cell: u128) {
        let mover = self.cur | cell;
        self.cur ^= self.mask; // the opponent's coins become the side to move's
        self.mask |= cell;
        self.stones += 1;
        let just_moved = self.to_move;
        self.to_move = just_moved.other();
        if squares(mover, self.stride()) != 0 {
            self.status = Status::Won(just_moved);
        } else if self.stones as usize == self.cells() {
            self.status = Status::Draw;
        }
    }

    /// The column of a single-bit cell.
    #[inline(always)]
    pub(crate) fn column_of(&self, cell: u128) -> usize {
        (cell.trailing_zeros() / self.stride()) as usize
    }

    /// Exact key of the position for the side to move: `cur + mask` is
    /// unique per position (Pons), column by column without carries.
    #[inline(always)]
    pub fn key(&self) -> u128 {
        self.cur + self.mask
    }

    /// The key of the left-right mirror image.
    pub(crate) fn mirror_key(&self) -> u128 {
        let k = self.key();
        let s = self.stride();
        let col = (1u128 << s) - 1;
        let w = self.cols as u32;
        let mut m = 0u128;
        for c in 0..w {
            m |= ((k >> (c * s)) & col) << ((w - 1 - c) * s);
        }
        m
    }
}

/// Folds a 128-bit key into a well-mixed 64-bit hash.
#[inline(always)]
pub(crate) fn hash128(k: u128) -> u64 {
    let lo = k as u64;
    let hi = (k >> 64) as u64;
    crate::search::mix::finalise(lo ^ hi.wrapping_mul(crate::search::mix::GOLDEN).rotate_left(29))
}

impl Game for ConnectSquare {
    type Move = Move;

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.status != Status::Playing {
            return;
        }
        let mut p = self.playable();
        while p != 0 {
            let cell = p & p.wrapping_neg();
            out.push(self.column_of(cell) as Move);
            p ^= cell;
        }
    }

    fn play(&mut self, mv: Move) {
        self.play_col(mv as usize);
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.status {
            Status::Playing => None,
            Status::Draw => Some(Outcome::Draw),
            Status::Won(p) if p == self.to_move => Some(Outcome::Win),
            Status::Won(_) => Some(Outcome::Loss),
        }
    }

    fn hash(&self) -> u64 {
        // The key alone leaves the empty board's side ambiguous; mixing the
        // seat in keeps hashes of different positions apart for playdata.
        hash128(self.key()) ^ (self.to_move as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

/// The top-left cell (row, column) of a 2x2 square of `coin`, if there is one.
fn square_of(g: &Grid, coin: Coin) -> Option<(usize, usize)> {
    let has = |r: usize, c: usize| g.cells[r][c] == Some(coin);
    (0..g.rows().saturating_sub(1))
        .flat_map(|r| (0..g.cols().saturating_sub(1)).map(move |c| (r, c)))
        .find(|&(r, c)| has(r, c) && has(r, c + 1) && has(r + 1, c) && has(r + 1, c + 1))
}

#[cfg(test)]
mod tests;

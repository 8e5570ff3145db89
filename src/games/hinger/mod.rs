//! Hinger: two players remove one counter at a time from a shared
//! board; moving on a hinger wins, emptying the board without one draws.
//!
//! - [`board`]: the bitboard rules (regions, hingers, move cost).
//! - [`sum`]: the exact solver the agent plays with (`agent hinger solve`):
//!   the game as a sum of independent regions, normal play plus parity.
//! - [`solver`]: the plain exact win/draw/loss solver (`agent hinger win`),
//!   kept as the simple oracle the tests check [`sum`] against.
//!
//! The folder has the layout every game has (`docs/architecture.md`): the
//! rules here ([`Game`]), [`format`](mod@format) (notation, set-up,
//! view), [`eval`] (evaluation and search hints), [`player`] (play policy),
//! and the tests.
//!
//! Play reduces to "safe" moves: a side that can move on a hinger wins at
//! once, and a move that leaves a hinger hands the opponent that win. So the
//! evaluation counts safe moves, and the exact solver only explores them.

pub mod board;
pub mod eval;
pub mod format;
pub mod player;
pub mod solver;
pub mod sum;

use crate::protocol::{Lines, Notation, ParseError, Player};
use crate::search::{Game, Outcome};
pub use board::{iter_bits, Board};
use rand::rngs::SmallRng;
use rand::Rng;

/// Hash key of "player two to move".
const SIDE_KEY: u64 = 0x6A09_E667_F3BC_C908;

/// A Hinger position: the board, the side to move, and whether the last move
/// was on a hinger (the game is then over and its mover has won).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hinger {
    board: Board,
    to_move: Player,
    /// The player who moved on a hinger, if one did.
    winner: Option<Player>,
    /// Zobrist-style hash of the piles (side not included).
    zob: u64,
}

/// A move: the bit index of the cell to take a counter from.
pub(crate) type HingerMove = u8;

impl Hinger {
    /// A position with `to_move` to play on `board`.
    pub fn new(board: Board, to_move: Player) -> Hinger {
        let zob = iter_bits(board.active()).fold(0, |h, i| h ^ board::mix(i, board.pile(i)));
        Hinger {
            board,
            to_move,
            winner: None,
            zob,
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The player who moved on a hinger, if the game ended that way.
    pub fn winner(&self) -> Option<Player> {
        self.winner
    }

    /// The move at `(r, c)` (no legality check).
    pub(crate) fn move_at(&self, r: usize, c: usize) -> HingerMove {
        self.board.index(r, c) as HingerMove
    }

    /// `(row, col)` of a move.
    pub(crate) fn coords(&self, mv: HingerMove) -> (usize, usize) {
        self.board.coords(mv as usize)
    }

    /// A uniformly random binary board of `rows x cols` where each cell is
    /// active with probability `density`.
    pub fn random_board(rows: usize, cols: usize, density: f64, rng: &mut SmallRng) -> Result<Board, String> {
        let mut b = Board::new(rows, cols)?;
        for r in 0..rows {
            for c in 0..cols {
                if rng.gen_bool(density) {
                    b.set(r, c, 1)?;
                }
            }
        }
        Ok(b)
    }
}

/// Reads a `rows cols` line and the grid below it from `lines`.
pub(crate) fn parse_board(lines: &mut Lines<'_>) -> Result<Board, ParseError> {
    let dims = lines.next_line("the board size `rows cols`")?;
    let rc = dims.parse_sizes(
        2,
        "the board size `rows cols` (two positive integers)",
        board::SIZE_LIMIT,
    )?;
    let (rows, cols) = (rc[0], rc[1]);
    let mut board = Board::new(rows, cols).map_err(|e| dims.error(e))?;
    for r in 0..rows {
        // Rows and columns are 0-based in messages, as in the move format.
        let l = lines.next_line(&format!("board row {r} of {rows}"))?;
        let toks: Vec<&str> = l.tokens().collect();
        if toks.len() != cols {
            return Err(l.error(format!(
                "expected board row {r} of {rows} with {cols} pile sizes, found {} values in {:?}",
                toks.len(),
                l.text
            )));
        }
        for (c, t) in toks.iter().enumerate() {
            // All digits but too big for u32 is a pile above the maximum, not a typo.
            let p: u32 = match t.parse::<u32>() {
                Ok(p) => p,
                Err(_) if t.bytes().all(|b| b.is_ascii_digit()) => board::MAX_PILE + 1,
                Err(_) => {
                    return Err(l.error(format!(
                        "expected a non-negative integer pile size at row {r}, column {c}, found {t:?}"
                    )))
                }
            };
            if p > board::MAX_PILE {
                return Err(l.error(format!(
                    "the pile at row {r}, column {c} is {t}, more than the supported maximum of {} counters",
                    board::MAX_PILE
                )));
            }
            board.set(r, c, p).map_err(|e| l.error(e))?;
        }
    }
    Ok(board)
}

/// Reads a board file: either a bare `rows cols` line plus grid, or a whole
/// Hinger `input.txt` (whose side to move is then returned too).
pub fn parse_board_file(text: &str) -> Result<(Board, Option<Player>), ParseError> {
    let mut probe = Lines::new(text);
    if probe.next().is_some_and(|l| l.text == "HINGER") {
        let input = Hinger::parse_input(text)?;
        return Ok((input.state.board, Some(input.state.to_move)));
    }
    let mut lines = Lines::new(text);
    Ok((parse_board(&mut lines)?, None))
}

impl Game for Hinger {
    type Move = HingerMove;

    fn legal_moves(&self, out: &mut Vec<HingerMove>) {
        if self.winner.is_some() {
            return;
        }
        out.extend(iter_bits(self.board.active()).map(|i| i as HingerMove));
    }

    fn play(&mut self, mv: HingerMove) {
        let i = mv as usize;
        if self.board.is_hinger(i) {
            self.winner = Some(self.to_move);
        }
        let p = self.board.pile(i);
        self.zob ^= board::mix(i, p);
        if p > 1 {
            self.zob ^= board::mix(i, p - 1);
        }
        self.board.remove(i);
        self.to_move = self.to_move.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.winner.is_some() {
            Some(Outcome::Loss)
        } else if self.board.active() == 0 {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        let side = if self.to_move == Player::Two { SIDE_KEY } else { 0 };
        let over = if self.winner.is_some() {
            SIDE_KEY.rotate_left(17)
        } else {
            0
        };
        self.zob ^ side ^ over
    }
}

#[cfg(test)]
mod tests;

//! Exact values of Connect Square positions, with the techniques of Pascal
//! Pons' Connect Four solver where they carry over: bitboards (see the
//! module doc of [`super`]), negamax with null-window searches, a
//! transposition table of lower and upper bounds under a mirror-canonical
//! key, only non-losing moves searched, immediate wins and forced blocks
//! found by shifts, and moves ordered by the threats they create.
//!
//! Scores, for the side to move, with `n` cells on the board: a win whose
//! winning coin is the `m`-th coin of the game scores `n + 1 - m` (faster
//! wins score more), a loss the negation, a draw (full board) 0. The sign is
//! the game's result; `Solver::solve` settles only the sign, with two
//! null-window searches at 0 (is it a win? is it a loss?), which is what play
//! needs. [`Solver::solve_exact`] then narrows the window on the magnitude to
//! get the plies to the end as well.
//!
//! Follow-up bounds the search beyond Connect Four's tricks. A player who
//! answers every coin of the opponent directly on top of it (and plays
//! anywhere when that coin filled its column) never lets the opponent own
//! two vertically adjacent coins except through pairs the opponent already
//! has, since each new coin of the opponent gets a foreign coin on top. A
//! 2x2 square needs two vertical pairs, so:
//! - the side to move X cannot win if `X | playable` holds no square (the
//!   other side follows up from now: X's coins stay within `X | playable`'s
//!   vertical pairs, which such answers never extend); its score is at most 0;
//! - the side not to move Y cannot win if some legal move c of X leaves
//!   `Y | (playable - c)` without a square (X plays c and then follows up);
//!   the score is at least 0.
//!
//! On the empty board both hold (no pairs at all), so every empty board is a
//! draw: the first player plays anywhere and then follows up, the second
//! follows up from the start. The search proper is for positions that already
//! hold pairs. [`Solver::set_follow_up`] turns the two bounds off to measure
//! the search alone.
//!
//! Every threat (an empty cell completing three own coins of a square) is
//! playable at once, since its square's other cell in the column is below it
//! and taken; so a threat must be blocked at once and two lose, and no move
//! can "undercut" an opponent threat as in Connect Four.

mod table;

use super::{hash128, square_completions, squares, ConnectSquare, Status};
use crate::clock::CpuTimer;
use arrayvec::ArrayVec;
use table::{Table, NONE_HI, NONE_LO};

/// The game-theoretic result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins with best play.
    Win,
    /// Nobody can force a win: the board fills up.
    Draw,
    /// The side to move loses with best play.
    Loss,
}

impl Verdict {
    /// "win", "draw" or "loss".
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Draw => "draw",
            Verdict::Loss => "loss",
        }
    }

    fn of_score(score: i32) -> Verdict {
        match score.signum() {
            1 => Verdict::Win,
            -1 => Verdict::Loss,
            _ => Verdict::Draw,
        }
    }
}

/// An exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// Win, draw or loss for the side to move.
    pub verdict: Verdict,
    /// Plies (coins) still played before the game ends with best play (the
    /// winner as fast as it can, the loser as slowly as it can); known for
    /// draws (the board fills) and after [`Solver::solve_exact`].
    pub plies: Option<usize>,
}

impl Value {
    /// The value of the exact `score` at `pos`.
    fn from_score(pos: &ConnectSquare, score: i32) -> Value {
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        let end = match score.signum() {
            1 => n + 1 - score,
            -1 => n + 1 + score,
            _ => n,
        };
        Value {
            verdict: Verdict::of_score(score),
            plies: Some((end - m).max(0) as usize),
        }
    }

    /// The value of a score known only by its sign.
    fn from_sign(pos: &ConnectSquare, sign: i32) -> Value {
        if sign == 0 {
            return Value::from_score(pos, 0);
        }
        Value {
            verdict: Verdict::of_score(sign),
            plies: None,
        }
    }
}

/// Nodes between looks at the CPU clock.
const CHECK_EVERY: u64 = 4096;

/// Masks of one board size, computed once per size.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Geometry {
    rows: usize,
    cols: usize,
    /// Bottom-left corners of every 2x2 window.
    corners: u128,
    /// Whether keys fit 64 bits (else the table keeps a 64-bit hash).
    exact_keys: bool,
}

impl Geometry {
    fn of(pos: &ConnectSquare) -> Geometry {
        let (rows, cols, s) = (pos.rows(), pos.cols(), pos.stride() as usize);
        let mut corners = 0u128;
        for c in 0..cols.saturating_sub(1) {
            for r in 0..rows.saturating_sub(1) {
                corners |= 1u128 << (c * s + r);
            }
        }
        Geometry {
            rows,
            cols,
            corners,
            exact_keys: cols * s <= 64,
        }
    }
}

/// The solver; keeps its table between calls on positions of one board
/// size (it clears itself when the size changes).
pub struct Solver {
    /// The transposition table.
    table: Table,
    /// Positions searched so far (all calls).
    pub nodes: u64,
    timer: CpuTimer,
    limit: f64,
    stopped: bool,
    geo: Geometry,
    follow_up: bool,
}

impl Solver {
    /// A solver with `2^bits` table entries (16 bytes each).
    pub fn new(bits: u32) -> Solver {
        Solver {
            table: Table::new(bits),
            nodes: 0,
            timer: CpuTimer::start(),
            limit: f64::INFINITY,
            stopped: false,
            geo: Geometry::default(),
            follow_up: true,
        }
    }

    /// Whether the follow-up bounds of the module doc prune the search (on
    /// by default; off only to measure the search alone). Clears the table.
    pub fn set_follow_up(&mut self, on: bool) {
        self.follow_up = on;
        self.clear();
    }

    /// A table size (bits) that fits a search of `seconds` at a few million
    /// nodes per second, within `12..=max_bits`.
    pub fn bits_for(seconds: f64, max_bits: u32) -> u32 {
        let nodes = (seconds.max(0.0) * 4.0e6).max(1.0);
        (nodes.log2().ceil() as u32).clamp(12, max_bits)
    }

    #[cfg(test)]
    /// Win, draw or loss of `pos` (plies only for draws), or `None` if
    /// `seconds` of CPU (from now) ran out.
    pub(crate) fn solve(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<Value> {
        self.start(pos, seconds);
        let sign = self.sign(pos)?;
        Some(Value::from_sign(pos, sign))
    }

    /// The exact value with the plies to the end, or `None` if `seconds` ran
    /// out.
    pub fn solve_exact(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<Value> {
        self.start(pos, seconds);
        let score = self.exact_score(pos)?;
        Some(Value::from_score(pos, score))
    }

    /// Win/draw/loss and a move that keeps it (a column; `None` when the
    /// game is over), or `None` if time ran out.
    pub fn best_move(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<(Value, Option<usize>)> {
        self.start(pos, seconds);
        let sign = self.sign(pos)?;
        // A child at most this keeps the sign (a loss: any move, the longest
        // resistance is not searched for).
        let bound = match sign {
            1 => -1,
            0 => 0,
            _ => NONE_HI,
        };
        let mv = self.move_with_child_at_most(pos, bound)?;
        Some((Value::from_sign(pos, sign), mv))
    }

    /// The exact value and a move that keeps it: the fastest win, the
    /// slowest loss. `None` if time ran out.
    pub fn best_move_exact(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<(Value, Option<usize>)> {
        self.start(pos, seconds);
        let score = self.exact_score(pos)?;
        let mv = self.move_with_child_at_most(pos, -score)?;
        Some((Value::from_score(pos, score), mv))
    }

    /// Whether dropping in `col` keeps a score of at least `target` for the
    /// side to move (`None` if `seconds` ran out). `col` must be playable.
    /// With `target` 1 the question is "does it win", with 0 "does it not
    /// lose".
    pub(crate) fn move_reaches(&mut self, pos: &ConnectSquare, col: usize, target: i32, seconds: f64) -> Option<bool> {
        self.start(pos, seconds);
        let mut child = *pos;
        child.play_col(col);
        self.child_at_most(&child, -target)
    }

    /// Whether the value of `pos` for its side to move is at least
    /// `target` (`None` if `seconds` ran out).
    pub(crate) fn value_at_least(&mut self, pos: &ConnectSquare, target: i32, seconds: f64) -> Option<bool> {
        self.start(pos, seconds);
        Some(!self.at_most(pos, target - 1)?)
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    fn start(&mut self, pos: &ConnectSquare, seconds: f64) {
        self.timer = CpuTimer::start();
        self.limit = seconds;
        self.stopped = false;
        let geo = Geometry::of(pos);
        if geo != self.geo {
            // Keys of different sizes mean different positions.
            self.clear();
            self.geo = geo;
        }
    }

    /// Score of a finished position for its side to move.
    fn terminal(pos: &ConnectSquare) -> Option<i32> {
        let n = pos.cells() as i32;
        match pos.status() {
            Status::Playing => None,
            Status::Draw => Some(0),
            // The last coin won: the side to move has lost, `m` coins in.
            Status::Won(_) => Some(-(n + 1 - pos.stones() as i32)),
        }
    }

    /// Whether the score of `pos` is at most `t` (one null-window search).
    fn at_most(&mut self, pos: &ConnectSquare, t: i32) -> Option<bool> {
        if let Some(v) = Self::terminal(pos) {
            return Some(v <= t);
        }
        let r = self.negamax(pos, t, t + 1);
        (!self.stopped).then_some(r <= t)
    }

    fn child_at_most(&mut self, child: &ConnectSquare, t: i32) -> Option<bool> {
        self.at_most(child, t)
    }

    /// The sign of the score: is it at most 0 (not a win)? then at least 0
    /// (not a loss)?
    fn sign(&mut self, pos: &ConnectSquare) -> Option<i32> {
        if !self.at_most(pos, 0)? {
            return Some(1);
        }
        Some(if self.at_most(pos, -1)? { -1 } else { 0 })
    }

    /// The exact score: the sign, then a binary search on the magnitude.
    fn exact_score(&mut self, pos: &ConnectSquare) -> Option<i32> {
        if let Some(v) = Self::terminal(pos) {
            return Some(v);
        }
        let left = (pos.cells() - pos.stones()) as i32;
        let (mut lo, mut hi) = match self.sign(pos)? {
            1 => (1, left),
            -1 => (-left, -1),
            _ => return Some(0),
        };
        while lo < hi {
            let med = lo + (hi - lo).div_euclid(2);
            if self.at_most(pos, med)? {
                hi = med;
            } else {
                lo = med + 1;
            }
        }
        Some(lo)
    }

    /// A column whose child scores at most `t` (so the move scores at least
    /// `-t`), in the search's order; the first legal one if none does (or
    /// `None` if the game is over). `None` inside when time ran out.
    fn move_with_child_at_most(&mut self, pos: &ConnectSquare, t: i32) -> Option<Option<usize>> {
        if pos.status() != Status::Playing {
            return Some(None);
        }
        let playable = pos.playable();
        let win_now = pos.winning_cells(pos.current()) & playable;
        if win_now != 0 {
            return Some(Some(pos.column_of(win_now & win_now.wrapping_neg())));
        }
        let first = pos.column_of(playable & playable.wrapping_neg());
        for cell in self.ordered_moves(pos, playable, 0) {
            let mut child = *pos;
            child.play_cell(cell);
            if self.child_at_most(&child, t)? {
                return Some(Some(pos.column_of(cell)));
            }
        }
        Some(Some(first))
    }

    #[inline(always)]
    fn slot(&self, pos: &ConnectSquare) -> (usize, u64) {
        let k = pos.key().min(pos.mirror_key());
        let h = hash128(k);
        let key = if self.geo.exact_keys { k as u64 } else { h };
        // +1 keeps every real key off 0, the mark of an empty slot (no
        // column's key part is all ones, so the exact keys never wrap).
        (self.table.home(h), key.wrapping_add(1))
    }

    /// Whether the side not to move (`y`) is held to at most a draw: some
    /// cell of `moves` leaves `y | playable` without a square once taken.
    #[inline(always)]
    fn follow_up_holds(y: u128, playable: u128, moves: u128, s: u32) -> bool {
        if squares(y | playable, s) == 0 {
            return true;
        }
        let mut m = moves;
        while m != 0 {
            let c = m & m.wrapping_neg();
            m ^= c;
            if squares(y | (playable ^ c), s) == 0 {
                return true;
            }
        }
        false
    }

    /// `moves` (cells) best first: the table's move, then by threats
    /// created (Pons' ordering), then by the mover's open windows through
    /// the cell, then centre columns.
    fn ordered_moves(&self, pos: &ConnectSquare, moves: u128, tt_move: u8) -> ArrayVec<u128, 64> {
        let mut scored: ArrayVec<(i32, u128), 64> = ArrayVec::new();
        let w = pos.cols() as i32;
        let s = pos.stride();
        let me = pos.current();
        let opp = pos.opponent();
        let free = pos.board_mask() & !pos.mask();
        let blocked = opp | (opp >> 1) | (opp >> s) | (opp >> (s + 1));
        let live = self.geo.corners & !blocked;
        let mut m = moves;
        while m != 0 {
            let cell = m & m.wrapping_neg();
            m ^= cell;
            let col = pos.column_of(cell) as i32;
            let threats = (square_completions(me | cell, s) & free & !cell).count_ones() as i32;
            // Windows (by bottom-left corner) of the mover's that hold the cell.
            let around = cell | (cell >> 1) | (cell >> s) | (cell >> (s + 1));
            let windows = (live & around).count_ones() as i32;
            let mut score = threats * 1024 + windows * 32 + (w - (2 * col - (w - 1)).abs());
            if tt_move != 0 && cell.trailing_zeros() + 1 == tt_move as u32 {
                score = i32::MAX;
            }
            scored.push((score, cell));
        }
        // Insertion sort, best first: at most a few dozen moves.
        for i in 1..scored.len() {
            let mut j = i;
            while j > 0 && scored[j - 1].0 < scored[j].0 {
                scored.swap(j - 1, j);
                j -= 1;
            }
        }
        scored.iter().map(|&(_, c)| c).collect()
    }

    /// Fail-soft negamax: a result `r <= alpha` bounds the score from
    /// above, `r >= beta` from below, anything between is exact. Requires
    /// a position that is still playing.
    fn negamax(&mut self, pos: &ConnectSquare, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) && self.timer.elapsed() >= self.limit {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let mut moves = match Self::threats(pos) {
            Ok(moves) => moves,
            Err(score) => return score,
        };
        if let Err(score) = self.narrow_by_bounds(pos, moves, &mut alpha, &mut beta) {
            return score;
        }
        let (idx, key) = self.slot(pos);
        let tt_move = match self.table.probe(idx, key, &mut alpha, &mut beta) {
            Ok(tt_move) => tt_move,
            Err(score) => return score,
        };
        // A left-right symmetric position: the mirrored moves are the same.
        let playable = pos.playable();
        if moves == playable && pos.key() == pos.mirror_key() {
            let half = pos.cols().div_ceil(2);
            moves &= (1u128 << (half as u32 * pos.stride())) - 1;
        }
        let alpha0 = alpha;
        let nodes0 = self.nodes;
        let (best, best_cell) = self.search_moves(pos, moves, tt_move, alpha, beta);
        if self.stopped {
            return 0;
        }
        let (lo, hi) = if best >= beta {
            (best, NONE_HI)
        } else if best > alpha0 {
            (best, best)
        } else {
            (NONE_LO, best)
        };
        let mv = if best > alpha0 {
            best_cell.trailing_zeros() as u8 + 1
        } else {
            0
        };
        let work = (64 - (self.nodes - nodes0).leading_zeros()) as u8;
        self.table.store(idx, key, lo, hi, mv, work);
        best
    }

    /// The moves worth searching (every playable cell, or the one forced
    /// block), or `Err` with the exact score when a threat decides the game:
    /// ours wins at once, two of the opponent's cannot both be blocked.
    #[inline(always)]
    fn threats(pos: &ConnectSquare) -> Result<u128, i32> {
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        let playable = pos.playable();
        if pos.winning_cells(pos.current()) & playable != 0 {
            return Err(n - m); // our coin m+1 wins (every threat is playable)
        }
        let opp_threats = pos.winning_cells(pos.opponent()) & playable;
        if opp_threats == 0 {
            return Ok(playable);
        }
        if opp_threats & (opp_threats - 1) != 0 {
            return Err(-(n - m - 1)); // two threats: the opponent's coin m+2 wins
        }
        Ok(opp_threats) // the forced block
    }

    /// Narrows the window to the scores still possible; `Err` with the
    /// fail-soft result when the window closes. We cannot win with coin
    /// m+1, nor the opponent with m+2 (a block creates no threat of its
    /// owner's opponent); the follow-up bounds may cap either side at a draw.
    #[inline(always)]
    fn narrow_by_bounds(&self, pos: &ConnectSquare, moves: u128, alpha: &mut i32, beta: &mut i32) -> Result<(), i32> {
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        let s = pos.stride();
        let playable = pos.playable();
        let mut max = (n - m - 2).max(0);
        let mut min = (-(n - m - 3)).min(0);
        if self.follow_up {
            if squares(pos.current() | playable, s) == 0 {
                max = 0;
            }
            if *alpha < 0 && Self::follow_up_holds(pos.opponent(), playable, moves, s) {
                min = 0;
            }
        }
        if *beta > max {
            *beta = max;
            if *alpha >= *beta {
                return Err(*beta);
            }
        }
        if *alpha < min {
            *alpha = min;
            if *alpha >= *beta {
                return Err(*alpha);
            }
        }
        Ok(())
    }

    /// Searches `moves` best first within `alpha..beta`: the best score and
    /// the cell that reached it (meaningless once `self.stopped`).
    #[inline(always)]
    fn search_moves(&mut self, pos: &ConnectSquare, moves: u128, tt_move: u8, mut alpha: i32, beta: i32) -> (i32, u128) {
        let n = pos.cells() as i32;
        let mut best = i32::MIN;
        let mut best_cell = 0u128;
        for cell in self.ordered_moves(pos, moves, tt_move) {
            let mut child = *pos;
            child.play_cell(cell);
            let v = if child.stones() as i32 == n {
                0 // our coin filled the board without a square (a win was ruled out above)
            } else {
                -self.negamax(&child, -beta, -alpha)
            };
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                best_cell = cell;
            }
            if v >= beta {
                break;
            }
            if v > alpha {
                alpha = v;
            }
        }
        (best, best_cell)
    }

}

#[cfg(test)]
mod tests;

//! Exact values of Connect Square positions, after Pascal Pons' Connect
//! Four solver: negamax with alpha-beta on the bitboards, a transposition
//! table holding both bounds under a mirror-canonical key, and a null-window
//! (binary) search on the score.
//!
//! Scores, for the side to move, with `n` cells on the board: a win whose
//! winning coin is the `m`-th coin of the game scores `n + 1 - m` (faster
//! wins score more), a loss the negation, a draw (full board) 0. So the
//! number of plies to the end follows from the score.

use super::{hash128, ConnectSquare, Status};
use crate::clock::CpuTimer;
use arrayvec::ArrayVec;

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

/// An exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// Win, draw or loss for the side to move.
    pub verdict: Verdict,
    /// Plies (coins) still played before the game ends with best play: the
    /// winner as fast as it can, the loser as slowly as it can.
    pub plies: usize,
    /// The raw score (see the module doc).
    pub score: i32,
}

impl Value {
    /// The value of `score` at `pos`.
    pub fn from_score(pos: &ConnectSquare, score: i32) -> Value {
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        let (verdict, end) = match score.signum() {
            1 => (Verdict::Win, n + 1 - score),
            -1 => (Verdict::Loss, n + 1 + score),
            _ => (Verdict::Draw, n),
        };
        Value {
            verdict,
            plies: (end - m).max(0) as usize,
            score,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    lo: i16,
    hi: i16,
}

/// Nodes between looks at the CPU clock.
const CHECK_EVERY: u64 = 4096;

/// The solver; keeps its table between calls on positions of one board size.
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    /// Positions searched so far (all calls).
    pub nodes: u64,
    timer: CpuTimer,
    limit: f64,
    stopped: bool,
    exact_keys: bool,
}

const NONE_LO: i16 = i16::MIN;
const NONE_HI: i16 = i16::MAX;

impl Solver {
    /// A solver with `2^bits` table entries (16 bytes each).
    pub fn new(bits: u32) -> Solver {
        let n = 1usize << bits.clamp(10, 28);
        Solver {
            table: vec![Entry::default(); n],
            mask: n - 1,
            nodes: 0,
            timer: CpuTimer::start(),
            limit: f64::INFINITY,
            stopped: false,
            exact_keys: true,
        }
    }

    /// A table size (bits) that fits a search of `seconds` at a few million
    /// nodes per second, within `12..=max_bits`.
    pub fn bits_for(seconds: f64, max_bits: u32) -> u32 {
        let nodes = (seconds.max(0.0) * 4.0e6).max(1.0);
        (nodes.log2().ceil() as u32).clamp(12, max_bits)
    }

    /// Exact value of `pos`, or `None` if `seconds` of CPU (from now) ran out.
    pub fn solve(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<Value> {
        self.start(pos, seconds);
        let score = self.solve_score(pos)?;
        Some(Value::from_score(pos, score))
    }

    /// Exact value and a best move (a column; `None` when the game is over),
    /// or `None` if time ran out.
    pub fn best_move(&mut self, pos: &ConnectSquare, seconds: f64) -> Option<(Value, Option<usize>)> {
        self.start(pos, seconds);
        let score = self.solve_score(pos)?;
        let value = Value::from_score(pos, score);
        if pos.status() != Status::Playing {
            return Some((value, None));
        }
        let playable = pos.playable();
        let win_now = pos.winning_cells(pos.current()) & playable;
        if win_now != 0 {
            return Some((value, Some(pos.column_of(win_now & win_now.wrapping_neg()))));
        }
        // The child that holds the score: -child >= score, checked with one
        // null window each (cheap with the table filled by the solve).
        let mut fallback = None;
        for (_, cell) in self.ordered_moves(pos, playable) {
            let mut child = *pos;
            child.play_cell(cell);
            let col = pos.column_of(cell);
            fallback.get_or_insert(col);
            let v = match child.status() {
                Status::Playing => {
                    let r = self.negamax(&child, -score, -score + 1);
                    if self.stopped {
                        return None;
                    }
                    if r <= -score {
                        -score // child <= -score: this move reaches the value
                    } else {
                        continue;
                    }
                }
                Status::Draw => 0,
                Status::Won(_) => unreachable!("wins were taken above"),
            };
            if v >= score {
                return Some((value, Some(col)));
            }
        }
        // Every move loses at once (or only the draw is left): any legal one.
        let any = fallback.or_else(|| (playable != 0).then(|| pos.column_of(playable & playable.wrapping_neg())));
        Some((value, any))
    }

    /// Whether dropping in `col` keeps a score of at least `target` for the
    /// side to move (`None` if `seconds` ran out). `col` must be playable.
    pub fn move_reaches(&mut self, pos: &ConnectSquare, col: usize, target: i32, seconds: f64) -> Option<bool> {
        self.start(pos, seconds);
        let mut child = *pos;
        child.play_col(col);
        let n = pos.cells() as i32;
        let v = match child.status() {
            Status::Won(_) => return Some(n - pos.stones() as i32 >= target),
            Status::Draw => return Some(0 >= target),
            Status::Playing => self.negamax(&child, -target, -target + 1),
        };
        if self.stopped {
            return None;
        }
        Some(v <= -target)
    }

    /// Whether the value of `pos` for its side to move is at least
    /// `target` (`None` if `seconds` ran out).
    pub fn value_at_least(&mut self, pos: &ConnectSquare, target: i32, seconds: f64) -> Option<bool> {
        self.start(pos, seconds);
        let n = pos.cells() as i32;
        let v = match pos.status() {
            Status::Won(_) => return Some(-(n + 1 - pos.stones() as i32) >= target),
            Status::Draw => return Some(0 >= target),
            Status::Playing => self.negamax(pos, target - 1, target),
        };
        if self.stopped {
            return None;
        }
        Some(v >= target)
    }

    fn start(&mut self, pos: &ConnectSquare, seconds: f64) {
        self.timer = CpuTimer::start();
        self.limit = seconds;
        self.stopped = false;
        // Beyond 64 bits the table keeps a 64-bit hash of the key: a wrong
        // hit needs a full 64-bit collision.
        let exact = pos.cols() * pos.stride() as usize <= 64;
        if exact != self.exact_keys {
            self.clear();
            self.exact_keys = exact;
        }
    }

    /// Forgets everything (call before switching board sizes).
    pub fn clear(&mut self) {
        for e in self.table.iter_mut() {
            *e = Entry::default();
        }
    }

    fn solve_score(&mut self, pos: &ConnectSquare) -> Option<i32> {
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        match pos.status() {
            Status::Draw => return Some(0),
            // The last coin won: the side to move has lost, `m` coins in.
            Status::Won(_) => return Some(-(n + 1 - m)),
            Status::Playing => {}
        }
        let (mut lo, mut hi) = (-(n - m), n - m);
        while lo < hi {
            let mut med = lo + (hi - lo).div_euclid(2);
            // Probe near zero first: the win/draw/loss split is the cheap,
            // informative part.
            if med <= 0 && lo / 2 < med {
                med = lo / 2;
            } else if med >= 0 && hi / 2 > med {
                med = hi / 2;
            }
            let r = self.negamax(pos, med, med + 1);
            if self.stopped {
                return None;
            }
            if r <= med {
                hi = r;
            } else {
                lo = r;
            }
        }
        Some(lo)
    }

    #[inline(always)]
    fn slot(&self, pos: &ConnectSquare) -> (usize, u64) {
        let k = pos.key().min(pos.mirror_key());
        let key = if self.exact_keys { k as u64 } else { hash128(k) };
        let idx = (hash128(k) as usize) & self.mask;
        // +1 keeps every real key off 0, the mark of an empty slot (no
        // column's key part is all ones, so the exact keys never wrap).
        (idx, key.wrapping_add(1))
    }

    /// Non-losing moves of the side to move that cannot win at once, best
    /// first: by threats created (Pons' ordering), then centre columns.
    fn ordered_moves(&self, pos: &ConnectSquare, moves: u128) -> ArrayVec<(i32, u128), 64> {
        let mut out: ArrayVec<(i32, u128), 64> = ArrayVec::new();
        let w = pos.cols() as i32;
        let s = pos.stride();
        let me = pos.current();
        let mut m = moves;
        while m != 0 {
            let cell = m & m.wrapping_neg();
            m ^= cell;
            let col = pos.column_of(cell) as i32;
            let after = super::square_completions(me | cell, s) & pos.board_mask() & !(pos.mask() | cell);
            let score = after.count_ones() as i32 * 256 + (w - (2 * col - (w - 1)).abs());
            out.push((score, cell));
        }
        // Insertion sort, best first: at most a few dozen moves.
        for i in 1..out.len() {
            let mut j = i;
            while j > 0 && out[j - 1].0 < out[j].0 {
                out.swap(j - 1, j);
                j -= 1;
            }
        }
        out
    }

    /// Fail-soft negamax: a result `r <= alpha` bounds the value from above,
    /// `r >= beta` from below, anything between is exact. Requires a
    /// position that is still playing.
    fn negamax(&mut self, pos: &ConnectSquare, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) && self.timer.elapsed() >= self.limit {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let n = pos.cells() as i32;
        let m = pos.stones() as i32;
        let playable = pos.playable();
        if pos.winning_cells(pos.current()) & playable != 0 {
            return n - m; // our coin m+1 wins
        }
        if m == n {
            return 0;
        }
        let opp_threats = pos.winning_cells(pos.opponent());
        let forced = opp_threats & playable;
        let mut moves = playable & !(opp_threats >> 1);
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return -(n - m - 1); // two threats: the opponent's coin m+2 wins
            }
            moves &= forced;
        }
        if moves == 0 {
            return -(n - m - 1);
        }
        // We cannot win with coin m+1, nor the opponent with m+2.
        let max = (n - m - 2).max(0);
        let min = (-(n - m - 3)).min(0);
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let (idx, key) = self.slot(pos);
        let e = self.table[idx];
        if e.key == key {
            let (lo, hi) = (e.lo as i32, e.hi as i32);
            if lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            if alpha >= beta {
                return alpha;
            }
        }
        let alpha0 = alpha;
        let mut best = i32::MIN;
        for (_, cell) in self.ordered_moves(pos, moves) {
            let mut child = *pos;
            child.play_cell(cell);
            let v = if child.stones() as i32 == n {
                0 // our coin filled the board without a square (a win was ruled out above)
            } else {
                -self.negamax(&child, -beta, -alpha)
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
            }
            if v >= beta {
                self.store(idx, key, v, NONE_HI as i32);
                return v;
            }
            if v > alpha {
                alpha = v;
            }
        }
        if best > alpha0 {
            self.store(idx, key, best, best);
        } else {
            self.store(idx, key, NONE_LO as i32, best);
        }
        best
    }

    /// Records bounds `lo..=hi`, tightening an entry of the same position.
    #[inline(always)]
    fn store(&mut self, idx: usize, key: u64, lo: i32, hi: i32) {
        let e = &mut self.table[idx];
        if e.key == key {
            e.lo = e.lo.max(lo as i16);
            e.hi = e.hi.min(hi as i16);
        } else {
            *e = Entry {
                key,
                lo: lo as i16,
                hi: hi as i16,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connectsquare::grid::Grid;
    use crate::protocol::Player;

    /// Plain full-width negamax on the rules (no table, no pruning tricks):
    /// the reference the solver is checked against.
    pub(crate) fn brute(pos: &ConnectSquare) -> i32 {
        let n = pos.cells() as i32;
        match pos.status() {
            Status::Draw => return 0,
            Status::Won(_) => return -(n + 1 - pos.stones() as i32),
            Status::Playing => {}
        }
        let mut best = i32::MIN;
        for col in 0..pos.cols() {
            if pos.can_play(col) {
                let mut c = *pos;
                c.play_col(col);
                best = best.max(-brute(&c));
            }
        }
        best
    }

    #[test]
    fn agrees_with_brute_force_on_small_boards() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut solver = Solver::new(16);
        let mut checked = 0;
        for (rows, cols) in [(2, 2), (2, 3), (3, 3), (3, 4), (4, 3), (4, 4)] {
            for _ in 0..40 {
                let mut pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
                // Random openings, leaving at most 11 empty cells for the brute force.
                let keep = (rows * cols).min(11);
                while pos.status() == Status::Playing && pos.cells() - pos.stones() > keep {
                    let cols_ok: Vec<usize> = (0..cols).filter(|&c| pos.can_play(c)).collect();
                    pos.play_col(cols_ok[rng.gen_range(0..cols_ok.len())]);
                }
                let want = brute(&pos);
                let got = solver.solve(&pos, f64::INFINITY).unwrap();
                assert_eq!(got.score, want, "{rows}x{cols}\n{}", pos.to_grid());
                // The chosen move keeps the value.
                if let Some((_, Some(col))) = solver.best_move(&pos, f64::INFINITY) {
                    let mut c = pos;
                    c.play_col(col);
                    assert_eq!(-brute(&c), want, "move {col} in\n{}", pos.to_grid());
                }
                for col in (0..cols).filter(|&c| pos.can_play(c)) {
                    let mut c = pos;
                    c.play_col(col);
                    let holds = -brute(&c) >= want;
                    assert_eq!(solver.move_reaches(&pos, col, want, f64::INFINITY), Some(holds));
                }
                checked += 1;
            }
            solver.clear();
        }
        assert_eq!(checked, 240);
    }

    #[test]
    fn empty_small_boards_match_brute_force_and_alpha_beta() {
        let mut solver = Solver::new(16);
        for (rows, cols) in [(2, 4), (3, 3), (3, 4), (4, 3)] {
            let pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
            solver.clear();
            assert_eq!(
                solver.solve(&pos, f64::INFINITY).unwrap().score,
                brute(&pos),
                "{rows}x{cols}"
            );
        }
        // Larger: the generic alpha-beta to full depth (every leaf terminal).
        for (rows, cols) in [(4, 4), (3, 5)] {
            let pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
            let ab =
                crate::search::alphabeta::search(&pos, crate::search::Limits::depth((rows * cols) as u32), 1 << 22);
            solver.clear();
            let v = solver.solve(&pos, f64::INFINITY).unwrap();
            assert_eq!(v.verdict, Verdict::Draw);
            assert_eq!(ab.score, 0, "{rows}x{cols}");
        }
    }

    #[test]
    fn values_read_as_plies() {
        // R to move completes a square with its next coin: win in 1.
        let g = Grid::from_rows(&["...", "R..", "RR."]).unwrap();
        let pos = ConnectSquare::from_grid(&g, Player::One).unwrap();
        let v = Solver::new(12).solve(&pos, f64::INFINITY).unwrap();
        assert_eq!((v.verdict, v.plies), (Verdict::Win, 1));
        // 2x2: the second player can always spoil; the board fills: draw in 4.
        let pos = ConnectSquare::new(2, 2, Player::One).unwrap();
        let v = Solver::new(12).solve(&pos, f64::INFINITY).unwrap();
        assert_eq!((v.verdict, v.plies), (Verdict::Draw, 4));
    }

    #[test]
    fn gives_up_when_time_runs_out() {
        let pos = ConnectSquare::new(6, 7, Player::One).unwrap();
        let t = CpuTimer::start();
        assert_eq!(Solver::new(12).solve(&pos, 0.01), None);
        assert!(t.elapsed() < 0.5);
    }
}

//! The exact solver: win(state) with perfect play, for any pile sizes.
//!
//! A side with a hinger on the board wins by moving on it; a move that
//! leaves a hinger loses to that reply. So a position's value is the best of
//! its *safe* moves' values (a loss if there is none), which is all the
//! solver explores. Removals commute, so many move orders reach the same
//! board: values are memoised on the board's key (the exact active bitboard
//! plus a 64-bit hash of the piles above one, which is 0 on binary boards).
//! The value does not depend on whose turn it is (both players act on the
//! same counters), so the side is not part of the key.

use super::board::{iter_bits, Board};
use crate::clock::CpuTimer;
use fxhash::FxHashMap;

/// Game-theoretic value for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    /// The player to move loses with best play by both.
    Loss = -1,
    /// Best play empties the board without a hinger move.
    Draw = 0,
    /// The player to move wins.
    Win = 1,
}

impl Value {
    /// The value for the other side.
    pub(crate) fn negate(self) -> Value {
        match self {
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
            Value::Win => Value::Loss,
        }
    }
    fn from_i8(v: i8) -> Value {
        match v {
            1 => Value::Win,
            0 => Value::Draw,
            _ => Value::Loss,
        }
    }
    /// `win`, `draw` or `loss`.
    pub fn word(self) -> &'static str {
        match self {
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Win => "win",
        }
    }
}

/// Most counters the solver takes on. It recurses once per counter removed
/// (depth = counters on the board), so this bounds its stack use to well
/// under 1 MB (the tests solve at the cap on a 1 MB thread). Boards with more
/// counters are not solvable in play time anyway; the agent plays them with
/// its fallback search.
pub const MAX_COUNTERS: u32 = 1024;

/// A solved position.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Value for the player to move.
    pub value: Value,
    /// A move achieving it (bit index of the cell): a winning move for a
    /// win, a drawing one for a draw, and for a loss the safe move that
    /// keeps the game going (or any move when none is safe). None on an
    /// empty board.
    pub best: Option<usize>,
    /// Positions searched.
    pub nodes: u64,
    /// Entries in the memo.
    pub memo_entries: usize,
}

/// The memoising solver (the memo persists across calls on the same game).
pub struct Solver {
    memo: FxHashMap<(u128, u64), i8>,
    nodes: u64,
    timer: CpuTimer,
    seconds: f64,
    max_entries: usize,
    aborted: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Self::new()
    }
}

impl Solver {
    /// A solver with an empty memo, capped at 8 million entries (about
    /// 400 MB) so that it cannot eat the shared machine.
    pub fn new() -> Self {
        Solver {
            memo: FxHashMap::default(),
            nodes: 0,
            timer: CpuTimer::start(),
            seconds: f64::INFINITY,
            max_entries: 8_000_000,
            aborted: false,
        }
    }

    /// Positions searched by the last solve (also when it gave up).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Entries in the memo.
    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }

    #[cfg(test)]
    /// Solves `board` with no time limit (still bounded by the memo cap:
    /// None when it is reached).
    pub(crate) fn solve(&mut self, board: &Board) -> Option<Solution> {
        self.solve_within(board, f64::INFINITY)
    }

    /// Whether the solver takes `board` on at all (at most [`MAX_COUNTERS`]).
    pub fn accepts(board: &Board) -> bool {
        board.counters() <= MAX_COUNTERS
    }

    /// Solves `board` within `seconds` of CPU time; None when the time or the
    /// memo cap runs out first, or when the board has more than
    /// [`MAX_COUNTERS`] counters.
    pub fn solve_within(&mut self, board: &Board, seconds: f64) -> Option<Solution> {
        if !Self::accepts(board) {
            return None;
        }
        self.timer = CpuTimer::start();
        self.seconds = seconds;
        self.nodes = 0;
        self.aborted = false;
        if board.active() == 0 {
            return Some(Solution {
                value: Value::Draw,
                best: None,
                nodes: 0,
                memo_entries: self.memo.len(),
            });
        }
        let hingers = board.hingers();
        if hingers != 0 {
            let best = Some(hingers.trailing_zeros() as usize);
            return Some(Solution {
                value: Value::Win,
                best,
                nodes: 1,
                memo_entries: self.memo.len(),
            });
        }
        // Root: like `value`, but remembering the move.
        let mut best: Option<(usize, Value)> = None;
        let mut best_is_safe = false;
        let ring = board.ring_split();
        for i in iter_bits(board.active()) {
            if board.hinger_after_removal_with(i, ring) {
                if best.is_none() {
                    best = Some((i, Value::Loss));
                }
                continue;
            }
            let mut child = board.clone();
            child.remove(i);
            let v = self.value(&child).negate();
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| v > b || (v == b && !best_is_safe)) {
                best = Some((i, v));
                best_is_safe = true;
            }
            if v == Value::Win {
                break;
            }
        }
        let (mv, value) = best.expect("an active board has a move");
        Some(Solution {
            value,
            best: Some(mv),
            nodes: self.nodes,
            memo_entries: self.memo.len(),
        })
    }

    /// Value of a board for the side to move (the board's previous mover
    /// did not move on a hinger).
    fn value(&mut self, board: &Board) -> Value {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256)
            && (self.timer.elapsed() > self.seconds || self.memo.len() >= self.max_entries)
        {
            self.aborted = true;
        }
        if self.aborted {
            return Value::Draw;
        }
        if board.active() == 0 {
            return Value::Draw;
        }
        if board.has_hinger() {
            return Value::Win;
        }
        let key = board.key();
        if let Some(&v) = self.memo.get(&key) {
            return Value::from_i8(v);
        }
        let mut best = Value::Loss;
        let ring = board.ring_split();
        for i in iter_bits(board.active()) {
            if board.hinger_after_removal_with(i, ring) {
                continue;
            }
            let mut child = board.clone();
            child.remove(i);
            let v = self.value(&child).negate();
            if self.aborted {
                return Value::Draw;
            }
            if v > best {
                best = v;
                if v == Value::Win {
                    break;
                }
            }
        }
        self.memo.insert(key, best as i8);
        best
    }
}


/// The trap rule both solvers' `practical_move` use: among the safe moves
/// whose value (`value`, for the side to move after it) equals `target`, the
/// one whose safe opponent replies most often turn into our win (or, from a
/// loss, half as much into a draw). `value` returns None when the solver ran
/// out of time; so does this. Some(None) when no move keeps `target`.
pub(super) fn trap_move(board: &Board, target: Value, mut value: impl FnMut(&Board) -> Option<Value>) -> Option<Option<usize>> {
    let mut best: Option<(usize, f64)> = None;
    let ring = board.ring_split();
    for i in iter_bits(board.active()) {
        if board.hinger_after_removal_with(i, ring) {
            continue;
        }
        let mut child = board.clone();
        child.remove(i);
        let v = value(&child)?.negate();
        if v != target {
            continue;
        }
        let (mut replies, mut good) = (0u32, 0.0f64);
        let ring = child.ring_split();
        for j in iter_bits(child.active()) {
            if child.hinger_after_removal_with(j, ring) {
                continue;
            }
            replies += 1;
            let mut grand = child.clone();
            grand.remove(j);
            let w = value(&grand)?;
            good += match (target, w) {
                (_, Value::Win) => 1.0,
                (Value::Loss, Value::Draw) => 0.5,
                _ => 0.0,
            };
        }
        let score = if replies == 0 { 0.0 } else { good / replies as f64 };
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    Some(best.map(|(i, _)| i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hinger::board::tests::simple_hingers;

    /// Deliberately simple, unmemoised brute force on plain grids with the
    /// reference hinger test: the mover wins at once on a hinger; otherwise
    /// try every removal.
    fn brute(g: &mut Vec<Vec<u32>>) -> Value {
        if g.iter().flatten().all(|&p| p == 0) {
            return Value::Draw;
        }
        if !simple_hingers(g).is_empty() {
            return Value::Win;
        }
        let mut best = Value::Loss;
        for r in 0..g.len() {
            for c in 0..g[0].len() {
                if g[r][c] > 0 {
                    g[r][c] -= 1;
                    let v = brute(g).negate();
                    g[r][c] += 1;
                    if v > best {
                        best = v;
                        if v == Value::Win {
                            return v;
                        }
                    }
                }
            }
        }
        best
    }

    fn all_boards(rows: usize, cols: usize, maxp: u32) -> impl Iterator<Item = Vec<Vec<u32>>> {
        let n = rows * cols;
        let total = (maxp as u64 + 1).pow(n as u32);
        (0..total).map(move |mut code| {
            let mut g = vec![vec![0; cols]; rows];
            for k in 0..n {
                g[k / cols][k % cols] = (code % (maxp as u64 + 1)) as u32;
                code /= maxp as u64 + 1;
            }
            g
        })
    }

    fn check(g: Vec<Vec<u32>>, solver: &mut Solver) {
        let b = Board::from_grid(&g).unwrap();
        let s = solver.solve(&b).unwrap();
        let mut gg = g.clone();
        assert_eq!(s.value, brute(&mut gg), "{b:?}");
        // The move really achieves the value.
        if let Some(mv) = s.best {
            let v = if b.is_hinger(mv) {
                Value::Win
            } else {
                let mut child = b.clone();
                child.remove(mv);
                let mut g2 = child.to_grid();
                brute(&mut g2).negate()
            };
            assert_eq!(v, s.value, "{b:?} move {:?}", b.coords(mv));
        }
    }

    #[test]
    fn agrees_with_brute_force_on_every_small_board_with_piles_up_to_two() {
        // Every board of every shape up to 5 cells, and of 1x6, 2x3 and 3x2
        // up to eight counters, with one shared memo per shape so that keys
        // are exercised across games.
        for (rows, cols) in [(1, 1), (1, 2), (1, 3), (2, 2), (1, 4), (1, 5), (1, 6), (2, 3), (3, 2)] {
            let mut solver = Solver::new();
            // Unmemoised brute force is factorial in the counters: on six
            // cells keep to at most eight of them.
            for g in all_boards(rows, cols, 2).filter(|g| rows * cols < 6 || g.iter().flatten().sum::<u32>() <= 8) {
                check(g, &mut solver);
            }
        }
    }

    #[test]
    fn agrees_with_brute_force_on_every_binary_3x3_and_sampled_4x4() {
        let mut solver = Solver::new();
        for g in all_boards(3, 3, 1) {
            check(g, &mut solver);
        }
        // Every binary 3x4 with at most nine counters, then random 4x4
        // boards with piles up to two and at most nine counters.
        let mut solver = Solver::new();
        for g in all_boards(3, 4, 1).filter(|g| g.iter().flatten().sum::<u32>() <= 9) {
            check(g, &mut solver);
        }
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(5);
        let mut solver = Solver::new();
        for _ in 0..150 {
            let g: Vec<Vec<u32>> = (0..4)
                .map(|_| {
                    (0..4)
                        .map(|_| if rng.gen_bool(0.5) { rng.gen_range(1..=2) } else { 0 })
                        .collect()
                })
                .collect();
            if g.iter().flatten().sum::<u32>() <= 9 {
                check(g, &mut solver);
            }
        }
    }

    #[test]
    fn known_values() {
        // A 2x2 block: every move keeps the rest connected; the board empties: draw.
        let b = Board::from_grid(&[vec![1, 1], vec![1, 1]]).unwrap();
        assert_eq!(Solver::new().solve(&b).unwrap().value, Value::Draw);
        // Three in a row: the middle is a hinger.
        let b = Board::from_grid(&[vec![1, 1, 1]]).unwrap();
        let s = Solver::new().solve(&b).unwrap();
        assert_eq!((s.value, s.best), (Value::Win, Some(b.index(0, 1))));
        // Two in a row: each move leaves a lone counter, the last removal draws.
        let b = Board::from_grid(&[vec![1, 1]]).unwrap();
        assert_eq!(Solver::new().solve(&b).unwrap().value, Value::Draw);
        // A time limit of zero gives up on a big board.
        let b = Board::from_grid(&vec![vec![1; 8]; 8]).unwrap();
        assert!(Solver::new().solve_within(&b, 0.0).is_none());
    }

    #[test]
    fn counter_cap_bounds_the_recursion() {
        // At the cap, on a 1 MB stack: one level per counter must fit. Two
        // adjacent piles are never hingers, so the game runs to the last
        // counter: a draw, searched to full depth.
        let at_cap = Board::from_grid(&[vec![MAX_COUNTERS - 1, 1]]).unwrap();
        let solved = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || Solver::new().solve(&at_cap).map(|s| s.value))
            .unwrap()
            .join()
            .expect("the solver fits a 1 MB stack at its counter cap");
        assert_eq!(solved, Some(Value::Draw));
        // Above the cap (here a million counters, which used to overflow the
        // stack) the solver declines at once.
        let big = Board::from_grid(&[vec![0, 0, 0], vec![0, 1_000_000, 0], vec![0, 0, 0]]).unwrap();
        assert!(!Solver::accepts(&big));
        assert!(Solver::new().solve(&big).is_none());
    }
}

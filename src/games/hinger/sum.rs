//! The exact solver that plays Hinger as a sum of independent regions.
//!
//! # The reduction
//!
//! Only *safe* moves matter (see [`super::solver`]): a side facing a hinger
//! takes it and wins, so a move that leaves one loses, and a side whose every
//! move leaves one (while counters remain) has lost. Call a hinger-free
//! position *stuck* when it is not empty and has no safe move.
//!
//! 1. **Regions are independent and never merge or split.** Whether a cell
//!    is a hinger depends only on its own region (removing it can only split
//!    that region). A safe move on a hinger-free board takes a counter from
//!    a pile of two or more (no active cell changes) or empties a cell that
//!    is not a hinger, so its region stays one region or vanishes; the other
//!    regions are untouched and keep having no hinger. So the safe game is
//!    the disjunctive sum of its regions' safe games.
//! 2. **Normal play decides half the positions by parity.** Every move takes
//!    exactly one counter, so a game that ends on the empty board lasts
//!    exactly N moves (N = counters now), and its last mover is the side to
//!    move iff N is odd. The real result is: the last safe mover wins if the
//!    final position is stuck, and it is a draw if it is empty. Let `np` be
//!    "the side to move wins the *normal-play* safe game" (the last safe
//!    mover wins, wherever play stops). A normal-play winner never loses
//!    for real (a real loss needs the opponent to move last), so
//!    `np` means win-or-draw and `!np` means loss-or-draw. With `np` and N
//!    even, a normal-play winning strategy cannot end on the empty board
//!    (whose last mover would be the opponent), so it ends stuck: a **win**.
//!    Symmetrically `!np` with N odd is a **loss**.
//! 3. **Normal play of a sum follows from the parts (Sprague-Grundy).** A
//!    region of at most [`SMALL`] counters is replaced by a nim heap of its
//!    Grundy value (memoised on its canonical shape: translated to the origin
//!    and folded over the 8 symmetries of the square, which never change
//!    hinger status), so `np` is searched over the larger regions plus one
//!    heap, memoised on the multiset of their canonical keys and the heap.
//! 4. **The other half is a restricted search.** With `np` and N odd the side
//!    to move wins iff it can move to a normal-play loss `c` (only those can
//!    be real losses, by 2) that is not empty and after every safe reply of
//!    which it wins again (those replies have `np` and an odd count, so the
//!    question recurses: [`SumSolver`]'s `wins_odd`). With `!np` and N even it
//!    loses iff every safe move leads to such a win for the opponent, and
//!    draws otherwise. This search is memoised on the multiset of all
//!    regions' canonical keys; the winner's side only tries the few moves
//!    that keep its normal-play win.
//!
//! Draws keep this from being plain Sprague-Grundy: whether the board can
//! be emptied is a global property, so the odd/even cases of 4 search the
//! sum itself, but with `np` as an oracle that prunes most of it. The plain
//! solver ([`super::solver::Solver`]) stays as the test oracle.

use super::board::{iter_bits, Board};
use super::solver::{trap_move, Solution, Value};
use crate::clock::CpuTimer;
use fxhash::FxHashMap;

/// Regions with at most this many counters are folded into a nim heap of
/// their Grundy value (their whole safe game, at most 2^SMALL positions, is
/// enumerated once per shape).
pub const SMALL: u32 = 12;

/// Most counters the solver takes on: it recurses once per counter removed
/// (plus once per heap value), with a board copy in each frame; the tests
/// solve at the cap on a 4 MB thread.
pub const MAX_COUNTERS: u32 = 1024;

/// A region's shape and piles, translated to the origin and made canonical
/// over the 8 symmetries of the square (the smallest of the 8 encodings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct RegionKey {
    h: u8,
    w: u8,
    /// Active cells, row-major in the `h x w` bounding box.
    bits: u128,
    /// Hash of the piles above one at their box positions (0 when binary).
    piles: u64,
}

use crate::search::mix::splitmix64 as mix64;

impl RegionKey {
    /// The canonical key of region `reg` (a connected set of active cells).
    fn of(b: &Board, reg: u128) -> RegionKey {
        // Cell coordinates and piles on the stack: the hot path allocates nothing.
        let mut cells = [(0u8, 0u8, 0u32); 128];
        let mut n = 0;
        let (mut r0, mut r1, mut c0, mut c1) = (u8::MAX, 0u8, u8::MAX, 0u8);
        for i in iter_bits(reg) {
            let (r, c) = b.coords(i);
            let (r, c) = (r as u8, c as u8);
            cells[n] = (r, c, b.pile(i));
            n += 1;
            r0 = r0.min(r);
            r1 = r1.max(r);
            c0 = c0.min(c);
            c1 = c1.max(c);
        }
        let (h, w) = (r1 - r0 + 1, c1 - c0 + 1);
        let mut best: Option<RegionKey> = None;
        for t in 0..8u8 {
            let (th, tw) = if t & 4 != 0 { (w, h) } else { (h, w) };
            let (mut bits, mut piles) = (0u128, 0u64);
            for &(r, c, p) in &cells[..n] {
                let (mut y, mut x) = (r - r0, c - c0);
                if t & 4 != 0 {
                    std::mem::swap(&mut y, &mut x);
                }
                if t & 1 != 0 {
                    y = th - 1 - y;
                }
                if t & 2 != 0 {
                    x = tw - 1 - x;
                }
                let k = y as u32 * tw as u32 + x as u32;
                bits |= 1u128 << k;
                if p >= 2 {
                    piles ^= mix64((k as u64) << 32 | p as u64);
                }
            }
            let key = RegionKey {
                h: th,
                w: tw,
                bits,
                piles,
            };
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.expect("eight symmetries")
    }

    /// The key of a large region (above [`SMALL`] counters): translated to
    /// the origin only. Folding the symmetries costs more than it saves on
    /// large irregular regions; `h = 0` keeps these keys apart from the
    /// canonical ones.
    fn translated(b: &Board, reg: u128) -> RegionKey {
        let stride = b.cols() + 1;
        let r0 = reg.trailing_zeros() as usize / stride;
        let row = (1u128 << b.cols()) - 1;
        let (mut occupied, mut x) = (0u128, reg >> (r0 * stride));
        while x != 0 {
            occupied |= x & row;
            x >>= stride;
        }
        let off = r0 * stride + occupied.trailing_zeros() as usize;
        let mut piles = 0;
        for i in iter_bits(reg & b.multi()) {
            piles ^= mix64(((i - off) as u64) << 32 | b.pile(i) as u64);
        }
        RegionKey {
            h: 0,
            w: stride as u8,
            bits: reg >> off,
            piles,
        }
    }

    /// The key used for `reg` in the position memos.
    #[inline]
    fn for_memo(b: &Board, reg: u128) -> RegionKey {
        if b.counters_in(reg) > SMALL {
            Self::translated(b, reg)
        } else {
            Self::of(b, reg)
        }
    }

    /// 128 well-mixed bits, summed over the regions of a position for a key
    /// of their multiset (order-free, so equal multisets get equal keys).
    fn spread(&self) -> u128 {
        let a = mix64(self.bits as u64 ^ mix64(self.piles ^ ((self.h as u64) << 8 | self.w as u64)));
        let b = mix64((self.bits >> 64) as u64 ^ a.rotate_left(17));
        (b as u128) << 64 | a as u128
    }
}

/// The regions (8-connected components) of `cells`, one bitboard each.
#[inline]
fn regions(b: &Board, mut cells: u128) -> impl Iterator<Item = u128> + '_ {
    std::iter::from_fn(move || {
        if cells == 0 {
            return None;
        }
        let reg = b.fill(cells & cells.wrapping_neg(), cells);
        cells &= !reg;
        Some(reg)
    })
}

/// The decomposition solver: memo tables persist across calls.
pub struct SumSolver {
    /// Grundy values of small regions by canonical shape.
    grundy: FxHashMap<RegionKey, u8>,
    /// Normal-play "side to move wins" by (multiset of large regions, heap).
    np: FxHashMap<(u128, u8), bool>,
    /// `wins_odd` by multiset of all regions.
    wins: FxHashMap<u128, bool>,
    /// Per counters left: the cell of the last refutation found there,
    /// tried first (removals commute, so a refutation often still works).
    killer: Vec<u8>,
    nodes: u64,
    timer: CpuTimer,
    seconds: f64,
    max_entries: usize,
    aborted: bool,
}

impl Default for SumSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl SumSolver {
    /// A solver with empty memos, capped at 8 million entries in all (a few
    /// hundred MB) so that it cannot eat the shared machine.
    pub fn new() -> Self {
        SumSolver {
            grundy: FxHashMap::default(),
            np: FxHashMap::default(),
            wins: FxHashMap::default(),
            killer: vec![u8::MAX; MAX_COUNTERS as usize + 1],
            nodes: 0,
            timer: CpuTimer::start(),
            seconds: f64::INFINITY,
            max_entries: 8_000_000,
            aborted: false,
        }
    }

    /// Positions searched by the last call (also when it gave up).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Entries in the memos.
    pub fn memo_len(&self) -> usize {
        self.grundy.len() + self.np.len() + self.wins.len()
    }

    /// Whether the solver takes `board` on at all (at most [`MAX_COUNTERS`]).
    pub fn accepts(board: &Board) -> bool {
        board.counters() <= MAX_COUNTERS
    }

    #[cfg(test)]
    /// Solves `board` with no time limit (None only at the memo cap).
    pub(crate) fn solve(&mut self, board: &Board) -> Option<Solution> {
        self.solve_within(board, f64::INFINITY)
    }

    fn start(&mut self, seconds: f64) {
        self.timer = CpuTimer::start();
        self.seconds = seconds;
        self.nodes = 0;
        self.aborted = false;
    }

    /// Solves `board` within `seconds` of CPU time: the value for the side
    /// to move and a move achieving it (as [`super::solver::Solver`] does).
    /// None when the time or the memo cap runs out first, or when the board
    /// has more than [`MAX_COUNTERS`] counters.
    pub fn solve_within(&mut self, board: &Board, seconds: f64) -> Option<Solution> {
        if !Self::accepts(board) {
            return None;
        }
        self.start(seconds);
        if board.active() == 0 {
            return Some(self.solution(Value::Draw, None));
        }
        let hingers = board.hingers();
        if hingers != 0 {
            return Some(self.solution(Value::Win, Some(hingers.trailing_zeros() as usize)));
        }
        // The value first (cheap by parity in half the cases), then a move
        // that achieves it, trying the normal-play-winning moves first.
        let value = self.value(board);
        let ring = board.ring_split();
        let mut first_safe = None;
        let mut best = None;
        for i in iter_bits(board.active()) {
            if board.hinger_after_removal_with(i, ring) {
                continue;
            }
            first_safe.get_or_insert(i);
            let mut child = board.clone();
            child.remove(i);
            if self.value(&child).negate() == value {
                best = Some(i);
                break;
            }
            if self.aborted {
                return None;
            }
        }
        if self.aborted {
            return None;
        }
        // With no safe move at all, any move loses.
        let mv = best.or(first_safe).or_else(|| iter_bits(board.active()).next());
        Some(self.solution(value, mv))
    }

    fn solution(&self, value: Value, best: Option<usize>) -> Solution {
        Solution {
            value,
            best,
            nodes: self.nodes,
            memo_entries: self.memo_len(),
        }
    }

    /// The move to play from a solved `board` against a fallible opponent;
    /// the same rule as [`super::solver::Solver::practical_move`]: a win as
    /// solved, otherwise the value-keeping move whose opponent replies (the
    /// safe ones, uniformly) most often turn into our win (or, from a loss,
    /// half as much into a draw). None when `seconds` run out first.
    pub(crate) fn practical_move(&mut self, board: &Board, solved: &Solution, seconds: f64) -> Option<usize> {
        if solved.value == Value::Win || !Self::accepts(board) || board.has_hinger() {
            return solved.best;
        }
        self.start(seconds);
        trap_move(board, solved.value, |b| {
            let v = self.value(b);
            (!self.aborted).then_some(v)
        })
        .and_then(|m| m.or(solved.best))
    }

    /// The active cells of `b`, the killer for its depth first.
    #[inline]
    fn ordered(&self, b: &Board) -> impl Iterator<Item = usize> {
        let active = b.active();
        let k = self.killer[b.counters_in(active) as usize] as usize;
        let first = (k < 128 && active >> k & 1 == 1).then_some(k);
        let rest = first.map_or(active, |k| active & !(1u128 << k));
        first.into_iter().chain(iter_bits(rest))
    }

    /// Records `i` as the refutation found in `b`.
    #[inline]
    fn set_killer(&mut self, b: &Board, i: usize) {
        self.killer[b.counters_in(b.active()) as usize] = i as u8;
    }

    /// Counts a node; true when the search must stop (time or memory).
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256)
            && (self.timer.elapsed() > self.seconds || self.memo_len() >= self.max_entries)
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// The real value for the side to move of a position whose previous
    /// move was not on a hinger (the reduction's points 2 and 4).
    fn value(&mut self, b: &Board) -> Value {
        if b.active() == 0 {
            return Value::Draw;
        }
        if b.has_hinger() {
            return Value::Win;
        }
        let odd = b.counters() % 2 == 1;
        match (self.np_of(b), odd) {
            (true, false) => Value::Win,
            (false, true) => Value::Loss,
            (true, true) => {
                if self.wins_odd(b) {
                    Value::Win
                } else {
                    Value::Draw
                }
            }
            (false, false) => {
                let ring = b.ring_split();
                for i in iter_bits(b.active()) {
                    if b.hinger_after_removal_with(i, ring) {
                        continue;
                    }
                    let mut c = b.clone();
                    c.remove(i);
                    // c has np and an odd count: a win for the opponent
                    // unless wins_odd says otherwise.
                    if !self.wins_odd(&c) {
                        return Value::Draw;
                    }
                    if self.aborted {
                        return Value::Draw;
                    }
                }
                Value::Loss
            }
        }
    }

    /// Key of the multiset of the regions of `b`.
    fn multiset_key(b: &Board) -> u128 {
        regions(b, b.active()).fold(0u128, |k, reg| k.wrapping_add(RegionKey::for_memo(b, reg).spread()))
    }

    /// Splits the hinger-free `b` into its large regions and the nim heap of
    /// its small ones.
    fn fold(&mut self, b: &Board) -> (Board, u8) {
        let mut heap = 0;
        let mut small = 0u128;
        for reg in regions(b, b.active()) {
            if b.counters_in(reg) <= SMALL {
                heap ^= self.grundy_of(b, reg);
                small |= reg;
            }
        }
        let big = if small == 0 {
            b.clone()
        } else {
            b.restrict(b.active() & !small)
        };
        (big, heap)
    }

    /// Normal-play "the side to move wins" for the hinger-free `b`.
    fn np_of(&mut self, b: &Board) -> bool {
        let (big, heap) = self.fold(b);
        self.np(&big, heap)
    }

    /// Grundy value of the safe game on region `reg` of `b` (at most
    /// [`SMALL`] counters), by enumeration, memoised on its shape.
    fn grundy_of(&mut self, b: &Board, reg: u128) -> u8 {
        let key = RegionKey::of(b, reg);
        if let Some(&g) = self.grundy.get(&key) {
            return g;
        }
        let sub = if reg == b.active() { b.clone() } else { b.restrict(reg) };
        let ring = sub.ring_split();
        // Option values seen (at most one per cell, so below 128).
        let mut seen = 0u128;
        for i in iter_bits(reg) {
            if sub.hinger_after_removal_with(i, ring) {
                continue;
            }
            let mut c = sub.clone();
            c.remove(i);
            let g = if c.active() == 0 {
                0
            } else {
                self.grundy_of(&c, c.active())
            };
            seen |= 1u128 << g;
        }
        let g = (!seen).trailing_zeros() as u8;
        self.grundy.insert(key, g);
        g
    }

    /// Normal-play "the side to move wins" on the large regions `b` (each
    /// above [`SMALL`] counters, no hinger) plus a nim heap of size `heap`.
    fn np(&mut self, b: &Board, heap: u8) -> bool {
        if b.active() == 0 {
            return heap != 0;
        }
        if self.tick() {
            return false;
        }
        let key = (Self::multiset_key(b), heap);
        if let Some(&v) = self.np.get(&key) {
            return v;
        }
        let mut win = false;
        let ring = b.ring_split();
        for i in self.ordered(b) {
            if b.hinger_after_removal_with(i, ring) {
                continue;
            }
            let mut c = b.clone();
            c.remove(i);
            // The touched region stays one region (or vanishes); fold it into
            // the heap once it is small.
            let bit = 1u128 << i;
            let seed = b.dilate(bit) & c.active();
            let mut h = heap;
            if seed != 0 {
                let reg = c.fill(seed & seed.wrapping_neg(), c.active());
                if c.counters_in(reg) <= SMALL {
                    h ^= self.grundy_of(&c, reg);
                    c = c.restrict(c.active() & !reg);
                }
            }
            if !self.np(&c, h) {
                win = true;
                self.set_killer(b, i);
                break;
            }
            if self.aborted {
                return false;
            }
        }
        if !win {
            for h in 0..heap {
                if !self.np(b, h) {
                    win = true;
                    break;
                }
            }
        }
        if self.aborted {
            return false;
        }
        self.np.insert(key, win);
        win
    }

    /// For a hinger-free `b` with `np` and an odd count: can the side to
    /// move win (not just draw)? It must move to a non-empty normal-play
    /// loss after every safe reply to which it wins again.
    fn wins_odd(&mut self, b: &Board) -> bool {
        if self.tick() {
            return false;
        }
        let key = Self::multiset_key(b);
        if let Some(&v) = self.wins.get(&key) {
            return v;
        }
        let mut win = false;
        let ring = b.ring_split();
        'moves: for i in self.ordered(b) {
            if b.hinger_after_removal_with(i, ring) {
                continue;
            }
            let mut c = b.clone();
            c.remove(i);
            if c.active() == 0 || self.np_of(&c) {
                continue;
            }
            let ring = c.ring_split();
            for j in self.ordered(&c) {
                if c.hinger_after_removal_with(j, ring) {
                    continue;
                }
                let mut d = c.clone();
                d.remove(j);
                if !self.wins_odd(&d) {
                    self.set_killer(&c, j);
                    continue 'moves;
                }
            }
            if self.aborted {
                return false;
            }
            // Every reply (or none: c is stuck) leaves us a win.
            win = true;
            self.set_killer(b, i);
            break;
        }
        if self.aborted {
            return false;
        }
        self.wins.insert(key, win);
        win
    }
}

#[cfg(test)]
pub(super) mod tests;

//! A pattern database over the goal's own 19 cells: for every set of filled
//! goal cells, the fewest plays that fill the rest when the cells outside
//! the goal are wildcards (any outside cell may hold a piece to hop over or
//! be empty to land on, whichever helps, and outsiders are never short).
//!
//! # Why it is a lower bound
//!
//! The abstraction keeps only which goal cells hold a piece. Every play of
//! the solver maps to an abstract play of cost 1 or to none:
//! - an outsider's play that ends outside the goal changes no goal cell
//!   (none, cost 0);
//! - an entering play fills one empty goal cell `c`: its chain lands only on
//!   empty cells and hops only over occupied ones, so inside the goal the
//!   same chain is an abstract entry into `c` (outside cells are wildcards);
//! - a play of a piece in the goal stays in the goal (narrow reading), and
//!   is the same abstract play.
//!
//! So the abstract distance never exceeds the real one. The plays it counts
//! beyond one per empty goal cell are plays of pieces already in the goal,
//! while the band and isolation bounds count plays that end outside it: the
//! two sets of plays are disjoint, so the solver adds the two surpluses.
//!
//! Abstract plays from a piece in the goal are reversible (a chain back
//! over the same pieces), so each layer of equally many filled cells is a
//! shortest-path problem with unit edges whose exits (entries) lead to the
//! layer above, solved top down with a bucket queue.

use super::GOAL;
use crate::games::halma::bitboard::{Bitboard, DIRS};

/// Number of goal cells.
const N: usize = 19;

/// What lies in a direction from a goal cell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Near {
    /// Off the board.
    Off,
    /// A cell outside the goal (a wildcard).
    Out,
    /// The goal cell of this index.
    Goal(u8),
}

/// The goal cells, lowest cell index first: bit `i` of a pattern is
/// `CELLS[i]`.
fn goal_cells() -> [u8; N] {
    let mut t = [0u8; N];
    for (i, c) in GOAL.iter().enumerate() {
        t[i] = c;
    }
    t
}

/// `near[i][d]`: the cells one and two steps from goal cell `i` in
/// direction `d`.
fn near_table(cells: &[u8; N]) -> [[(Near, Near); 8]; N] {
    let at = |x: i32, y: i32| -> Near {
        if !(0..16).contains(&x) || !(0..16).contains(&y) {
            return Near::Off;
        }
        let c = (y * 16 + x) as u8;
        match cells.iter().position(|&g| g == c) {
            Some(j) => Near::Goal(j as u8),
            None => Near::Out,
        }
    };
    let mut t = [[(Near::Off, Near::Off); 8]; N];
    for (i, &c) in cells.iter().enumerate() {
        let (x, y) = (i32::from(c % 16), i32::from(c / 16));
        for (d, &(_, dx, dy)) in DIRS.iter().enumerate() {
            t[i][d] = (at(x + dx, y + dy), at(x + 2 * dx, y + 2 * dy));
        }
    }
    t
}

/// Abstract move generation over patterns.
struct Rules {
    near: [[(Near, Near); 8]; N],
}

impl Rules {
    /// Whether a hop may go over `mid` with `filled` the occupied goal cells.
    fn can_jump(mid: Near, filled: u32) -> bool {
        match mid {
            Near::Off => false,
            Near::Out => true,
            Near::Goal(j) => filled >> j & 1 != 0,
        }
    }

    /// Grows `reached` (empty goal cells a piece can stand on mid-chain) by
    /// hops inside the goal; `filled` excludes the moving piece.
    fn flood(&self, filled: u32, mut reached: u32) -> u32 {
        let mut frontier = reached;
        while frontier != 0 {
            let i = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            for &(mid, land) in &self.near[i] {
                if let Near::Goal(j) = land {
                    let bit = 1u32 << j;
                    if filled & bit == 0 && reached & bit == 0 && Rules::can_jump(mid, filled) {
                        reached |= bit;
                        frontier |= bit;
                    }
                }
            }
        }
        reached
    }

    /// Empty goal cells an outsider can end on: a step from outside, a hop
    /// from outside, then hops inside (a chain that leaves the goal again
    /// starts afresh from outside).
    fn entries(&self, filled: u32) -> u32 {
        let mut seeds = 0;
        for i in 0..N {
            if filled >> i & 1 != 0 {
                continue;
            }
            // Looking back from `i`: the cells a piece steps or hops from.
            let from_outside = self.near[i]
                .iter()
                .any(|&(mid, far)| mid == Near::Out || (far == Near::Out && Rules::can_jump(mid, filled)));
            if from_outside {
                seeds |= 1 << i;
            }
        }
        self.flood(filled, seeds)
    }

    /// Cells the piece on goal cell `i` can move to, inside the goal.
    fn targets(&self, filled: u32, i: usize) -> u32 {
        let rest = filled & !(1 << i);
        let mut steps = 0;
        for &(n, _) in &self.near[i] {
            if let Near::Goal(j) = n {
                steps |= 1 << j;
            }
        }
        let hops = self.flood(rest, 1 << i) & !(1 << i);
        (steps | hops) & !filled
    }
}

/// Plays beyond one per empty goal cell, for every pattern.
pub fn build() -> Box<[u8]> {
    let rules = Rules {
        near: near_table(&goal_cells()),
    };
    let full = (1u32 << N) - 1;
    let mut dist = vec![u8::MAX; 1 << N];
    dist[full as usize] = 0;
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    for k in (0..N as u32).rev() {
        for b in &mut buckets {
            b.clear();
        }
        seed_layer(&rules, &mut dist, &mut buckets, k);
        relax_layer(&rules, &mut dist, &mut buckets);
    }
    let mut waste = vec![0u8; 1 << N];
    for (p, w) in waste.iter_mut().enumerate() {
        *w = dist[p] - (N as u32 - p.count_ones()) as u8;
    }
    waste.into_boxed_slice()
}

/// The distances of the patterns with `k` filled cells through their
/// entries alone, queued by distance.
fn seed_layer(rules: &Rules, dist: &mut [u8], buckets: &mut Vec<Vec<u32>>, k: u32) {
    for p in 0..(1u32 << N) {
        if p.count_ones() != k {
            continue;
        }
        let mut e = rules.entries(p);
        let mut best = u8::MAX;
        while e != 0 {
            let j = e.trailing_zeros();
            e &= e - 1;
            best = best.min(dist[(p | 1 << j) as usize].saturating_add(1));
        }
        dist[p as usize] = best;
        if best != u8::MAX {
            push(buckets, best, p);
        }
    }
}

/// Unit-cost moves inside the layer, shortest first.
fn relax_layer(rules: &Rules, dist: &mut [u8], buckets: &mut Vec<Vec<u32>>) {
    let mut v = 0;
    while v < buckets.len() {
        let mut i = 0;
        while i < buckets[v].len() {
            let p = buckets[v][i];
            i += 1;
            if dist[p as usize] != v as u8 {
                continue;
            }
            let mut pieces = p;
            while pieces != 0 {
                let a = pieces.trailing_zeros() as usize;
                pieces &= pieces - 1;
                let mut t = rules.targets(p, a);
                while t != 0 {
                    let b = t.trailing_zeros();
                    t &= t - 1;
                    let q = (p & !(1 << a)) | 1 << b;
                    if dist[q as usize] > v as u8 + 1 {
                        dist[q as usize] = v as u8 + 1;
                        push(buckets, v as u8 + 1, q);
                    }
                }
            }
        }
        v += 1;
    }
}

fn push(buckets: &mut Vec<Vec<u32>>, v: u8, p: u32) {
    while buckets.len() <= v as usize {
        buckets.push(Vec::new());
    }
    buckets[v as usize].push(p);
}

/// The table as [`build`] makes it, built offline by `agent halma goal-db
/// src/games/halma/solver/goal_db.bin` and embedded in the binary: building
/// it costs about 0.23 CPU s, which every agent process (one per move)
/// would otherwise pay at its first race solve. A test checks that it is
/// what [`build`] gives today.
static EMBEDDED: &[u8; 1 << N] = include_bytes!("goal_db.bin");

/// The table.
pub(super) fn table() -> &'static [u8] {
    EMBEDDED
}

/// The pattern of `pieces` on the goal: bit `i` for the `i`-th goal cell.
#[inline]
pub(super) fn pattern(pieces: Bitboard) -> u32 {
    // The goal lies in rows 11-15, the last 2, 3, 4, 5, 5 cells of each
    // (checked by the tests): five shifts instead of a bit-by-bit gather.
    let w2 = pieces.0[2];
    let w3 = pieces.0[3];
    let r11 = (w2 >> (48 + 14)) & 0x3;
    let r12 = (w3 >> 13) & 0x7;
    let r13 = (w3 >> (16 + 12)) & 0xF;
    let r14 = (w3 >> (32 + 11)) & 0x1F;
    let r15 = (w3 >> (48 + 11)) & 0x1F;
    (r11 | r12 << 2 | r13 << 5 | r14 << 9 | r15 << 14) as u32
}

const fn build_bits() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut c = 0;
    let mut i = 0;
    while c < 256 {
        if GOAL.has(c as u8) {
            t[c] = 1 << i;
            i += 1;
        }
        c += 1;
    }
    t
}

/// `BIT[c]`: the bit of cell `c` in a [`pattern`] (0 outside the goal), so
/// that a play updates a pattern by two lookups.
pub(super) static BIT: [u32; 256] = build_bits();

/// Plays of pieces already in the goal that any finish from `pieces` needs.
#[inline]
pub(super) fn goal_plays(table: &[u8], pieces: Bitboard) -> u32 {
    u32::from(table[pattern(pieces) as usize])
}

#[cfg(test)]
pub(super) fn pattern_slow(pieces: Bitboard) -> u32 {
    goal_cells()
        .iter()
        .enumerate()
        .filter(|(_, &c)| pieces.has(c))
        .fold(0, |p, (i, _)| p | 1 << i)
}

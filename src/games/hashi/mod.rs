//! Hashi, the two-player bridge game.
//!
//! The island layout never changes during a game, so everything derived from
//! it (islands, the pairs of facing islands, which pairs meet each island)
//! lives in a shared [`Topology`]; the state proper is small fixed arrays:
//! label and bridge count per island, 2-bit bridge count per pair, and two
//! 16x16 bitboards of cells covered by bridges. The crossing test for a new
//! bridge is then one AND: horizontal-bridge cells are kept column by column
//! and vertical-bridge cells row by row, so the cells a new bridge would
//! cross are a contiguous bit range in one 16-bit lane.
//!
//! The folder has the layout every game has (`docs/architecture.md`): the
//! rules here ([`Game`]), `format` (notation, set-up,
//! view), `eval` (evaluation and search hints), `player` (play policy),
//! `gen` (generated boards) and the tests.

mod eval;
mod format;
mod gen;
mod player;


use crate::protocol::{ByPlayer, Player};
use crate::search::{Game, Outcome};
use std::sync::Arc;

/// Largest board side (one 16-bit lane per row/column in the bitboards).
pub(crate) const MAX_N: usize = 16;
/// Most islands a board may hold (bridge counts are packed for 2 per island).
pub(crate) const MAX_ISLANDS: usize = 128;
/// Most pairs of facing islands: each island starts at most two (right, down).
const MAX_PAIRS: usize = 2 * MAX_ISLANDS;
/// "No pair" in [`Topology::island_pairs`].
const NO_PAIR: u8 = u8::MAX;

/// One pair of islands that face each other along a row or column with only
/// water between them: the only places a bridge can go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The island on the left (horizontal) or on top (vertical).
    pub a: u8,
    /// The island on the right or below.
    pub b: u8,
    /// True for a bridge along a row.
    pub horizontal: bool,
    /// Row of a horizontal pair, column of a vertical one.
    pub line: u8,
    /// Bits of the cells strictly between the two islands, within `line`.
    pub between: u16,
}

/// The fixed part of a board: where the islands are and which pairs face.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Board side.
    pub n: usize,
    /// Island cells (row, col), in row-major order.
    pub islands: Vec<(u8, u8)>,
    /// Island index + 1 per cell (row-major), 0 for water.
    pub cell: Vec<u8>,
    /// All pairs of facing islands.
    pub pairs: Vec<Pair>,
    /// Per island, its pairs towards left, right, up and down (or NO_PAIR).
    pub island_pairs: Vec<[u8; 4]>,
}

impl Topology {
    /// Builds the topology of an `n`x`n` board whose island cells are
    /// `is_island(row, col)`. Errors when the board is too large.
    pub fn build(n: usize, is_island: impl Fn(usize, usize) -> bool) -> Result<Topology, String> {
        if n == 0 || n > MAX_N {
            return Err(format!("the board size must be between 1 and {MAX_N}, found {n}"));
        }
        let mut islands = Vec::new();
        let mut cell = vec![0u8; n * n];
        for r in 0..n {
            for c in 0..n {
                if is_island(r, c) {
                    if islands.len() == MAX_ISLANDS {
                        return Err(format!(
                            "the board has more than {MAX_ISLANDS} islands, the most this agent supports"
                        ));
                    }
                    islands.push((r as u8, c as u8));
                    cell[r * n + c] = islands.len() as u8;
                }
            }
        }
        let mut pairs = Vec::new();
        let mut island_pairs = vec![[NO_PAIR; 4]; islands.len()];
        for (i, &(r, c)) in islands.iter().enumerate() {
            let (r, c) = (r as usize, c as usize);
            // Right neighbour: the first island further along the row.
            if let Some(c2) = (c + 1..n).find(|&c2| cell[r * n + c2] != 0) {
                let j = cell[r * n + c2] as usize - 1;
                let between = span(c, c2);
                island_pairs[i][1] = pairs.len() as u8;
                island_pairs[j][0] = pairs.len() as u8;
                pairs.push(Pair {
                    a: i as u8,
                    b: j as u8,
                    horizontal: true,
                    line: r as u8,
                    between,
                });
            }
            if let Some(r2) = (r + 1..n).find(|&r2| cell[r2 * n + c] != 0) {
                let j = cell[r2 * n + c] as usize - 1;
                island_pairs[i][3] = pairs.len() as u8;
                island_pairs[j][2] = pairs.len() as u8;
                pairs.push(Pair {
                    a: i as u8,
                    b: j as u8,
                    horizontal: false,
                    line: c as u8,
                    between: span(r, r2),
                });
            }
        }
        debug_assert!(pairs.len() < MAX_PAIRS);
        Ok(Topology {
            n,
            islands,
            cell,
            pairs,
            island_pairs,
        })
    }

    /// The island at (row, col), if any.
    pub(crate) fn island_at(&self, r: usize, c: usize) -> Option<usize> {
        if r < self.n && c < self.n {
            (self.cell[r * self.n + c] as usize).checked_sub(1)
        } else {
            None
        }
    }

    /// The pair joining islands `i` and `j`, if they face each other.
    pub(crate) fn pair_between(&self, i: usize, j: usize) -> Option<usize> {
        self.island_pairs[i]
            .iter()
            .filter(|&&p| p != NO_PAIR)
            .map(|&p| p as usize)
            .find(|&p| {
                let q = self.pairs[p];
                (q.a as usize == i && q.b as usize == j) || (q.a as usize == j && q.b as usize == i)
            })
    }
}

/// Bits strictly between positions `lo` and `hi` (lo < hi) of a lane.
fn span(lo: usize, hi: usize) -> u16 {
    let upto_hi = (1u32 << hi) - 1;
    let upto_lo = (1u32 << (lo + 1)) - 1;
    (upto_hi & !upto_lo) as u16
}

/// A move: one more bridge on a pair, or a label (3 or 4) on an unlabelled island.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashiMove {
    /// One bridge on the pair with this index in [`Topology::pairs`].
    Bridge(u8),
    /// Label the island with this index with 3 or 4.
    Label(u8, u8),
}

/// A Hashi position: the layout, labels, bridges, both scores and the side to move.
#[derive(Clone, Debug)]
pub struct Hashi {
    topo: Arc<Topology>,
    /// Per island: label << 4 | bridges at it (label 0 = unlabelled).
    isl: [u8; MAX_ISLANDS],
    /// Bridge count per pair, 2 bits each.
    pc: [u64; MAX_PAIRS / 32],
    /// Per row, the cells covered by vertical bridges.
    vrows: [u16; MAX_N],
    /// Per column, the cells covered by horizontal bridges.
    hcols: [u16; MAX_N],
    /// Points of player 1 and player 2.
    points: ByPlayer<i32>,
    /// The side to move.
    side: Player,
    /// Unlabelled islands left (each gives label moves, so the game goes on).
    unlabelled: u8,
    /// Zobrist hash of labels and bridges (side and points mixed in by `hash`).
    zh: u64,
}

/// A fixed pseudo-random key: Zobrist keys without a table.
#[inline]
fn key(kind: u64, index: usize, value: u64) -> u64 {
    crate::search::mix::finalise(kind.wrapping_mul(crate::search::mix::GOLDEN) ^ ((index as u64) << 8 | value))
}

const K_PAIR: u64 = 1;
const K_LABEL: u64 = 2;
const K_SIDE: u64 = 3;
const K_POINTS: u64 = 4;

impl Hashi {
    /// An empty position (no bridges) on `topo`, with per-island `labels`
    /// (0 = unlabelled, else 1-4), scores 0 and player 1 to move.
    pub fn new(topo: Topology, labels: &[u8]) -> Hashi {
        assert_eq!(labels.len(), topo.islands.len());
        let mut h = Hashi {
            topo: Arc::new(topo),
            isl: [0; MAX_ISLANDS],
            pc: [0; MAX_PAIRS / 32],
            vrows: [0; MAX_N],
            hcols: [0; MAX_N],
            points: ByPlayer::new(0, 0),
            side: Player::One,
            unlabelled: 0,
            zh: 0,
        };
        for (i, &l) in labels.iter().enumerate() {
            assert!(l <= 4, "labels are 0-4");
            h.isl[i] = l << 4;
            if l == 0 {
                h.unlabelled += 1;
            } else {
                h.zh ^= key(K_LABEL, i, l as u64);
            }
        }
        h
    }

    /// The fixed layout.
    pub(crate) fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Label of island `i` (0 = unlabelled).
    #[inline]
    pub fn label(&self, i: usize) -> u8 {
        self.isl[i] >> 4
    }

    /// Bridges at island `i`.
    #[inline]
    pub(crate) fn degree(&self, i: usize) -> u8 {
        self.isl[i] & 15
    }

    /// Bridges on pair `p` (0-2).
    #[inline]
    pub fn bridges(&self, p: usize) -> u8 {
        ((self.pc[p >> 5] >> ((p & 31) * 2)) & 3) as u8
    }

    /// Points of player 1 and player 2.
    pub fn points(&self) -> ByPlayer<i32> {
        self.points
    }

    /// Sets both scores (as read from a file).
    pub(crate) fn set_points(&mut self, points: ByPlayer<i32>) {
        self.points = points;
    }

    /// The side to move.
    pub fn side(&self) -> Player {
        self.side
    }

    /// Sets the side to move.
    pub(crate) fn set_side(&mut self, side: Player) {
        self.side = side;
    }

    /// Whether one more bridge fits on pair `p`: both ends labelled and
    /// below their label, fewer than two bridges, and (for the first) no
    /// crossing. O(1).
    #[inline]
    pub(crate) fn can_bridge(&self, p: usize) -> bool {
        let q = self.topo.pairs[p];
        let (a, b) = (self.isl[q.a as usize], self.isl[q.b as usize]);
        // Unlabelled islands have label 0 and degree 0, so they fail here too.
        if a & 15 >= a >> 4 || b & 15 >= b >> 4 {
            return false;
        }
        match self.bridges(p) {
            0 => {
                let crossing = if q.horizontal {
                    // The cells of row `line` between the islands, against vertical bridges.
                    self.vrows[q.line as usize]
                } else {
                    self.hcols[q.line as usize]
                };
                crossing & q.between == 0
            }
            1 => true,
            _ => false,
        }
    }

    /// Points a bridge on pair `p` would score: the labels of the ends it completes.
    #[inline]
    pub(crate) fn bridge_gain(&self, p: usize) -> i32 {
        let q = self.topo.pairs[p];
        let mut g = 0;
        for i in [q.a as usize, q.b as usize] {
            let l = self.label(i);
            if self.degree(i) + 1 == l {
                g += l as i32;
            }
        }
        g
    }

    /// Adds one bridge on pair `p` without scoring (file loading).
    fn add_bridge(&mut self, p: usize) {
        let q = self.topo.pairs[p];
        let k = self.bridges(p);
        self.zh ^= key(K_PAIR, p, k as u64) ^ key(K_PAIR, p, k as u64 + 1);
        if k == 0 {
            // Mark the crossed cells in the perpendicular view: a horizontal
            // bridge on row r covers (r, c) for each c between, kept in column c.
            let mut bits = q.between;
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if q.horizontal {
                    self.hcols[x] |= 1 << q.line;
                } else {
                    self.vrows[x] |= 1 << q.line;
                }
            }
        }
        self.pc[p >> 5] += 1 << ((p & 31) * 2);
        self.isl[q.a as usize] += 1;
        self.isl[q.b as usize] += 1;
    }

    /// Sets the label of unlabelled island `i` (file loading and label moves).
    fn set_label(&mut self, i: usize, l: u8) {
        debug_assert_eq!(self.label(i), 0);
        self.isl[i] |= l << 4;
        self.unlabelled -= 1;
        self.zh ^= key(K_LABEL, i, l as u64);
    }

    /// Places the bridges of a file (already validated by the caller) without scoring.
    pub(crate) fn load_bridge(&mut self, p: usize) {
        self.add_bridge(p);
    }

    /// Whether the side to move has any legal move.
    pub(crate) fn has_move(&self) -> bool {
        self.unlabelled > 0 || (0..self.topo.pairs.len()).any(|p| self.can_bridge(p))
    }

    /// Whether a bridge on pair `p` would cross one already placed (ignoring labels).
    pub(crate) fn crosses(&self, p: usize) -> bool {
        let q = self.topo.pairs[p];
        let cover = if q.horizontal {
            self.vrows[q.line as usize]
        } else {
            self.hcols[q.line as usize]
        };
        self.bridges(p) == 0 && cover & q.between != 0
    }
}

impl Game for Hashi {
    type Move = HashiMove;

    fn legal_moves(&self, out: &mut Vec<HashiMove>) {
        for p in 0..self.topo.pairs.len() {
            if self.can_bridge(p) {
                out.push(HashiMove::Bridge(p as u8));
            }
        }
        if self.unlabelled > 0 {
            for i in 0..self.topo.islands.len() {
                if self.label(i) == 0 {
                    out.push(HashiMove::Label(i as u8, 3));
                    out.push(HashiMove::Label(i as u8, 4));
                }
            }
        }
    }

    fn play(&mut self, mv: HashiMove) {
        match mv {
            HashiMove::Bridge(p) => {
                let p = p as usize;
                debug_assert!(self.can_bridge(p), "illegal bridge {p}");
                let gain = self.bridge_gain(p);
                self.add_bridge(p);
                // Mover gains, opponent loses the same (docs/protocol.md#hashi).
                self.points[self.side] += gain;
                self.points[self.side.other()] -= gain;
            }
            HashiMove::Label(i, l) => {
                debug_assert!(l == 3 || l == 4);
                self.set_label(i as usize, l);
            }
        }
        self.side = self.side.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.has_move() {
            return None;
        }
        let me = self.points[self.side];
        let them = self.points[self.side.other()];
        Some(match me.cmp(&them) {
            std::cmp::Ordering::Greater => Outcome::Win,
            std::cmp::Ordering::Less => Outcome::Loss,
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    fn hash(&self) -> u64 {
        // Scores matter for the result; their sum never changes, so the
        // difference is enough.
        let diff = (self.points[Player::One] - self.points[Player::Two]) as i64 as u64;
        let side = match self.side {
            Player::One => 0,
            Player::Two => key(K_SIDE, 0, 0),
        };
        self.zh ^ key(K_POINTS, 0, diff & 0xFF_FFFF) ^ side
    }
}

#[cfg(test)]
mod tests;

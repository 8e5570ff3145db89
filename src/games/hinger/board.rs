//! The Hinger board on a 128-bit bitboard of active cells (docs/protocol.md#hinger).
//!
//! Cell `(r, c)` is bit `r * stride + c` with `stride = cols + 1`: the extra
//! guard column is never on the board, so a one-bit shift that runs off the
//! end of a row lands on a guard bit and is masked away. That makes the
//! 8-neighbourhood a handful of shifts, and region counting and hinger
//! detection bitboard flood fills.

use std::fmt;

/// Largest pile a cell may hold: 2^24 = 16,777,216. The rules allow any pile
/// size; this one keeps the total of a full board (at most 128 cells) below
/// 2^31, so counter sums fit a `u32` with room to spare.
pub const MAX_PILE: u32 = 1 << 24;
/// The board-size limit in words, for messages.
pub(crate) const SIZE_LIMIT: &str = "rows * (cols + 1) must be at most 128 (10x10 fits)";

/// A Hinger board: pile sizes plus bitboards of the active cells and of the
/// cells holding two or more counters.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    rows: u8,
    cols: u8,
    stride: u8,
    /// All on-board bits.
    mask: u128,
    /// Cells with at least one counter.
    active: u128,
    /// Cells with at least two counters (never hingers).
    multi: u128,
    piles: [u32; 128],
}

/// Mixes a cell index and a pile size into 64 well-spread bits (SplitMix64
/// finaliser): the per-(cell, pile) keys of the Zobrist-style hashes, computed
/// on the fly because piles are unbounded.
#[inline]
pub fn mix(cell: usize, pile: u32) -> u64 {
    crate::search::mix::splitmix64((cell as u64) << 32 | pile as u64)
}

impl Board {
    /// An empty board. Fails when `rows * (cols + 1)` exceeds 128 bits (10x10,
    /// 11x9 and 9x11 all fit; the product is checked, so huge sizes cannot
    /// wrap) or a dimension is zero.
    pub fn new(rows: usize, cols: usize) -> Result<Board, String> {
        if rows == 0 || cols == 0 {
            return Err(format!(
                "the board must have at least one row and one column, found {rows}x{cols}"
            ));
        }
        if !crate::protocol::limits::fits_bitboard(rows, cols) {
            return Err(format!("a {rows}x{cols} board is too large: {SIZE_LIMIT}"));
        }
        let stride = cols + 1;
        let mut mask = 0u128;
        for r in 0..rows {
            for c in 0..cols {
                mask |= 1u128 << (r * stride + c);
            }
        }
        Ok(Board {
            rows: rows as u8,
            cols: cols as u8,
            stride: stride as u8,
            mask,
            active: 0,
            multi: 0,
            piles: [0; 128],
        })
    }

    /// A board from rows of pile sizes (all rows `cols` long): for tests
    /// and the safe-path tools' tests.
    #[cfg(any(test, feature = "internals"))]
    pub fn from_grid(grid: &[Vec<u32>]) -> Result<Board, String> {
        let rows = grid.len();
        let cols = grid.first().map_or(0, |r| r.len());
        let mut b = Board::new(rows, cols)?;
        for (r, row) in grid.iter().enumerate() {
            if row.len() != cols {
                return Err(format!("row {r} has {} cells, expected {cols}", row.len()));
            }
            for (c, &p) in row.iter().enumerate() {
                b.set(r, c, p)?;
            }
        }
        Ok(b)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols as usize
    }
    /// Bit index of `(r, c)`.
    #[inline]
    pub fn index(&self, r: usize, c: usize) -> usize {
        r * self.stride as usize + c
    }
    /// `(row, col)` of a bit index.
    #[inline]
    pub fn coords(&self, i: usize) -> (usize, usize) {
        (i / self.stride as usize, i % self.stride as usize)
    }
    /// The bitboard of active cells.
    #[inline]
    pub fn active(&self) -> u128 {
        self.active
    }
    /// The bitboard of cells with two or more counters.
    #[inline]
    pub fn multi(&self) -> u128 {
        self.multi
    }
    /// Pile size at a bit index.
    #[inline]
    pub fn pile(&self, i: usize) -> u32 {
        self.piles[i]
    }
    /// Pile size at `(r, c)`.
    pub fn get(&self, r: usize, c: usize) -> u32 {
        self.pile(self.index(r, c))
    }
    /// Total number of counters (at most 128 * [`MAX_PILE`] = 2^31).
    pub fn counters(&self) -> u32 {
        iter_bits(self.active).map(|i| self.pile(i)).sum()
    }
    #[cfg(test)]
    /// True when every pile is 0 or 1.
    pub(crate) fn is_binary(&self) -> bool {
        self.multi == 0
    }

    /// Sets the pile at `(r, c)`.
    pub fn set(&mut self, r: usize, c: usize, p: u32) -> Result<(), String> {
        if r >= self.rows() || c >= self.cols() {
            return Err(format!("cell ({r}, {c}) is off the {}x{} board", self.rows, self.cols));
        }
        if p > MAX_PILE {
            return Err(format!(
                "pile {p} at row {r}, column {c} is larger than the supported maximum of {MAX_PILE} counters"
            ));
        }
        let i = self.index(r, c);
        self.piles[i] = p;
        let bit = 1u128 << i;
        self.active = if p >= 1 { self.active | bit } else { self.active & !bit };
        self.multi = if p >= 2 { self.multi | bit } else { self.multi & !bit };
        Ok(())
    }

    /// Sets the pile at bit index `i` (an on-board cell, `p <= MAX_PILE`).
    #[inline]
    pub fn set_index(&mut self, i: usize, p: u32) {
        debug_assert!(self.mask >> i & 1 == 1 && p <= MAX_PILE);
        self.piles[i] = p;
        let bit = 1u128 << i;
        self.active = if p >= 1 { self.active | bit } else { self.active & !bit };
        self.multi = if p >= 2 { self.multi | bit } else { self.multi & !bit };
    }

    /// Removes one counter at bit `i` (which must be active).
    #[inline]
    pub fn remove(&mut self, i: usize) {
        debug_assert!(self.active >> i & 1 == 1);
        self.piles[i] -= 1;
        match self.piles[i] {
            0 => self.active &= !(1u128 << i),
            1 => self.multi &= !(1u128 << i),
            _ => {}
        }
    }

    /// A copy holding only the cells of `keep` (every other cell emptied).
    pub(crate) fn restrict(&self, keep: u128) -> Board {
        let mut b = self.clone();
        for i in iter_bits(self.active & !keep) {
            b.piles[i] = 0;
        }
        b.active &= keep;
        b.multi &= keep;
        b
    }

    /// Counters on the cells of `cells`.
    #[inline]
    pub(crate) fn counters_in(&self, cells: u128) -> u32 {
        let cells = cells & self.active;
        if cells & self.multi == 0 {
            cells.count_ones()
        } else {
            iter_bits(cells).map(|i| self.pile(i)).sum()
        }
    }

    /// The cells at king distance <= 1 from any cell of `b` (including `b`).
    #[inline]
    pub fn dilate(&self, b: u128) -> u128 {
        let m = self.mask;
        let s = self.stride as u32;
        let h = b | ((b << 1) & m) | ((b >> 1) & m);
        (h | (h << s) | (h >> s)) & m
    }

    /// The 8-connected component of `within` that contains `seed` (`seed`
    /// must be a subset of `within`).
    #[inline]
    pub fn fill(&self, seed: u128, within: u128) -> u128 {
        let mut f = seed;
        loop {
            let n = self.dilate(f) & within;
            if n == f {
                return f;
            }
            f = n;
        }
    }

    /// Number of 8-connected components of `cells`.
    pub(crate) fn count_components(&self, mut cells: u128) -> u32 {
        let mut n = 0;
        while cells != 0 {
            let seed = cells & cells.wrapping_neg();
            cells &= !self.fill(seed, cells);
            n += 1;
        }
        n
    }

    /// Number of active regions.
    pub fn regions(&self) -> u32 {
        self.count_components(self.active)
    }

    /// Whether emptying cell `i` (active) splits its region in two or more,
    /// that is, whether its active neighbours lie in different components
    /// once it is gone.
    #[inline]
    fn splits(&self, i: usize) -> bool {
        self.splits_in(self.active, i)
    }

    /// [`Board::splits`] for the active set `active` (which holds `i`).
    #[inline]
    fn splits_in(&self, active: u128, i: usize) -> bool {
        let bit = 1u128 << i;
        let rest = active & !bit;
        let nb = self.dilate(bit) & rest;
        if nb == 0 {
            return false;
        }
        let first = nb & nb.wrapping_neg();
        // Neighbours already connected to each other inside the 3x3 ring
        // cannot be separated: most cells are settled without a global fill.
        if self.fill(first, nb) == nb {
            return false;
        }
        self.fill(first, rest) & nb != nb
    }

    /// The single-counter cells whose active neighbours are not connected
    /// to each other inside their 3x3 ring: the only cells that can be (or,
    /// away from a removed cell, become) hingers. One ring test per cell.
    #[inline]
    pub fn ring_split(&self) -> u128 {
        let mut out = 0;
        for i in iter_bits(self.active & !self.multi) {
            let bit = 1u128 << i;
            let nb = self.dilate(bit) & self.active & !bit;
            if nb != 0 && self.fill(nb & nb.wrapping_neg(), nb) != nb {
                out |= bit;
            }
        }
        out
    }

    #[cfg(test)]
    /// Whether the board after one counter is removed at bit `i` contains a
    /// hinger, for a board that has none now (and `i` active). Cheaper than
    /// building the child: a pile of three or more changes no bitboard, a pile
    /// of two only makes `i` itself a candidate, and emptying a (non-hinger)
    /// cell can only affect the cells of its own region.
    #[inline]
    pub(crate) fn hinger_after_removal(&self, i: usize) -> bool {
        self.hinger_after_removal_with(i, self.ring_split())
    }

    /// [`Board::hinger_after_removal`] given `ring = self.ring_split()`, for
    /// loops over many moves. After emptying `i`, a cell `j` whose ring does
    /// not touch `i` has the same ring as before, so it can only be a hinger
    /// if its ring was already split (it is in `ring`) and only `i`'s own
    /// region can change: the candidates are `(ring | neighbours of i)` in
    /// that region.
    #[inline]
    pub fn hinger_after_removal_with(&self, i: usize, ring: u128) -> bool {
        debug_assert!(!self.has_hinger() && ring == self.ring_split());
        let bit = 1u128 << i;
        match self.pile(i) {
            0 => false,
            1 => {
                let after = self.active & !bit;
                let region = self.fill(bit, self.active) & after;
                let cand = (ring | self.dilate(bit)) & region & !self.multi;
                iter_bits(cand).any(|j| self.splits_in(after, j))
            }
            2 => self.splits_in(self.active, i),
            _ => false,
        }
    }

    /// Bitboard of the safe moves of a hinger-free board: the cells whose
    /// move leaves no hinger.
    pub fn safe_moves(&self) -> u128 {
        let ring = self.ring_split();
        let mut s = 0;
        for i in iter_bits(self.active) {
            if !self.hinger_after_removal_with(i, ring) {
                s |= 1u128 << i;
            }
        }
        s
    }

    /// Whether the cell at bit `i` is a hinger: one counter whose removal
    /// increases the number of active regions.
    #[inline]
    pub(crate) fn is_hinger(&self, i: usize) -> bool {
        let bit = 1u128 << i;
        self.active & bit != 0 && self.multi & bit == 0 && self.splits(i)
    }

    /// Bitboard of all hingers.
    pub fn hingers(&self) -> u128 {
        let mut h = 0;
        for i in iter_bits(self.active & !self.multi) {
            if self.splits(i) {
                h |= 1u128 << i;
            }
        }
        h
    }

    #[cfg(test)]
    /// Number of hingers.
    pub(crate) fn num_hingers(&self) -> u32 {
        self.hingers().count_ones()
    }

    /// Whether any cell is a hinger (stops at the first).
    #[inline]
    pub fn has_hinger(&self) -> bool {
        iter_bits(self.active & !self.multi).any(|i| self.splits(i))
    }

    /// Cost of a move at bit `i`: 1 + the number of active neighbours.
    #[inline]
    pub fn move_cost(&self, i: usize) -> u32 {
        let bit = 1u128 << i;
        1 + (self.dilate(bit) & self.active & !bit).count_ones()
    }

    /// A hash of the piles above one (exact state = active bitboard + this;
    /// 0 for binary boards, so binary states have exact keys).
    #[inline]
    pub(crate) fn multi_hash(&self) -> u64 {
        let mut h = 0u64;
        for i in iter_bits(self.multi) {
            h ^= mix(i, self.pile(i));
        }
        h
    }

    /// Key identifying the state (exact for binary boards).
    #[inline]
    pub fn key(&self) -> (u128, u64) {
        (self.active, self.multi_hash())
    }

    #[cfg(test)]
    /// Rows of pile sizes.
    pub(crate) fn to_grid(&self) -> Vec<Vec<u32>> {
        (0..self.rows())
            .map(|r| (0..self.cols()).map(|c| self.get(r, c)).collect())
            .collect()
    }

    /// The grid lines (space-separated pile sizes), one per row, each ending
    /// with a newline.
    pub(crate) fn grid_text(&self) -> String {
        let mut s = String::new();
        for r in 0..self.rows() {
            let row: Vec<String> = (0..self.cols()).map(|c| self.get(r, c).to_string()).collect();
            s.push_str(&row.join(" "));
            s.push('\n');
        }
        s
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}\n{}", self.rows, self.cols, self.grid_text())
    }
}

/// The set bits of `b`, lowest first.
#[inline]
pub fn iter_bits(mut b: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(i)
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Deliberately simple reference: regions by recursive flood fill over a
    /// plain grid, hingers by removing the counter and recounting.
    pub(crate) fn simple_regions(g: &[Vec<u32>]) -> u32 {
        let rows = g.len();
        let cols = g[0].len();
        let mut seen = vec![vec![false; cols]; rows];
        let mut n = 0;
        fn visit(g: &[Vec<u32>], seen: &mut Vec<Vec<bool>>, r: usize, c: usize) {
            if seen[r][c] || g[r][c] == 0 {
                return;
            }
            seen[r][c] = true;
            for dr in -1i32..=1 {
                for dc in -1i32..=1 {
                    let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                    if nr >= 0 && nc >= 0 && (nr as usize) < g.len() && (nc as usize) < g[0].len() {
                        visit(g, seen, nr as usize, nc as usize);
                    }
                }
            }
        }
        for r in 0..rows {
            for c in 0..cols {
                if g[r][c] > 0 && !seen[r][c] {
                    n += 1;
                    visit(g, &mut seen, r, c);
                }
            }
        }
        n
    }

    pub(crate) fn simple_hingers(g: &[Vec<u32>]) -> Vec<(usize, usize)> {
        let before = simple_regions(g);
        let mut out = Vec::new();
        for r in 0..g.len() {
            for c in 0..g[0].len() {
                if g[r][c] == 1 {
                    let mut h = g.to_vec();
                    h[r][c] = 0;
                    if simple_regions(&h) > before {
                        out.push((r, c));
                    }
                }
            }
        }
        out
    }

    fn figure1_a() -> Vec<Vec<u32>> {
        vec![
            vec![1, 1, 0, 0, 2],
            vec![1, 1, 0, 0, 0],
            vec![0, 0, 1, 1, 1],
            vec![0, 0, 0, 1, 1],
        ]
    }

    #[test]
    fn figure_one_states() {
        let a = Board::from_grid(&figure1_a()).unwrap();
        // (1,1) and (2,2) touch diagonally, so the ones form one region and
        // each of the two is a hinger already in A.
        let h = (1u128 << a.index(1, 1)) | (1u128 << a.index(2, 2));
        assert_eq!(a.regions(), 2);
        assert_eq!(a.hingers(), h);
        assert_eq!(a.counters(), 11);
        let mut b = a.clone();
        b.remove(a.index(0, 4));
        assert_eq!(a.move_cost(a.index(0, 4)), 1);
        assert_eq!(b.regions(), 2);
        assert_eq!(b.hingers(), h);
        assert_eq!(b.move_cost(b.index(2, 2)), 4);
        let mut c = b.clone();
        c.remove(b.index(2, 2));
        assert_eq!(c.regions(), 3);
    }

    #[test]
    fn x_centre_and_lone_counter() {
        // The centre of an X splits one region into four: a hinger.
        let x = Board::from_grid(&[vec![1, 0, 1], vec![0, 1, 0], vec![1, 0, 1]]).unwrap();
        assert_eq!(x.hingers(), 1u128 << x.index(1, 1));
        // A lone counter lowers the count when removed: not a hinger.
        let lone = Board::from_grid(&[vec![0, 0], vec![0, 1]]).unwrap();
        assert_eq!(lone.num_hingers(), 0);
        // A pile of two is never a hinger.
        let two = Board::from_grid(&[vec![1, 2, 1]]).unwrap();
        assert_eq!(two.num_hingers(), 0);
        let one = Board::from_grid(&[vec![1, 1, 1]]).unwrap();
        assert_eq!(one.num_hingers(), 1);
    }

    #[test]
    fn size_limits() {
        assert!(Board::new(10, 10).is_ok());
        assert!(Board::new(11, 10).is_ok());
        assert!(Board::new(12, 10).is_err());
        assert!(Board::new(0, 3).is_err());
        assert!(Board::new(1, 127).is_ok());
        let mut b = Board::new(10, 10).unwrap();
        b.set(9, 9, 1).unwrap();
        b.set(0, 0, 1).unwrap();
        assert_eq!(b.regions(), 2);
        assert!(b.set(10, 0, 1).is_err());
    }

    #[test]
    fn bitboard_agrees_with_simple_counting_on_random_boards() {
        let mut rng = SmallRng::seed_from_u64(7);
        for t in 0..4000 {
            let rows = rng.gen_range(1..=10);
            let cols = rng.gen_range(1..=10);
            let density = rng.gen_range(0.2..0.9);
            let maxp = if t % 3 == 0 { 3 } else { 1 };
            let g = crate::games::hinger::sum::tests::random_grid(&mut rng, rows, cols, density, maxp);
            let b = Board::from_grid(&g).unwrap();
            assert_eq!(b.regions(), simple_regions(&g), "{b:?}");
            let want = simple_hingers(&g);
            let got: Vec<(usize, usize)> = iter_bits(b.hingers()).map(|i| b.coords(i)).collect();
            assert_eq!(got, want, "{b:?}");
            assert_eq!(b.has_hinger(), !want.is_empty());
            assert_eq!(b.to_grid(), g);
            if want.is_empty() {
                for i in iter_bits(b.active()) {
                    let mut child = b.clone();
                    child.remove(i);
                    assert_eq!(
                        b.hinger_after_removal(i),
                        child.has_hinger(),
                        "{b:?} move {:?}",
                        b.coords(i)
                    );
                }
            }
        }
    }
}

//! A 256-cell bitboard for the 16x16 Halma board: four `u64` words, cell
//! `y*16 + x` at bit `cell % 64` of word `cell / 64`.

use crate::protocol::{ByPlayer, Player};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Highest level (`x + y`, the anti-diagonal; 30 at cell (15,15)).
pub const TOP_LEVEL: usize = 30;

/// Level of a cell: its anti-diagonal `x + y` (black's frame: 0 at black's
/// corner, [`TOP_LEVEL`] at white's).
#[inline]
pub const fn level(c: u8) -> u32 {
    (col(c) + row(c)) as u32
}

const fn build_level_ge() -> [Bitboard; TOP_LEVEL + 2] {
    let mut t = [Bitboard([0; 4]); TOP_LEVEL + 2];
    let mut l = 0;
    while l <= TOP_LEVEL + 1 {
        let mut c = 0;
        while c < CELLS {
            if (c % 16 + c / 16) >= l {
                t[l].0[c / 64] |= 1u64 << (c % 64);
            }
            c += 1;
        }
        l += 1;
    }
    t
}

/// `LEVEL_GE[l]`: the cells at level `>= l` (`LEVEL_GE[31]` is empty).
pub(crate) static LEVEL_GE: [Bitboard; TOP_LEVEL + 2] = build_level_ge();

/// Lowest level of a non-empty set ([`TOP_LEVEL`] for the empty set).
#[inline]
pub(crate) fn min_level(b: Bitboard) -> u32 {
    // The largest l with every cell at level >= l.
    let (mut lo, mut hi) = (0usize, TOP_LEVEL);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if (b & !LEVEL_GE[mid]).is_empty() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo as u32
}

/// Highest level of a non-empty set (0 for the empty set).
#[inline]
pub(crate) fn max_level(b: Bitboard) -> u32 {
    // The largest l with some cell at level >= l.
    let (mut lo, mut hi) = (0usize, TOP_LEVEL);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if (b & LEVEL_GE[mid]).is_empty() {
            hi = mid - 1;
        } else {
            lo = mid;
        }
    }
    lo as u32
}

/// Board side length.
pub const N: usize = 16;
/// Number of cells.
pub(crate) const CELLS: usize = N * N;

/// A set of cells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub [u64; 4]);

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for y in 0..N {
            for x in 0..N {
                write!(f, "{}", if self.has(cell(x, y)) { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The cell index of column `x`, row `y`.
#[inline]
pub const fn cell(x: usize, y: usize) -> u8 {
    (y * N + x) as u8
}

/// Column of a cell.
#[inline]
pub const fn col(c: u8) -> usize {
    c as usize % N
}

/// Row of a cell.
#[inline]
pub const fn row(c: u8) -> usize {
    c as usize / N
}

impl Bitboard {
    /// No cell.
    pub const EMPTY: Bitboard = Bitboard([0; 4]);
    /// Every cell.
    pub(crate) const FULL: Bitboard = Bitboard([!0; 4]);

    /// The set holding only `c`.
    #[inline]
    pub const fn single(c: u8) -> Bitboard {
        let mut w = [0u64; 4];
        w[(c >> 6) as usize] = 1u64 << (c & 63);
        Bitboard(w)
    }

    /// Whether `c` is in the set.
    #[inline]
    pub const fn has(&self, c: u8) -> bool {
        self.0[(c >> 6) as usize] >> (c & 63) & 1 != 0
    }

    /// Adds `c`.
    #[inline]
    pub fn set(&mut self, c: u8) {
        self.0[(c >> 6) as usize] |= 1u64 << (c & 63);
    }

    /// Removes `c`.
    #[inline]
    pub fn clear(&mut self, c: u8) {
        self.0[(c >> 6) as usize] &= !(1u64 << (c & 63));
    }

    /// True for the empty set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Number of cells in the set.
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Lowest cell of a non-empty set.
    #[inline]
    pub fn lowest(&self) -> Option<u8> {
        for (i, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return Some((i as u32 * 64 + w.trailing_zeros()) as u8);
            }
        }
        None
    }

    /// Removes and returns the lowest cell.
    #[inline]
    pub fn pop(&mut self) -> Option<u8> {
        for i in 0..4 {
            let w = self.0[i];
            if w != 0 {
                self.0[i] = w & (w - 1);
                return Some((i as u32 * 64 + w.trailing_zeros()) as u8);
            }
        }
        None
    }

    /// Iterates over the cells, lowest first.
    #[inline]
    pub fn iter(self) -> Cells {
        Cells(self)
    }

    /// All cells moved by `+n` (0 < n < 64) indices; cells past 255 drop off.
    #[inline]
    pub(crate) fn shift_up(self, n: u32) -> Bitboard {
        // As two u128 halves: the compiler turns these into double shifts.
        let w = self.0;
        let lo = (w[0] as u128) | ((w[1] as u128) << 64);
        let hi = (w[2] as u128) | ((w[3] as u128) << 64);
        let nlo = lo << n;
        let nhi = (hi << n) | (lo >> (128 - n));
        Bitboard([nlo as u64, (nlo >> 64) as u64, nhi as u64, (nhi >> 64) as u64])
    }

    /// All cells moved by `-n` (0 < n < 64) indices; cells below 0 drop off.
    #[inline]
    pub(crate) fn shift_down(self, n: u32) -> Bitboard {
        let w = self.0;
        let lo = (w[0] as u128) | ((w[1] as u128) << 64);
        let hi = (w[2] as u128) | ((w[3] as u128) << 64);
        let nhi = hi >> n;
        let nlo = (lo >> n) | (hi << (128 - n));
        Bitboard([nlo as u64, (nlo >> 64) as u64, nhi as u64, (nhi >> 64) as u64])
    }

    /// Moves every cell one step in direction `d` (an index into [`DIRS`]);
    /// cells that would leave the board vanish. Horizontal moves stay inside
    /// each word (a bit crossing a word boundary would wrap a row anyway);
    /// wrapped bits are removed by masking the destination column.
    #[inline(always)]
    pub fn step(self, d: usize) -> Bitboard {
        self.shift_cells::<1>(d)
    }

    /// Moves every cell two steps in direction `d` (a jump's displacement);
    /// cells that would leave the board vanish.
    #[inline(always)]
    pub(crate) fn step2(self, d: usize) -> Bitboard {
        self.shift_cells::<2>(d)
    }

    /// [`Bitboard::step`] (`N` = 1) and [`Bitboard::step2`] (`N` = 2): every
    /// cell moved `N` cells in direction `d`. The masks keep, in every 16-bit
    /// row, the columns a moved cell may land on; with `N` a constant they
    /// fold at compile time.
    #[inline(always)]
    fn shift_cells<const N: u32>(self, d: usize) -> Bitboard {
        const ROWS: u64 = 0x0001_0001_0001_0001;
        // Landing columns after N to the right (x >= N) or to the left (x <= 15 - N).
        let right = ROWS * ((0xFFFF << N) & 0xFFFF);
        let left = ROWS * (0xFFFF >> N);
        let w = self.0;
        match d {
            0 => Bitboard([(w[0] << N) & right, (w[1] << N) & right, (w[2] << N) & right, (w[3] << N) & right]),
            1 => Bitboard([(w[0] >> N) & left, (w[1] >> N) & left, (w[2] >> N) & left, (w[3] >> N) & left]),
            2 => self.shift_up(16 * N),
            3 => self.shift_down(16 * N),
            4 => self.shift_up(17 * N) & Bitboard([right; 4]),
            5 => self.shift_up(15 * N) & Bitboard([left; 4]),
            6 => self.shift_down(15 * N) & Bitboard([right; 4]),
            _ => self.shift_down(17 * N) & Bitboard([left; 4]),
        }
    }

    /// The cells 8-adjacent to some cell of the set (the set itself excluded
    /// only where no member is adjacent to it).
    #[inline]
    pub fn neighbours(self) -> Bitboard {
        let mut r = Bitboard::EMPTY;
        for d in 0..8 {
            r |= self.step(d);
        }
        r
    }
}

/// Iterator over the cells of a [`Bitboard`].
pub struct Cells(Bitboard);

impl Iterator for Cells {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        self.0.pop()
    }
}

/// The eight directions: (index delta, dx, dy).
pub const DIRS: [(i32, i32, i32); 8] = [
    (1, 1, 0),
    (-1, -1, 0),
    (16, 0, 1),
    (-16, 0, -1),
    (17, 1, 1),
    (15, -1, 1),
    (-15, 1, -1),
    (-17, -1, -1),
];

/// `r`-balls: for each cell, the cells within `r` king steps of it, the
/// cell itself left out (`ball(1)`: the neighbours a step reaches;
/// `ball(2)`: the cells a hop's landing can be near). For tables built at
/// compile time.
pub(crate) const fn ball(r: i32) -> [Bitboard; CELLS] {
    let mut t = [Bitboard([0; 4]); CELLS];
    let mut s = 0;
    while s < CELLS {
        let (sx, sy) = ((s % 16) as i32, (s / 16) as i32);
        let mut y = sy - r;
        while y <= sy + r {
            let mut x = sx - r;
            while x <= sx + r {
                if x >= 0 && x < 16 && y >= 0 && y < 16 && (x != sx || y != sy) {
                    let c = (y * 16 + x) as usize;
                    t[s].0[c / 64] |= 1u64 << (c % 64);
                }
                x += 1;
            }
            y += 1;
        }
        s += 1;
    }
    t
}

/// The direction opposite to each of [`DIRS`].
pub(crate) const OPPOSITE: [usize; 8] = [1, 0, 3, 2, 7, 6, 5, 4];

macro_rules! binop {
    ($tr:ident, $f:ident, $op:tt, $tra:ident, $fa:ident) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, o: Bitboard) -> Bitboard {
                Bitboard([self.0[0] $op o.0[0], self.0[1] $op o.0[1], self.0[2] $op o.0[2], self.0[3] $op o.0[3]])
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, o: Bitboard) {
                *self = *self $op o;
            }
        }
    };
}
binop!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
binop!(BitOr, bitor, |, BitOrAssign, bitor_assign);
binop!(BitXor, bitxor, ^, BitXorAssign, bitxor_assign);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}

const fn in_black_camp(x: usize, y: usize) -> bool {
    match y {
        0 | 1 => x <= 4,
        2 => x <= 3,
        3 => x <= 2,
        4 => x <= 1,
        _ => false,
    }
}

const fn build_camp(colour: Player) -> Bitboard {
    let mut b = [0u64; 4];
    let mut c = 0;
    while c < CELLS {
        let (x, y) = (c % 16, c / 16);
        let inside = match colour {
            Player::One => in_black_camp(x, y),
            Player::Two => in_black_camp(15 - x, 15 - y),
        };
        if inside {
            b[c / 64] |= 1u64 << (c % 64);
        }
        c += 1;
    }
    Bitboard(b)
}

/// The camps: black's (`Player::One`, top-left) and white's.
pub(crate) const CAMP: ByPlayer<Bitboard> = ByPlayer::new(build_camp(Player::One), build_camp(Player::Two));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_match_coordinates_and_never_wrap() {
        for c in 0..=255u8 {
            let b = Bitboard::single(c);
            for (d, &(_, dx, dy)) in DIRS.iter().enumerate() {
                let (x, y) = (col(c) as i32 + dx, row(c) as i32 + dy);
                let want = if (0..16).contains(&x) && (0..16).contains(&y) {
                    Bitboard::single(cell(x as usize, y as usize))
                } else {
                    Bitboard::EMPTY
                };
                assert_eq!(b.step(d), want, "cell {c} dir {d}");
                let (x2, y2) = (col(c) as i32 + 2 * dx, row(c) as i32 + 2 * dy);
                let want2 = if (0..16).contains(&x2) && (0..16).contains(&y2) {
                    Bitboard::single(cell(x2 as usize, y2 as usize))
                } else {
                    Bitboard::EMPTY
                };
                assert_eq!(b.step2(d), want2, "cell {c} dir {d} (two steps)");
            }
        }
    }

    #[test]
    fn the_one_ball_is_the_cells_a_step_reaches() {
        // (The solver's tests check `ball(2)`.)
        let one = ball(1);
        for c in 0..=255u8 {
            let b = Bitboard::single(c);
            let steps = (0..8).fold(Bitboard::EMPTY, |acc, d| acc | b.step(d));
            assert_eq!(one[c as usize], steps, "cell {c}");
            assert_eq!(one[c as usize], b.neighbours(), "cell {c}");
        }
    }

    #[test]
    fn set_operations() {
        let mut b = Bitboard::EMPTY;
        for c in [0u8, 63, 64, 200, 255] {
            b.set(c);
        }
        assert_eq!(b.count(), 5);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 63, 64, 200, 255]);
        b.clear(63);
        assert!(!b.has(63) && b.has(64));
        assert_eq!(b.lowest(), Some(0));
        assert_eq!(Bitboard::single(5).neighbours().count(), 5);
    }
}

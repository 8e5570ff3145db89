//! Board geometry for the two sizes (4x4 and 6x6), computed at compile time:
//! 3x3 block masks, the eight symmetries of the square as cell permutations,
//! and the Zobrist keys. Cells are numbered `row * n + col`.

use crate::protocol::ByPlayer;
/// The card values, in the order hands count them.
pub const VALUES: [u8; 5] = [2, 3, 5, 8, 13];

/// Index of a card value in [`VALUES`], or None for a value that is not a card.
#[inline]
pub(crate) fn value_index(v: u8) -> Option<usize> {
    match v {
        2 => Some(0),
        3 => Some(1),
        5 => Some(2),
        8 => Some(3),
        13 => Some(4),
        _ => None,
    }
}

/// Largest board side.
pub(crate) const MAX_N: usize = 6;
/// Largest cell count.
pub(crate) const MAX_CELLS: usize = MAX_N * MAX_N;

/// Tables for one board size.
pub(crate) struct Geo {
    /// n*n.
    pub cells: usize,
    /// Mask of all cells.
    pub full: u64,
    /// For each cell, the mask of its 3x3 block (itself and up to 8 neighbours).
    pub block: [u64; MAX_CELLS],
    /// `sym[s][c]`: where symmetry `s` sends cell `c` (s = 0 is the identity).
    pub sym: [[u8; MAX_CELLS]; 8],
    /// `inv[s]` is the inverse permutation of `sym[s]`.
    pub inv: [[u8; MAX_CELLS]; 8],
}

const fn sym_of(s: usize, r: usize, c: usize, n: usize) -> (usize, usize) {
    let m = n - 1;
    match s {
        0 => (r, c),
        1 => (c, m - r),
        2 => (m - r, m - c),
        3 => (m - c, r),
        4 => (r, m - c),
        5 => (m - r, c),
        6 => (c, r),
        _ => (m - c, m - r),
    }
}

const fn make_geo(n: usize) -> Geo {
    let cells = n * n;
    let full = if cells == 64 { u64::MAX } else { (1u64 << cells) - 1 };
    let mut block = [0u64; MAX_CELLS];
    let mut sym = [[0u8; MAX_CELLS]; 8];
    let mut inv = [[0u8; MAX_CELLS]; 8];
    let mut r = 0;
    while r < n {
        let mut c = 0;
        while c < n {
            let i = r * n + c;
            let mut dr = 0;
            while dr < 3 {
                let mut dc = 0;
                while dc < 3 {
                    let rr = r as isize + dr as isize - 1;
                    let cc = c as isize + dc as isize - 1;
                    if rr >= 0 && cc >= 0 && (rr as usize) < n && (cc as usize) < n {
                        block[i] |= 1u64 << (rr as usize * n + cc as usize);
                    }
                    dc += 1;
                }
                dr += 1;
            }
            let mut s = 0;
            while s < 8 {
                let (tr, tc) = sym_of(s, r, c, n);
                let j = tr * n + tc;
                sym[s][i] = j as u8;
                inv[s][j] = i as u8;
                s += 1;
            }
            c += 1;
        }
        r += 1;
    }
    Geo {
        cells,
        full,
        block,
        sym,
        inv,
    }
}

/// The 4x4 board.
pub(crate) static GEO4: Geo = make_geo(4);
/// The 6x6 board.
pub(crate) static GEO6: Geo = make_geo(6);

/// Tables for side `n` (4 or 6).
#[inline]
pub(crate) fn geo(n: u8) -> &'static Geo {
    if n == 4 {
        &GEO4
    } else {
        &GEO6
    }
}

const fn splitmix(state: u64) -> (u64, u64) {
    (
        state.wrapping_add(crate::search::mix::GOLDEN),
        crate::search::mix::splitmix64(state),
    )
}

/// Zobrist keys.
pub(crate) struct Zobrist {
    /// A card of owner `o` and value index `v` on cell `c`: `card[c][o][v]`.
    pub card: [ByPlayer<[u64; 5]>; MAX_CELLS],
    /// A removed cell.
    pub removed: [u64; MAX_CELLS],
    /// Player `p` holds `k` cards of value index `v`: `hand[p][v][k]`.
    pub hand: ByPlayer<[[u64; 4]; 5]>,
    /// Player 2 to move.
    pub side: u64,
    /// Board size 6 (so the two sizes never share keys).
    pub six: u64,
}

const fn make_zobrist() -> Zobrist {
    let mut st = 0x1234_5678_9ABC_DEF0u64;
    // Filled as plain arrays (indexing a `ByPlayer` is not `const`).
    let mut card = [[[0; 5]; 2]; MAX_CELLS];
    let mut hand = [[[0; 4]; 5]; 2];
    let mut z = Zobrist {
        card: [ByPlayer::new([0; 5], [0; 5]); MAX_CELLS],
        removed: [0; MAX_CELLS],
        hand: ByPlayer::new([[0; 4]; 5], [[0; 4]; 5]),
        side: 0,
        six: 0,
    };
    let mut c = 0;
    while c < MAX_CELLS {
        let mut o = 0;
        while o < 2 {
            let mut v = 0;
            while v < 5 {
                let (s, x) = splitmix(st);
                st = s;
                card[c][o][v] = x;
                v += 1;
            }
            o += 1;
        }
        let (s, x) = splitmix(st);
        st = s;
        z.removed[c] = x;
        z.card[c] = ByPlayer::new(card[c][0], card[c][1]);
        c += 1;
    }
    let mut p = 0;
    while p < 2 {
        let mut v = 0;
        while v < 5 {
            // Count 0 hashes to 0 so that an empty hand needs no key.
            let mut k = 1;
            while k < 4 {
                let (s, x) = splitmix(st);
                st = s;
                hand[p][v][k] = x;
                k += 1;
            }
            v += 1;
        }
        p += 1;
    }
    z.hand = ByPlayer::new(hand[0], hand[1]);
    let (s, x) = splitmix(st);
    st = s;
    z.side = x;
    let (_, x) = splitmix(st);
    z.six = x;
    z
}

/// The keys.
pub(crate) static ZOBRIST: Zobrist = make_zobrist();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_symmetries() {
        assert_eq!(GEO4.block[0].count_ones(), 4);
        assert_eq!(GEO4.block[5].count_ones(), 9);
        assert_eq!(GEO6.block[6].count_ones(), 6);
        for g in [&GEO4, &GEO6] {
            for s in 0..8 {
                let mut seen = 0u64;
                for c in 0..g.cells {
                    let j = g.sym[s][c] as usize;
                    seen |= 1 << j;
                    assert_eq!(g.inv[s][j] as usize, c);
                    // Symmetries preserve adjacency.
                    for d in 0..g.cells {
                        let adj = g.block[c] >> d & 1;
                        assert_eq!(adj, g.block[j] >> g.sym[s][d] & 1);
                    }
                }
                assert_eq!(seen, g.full);
            }
        }
        assert_eq!(GEO4.sym[1][0], 3); // a quarter turn sends the top-left corner to the top-right
    }
}

//! A node's moves for the solver, in a fixed array, best candidates first.

use crate::games::fifteen::eval;
use crate::games::fifteen::geo::{geo, value_index, MAX_CELLS, VALUES};
use crate::games::fifteen::{Fifteen, Move};

/// Moves a node can have: every cell times every card value.
pub(super) const MAX_MOVES: usize = MAX_CELLS * 5;

/// A node's moves, best candidates first.
pub(super) struct MoveList {
    pub(super) moves: [Move; MAX_MOVES],
    keys: [i32; MAX_MOVES],
    pub(super) len: usize,
}

impl MoveList {
    pub(super) fn new() -> Self {
        MoveList {
            moves: [Move { cell: 0, card: 0 }; MAX_MOVES],
            keys: [0; MAX_MOVES],
            len: 0,
        }
    }

    /// Every placement of `g`'s mover (one cell per orbit on a symmetric
    /// board), keyed for [`MoveList::pick`]: `first` (if legal), then by
    /// immediate gain, larger the history of refutations.
    pub(super) fn generate(&mut self, g: &Fifteen, first: Option<Move>, killers: [Move; 2], history: &[[i32; 5]; MAX_CELLS]) {
        self.len = 0;
        let hand = g.hand(g.side());
        let geo = geo(g.size());
        let stab = g.stabilizer();
        let mut free = g.free();
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            // On a symmetric board keep one cell per orbit: the smallest.
            if stab != 1 && (1..8).any(|s| stab >> s & 1 == 1 && (geo.sym[s][c] as usize) < c) {
                continue;
            }
            for vi in 0..5 {
                if hand[vi] == 0 {
                    continue;
                }
                let mv = Move {
                    cell: c as u8,
                    card: VALUES[vi],
                };
                let key = if Some(mv) == first {
                    i32::MAX
                } else if mv == killers[0] {
                    i32::MAX - 1
                } else if mv == killers[1] {
                    i32::MAX - 2
                } else {
                    eval::move_gain(g, mv) * 64 + history[c][vi]
                };
                self.moves[self.len] = mv;
                self.keys[self.len] = key;
                self.len += 1;
            }
        }
        // The stored move may sit outside the orbit representatives kept above.
        if let Some(f) = first {
            let listed = self.moves[..self.len].contains(&f);
            let legal = g.free() >> f.cell & 1 == 1 && value_index(f.card).is_some_and(|vi| hand[vi] > 0);
            if !listed && legal && self.len < MAX_MOVES {
                self.moves[self.len] = f;
                self.keys[self.len] = i32::MAX;
                self.len += 1;
            }
        }
    }

    /// The `i`th move in order, once moves `0..i` have been picked: the best
    /// of the rest is swapped into place. Picking lazily rather than sorting
    /// up front saves the sort where the first move or two refute the node,
    /// as they do at most nodes.
    #[inline]
    pub(super) fn pick(&mut self, i: usize) -> Move {
        let mut j = i;
        for k in i + 1..self.len {
            if self.keys[k] > self.keys[j] {
                j = k;
            }
        }
        self.moves.swap(i, j);
        self.keys.swap(i, j);
        self.moves[i]
    }
}

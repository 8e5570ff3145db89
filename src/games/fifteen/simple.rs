//! A deliberately plain Fifteen player for the tests: every legal move
//! (symmetric duplicates included) and minimax with no table, no symmetry
//! and no shortcut, against which the solver and the search are checked.

use super::geo::{geo, VALUES};
use super::{eval, Fifteen, Move};
use crate::search::Game;

/// Every legal move, symmetric duplicates included (the plain minimax must
/// not rely on the deduplication it is checking).
pub(crate) fn all_moves(g: &Fifteen) -> Vec<Move> {
    let hand = g.hand(g.side());
    let mut v = Vec::new();
    for c in 0..geo(g.size()).cells {
        if g.free() >> c & 1 == 1 {
            for (vi, &count) in hand.iter().enumerate() {
                if count > 0 {
                    v.push(Move {
                        cell: c as u8,
                        card: VALUES[vi],
                    });
                }
            }
        }
    }
    v
}

/// Plain minimax of the exact final value (margin, then tie-break): every
/// move, finished games valued by `eval::terminal`.
pub(crate) fn minimax(g: &Fifteen) -> i32 {
    if g.is_over() {
        return eval::terminal(g);
    }
    let mut best = i32::MIN;
    for m in all_moves(g) {
        let mut c = g.clone();
        c.play(m);
        let v = if c.side() == g.side() { minimax(&c) } else { -minimax(&c) };
        best = best.max(v);
    }
    best
}

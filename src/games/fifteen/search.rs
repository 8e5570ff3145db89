//! How Fifteen plays on the shared search core ([`crate::search::alphabeta`]).
//!
//! Every line of play has the same length (the cards left in both hands), so
//! the core caps its depth there and a search that reaches it is exact: the
//! leaves are then finished games valued by [`eval::terminal`] (score margin,
//! then tie-break), through the `Game` hooks in `super`. The transposition
//! table is keyed by the symmetry-folded hash, so the eight symmetries of the
//! square share one entry. The 4x4 solver is that search run straight to the
//! end; the 6x6 player deepens until time runs out and reaches exact play in
//! the endgame the same way.

use super::eval::POINT;
use super::{Fifteen, Move};
use crate::search::alphabeta::{SearchResult, Searcher};
use crate::search::Limits;

/// Table size for a search of `hard` CPU seconds (about 2 M nodes/s, one
/// 16-byte entry per node), kept small for tiny budgets so zeroing it is cheap.
pub fn tt_bytes_for(hard: f64) -> usize {
    let want = hard * 2.0e6 * 16.0;
    want.clamp(256.0 * 1024.0, 128.0 * 1024.0 * 1024.0) as usize
}

/// Exact value and best move of `g` under perfect play (no time limit), with
/// a table of about `tt_bytes` bytes.
pub fn solve(g: &Fifteen, tt_bytes: usize) -> SearchResult<Move> {
    Searcher::<Fifteen>::new(tt_bytes).solve(g)
}

/// The default agent's move: iterative deepening within `limits`, which
/// becomes the exact solver as soon as the remaining game fits in it (on 4x4
/// from the first moves, on 6x6 in the endgame). `on_improve` gets every
/// best move the search reports.
pub fn best_move(g: &Fifteen, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Option<Move> {
    if g.is_over() {
        return None;
    }
    let r = Searcher::<Fifteen>::new(tt_bytes_for(limits.hard)).search(g, *limits, |info| on_improve(info.best));
    log::info!(
        "fifteen: depth {} of {} score {:.2} exact {} nodes {} in {:.3}s",
        r.depth,
        g.plies_left(),
        r.score as f64 / POINT as f64,
        r.exact,
        r.nodes,
        r.seconds
    );
    r.best
}

#[cfg(test)]
mod tests;

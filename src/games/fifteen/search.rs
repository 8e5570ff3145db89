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
//!
//! Before searching, the agent tries the dedicated exact solver
//! ([`super::solver`]) on every 4x4 position and on 6x6 positions with at
//! most [`SIX_SOLVE_CARDS`] cards left, within the move's soft limit; the
//! search only runs if the solver could not finish.

use super::eval::POINT;
use super::solver::{margin_points, Solver, Wdl};
use super::{Fifteen, Move};
use crate::clock::CpuTimer;
use crate::search::alphabeta::{SearchResult, Searcher};
use crate::search::Limits;

/// On 6x6, the solver is tried once at most this many cards are left: the
/// largest count whose seeded random positions it solves in a median of
/// under 1 CPU second (`agent fifteen bench --runs 1 --six 6-9`: medians
/// 0.011 s at 6 cards, 0.107 s at 7, 0.906 s at 8, over 5 s at 9 and more).
pub const SIX_SOLVE_CARDS: u32 = 8;

/// Whether the agent tries the exact solver on `g` before searching.
pub fn solver_applies(g: &Fifteen) -> bool {
    g.size() == 4 || g.plies_left() <= SIX_SOLVE_CARDS
}

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
    let timer = CpuTimer::start();
    let mut limits = *limits;
    if solver_applies(g) {
        let mut solver = Solver::new(tt_bytes_for(limits.hard));
        if let Some(best) = solved_move(&mut solver, g, limits.soft, on_improve) {
            return Some(best);
        }
        // What the solver used comes off the search's share.
        let used = timer.elapsed();
        limits.soft = (limits.soft - used).max(0.0);
        limits.hard = (limits.hard - used).max(0.0);
    }
    let r = Searcher::<Fifteen>::new(tt_bytes_for(limits.hard)).search(g, limits, |info| on_improve(info.best));
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

/// The solver's move for `g` within `budget` CPU seconds: the exact-margin
/// move if the margin is solved in time, else a move that secures a proven
/// win or draw; None when neither is proven in time (or the position is
/// lost and its margin unsolved), so that the search decides.
fn solved_move(solver: &mut Solver, g: &Fifteen, budget: f64, on_improve: &mut dyn FnMut(Move)) -> Option<Move> {
    let timer = CpuTimer::start();
    let Some(w) = solver.wdl(g, budget) else {
        log::info!("fifteen: solver unfinished within {budget:.3}s, searching instead");
        return None;
    };
    let secured = (w.wdl != Wdl::Loss).then_some(w.best).flatten();
    if let Some(m) = secured {
        on_improve(m);
    }
    // The margin solve reuses the table the win/draw/loss proof filled.
    match solver.margin(g, budget - timer.elapsed()) {
        Some(r) => {
            log::info!(
                "fifteen: solved exactly: {}, margin {:+} ({} cards left) in {:.3}s, {} nodes",
                r.wdl.word(),
                margin_points(r.value),
                g.plies_left(),
                timer.elapsed(),
                w.nodes + r.nodes
            );
            if let Some(m) = r.best {
                on_improve(m);
            }
            r.best
        }
        None => {
            if secured.is_some() {
                log::info!(
                    "fifteen: solved {} ({} cards left) in {:.3}s, margin unsolved",
                    w.wdl.word(),
                    g.plies_left(),
                    timer.elapsed()
                );
            } else {
                log::info!("fifteen: solved loss, margin unsolved within {budget:.3}s, searching instead");
            }
            secured
        }
    }
}

#[cfg(test)]
mod tests;

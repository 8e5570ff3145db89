//! How Fifteen plays on the shared search core ([`crate::search::alphabeta`]).
//!
//! Every line of play has the same length (the cards left in both hands), so
//! the core caps its depth there and a search that reaches it is exact: the
//! leaves are then finished games valued by [`eval::terminal`](super::eval::terminal) (score margin,
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
/// under 1 CPU second (`agent fifteen bench --runs 1 --six 7-10`, re-measured
/// after the killer-move speed-up at load ~4: medians 0.035 s at 7 cards,
/// 0.243 s at 8, 1.361 s at 9 (one of 10 positions over 5 s), over 5 s at 10).
pub const SIX_SOLVE_CARDS: u32 = 8;

/// Whether the agent tries the exact solver on `g` before searching.
pub(crate) fn solver_applies(g: &Fifteen) -> bool {
    g.size() == 4 || g.plies_left() <= SIX_SOLVE_CARDS
}

/// Table size for a search of `hard` CPU seconds (about 2 M nodes/s, one
/// 16-byte entry per node), kept small for tiny budgets so zeroing it is cheap.
pub(crate) fn tt_bytes_for(hard: f64) -> usize {
    let want = hard * 2.0e6 * 16.0;
    want.clamp(256.0 * 1024.0, 128.0 * 1024.0 * 1024.0) as usize
}

/// Exact value and best move of `g` under perfect play (no time limit), with
/// a table of about `tt_bytes` bytes.
pub fn solve(g: &Fifteen, tt_bytes: usize) -> SearchResult<Move> {
    Searcher::<Fifteen>::new(tt_bytes).solve(g)
}

/// Where the agent's move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The exact solver: the move achieves the exact value, margin included.
    Solved,
    /// The solver proved a win or a draw and the move keeps it, but the
    /// margin was not solved in time.
    Secured,
    /// The depth-limited search (the solver did not finish or does not apply).
    Searched,
}

/// The default agent's move: the exact solver where it applies and
/// finishes, else iterative deepening within `limits` (which is exact too
/// once the remaining game fits in it). `on_improve` gets every best move
/// found on the way.
pub fn best_move(g: &Fifteen, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Option<Move> {
    choose(g, limits, on_improve).map(|(m, _)| m)
}

/// [`best_move`] and where the move came from.
pub fn choose(g: &Fifteen, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Option<(Move, Source)> {
    if g.is_over() {
        return None;
    }
    let timer = CpuTimer::start();
    let mut limits = *limits;
    if solver_applies(g) {
        let mut solver = Solver::new(tt_bytes_for(limits.hard));
        if let Some(found) = solved_move(&mut solver, g, limits.soft, on_improve) {
            return Some(found);
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
    r.best.map(|m| (m, Source::Searched))
}

/// The solver's move for `g` within `budget` CPU seconds: the exact-margin
/// move if the margin is solved in time, else a move that secures a proven
/// win or draw; None when neither is proven in time (or the position is
/// lost and its margin unsolved), so that the search decides.
fn solved_move(
    solver: &mut Solver,
    g: &Fifteen,
    budget: f64,
    on_improve: &mut dyn FnMut(Move),
) -> Option<(Move, Source)> {
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
            r.best.map(|m| (m, Source::Solved))
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
            secured.map(|m| (m, Source::Secured))
        }
    }
}

#[cfg(test)]
mod tests;

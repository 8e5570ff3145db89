//! Fifteen's play policy: how many moves are left to share the clock over
//! ([`TimePolicy`]), and the exact solver as a step of the default strategy.
//!
//! The agent tries the dedicated exact solver ([`super::solver`]) on every
//! 4x4 position and on 6x6 positions with at most [`SIX_SOLVE_CARDS`] cards
//! left, within the move's soft limit; the shared search runs only if the
//! solver could not finish. That search is exact too once it reaches the end
//! of the game, which every line reaches after the same number of plies
//! ([`Game::plies_left`](crate::search::Game::plies_left)).

use super::solver::{margin_points, Solver, Wdl};
use super::{Fifteen, Move};
use crate::clock::CpuTimer;
use crate::play::{Solved, Steps};
use crate::search::Limits;
use crate::timing::TimePolicy;

/// On 6x6, the solver is tried once at most this many cards are left: the
/// largest count whose seeded random positions it solves in a median of
/// under 1 CPU second (`agent fifteen bench --runs 1 --six 7-10`, re-measured
/// after the killer-move speed-up at load ~4: medians 0.035 s at 7 cards,
/// 0.243 s at 8, 1.361 s at 9 (one of 10 positions over 5 s), over 5 s at 10).
pub const SIX_SOLVE_CARDS: u32 = 8;

/// Whether the agent tries the exact solver on `g` before searching.
fn solver_applies(g: &Fifteen) -> bool {
    g.size() == 4 || g.plies_left() <= SIX_SOLVE_CARDS
}

/// The solver's table for a move of `hard` CPU seconds (about 2 M nodes/s,
/// 16 bytes a node), kept small for tiny budgets so zeroing it is cheap.
fn solver_bytes(hard: f64) -> usize {
    let want = hard * 2.0e6 * 16.0;
    want.clamp(256.0 * 1024.0, 128.0 * 1024.0 * 1024.0) as usize
}

impl TimePolicy for Fifteen {
    fn moves_left_estimate(&self) -> f64 {
        self.hand_len(self.side()).max(1) as f64
    }
}

impl Steps for Fifteen {
    fn solver_move(&self, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Solved<'_, Move> {
        if !solver_applies(self) {
            return Solved::Unsolved;
        }
        let mut solver = Solver::new(solver_bytes(limits.hard));
        match solved_move(&mut solver, self, limits.soft, on_improve) {
            Some((mv, _)) => Solved::Play(mv),
            None => Solved::Unsolved,
        }
    }
}

/// How far the solver got with a move it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The move achieves the exact value, margin included.
    Solved,
    /// The solver proved a win or a draw and the move keeps it, but the
    /// margin was not solved in time.
    Secured,
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

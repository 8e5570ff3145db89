//! Hinger's play policy: how many moves are left to share the clock over
//! ([`TimePolicy`]), and the steps ([`Steps`]) its default strategy adds to the search (a
//! probe, then the exact region-sum solver).

use super::{solver, sum, Hinger, HingerMove};
use crate::play::{Solved, Steps};
use crate::search::Limits;
use crate::timing::TimePolicy;

/// CPU seconds of the probe search before the exact solver.
const PROBE_SECONDS: f64 = 0.3;

impl TimePolicy for Hinger {
    /// Games rarely run to the last counter: most end when the safe moves
    /// run out, around half-way; the agent makes half of those moves.
    fn moves_left_estimate(&self) -> f64 {
        (self.board.counters() as f64 * 0.3).max(1.0)
    }

    /// A twentieth of the default: the table Hinger's default strategy has
    /// had since its first version. (`agent hinger calibrate` measures
    /// about 2 M nodes/s on a 10x10 board on the development machine, so a
    /// `calibration.txt` gives the search a far larger table.)
    const NODES_PER_SECOND: f64 = 1.0e6 / 20.0;

    /// The search looks at the clock every 1024 nodes, up to about 0.1 s
    /// apart on a full 10x10 board: keep that much in hand.
    const CLOCK_SLACK: f64 = 0.1;
}

impl Steps for Hinger {
    /// A short probe (so that a searched move is in `output.txt` early:
    /// the solver reports nothing until it is done), when the move has
    /// room for it and a search after it.
    fn probe_seconds(&self, limits: &Limits) -> Option<f64> {
        let probe = (0.1 * limits.soft).min(PROBE_SECONDS);
        (limits.hard >= probe + 2.0 * Self::CLOCK_SLACK && probe >= 0.05).then_some(probe)
    }

    /// The exact solver with 60 % of the soft budget left: the solver is
    /// far stronger than a heuristic search when it finishes. A solved
    /// position plays the solved move or, in a draw or a loss, the best
    /// trap; otherwise the search decides with the rest.
    fn solver_move(&self, limits: &Limits, on_improve: &mut dyn FnMut(HingerMove)) -> Solved<'_, HingerMove> {
        let timer = crate::clock::CpuTimer::start();
        let share = 0.6 * limits.soft;
        let mut s = sum::SumSolver::new();
        let Some(r) = s.solve_within(&self.board, share) else {
            return Solved::Unsolved;
        };
        let value = match r.value {
            solver::Value::Win => "a win",
            solver::Value::Draw => "a draw",
            solver::Value::Loss => "a loss",
        };
        log::debug!(
            "hinger: solved exactly: {value} for the side to move ({} nodes)",
            r.nodes
        );
        if let Some(best) = r.best {
            on_improve(best as HingerMove);
        }
        let rest = (share - timer.elapsed()).max(0.0);
        match s.practical_move(&self.board, &r, rest).or(r.best) {
            Some(mv) => Solved::Play(mv as HingerMove),
            None => Solved::Unsolved,
        }
    }
}

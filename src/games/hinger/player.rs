//! Hinger's play policy ([`Policy`]): how many moves are left to share the
//! clock over, and the game's own move choice where it has one.

use super::*;

impl Policy for Hinger {
    /// Games rarely run to the last counter: most end when the safe moves
    /// run out, around half-way; the agent makes half of those moves.
    fn moves_left_estimate(&self) -> f64 {
        (self.board.counters() as f64 * 0.3).max(1.0)
    }

    /// The default strategy runs a short alpha-beta probe (so that a
    /// searched move is in `output.txt` early: the solver reports nothing
    /// until it is done), then tries to solve the position exactly (the
    /// solver is far stronger than a heuristic search when it finishes) with
    /// 60 % of the soft budget left, and plays the solved move or, in a draw
    /// or a loss, the best trap; otherwise it goes back to ID alpha-beta with
    /// the rest (one-ply greedy when under 0.2 s remain).
    fn special_move(
        &self,
        strategy: Strategy,
        limits: &Limits,
        on_improve: &mut dyn FnMut(HingerMove),
    ) -> Option<HingerMove> {
        if strategy != Strategy::Best {
            return None;
        }
        let timer = crate::clock::CpuTimer::start();
        // The search looks at the clock every 1024 nodes, up to about 0.1 s
        // apart on a full 10x10 board: keep that much in hand.
        const CLOCK_SLACK: f64 = 0.1;
        let mut searcher = Searcher::<Hinger>::new(tt_bytes(limits.hard, DEFAULT_NPS / 20.0));
        let probe = (0.1 * limits.soft).min(PROBE_SECONDS);
        let mut probed = None;
        if limits.hard >= probe + 2.0 * CLOCK_SLACK && probe >= 0.05 {
            probed = searcher
                .search(self, Limits::time(probe, probe), |info| on_improve(info.best))
                .best;
        }
        let share = 0.6 * limits.after(timer.elapsed()).soft;
        let mut s = sum::SumSolver::new();
        if let Some(r) = s.solve_within(&self.board, share) {
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
            if let Some(mv) = s.practical_move(&self.board, &r, rest).or(r.best) {
                return Some(mv as HingerMove);
            }
        }
        drop(s);
        let rest = limits.after(timer.elapsed() + CLOCK_SLACK);
        if rest.hard < 0.2 {
            return probed.or_else(|| crate::search::greedy::choose(self));
        }
        searcher.search(self, rest, |info| on_improve(info.best)).best
    }
}

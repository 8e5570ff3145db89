//! Halma's play policy: how many moves are left to share the clock over
//! ([`TimePolicy`]), and its race solver as a step of the default strategy
//! ([`Steps`]).

use super::table::diag_distance;
use super::{solver, HMove, Halma};
use crate::play::{Solved, Steps};
use crate::search::Limits;
use crate::timing::TimePolicy;

impl TimePolicy for Halma {
    fn moves_left_estimate(&self) -> f64 {
        // About one move per five anti-diagonals still to go, plus a floor
        // for the last holes, which are filled while the distance is nearly
        // zero. The floor is low because once the armies separate the race
        // solver plays those moves in milliseconds (figures behind both
        // numbers: `docs/results.md`, "The time policy's constants").
        let d = self.remaining_distance(self.side) as f64;
        10.0 + d / 5.0
    }

    fn searched_moves_left(&self) -> f64 {
        // The last moves of a game, once the armies have passed each other,
        // are the race solver's and cost next to nothing: in 123 games at
        // 4 s a side, the moves left before the first such move were about
        // the distance / 5 less 2 (`docs/results.md`, "The time policy's
        // constants"). Three at least, so
        // one late contested move cannot take the most of the clock. That is
        // the estimate of all moves less its floor of 10 and 2 more.
        (self.moves_left_estimate() - 12.0).max(3.0)
    }
}

impl Steps for Halma {
    /// A piece ends on a nearer anti-diagonal to its goal: the mover's
    /// distance falls, and it cannot fall for ever.
    fn makes_progress(&self, mv: HMove) -> bool {
        let side = self.side();
        diag_distance(side, mv.to) < diag_distance(side, mv.from)
    }

    /// Once the armies have passed each other, a proven shortest finish.
    fn solver_move(&self, limits: &Limits, on_improve: &mut dyn FnMut(HMove)) -> Solved<'_, HMove> {
        solver::race_move(self, limits, on_improve).map_or(Solved::Unsolved, Solved::Play)
    }
}

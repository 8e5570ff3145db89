//! Halma's play policy ([`Policy`]): how many moves are left to share the
//! clock over, and the game's own move choice where it has one.

use super::*;

impl Policy for Halma {
    // Positive: re-entering a seen position is good for the side to move
    // there, i.e. bad for the mover who walked back into it.
    const REPEAT_SCORE: i32 = 150;

    const NO_MOVE_SETTLED_BY_TIME: bool = true;

    fn moves_left_estimate(&self) -> f64 {
        // About one move per five anti-diagonals still to go, plus a floor
        // for the last holes, which are filled while the distance is nearly
        // zero. The floor is low because once the armies separate the race
        // solver plays those moves in milliseconds (figures behind both
        // numbers: `docs/results.md`). Sharing the clock over fewer moves,
        // leaving out those the solver will play, won at 4 s a side but lost
        // at 30 and 100 s: it spent the time early, where the depth does not
        // grow with it, and came to the late middle game, where most games
        // are decided, a ply shallower (`docs/results.md`).
        let d = self.remaining_distance(self.side) as f64;
        10.0 + d / 5.0
    }

    fn special_move(&self, strategy: Strategy, limits: &Limits, on_improve: &mut dyn FnMut(HMove)) -> Option<HMove> {
        match strategy {
            // Once the armies have passed each other, a proven shortest finish.
            Strategy::Best => solver::race_move(self, limits, on_improve),
            _ => None,
        }
    }
}

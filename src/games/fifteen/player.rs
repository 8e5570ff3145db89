//! Fifteen's play policy ([`Policy`]): how many moves are left to share the
//! clock over, and the game's own move choice where it has one.

use super::*;

impl Policy for Fifteen {
    // The Fifteen brief's interactive flow allows 30 s per move.
    const HUMAN_MOVE_TIME: Option<f64> = Some(30.0);

    fn moves_left_estimate(&self) -> f64 {
        self.hand_len(self.side()).max(1) as f64
    }

    fn special_move(&self, strategy: Strategy, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Option<Move> {
        match strategy {
            Strategy::Best => search::best_move(self, limits, on_improve),
            _ => None,
        }
    }
}

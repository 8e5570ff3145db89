//! Hinger's evaluation ([`Evaluator`]) and search hints ([`SearchHints`]).

use super::{Hinger, HingerMove};
use crate::search::{Evaluator, SearchHints, Searchable};

/// The agent's evaluation of Hinger: safe-move parity.
#[derive(Clone, Copy, Debug, Default)]
pub struct HingerEval;

/// The reference agent's evaluation: wins and losses only.
#[derive(Clone, Copy, Debug, Default)]
pub struct HingerReference;

impl Searchable for Hinger {
    type Eval = HingerEval;
    type Reference = HingerReference;
}

impl Evaluator<Hinger> for HingerEval {
    type Context = ();

    /// Safe-move parity. With a hinger on the board the mover wins next
    /// move; with no safe move every move hands one over. Otherwise, if the
    /// safe moves did not interfere, they would simply be used up in turn and
    /// the side facing none would lose: an odd number favours the mover.
    fn evaluate(&self, pos: &Hinger) -> i32 {
        if pos.board.has_hinger() {
            return 50_000;
        }
        let safe = pos.board.safe_moves();
        let n = safe.count_ones() as i32;
        if n == 0 {
            return -50_000;
        }
        if n % 2 == 1 {
            100
        } else {
            -100
        }
    }

}

impl Evaluator<Hinger> for HingerReference {
    type Context = ();

    /// The reference (minimax) agent knows only wins and losses: depth 2
    /// takes a hinger and avoids handing one over, and is indifferent
    /// otherwise, as a plain textbook minimax on Hinger would be.
    fn evaluate(&self, _pos: &Hinger) -> i32 {
        0
    }
}

impl SearchHints for Hinger {
    const HISTORY_SIZE: usize = 128;

    fn history_key(&self, mv: HingerMove) -> usize {
        mv as usize
    }

    /// Hinger moves first. (Telling hinger-giving moves apart would cost a
    /// connectivity test per move at every node; the search finds them one
    /// ply down at once.)
    fn order_hint(&self, mv: HingerMove) -> i32 {
        if self.board.is_hinger(mv as usize) {
            1_000_000
        } else {
            0
        }
    }
}

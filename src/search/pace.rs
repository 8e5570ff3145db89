//! Adaptive pacing of one move in a whole game ([`Pacing::Adaptive`]), in
//! the spirit of Stockfish's time manager: after every iteration the soft
//! limit is scaled by how settled the search is.

use super::{Evaluator, Game, Pacing, TimeScores};

/// The pacing a search of game `G` with the evaluation `E` follows when
/// asked for `pacing`: evaluations without [`Evaluator::TIME_SCORES`] always
/// pace steadily.
pub(crate) fn effective<G: Game, E: Evaluator<G>>(pacing: Pacing) -> Pacing {
    if E::TIME_SCORES.is_some() {
        pacing
    } else {
        Pacing::Steady
    }
}

/// What the adaptive pace remembers between iterations of one search.
pub(crate) struct Pace<M> {
    scores: TimeScores,
    /// Best-move changes, halved every iteration (recent ones weigh most).
    changes: f64,
    /// Iterations the current best move has survived.
    stable: u32,
    last: Option<(M, i32)>,
}

impl<M: PartialEq + Copy> Pace<M> {
    /// A fresh pace on the score scale `scores`.
    pub fn new(scores: TimeScores) -> Self {
        Pace {
            scores,
            changes: 0.0,
            stable: 0,
            last: None,
        }
    }

    /// Records a completed iteration's best move and score; returns the
    /// factor for the soft limit: above 1 while the best move changes or the
    /// score falls, below 1 once the best move has stood for a few
    /// iterations or the score is decided; within [0.35, 2.5].
    ///
    /// The cuts are milder than Stockfish's: a Halma iteration costs several
    /// times the last (an even depth ten to twenty times the odd one before
    /// it), so a soft limit shortened a lot skips a whole depth, and time
    /// saved that way mostly goes unused at the end of the game
    /// (`docs/results.md`, "The time policy's constants").
    pub(crate) fn after_iteration(&mut self, best: M, score: i32) -> f64 {
        let (changed, drop) = match self.last {
            Some((m, s)) => (m != best, s - score),
            None => (false, 0),
        };
        self.last = Some((best, score));
        self.changes = self.changes / 2.0 + f64::from(u8::from(changed));
        self.stable = if changed { 0 } else { self.stable + 1 };
        let instability = 1.0 + self.changes;
        let falling = (1.0 + f64::from(drop) / (4.0 * f64::from(self.scores.drop.max(1)))).clamp(0.85, 1.6);
        let settled = match self.stable {
            0 | 1 => 1.0,
            2 => 0.85,
            _ => 0.7,
        };
        let decided = if score.abs() >= self.scores.decided { 0.5 } else { 1.0 };
        let factor = (instability * falling * settled * decided).clamp(0.35, 2.5);
        log::trace!(
            "pace: changes {:.2} stable {} drop {drop} factor {factor:.2}",
            self.changes,
            self.stable
        );
        factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCORES: TimeScores = TimeScores {
        drop: 50,
        decided: 1000,
    };

    #[test]
    fn settled_searches_shorten_and_restless_ones_lengthen() {
        let mut settled = Pace::new(SCORES);
        let factors: Vec<f64> = (0..5).map(|_| settled.after_iteration(1u8, 10)).collect();
        assert_eq!(factors[0], 1.0, "{factors:?}");
        assert!(factors[4] <= 0.7, "{factors:?}");
        let mut restless = Pace::new(SCORES);
        let factors: Vec<f64> = (0..5u8)
            .map(|i| restless.after_iteration(i, 10 - 40 * i32::from(i)))
            .collect();
        assert!(factors[4] > 2.0, "{factors:?}");
        assert!(factors.iter().all(|f| (0.35..=2.5).contains(f)), "{factors:?}");
        let mut decided = Pace::new(SCORES);
        assert!(decided.after_iteration(1u8, -5000) <= 0.5);
    }

    #[test]
    fn only_evaluations_with_time_scores_pace() {
        use crate::games::testnim::{NimEval, TestNim};
        assert_eq!(effective::<TestNim, NimEval>(Pacing::Adaptive), Pacing::Steady);
        assert_eq!(effective::<TestNim, NimEval>(Pacing::Full), Pacing::Steady);
    }
}

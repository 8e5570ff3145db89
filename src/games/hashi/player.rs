//! Hashi's play policy: how many moves are left to share the clock over
//! ([`TimePolicy`]); the default strategy adds no steps of its own
//! ([`Steps`]).

use super::Hashi;
use crate::play::Steps;
use crate::timing::TimePolicy;

impl Steps for Hashi {}

impl TimePolicy for Hashi {
    fn moves_left_estimate(&self) -> f64 {
        // Bridges still possible (each serves two islands) plus labellings
        // and their bridges; the agent makes half of them.
        let t = self.topology();
        let mut missing = 0u32;
        for i in 0..t.islands.len() {
            missing += match self.label(i) {
                0 => 2 + 3, // the label move (counted twice: halved below) and ~3.5 bridge ends
                l => (l - self.degree(i)) as u32,
            };
        }
        (missing as f64 / 4.0).max(1.0)
    }
}

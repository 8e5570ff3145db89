//! The time policy: how much of the remaining CPU time one move may use.

use crate::protocol::Mode;

/// CPU seconds a move may use, measured from the moment the plan is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// After this, no new search iteration is started.
    pub soft: f64,
    /// After this, the search stops at once.
    pub hard: f64,
}

/// CPU the process still needs after the search: writing files, freeing
/// memory, exiting. Measured at well under a millisecond; kept generous.
fn reserve(remaining: f64) -> f64 {
    (0.003 + 0.02 * remaining).min(1.0)
}

/// Plans one move.
///
/// - `remaining`: CPU seconds the referee says are left (for SINGLE, the time
///   for this move).
/// - `used`: CPU seconds this process has already spent (start-up, parsing);
///   they are charged too.
/// - `moves_left`: the game's estimate of how many moves the agent still
///   has to make (GAME mode only).
///
/// SINGLE spends about half of what is usable and never more than 85 % of it.
///
/// GAME keeps a tenth of the clock in hand (a game stopped at the move cap
/// is won on remaining time), gives each move an equal share of the rest over
/// the expected moves left, and lets a move run to three shares but never to
/// more than a quarter of what is left, so a long game cannot run the clock
/// dry. No new iteration starts after 60 % of a share: an iteration started
/// later typically finishes past the share, and those overruns add up over a
/// game (measured: a 60 s game ended with 0.3 s left when the soft limit was
/// the whole share).
pub fn plan(mode: Mode, remaining: f64, used: f64, moves_left: f64) -> Budget {
    let usable = (remaining - reserve(remaining) - used).max(0.0);
    match mode {
        Mode::Single => Budget {
            soft: 0.5 * usable,
            hard: 0.85 * usable,
        },
        Mode::Game => {
            let spendable = 0.9 * usable;
            let share = spendable / moves_left.max(1.0);
            let hard = (3.0 * share).min(0.25 * spendable);
            Budget {
                soft: (0.6 * share).min(hard),
                hard,
            }
        }
    }
}

/// Transposition-table bytes for a search of `hard` CPU seconds: enough for
/// the nodes it can visit (from `nodes_per_sec`, calibrated or assumed), and
/// small for tiny budgets so that allocation never eats the budget.
pub fn tt_bytes(hard: f64, nodes_per_sec: f64) -> usize {
    const ENTRY_BYTES: f64 = 32.0;
    let want = hard * nodes_per_sec * ENTRY_BYTES;
    want.clamp(64.0 * 1024.0, 256.0 * 1024.0 * 1024.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_stays_inside_the_time() {
        for t in [0.01, 0.1, 1.0, 10.0, 30.0] {
            let b = plan(Mode::Single, t, 0.001, 1.0);
            assert!(b.soft <= b.hard && b.hard < t, "{t}: {b:?}");
            assert!(b.hard > 0.3 * t || t < 0.1, "{t}: {b:?}");
        }
    }

    #[test]
    fn game_shares_time_and_caps_the_move() {
        let b = plan(Mode::Game, 100.0, 0.0, 50.0);
        let share = 0.9 * 99.0 / 50.0;
        assert!((b.soft - 0.6 * share).abs() < 1e-9, "{b:?}");
        assert!((b.hard - 3.0 * share).abs() < 1e-9);
        // With one move left the cap at a quarter of what is left applies.
        let b = plan(Mode::Game, 10.0, 0.0, 1.0);
        assert!(b.hard <= 0.25 * 10.0);
        // Time already spent is charged.
        let b = plan(Mode::Game, 0.01, 0.02, 10.0);
        assert_eq!(b.hard, 0.0);
    }

    #[test]
    fn tt_scales_with_budget() {
        assert_eq!(tt_bytes(0.0001, 1e6), 64 * 1024);
        assert!(tt_bytes(1.0, 1e6) > tt_bytes(0.1, 1e6));
        assert_eq!(tt_bytes(1e6, 1e6), 256 * 1024 * 1024);
    }
}

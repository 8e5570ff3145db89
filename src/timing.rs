//! The time policy: how much of the remaining CPU time one move may use, as
//! the search core's [`Limits`], and the search speed it is sized with
//! (`calibration.txt`).

use crate::clock::CpuTimer;
use crate::protocol::{read_bounded, write_atomic, Mode};
use crate::search::{alphabeta, Game, Limits, Pacing, Searchable};
use std::path::Path;

/// How a game shares out its clock over a GAME: the moves still to make,
/// the search speed to size its table by, and the slack its search needs.
pub trait TimePolicy: Game {
    /// Expected number of moves the side to move still has to make in this
    /// game, used to share out the remaining time in GAME mode.
    fn moves_left_estimate(&self) -> f64;

    /// How many of those moves need a search of their own: at short clocks
    /// the clock is shared over these, while every move's fixed cost is
    /// kept back for all of them. Games whose last moves an exact solver plays in
    /// milliseconds count fewer. Default: all of them.
    fn searched_moves_left(&self) -> f64 {
        self.moves_left_estimate()
    }

    /// Nodes per CPU second this game's alpha-beta is assumed to search
    /// when no `calibration.txt` gives the speed: with the time it sizes
    /// the transposition table of every search the agent plays
    /// (`play::choose`). Default: a million.
    const NODES_PER_SECOND: f64 = 1.0e6;

    /// CPU seconds the default strategy's search after the solver keeps in
    /// hand, because the game's search may look at the clock that far apart
    /// (every 1024 nodes); with less than twice this left, the probe's move
    /// (or the greedy one) is played instead. Default: none.
    const CLOCK_SLACK: f64 = 0.0;
}

/// CPU the process still needs after the search: writing files, freeing
/// memory, exiting. Measured at well under a millisecond; kept generous.
fn reserve(remaining: f64) -> f64 {
    (0.003 + 0.02 * remaining).min(1.0)
}

/// CPU seconds a move costs outside the search whatever its budget: process
/// start-up, reading the input and the play data, the table, writing the
/// output, exit: a plan that ignores it loses long games on time. The
/// default is a little above the measured cost (`docs/results.md`, "The
/// time policy's constants").
pub(crate) const MOVE_OVERHEAD: f64 = 0.005;

/// The least per-move cost assumed however cheap moves have been: a slower
/// start of one process (a cold page cache) must not cost the game.
const MIN_MOVE_OVERHEAD: f64 = 0.0015;

/// The next estimate of what a move costs outside its search, from the
/// last estimate and the last move: what the referee `charged` for it
/// (the drop of the clock between two moves) less the CPU of its `search`.
/// A dearer move raises the estimate at once; cheaper ones lower it slowly.
/// Without a usable measurement, the last estimate or [`MOVE_OVERHEAD`].
pub(crate) fn next_overhead(previous: Option<f64>, charged: f64, search: f64) -> f64 {
    let old = previous.unwrap_or(MOVE_OVERHEAD);
    let sample = charged - search;
    if !sample.is_finite() || !(0.0..1.0).contains(&sample) {
        return old;
    }
    let estimate = if sample > old { sample } else { 0.8 * old + 0.2 * sample };
    estimate.clamp(MIN_MOVE_OVERHEAD, 4.0 * MOVE_OVERHEAD)
}

/// The soft limit of a GAME move as a part of its even share of the clock,
/// before [`Pacing::Adaptive`] scales it. At 0.6 the adaptive agent spends
/// what the steady one did (8.81 s against 8.79 s of a 10 s Halma game,
/// medians over 109 self-play games).
const ADAPTIVE_SOFT: f64 = 0.6;

/// Plans one move: the [`Limits`] (CPU seconds from the moment the plan is
/// made) for whichever strategy or solver plays it.
///
/// - `remaining`: CPU seconds the referee says are left (for SINGLE, the time
///   for this move).
/// - `used`: CPU seconds this process has already spent (start-up, parsing);
///   they are charged too.
/// - `moves_left`: the game's estimate of how many moves the agent still
///   has to make (GAME mode only).
///
/// SINGLE may spend 85 % of what is usable. Games that pace their search
/// ([`Pacing::Full`], opted into by [`crate::search::Evaluator::TIME_SCORES`])
/// search until then: the move has this time and nothing after it, and a
/// partial last iteration still searches the best move first and may only
/// replace it by a better one. Others stop starting iterations at half of
/// it. The 15 % and the reserve cover the table's allocation before the
/// search clock starts and the gap between two looks at the clock.
///
/// GAME keeps a twentieth of the clock in hand (a game stopped at the move
/// cap is won on remaining time) and `MOVE_OVERHEAD` for each expected
/// move left, gives each move an equal share of the rest over those moves,
/// and lets a move run to three shares but never to more than a quarter of
/// what is left, so a long game cannot run the clock dry. No new iteration
/// starts after `ADAPTIVE_SOFT` of a share (an iteration started later
/// typically finishes past the share, and those overruns add up over a
/// game: a 60 s game ended with 0.3 s left when the soft limit was the whole
/// share), scaled after every iteration by [`Pacing::Adaptive`] for games
/// that give [`crate::search::Evaluator::TIME_SCORES`]: longer while the best move
/// changes or the score falls, shorter once it is settled or decided.
pub fn plan(mode: Mode, remaining: f64, used: f64, moves_left: f64) -> Limits {
    plan_with_overhead(
        mode,
        remaining,
        used,
        MovesLeft::all_searched(moves_left),
        MOVE_OVERHEAD,
    )
}

/// The moves the side to move still has to make, as the plan counts them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MovesLeft {
    /// All of them: each costs [`MOVE_OVERHEAD`] or so whatever it searches.
    pub total: f64,
    /// Those that need a search of their own (at most `total`): at short
    /// clocks the clock is shared over these ([`short_clock_weight`]).
    /// Moves a solver plays in milliseconds at the end of a game are in
    /// `total` only, so the time they would have been given goes to moves
    /// whose depth it raises instead of being left on the clock.
    pub searched: f64,
}

impl MovesLeft {
    /// `n` moves, every one of them searched.
    pub(crate) fn all_searched(n: f64) -> Self {
        MovesLeft { total: n, searched: n }
    }
}

/// [`plan`] with the measured cost of a move outside its search
/// ([`next_overhead`]) in place of [`MOVE_OVERHEAD`]: at a clock of a
/// fraction of a second for a whole game, 5 ms set aside for each of ~85
/// moves left the search about nothing for the first moves.
pub(crate) fn plan_with_overhead(
    mode: Mode,
    remaining: f64,
    used: f64,
    moves_left: MovesLeft,
    overhead: f64,
) -> Limits {
    let usable = (remaining - reserve(remaining) - used).max(0.0);
    match mode {
        Mode::Single => Limits {
            pacing: Pacing::Full,
            ..Limits::time(0.5 * usable, 0.85 * usable)
        },
        Mode::Game => {
            let total = moves_left.total.max(1.0);
            let spendable = spendable(remaining, used, total, overhead).max(0.0);
            let searched = moves_left.searched.clamp(1.0, total);
            let short = short_clock_weight(spendable / total);
            let share = spendable / (total - short * (total - searched));
            let hard = (3.0 * share).min(0.25 * spendable);
            Limits {
                pacing: Pacing::Adaptive,
                ..Limits::time((ADAPTIVE_SOFT * share).min(hard), hard)
            }
        }
    }
}

/// CPU seconds of a GAME clock the searches may spend: what is usable
/// after the process's own reserve, less the twentieth kept in hand and
/// the per-move floor (`floor`, a move's whole-process cost outside its
/// search) of each of the `total` moves left, which no plan can avoid:
/// every move is a new process. Negative when even that floor is not paid.
fn spendable(remaining: f64, used: f64, total: f64, floor: f64) -> f64 {
    let usable = (remaining - reserve(remaining) - used).max(0.0);
    0.95 * usable - floor * total.max(1.0)
}

/// CPU seconds a move of the default strategy that searches costs at the
/// least on top of one played without a search ([`too_short_to_search`]):
/// the play data's positions handed over, the searcher and its table built,
/// a one-ply search. About 0.2 ms on a Halma midgame (162 nodes); kept
/// above.
pub(crate) const MIN_SEARCH: f64 = 0.0004;

/// Whether a GAME clock is too short to search even one ply: once the
/// floor of every move left is set aside ([`spendable`]), what remains
/// does not pay [`MIN_SEARCH`] for each move that would search. Such a move
/// is better played at once, at its floor alone, than lost on time. False
/// for SINGLE: the time is that move's alone.
pub(crate) fn too_short_to_search(mode: Mode, remaining: f64, used: f64, moves_left: MovesLeft, floor: f64) -> bool {
    let total = moves_left.total.max(1.0);
    let searched = moves_left.searched.clamp(1.0, total);
    let left = spendable(remaining, used, total, floor);
    // NaN (a damaged figure) counts as short: the fast move is always legal.
    mode == Mode::Game && (left.is_nan() || left < MIN_SEARCH * searched)
}

/// A share of the clock per move at or below which every move's time buys
/// depth, so the time the solver's moves would get goes to the searched ones.
const SHORT_SHARE: f64 = 0.05;
/// A share per move at or above which the opening's extra time buys no
/// depth (Halma's even depths cost 10-20 times the odd one below them), so
/// the clock is shared over all moves and kept for the late middle game.
const SATURATED_SHARE: f64 = 0.2;

/// How far the plan shares the clock over the searched moves only instead
/// of all of them, from the share per move over all of them: 1 up to
/// [`SHORT_SHARE`], 0 from [`SATURATED_SHARE`], in between by the log of
/// the share. Sharing over the searched moves won at 4 s a side (about
/// 45 ms a move) and lost at 30 s (about 0.35 s a move): there the extra
/// opening time bought no ply and the late middle game came a ply short.
fn short_clock_weight(share: f64) -> f64 {
    // NaN (no clock to share) counts as short.
    if share.is_nan() || share <= SHORT_SHARE {
        return 1.0;
    }
    ((SATURATED_SHARE / share).ln() / (SATURATED_SHARE / SHORT_SHARE).ln()).clamp(0.0, 1.0)
}

/// Transposition-table bytes for a search of `hard` CPU seconds: enough for
/// the nodes it can visit (from `nodes_per_sec`, calibrated or assumed), and
/// small for tiny budgets so that allocation never eats the budget.
pub(crate) fn tt_bytes(hard: f64, nodes_per_sec: f64) -> usize {
    const ENTRY_BYTES: f64 = 32.0;
    let want = hard * nodes_per_sec.clamp(MIN_NPS, MAX_NPS) * ENTRY_BYTES;
    if want.is_nan() {
        return 64 * 1024;
    }
    want.clamp(64.0 * 1024.0, 256.0 * 1024.0 * 1024.0) as usize
}

/// The slowest search speed a calibration may claim (a loaded, slow machine
/// still searches tens of thousands of nodes a second).
pub(crate) const MIN_NPS: f64 = 1.0e3;
/// The fastest search speed a calibration may claim (no game here reaches
/// this on one core). A file claiming more (e.g. `1e308`) is damaged.
pub(crate) const MAX_NPS: f64 = 1.0e8;

/// The calibration file, written by `agent <game> calibrate` next to input.txt.
pub const CALIBRATION_FILE: &str = "calibration.txt";

/// Reads `dir/calibration.txt` (`nodes_per_second N`). A missing file gives
/// `None`; a damaged or implausible one (not a regular file, too big, no
/// number, a number outside [`MIN_NPS`]..=[`MAX_NPS`]) is ignored with a
/// note in the `-v` log: the file is a hint, not something to trust.
pub(crate) fn read_calibration(dir: &Path) -> Option<f64> {
    let path = dir.join(CALIBRATION_FILE);
    let text = match read_bounded(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            log::debug!("ignoring {}: {e}", path.display());
            return None;
        }
    };
    match parse_calibration(&text) {
        Ok(v) => Some(v),
        Err(why) => {
            log::debug!("ignoring {}: {why}", path.display());
            None
        }
    }
}

/// Parses the text of `calibration.txt`, checking the speed is plausible.
pub(crate) fn parse_calibration(text: &str) -> Result<f64, String> {
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("nodes_per_second") {
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("expected a number after nodes_per_second, found {:?}", v.trim()))?;
            if !(MIN_NPS..=MAX_NPS).contains(&v) {
                return Err(format!(
                    "nodes_per_second {v} is outside the plausible range {MIN_NPS:.0} to {MAX_NPS:.0}"
                ));
            }
            return Ok(v);
        }
    }
    Err("no nodes_per_second line".into())
}

/// `agent <game> calibrate`: measures alpha-beta speed on `position` for
/// `seconds` of CPU and writes `dir/calibration.txt`; returns nodes per second.
pub fn calibrate<G: Searchable>(dir: &Path, position: &G, seconds: f64) -> std::io::Result<f64> {
    let t = CpuTimer::start();
    let r = alphabeta::search(position, Limits::time(seconds, seconds), 16 << 20);
    let nps = (r.nodes as f64 / t.elapsed().max(1e-6)).clamp(MIN_NPS, MAX_NPS);
    write_atomic(dir, CALIBRATION_FILE, &format!("nodes_per_second {nps:.0}\n"))?;
    Ok(nps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;

    #[test]
    fn single_stays_inside_the_time() {
        for t in [0.01, 0.1, 1.0, 10.0, 30.0] {
            let b = plan(Mode::Single, t, 0.001, 1.0);
            assert!(b.soft <= b.hard && b.hard < t, "{t}: {} {}", b.soft, b.hard);
            assert!(b.hard > 0.3 * t || t < 0.1, "{t}: {}", b.hard);
            assert_eq!(b.pacing, Pacing::Full);
        }
    }

    #[test]
    fn game_shares_time_and_caps_the_move() {
        let b = plan(Mode::Game, 100.0, 0.0, 50.0);
        let share = (0.95 * 99.0 - 50.0 * MOVE_OVERHEAD) / 50.0;
        assert!((b.soft - 0.6 * share).abs() < 1e-9, "{}", b.soft);
        assert!((b.hard - 3.0 * share).abs() < 1e-9);
        assert_eq!(b.pacing, Pacing::Adaptive);
        // With one move left the cap at a quarter of what is left applies.
        let b = plan(Mode::Game, 10.0, 0.0, 1.0);
        assert!(b.hard <= 0.25 * 10.0);
        // Time already spent is charged.
        let b = plan(Mode::Game, 0.01, 0.02, 10.0);
        assert_eq!(b.hard, 0.0);
        // The overhead of the moves left is kept back: 20 moves at 0.08 s
        // left leave no search time (each costs ~MOVE_OVERHEAD anyway), and
        // the plan only grows with the clock.
        assert_eq!(plan(Mode::Game, 0.08, 0.0, 20.0).hard, 0.0);
        let mut last = 0.0;
        for t in [0.2, 0.5, 1.0, 4.0, 10.0, 100.0] {
            let b = plan(Mode::Game, t, 0.0, 20.0);
            assert!(b.hard > last && b.hard < 0.25 * t, "{t}: {}", b.hard);
            last = b.hard;
        }
    }

    #[test]
    fn the_move_overhead_follows_what_moves_cost() {
        // A move charged 6 ms with 2 ms of search cost 4 ms outside it.
        let e = next_overhead(None, 0.006, 0.002);
        assert!((0.0047..0.0049).contains(&e), "slowly down from 5 ms: {e}");
        // A dearer move raises the estimate at once.
        assert!((next_overhead(Some(0.003), 0.020, 0.010) - 0.010).abs() < 1e-9);
        // Never below the floor, never above four times the default.
        let mut e = MOVE_OVERHEAD;
        for _ in 0..100 {
            e = next_overhead(Some(e), 0.0021, 0.002);
        }
        assert!((e - MIN_MOVE_OVERHEAD).abs() < 1e-9, "{e}");
        assert_eq!(next_overhead(Some(0.004), 0.5, 0.1), 4.0 * MOVE_OVERHEAD);
        // A clock that grew (another game's file) is no measurement.
        assert_eq!(next_overhead(Some(0.004), -1.0, 0.0), 0.004);
        // A cheaper move leaves more of a short clock to the search.
        let cheap = plan_with_overhead(Mode::Game, 0.5, 0.0, MovesLeft::all_searched(85.0), 0.003);
        let default = plan(Mode::Game, 0.5, 0.0, 85.0);
        assert!(cheap.hard > 2.0 * default.hard, "{cheap:?} {default:?}");
    }

    #[test]
    fn the_plan_reserves_moves_left_times_the_floor() {
        // 1 s for 80 moves at a 3 ms floor: 0.24 s of it is the floor's,
        // and the searches share only the rest.
        let moves = MovesLeft::all_searched(80.0);
        let usable = 1.0 - reserve(1.0);
        let rest = 0.95 * usable - 80.0 * 0.003;
        assert!((spendable(1.0, 0.0, 80.0, 0.003) - rest).abs() < 1e-12);
        let b = plan_with_overhead(Mode::Game, 1.0, 0.0, moves, 0.003);
        assert!((b.hard - 3.0 * rest / 80.0).abs() < 1e-12, "{b:?}");
        assert!(!too_short_to_search(Mode::Game, 1.0, 0.0, moves, 0.003));
        // A clock the floor of the moves left takes whole: no search time,
        // and the move is played without one.
        let floor_only = (80.0 * 0.003 / 0.95 + 0.003) / 0.98;
        assert!(plan_with_overhead(Mode::Game, floor_only, 0.0, moves, 0.003).hard < 1e-12);
        assert!(too_short_to_search(Mode::Game, floor_only, 0.0, moves, 0.003));
        // The threshold: the floor, then MIN_SEARCH for each searched move.
        let per_move = |remaining| spendable(remaining, 0.0, 80.0, 0.003) / 80.0;
        let (below, above) = (floor_only + 0.03, floor_only + 0.04);
        assert!(per_move(below) < MIN_SEARCH && per_move(above) > MIN_SEARCH);
        assert!(too_short_to_search(Mode::Game, below, 0.0, moves, 0.003));
        assert!(!too_short_to_search(Mode::Game, above, 0.0, moves, 0.003));
        // Counted over the searched moves (at least one), the floor over all.
        let fewer = MovesLeft {
            total: 80.0,
            searched: 10.0,
        };
        assert!(!too_short_to_search(Mode::Game, below, 0.0, fewer, 0.003));
        // A Halma opening at a quarter of a second with a 3 ms floor is too
        // short; half a second is not; SINGLE never is; a damaged floor is.
        let opening = MovesLeft {
            total: 100.0,
            searched: 88.0,
        };
        assert!(too_short_to_search(Mode::Game, 0.25, 0.001, opening, 0.003));
        assert!(!too_short_to_search(Mode::Game, 0.5, 0.001, opening, 0.003));
        assert!(!too_short_to_search(Mode::Single, 0.001, 0.001, opening, 0.003));
        assert!(too_short_to_search(Mode::Game, 100.0, 0.0, opening, f64::NAN));
    }

    #[test]
    fn a_short_clock_is_shared_over_the_searched_moves_only() {
        let moves = |total, searched| MovesLeft { total, searched };
        // 1 s for 40 moves: about 20 ms a move, well under SHORT_SHARE.
        let all = plan(Mode::Game, 1.0, 0.0, 40.0);
        let fewer = plan_with_overhead(Mode::Game, 1.0, 0.0, moves(40.0, 20.0), MOVE_OVERHEAD);
        // Twice the share for half the searched moves; the overhead of all 40 is still kept back.
        assert!((fewer.soft - 2.0 * all.soft).abs() < 1e-9, "{fewer:?} {all:?}");
        let spendable = 0.95 * (1.0 - reserve(1.0)) - 40.0 * MOVE_OVERHEAD;
        assert!((fewer.hard - 3.0 * spendable / 20.0).abs() < 1e-9, "{fewer:?}");
        // Never more searched moves than moves, never fewer than one.
        let odd = plan_with_overhead(Mode::Game, 1.0, 0.0, moves(40.0, 90.0), MOVE_OVERHEAD);
        assert_eq!((odd.soft, odd.hard), (all.soft, all.hard));
        let none = plan_with_overhead(Mode::Game, 1.0, 0.0, moves(40.0, 0.0), MOVE_OVERHEAD);
        assert!((none.hard - 0.25 * spendable).abs() < 1e-9, "{none:?}");
    }

    #[test]
    fn a_long_clock_is_shared_over_all_moves() {
        let moves = |total, searched| MovesLeft { total, searched };
        // 100 s for 40 moves: over 2 s a move, past SATURATED_SHARE.
        let all = plan(Mode::Game, 100.0, 0.0, 40.0);
        let fewer = plan_with_overhead(Mode::Game, 100.0, 0.0, moves(40.0, 20.0), MOVE_OVERHEAD);
        assert_eq!((fewer.soft, fewer.hard), (all.soft, all.hard));
        // In between (about 0.1 s a move), more than over all of them, less than over the searched ones.
        let all = plan(Mode::Game, 4.5, 0.0, 40.0);
        let fewer = plan_with_overhead(Mode::Game, 4.5, 0.0, moves(40.0, 20.0), MOVE_OVERHEAD);
        assert!(
            fewer.soft > 1.2 * all.soft && fewer.soft < 1.8 * all.soft,
            "{fewer:?} {all:?}"
        );
        // The weight itself: whole at short shares (and a zero one), none at long ones, falling between.
        assert_eq!(short_clock_weight(0.0), 1.0);
        assert_eq!(short_clock_weight(SHORT_SHARE), 1.0);
        assert_eq!(short_clock_weight(SATURATED_SHARE), 0.0);
        assert_eq!(short_clock_weight(5.0), 0.0);
        let (a, b) = (short_clock_weight(0.08), short_clock_weight(0.15));
        assert!(1.0 > a && a > b && b > 0.0, "{a} {b}");
    }

    #[test]
    fn tt_scales_with_budget() {
        assert_eq!(tt_bytes(0.0001, 1e6), 64 * 1024);
        assert!(tt_bytes(1.0, 1e6) > tt_bytes(0.1, 1e6));
        assert_eq!(tt_bytes(1e6, 1e6), 256 * 1024 * 1024);
        // A damaged speed cannot size a huge table for a tiny budget.
        assert_eq!(tt_bytes(0.05, 1e308), tt_bytes(0.05, MAX_NPS));
        assert!(tt_bytes(0.05, 1e308) < 256 * 1024 * 1024);
    }

    use crate::scratch::scratch as dir;

    #[test]
    fn calibration_is_read_only_when_plausible() {
        let d = dir("calib");
        assert_eq!(read_calibration(&d), None);
        std::fs::write(d.join(CALIBRATION_FILE), "nodes_per_second 123456\n").unwrap();
        assert_eq!(read_calibration(&d), Some(123456.0));
        for bad in [
            "nodes_per_second -5\n",
            "nodes_per_second 1e308\n",
            "nodes_per_second 1\n",
            "x\n",
        ] {
            std::fs::write(d.join(CALIBRATION_FILE), bad).unwrap();
            assert_eq!(read_calibration(&d), None, "{bad:?}");
        }
        let nps = calibrate(&d, &Nim::new(30), 0.02).unwrap();
        assert!((MIN_NPS..=MAX_NPS).contains(&nps));
        assert!(read_calibration(&d).is_some());
    }
}

//! `agent halma race-bench`: how far the race solver reaches in its time, and
//! how many plays the agent needs to finish separated positions from
//! self-play with and without it, against the solver's minimum.

use agent::clock::CpuTimer;
use agent::games::halma::bitboard::Bitboard;
use agent::games::halma::solver::{race_sides, random_race, to_frame, Budget, Finish, RaceSide, Solver, GOAL};
use agent::games::halma::Halma;
use agent::play::{choose, openings::random_opening, ChooseOptions};
use agent::protocol::{ByPlayer, GenOptions, Player};
use agent::search::{Game, Limits, Strategy};
use fxhash::FxHashSet;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::fmt::Write;

/// What the bench measures and how long it may take.
#[derive(Clone, Debug)]
pub struct RaceBenchOptions {
    /// Largest number of pieces outside the goal tried in the solver part.
    pub max_outside: u32,
    /// Random races per piece count.
    pub samples: u32,
    /// The solver's time per race (CPU seconds) in the solver part.
    pub solve_seconds: f64,
    /// Separated positions to collect from self-play (0: skip that part).
    pub positions: u32,
    /// CPU seconds per move of both agents in the playouts.
    pub move_seconds: f64,
    /// The solver's time for the minimum of each collected position.
    pub minimum_seconds: f64,
    /// Seed of the random races and the self-play openings.
    pub seed: u64,
}

impl Default for RaceBenchOptions {
    fn default() -> Self {
        RaceBenchOptions {
            max_outside: 14,
            samples: 9,
            solve_seconds: 1.0,
            positions: 100,
            move_seconds: 0.05,
            minimum_seconds: 2.0,
            seed: 1,
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Self-play games whose lone finishes give the solver's realistic races.
const RACE_GAMES: u64 = 12;

/// Runs the bench and returns its report.
pub fn run(opts: &RaceBenchOptions) -> Result<String, String> {
    let mut out = String::new();
    let races = selfplay_races(opts.seed)?;
    let _ = writeln!(
        out,
        "# solver on the {} positions of depth-1 lone finishes from the first separated positions of {RACE_GAMES} depth-2 self-play games",
        races.len()
    );
    solver_reach(opts, &mut out, |n, _| {
        races
            .iter()
            .filter(|b| (**b & !GOAL).count() == n)
            .take(opts.samples as usize)
            .copied()
            .collect()
    });
    let _ = writeln!(
        out,
        "# solver on random races: outsiders on random cells of levels 15-24, the rest on random goal cells"
    );
    solver_reach(opts, &mut out, |n, rng| {
        (0..opts.samples).map(|_| random_race(rng, n, 15)).collect()
    });
    if opts.positions > 0 {
        playouts(opts, &mut out)?;
    }
    Ok(out)
}

/// Realistic races, reproducibly: from the first separated position of
/// each of a few seeded self-play games (depth 2 both sides), the side to
/// move finishes alone with a depth-1 search; every position it goes
/// through, in black's frame, spread over the numbers of outsiders.
pub(crate) fn selfplay_races(seed: u64) -> Result<Vec<Bitboard>, String> {
    let mut races = Vec::new();
    // The positions the agent without the race value goes through.
    for g in 0..RACE_GAMES {
        let Some(pos) = separated_position(seed.wrapping_mul(7919) + 1000 + g, &Limits::depth(2), false)? else {
            continue;
        };
        playout(
            &pos,
            pos.side(),
            Strategy::AlphaBeta(1),
            &Limits::depth(1),
            false,
            &mut races,
        );
    }
    // Scattered: a different game's race for each sample of a count.
    races.sort_by_key(|b| KEYS_MIX.wrapping_mul(b.0[0] ^ b.0[1] ^ b.0[2] ^ b.0[3]));
    races.dedup();
    Ok(races)
}

/// Writes [`selfplay_races`] to `path`, one race a line as four
/// hexadecimal words (the solver's ignored diagnostics read the file).
pub(crate) fn save_races(path: &std::path::Path, seed: u64) -> Result<(), String> {
    let text: String = selfplay_races(seed)?
        .iter()
        .map(|b| format!("{:x} {:x} {:x} {:x}\n", b.0[0], b.0[1], b.0[2], b.0[3]))
        .collect();
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Multiplier that scatters the realistic races before they are taken.
const KEYS_MIX: u64 = agent::search::mix::GOLDEN;

/// The median CPU time of an exact solve per number of pieces outside the
/// goal over the races `races(n, rng)` gives, and the largest count whose
/// median is within 0.1 s.
fn solver_reach(opts: &RaceBenchOptions, out: &mut String, mut races: impl FnMut(u32, &mut SmallRng) -> Vec<Bitboard>) {
    let mut solver = Solver::new(20);
    let mut largest = 0;
    // Largest N such that every race of every count up to N was solved
    // within 0.1 s (the median can hide a slow race).
    let (mut all_fast, mut every) = (0, true);
    let _ = writeln!(
        out,
        "median CPU seconds to an exact answer, up to {} races per count (unsolved within {} s count as {} s)",
        opts.samples, opts.solve_seconds, opts.solve_seconds
    );
    let _ = writeln!(out, "outside  median_s  solved<=0.1s  median_plays  median_nodes");
    for n in 1..=opts.max_outside {
        let mut rng = SmallRng::seed_from_u64(opts.seed.wrapping_mul(1000) + u64::from(n));
        let (mut times, mut plays, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
        let mut fast = 0;
        let set = races(n, &mut rng);
        if set.is_empty() {
            continue;
        }
        for &pieces in &set {
            // Floor 10: the lowest a black rear can be at separation.
            let side = RaceSide { pieces, floor: 10 };
            let t = CpuTimer::start();
            let r = solver.solve(&side, Budget::seconds(opts.solve_seconds));
            let s = t.elapsed();
            nodes.push(solver.nodes() as f64);
            match r {
                Finish::Exact { plays: p, .. } => {
                    times.push(s);
                    plays.push(f64::from(p));
                    if s <= 0.1 {
                        fast += 1;
                    }
                }
                Finish::AtLeast(_) => times.push(opts.solve_seconds),
            }
        }
        let m = median(&mut times);
        let _ = writeln!(
            out,
            "{n:7}  {m:8.4}  {fast:5}/{:<5}  {:12.1}  {:12.0}",
            set.len(),
            median(&mut plays),
            median(&mut nodes)
        );
        every &= fast == set.len();
        if every {
            all_fast = n;
        }
        if m <= 0.1 {
            largest = n;
        } else if m >= opts.solve_seconds {
            break;
        }
    }
    let _ = writeln!(out, "largest N solved exactly within 0.1 s CPU (median): {largest}");
    let _ = writeln!(
        out,
        "largest N with every race up to N solved exactly within 0.1 s CPU: {all_fast}"
    );
}

/// The first separated position of a self-play game from a random opening
/// (both sides the ordinary search within `limits`, with the race value
/// or, as the agent was, without), if the game gets there within 400 plies.
fn separated_position(seed: u64, limits: &Limits, race_value: bool) -> Result<Option<Halma>, String> {
    let mut pos: Halma = random_opening(&GenOptions::default(), 4, seed)?;
    let opts = ChooseOptions {
        exact_values: race_value,
        ..ChooseOptions::default()
    };
    for _ in 0..400 {
        if race_sides(&pos).is_some() {
            return Ok(Some(pos));
        }
        if pos.outcome().is_some() {
            return Ok(None);
        }
        let Some(c) = choose(&pos, Strategy::AlphaBeta(3), limits, &opts, &mut |_| {}) else {
            return Ok(None);
        };
        pos.play(c.best);
    }
    Ok(None)
}

/// Plays for `me` to fill its goal from `start` with `strategy` within
/// `limits` a move, the opponent standing still (in a separated position it
/// cannot interfere), the search with or without the race value; `None`
/// past 200 plays.
fn playout(
    start: &Halma,
    me: Player,
    strategy: Strategy,
    limits: &Limits,
    race_value: bool,
    visited: &mut Vec<Bitboard>,
) -> Option<u32> {
    let mut pos = *start;
    let mut seen = FxHashSet::default();
    for plays in 0..200 {
        if pos.has_won(me) {
            return Some(plays);
        }
        visited.push(to_frame(me, pos.pieces(me)));
        let opts = ChooseOptions {
            seen: Some(seen.clone()),
            exact_values: race_value,
            ..ChooseOptions::default()
        };
        seen.insert(pos.hash());
        let c = choose(&pos, strategy, limits, &opts, &mut |_| {})?;
        pos.play(c.best);
        let mut sets = ByPlayer::new(pos.pieces(Player::One), pos.pieces(Player::Two));
        sets[me] = pos.pieces(me);
        pos = Halma::from_pieces(sets[Player::One], sets[Player::Two], me);
    }
    None
}

/// One collected position: pieces outside the goal, the solver's answer,
/// and the plays of the old and the new agent.
type Row = (u32, Finish, Option<u32>, Option<u32>);

/// Part 2: separated positions from self-play; for the side to move, the
/// solver's minimum and the plays of the agent without the race solver (the
/// ordinary search, as before) and with it.
fn playouts(opts: &RaceBenchOptions, out: &mut String) -> Result<(), String> {
    let mut solver = Solver::new(20);
    let mut rows = Vec::new();
    let mut seed = opts.seed.wrapping_mul(7919);
    let mut games = 0;
    while rows.len() < opts.positions as usize && games < 4 * opts.positions {
        games += 1;
        seed += 1;
        let Some(pos) = separated_position(seed, &Limits::time(0.005, 0.01), true)? else {
            continue;
        };
        let me = pos.side();
        let sides = race_sides(&pos).expect("collected positions are separated");
        let outside = (sides[me].pieces & !GOAL).count();
        let min = solver.solve(&sides[me], Budget::seconds(opts.minimum_seconds));
        // Without the solver: the same search, reached through a strategy
        // the race move leaves alone, without the race value.
        let limits = Limits::time(opts.move_seconds, opts.move_seconds);
        let old = playout(&pos, me, Strategy::AlphaBeta(64), &limits, false, &mut Vec::new());
        let new = playout(&pos, me, Strategy::Best, &limits, true, &mut Vec::new());
        rows.push((outside, min, old, new));
        eprintln!(
            "position {}: {outside} outside, minimum {min:?}, old {old:?}, new {new:?}",
            rows.len()
        );
    }
    let _ = writeln!(
        out,
        "# playouts: {} separated positions from {games} self-play games, {} CPU s a move; the side to move plays alone",
        rows.len(),
        opts.move_seconds
    );
    let exact: Vec<_> = rows.iter().filter(|r| matches!(r.1, Finish::Exact { .. })).collect();
    let sum = |f: &dyn Fn(&Row) -> Option<u32>, rs: &[&Row]| -> (u64, usize) {
        let mut t = 0u64;
        let mut n = 0;
        for r in rs {
            if let Some(v) = f(r) {
                t += u64::from(v);
                n += 1;
            }
        }
        (t, n)
    };
    let all: Vec<_> = rows.iter().collect();
    for (name, set) in [
        ("all positions (minimum = solver's bound where unsolved)", &all),
        ("positions solved exactly", &exact),
    ] {
        let (min_t, _) = sum(&|r| Some(r.1.bound()), set);
        let (old_t, old_n) = sum(&|r| r.2, set);
        let (new_t, new_n) = sum(&|r| r.3, set);
        let old_hit = set.iter().filter(|r| r.2 == Some(r.1.bound())).count();
        let new_hit = set.iter().filter(|r| r.3 == Some(r.1.bound())).count();
        let _ = writeln!(
            out,
            "{name}: {} positions; plays: minimum {min_t}, old agent {old_t} ({old_n} finished, {old_hit} at the minimum), new agent {new_t} ({new_n} finished, {new_hit} at the minimum)",
            set.len()
        );
    }
    let mut outs: Vec<f64> = rows.iter().map(|r| f64::from(r.0)).collect();
    let _ = writeln!(
        out,
        "median pieces outside the goal at separation: {}",
        median(&mut outs)
    );
    Ok(())
}

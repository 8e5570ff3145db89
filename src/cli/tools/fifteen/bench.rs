//! `agent fifteen bench`: CPU time of the exact solver on the 4x4 start
//! (win/draw/loss and margin, medians of repeated runs, each on a fresh
//! table) and on seeded random 6x6 endgames (to place the cards-left
//! threshold under which the agent solves 6x6 positions exactly).

use agent::games::fifteen::solver::{margin_points, random_position, Solver};
use agent::games::fifteen::Fifteen;
use agent::protocol::Player;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// CPU seconds a single 6x6 bench solve may take before it is reported as
/// unfinished.
const SIX_CAP: f64 = 5.0;

/// Parses `A-B` (or a single number) into an inclusive range of card counts.
pub(crate) fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected a number of cards or a range such as 8-12, found {s:?}");
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a > b || b > 22 {
        return Err(format!(
            "{s:?}: the range must go upwards and stay within the 22 cards of a 6x6 game"
        ));
    }
    Ok((a, b))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn join(v: &[f64]) -> String {
    v.iter().map(|t| format!("{t:.3}")).collect::<Vec<_>>().join(" ")
}

/// Times `runs` win/draw/loss and margin solves of the 4x4 start (and the
/// alpha-beta core's margin solve if `alphabeta`), each on a fresh table of
/// `tt_bytes`, reporting every line through `out`.
pub(crate) fn start4(runs: usize, alphabeta: bool, tt_bytes: usize, out: &mut dyn FnMut(String)) {
    let g = Fifteen::new(4, Player::One);
    let mut wdl = Vec::new();
    let mut margin = Vec::new();
    for _ in 0..runs {
        let r = Solver::new(tt_bytes).wdl(&g, f64::INFINITY).expect("unlimited");
        out(format!(
            "4x4 start win/draw/loss: {} in {:.3} s CPU, {} nodes",
            r.wdl.word(),
            r.seconds,
            r.nodes
        ));
        wdl.push(r.seconds);
        let r = Solver::new(tt_bytes).margin(&g, f64::INFINITY).expect("unlimited");
        out(format!(
            "4x4 start margin: {:+} in {:.3} s CPU, {} nodes",
            margin_points(r.value),
            r.seconds,
            r.nodes
        ));
        margin.push(r.seconds);
    }
    out(format!(
        "4x4 start win/draw/loss: median {:.3} s CPU of {runs} ({})",
        median(&mut wdl.clone()),
        join(&wdl)
    ));
    out(format!(
        "4x4 start margin: median {:.3} s CPU of {runs} ({})",
        median(&mut margin.clone()),
        join(&margin)
    ));
    if alphabeta {
        let mut ab = Vec::new();
        for _ in 0..runs {
            let r = agent::search::alphabeta::solve(&g, tt_bytes);
            out(format!(
                "4x4 start margin, alpha-beta core: {:+} in {:.3} s CPU, {} nodes",
                margin_points(r.score),
                r.seconds,
                r.nodes
            ));
            ab.push(r.seconds);
        }
        out(format!(
            "4x4 start margin, alpha-beta core: median {:.3} s CPU of {runs} ({})",
            median(&mut ab.clone()),
            join(&ab)
        ));
    }
}

/// Times margin solves of `positions` seeded random 6x6 positions for every
/// count of cards left in `from..=to` (one run each, at most 5 s), printing
/// the median per count; the seeds depend only on the count and the index,
/// so runs compare.
pub(crate) fn six_endgames(from: u32, to: u32, positions: usize, tt_bytes: usize, out: &mut dyn FnMut(String)) {
    let mut solver = Solver::new(tt_bytes);
    for left in from..=to {
        let mut times = Vec::new();
        let mut unfinished = 0;
        for i in 0..positions {
            let mut rng = SmallRng::seed_from_u64(1000 * left as u64 + i as u64);
            let g = random_position(&mut rng, 6, left);
            solver.clear();
            match solver.margin(&g, SIX_CAP) {
                Some(r) => times.push(r.seconds),
                None => {
                    unfinished += 1;
                    times.push(f64::INFINITY);
                }
            }
        }
        let shown: Vec<String> = times
            .iter()
            .map(|t| {
                if t.is_finite() {
                    format!("{t:.3}")
                } else {
                    format!(">{SIX_CAP}")
                }
            })
            .collect();
        let med = median(&mut times);
        out(format!(
            "6x6 {left} cards left: median {} s CPU over {positions} positions, {unfinished} over {SIX_CAP} s ({})",
            if med.is_finite() {
                format!("{med:.3}")
            } else {
                format!(">{SIX_CAP}")
            },
            shown.join(" ")
        ));
    }
}

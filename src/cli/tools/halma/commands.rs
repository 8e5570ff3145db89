//! Halma tools for developers: perft (bitboard and simple), bench and the
//! referee's judgement of an output. Duels, openings and calibration are the
//! generic ones of [`crate::tools`].

use agent::clock::CpuTimer;
use agent::games::halma::simple::{self, to_simple};
use agent::games::halma::{format, perft, HMove, Halma};
use agent::protocol::read_bounded;
use agent::protocol::{Notation, View};
use agent::search::{alphabeta, Limits};
use std::path::Path;

/// Reads and parses an `input.txt`.
pub fn load(path: &Path) -> Result<Halma, String> {
    let text = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    format::parse_input(&text)
        .map(|i| i.state)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `agent halma perft FILE DEPTH [--simple]`: the leaf count and its speed.
pub(crate) fn perft_command(file: &Path, depth: u32, simple_impl: bool) -> Result<String, String> {
    let pos = load(file)?;
    let t = CpuTimer::start();
    let n = if simple_impl {
        simple::perft(&to_simple(&pos), depth)
    } else {
        perft(&pos, depth)
    };
    let s = t.elapsed().max(1e-9);
    Ok(format!(
        "{n}\n# {} implementation: {n} leaves in {s:.3} CPU s = {:.0} leaves/s",
        if simple_impl { "simple array" } else { "bitboard" },
        n as f64 / s
    ))
}

/// Sample positions the bench runs on (file names under `samples/halma/`).
pub(crate) const BENCH_SAMPLES: [&str; 4] = [
    "start_black.txt",
    "midgame_1.txt",
    "midgame_white.txt",
    "late_black.txt",
];

/// `agent halma bench`: move generation and search speed on fixed samples,
/// each search measured `runs` times (medians printed).
pub fn bench(samples: &Path, seconds: f64, runs: u32) -> Result<String, String> {
    let mut out = String::new();
    for name in BENCH_SAMPLES {
        let pos = load(&samples.join(name))?;
        // Move generation: perft to the depth that takes a noticeable time.
        let mut depth = 1;
        let (mut n, mut s);
        loop {
            let t = CpuTimer::start();
            n = perft(&pos, depth);
            s = t.elapsed().max(1e-9);
            if s > 0.2 || depth >= 3 {
                break;
            }
            depth += 1;
        }
        let t = CpuTimer::start();
        let sn = simple::perft(&to_simple(&pos), depth);
        let ss = t.elapsed().max(1e-9);
        let t = CpuTimer::start();
        let bn = perft(&pos, depth);
        let bs = t.elapsed().max(1e-9);
        out.push_str(&format!(
            "{name}: perft({depth}) = {n}: bitboard {:.2} M leaves/s (again: {:.2}) vs simple {:.2} M leaves/s, ratio {:.1}x\n",
            n as f64 / s / 1e6,
            bn as f64 / bs / 1e6,
            sn as f64 / ss / 1e6,
            (n as f64 / s).max(bn as f64 / bs) / (sn as f64 / ss),
        ));
        let mut depths = Vec::new();
        let mut speeds = Vec::new();
        for _ in 0..runs.max(1) {
            let d = depth_in(&pos, seconds);
            out.push_str(&format!(
                "  search: depth {} in {:.2} CPU s ({} nodes, {:.2} M nodes/s, best {}); depth {} not within {seconds} s\n",
                d.depth,
                d.seconds,
                d.nodes,
                d.nodes as f64 / d.seconds.max(1e-9) / 1e6,
                d.best.map_or_else(|| "none".to_string(), |m| pos.describe_move(m)),
                d.depth + 1,
            ));
            depths.push(d.depth);
            speeds.push(d.nodes as f64 / d.seconds.max(1e-9));
        }
        depths.sort_unstable();
        speeds.sort_unstable_by(f64::total_cmp);
        out.push_str(&format!(
            "  median of {}: depth {} in {seconds} s, {:.2} M nodes/s\n",
            depths.len(),
            depths[depths.len() / 2],
            speeds[speeds.len() / 2] / 1e6
        ));
    }
    Ok(out)
}

/// The deepest iteration a search of `pos` completes within `seconds` of CPU.
struct DepthIn {
    depth: u32,
    seconds: f64,
    nodes: u64,
    best: Option<HMove>,
}

/// Iterative deepening as the agent runs it, but past `seconds` (up to three
/// times as long, so the time policy's "will the next iteration fit" guess
/// does not decide the figure): the deepest iteration finished within
/// `seconds`, with the nodes and time it took to get there.
fn depth_in(pos: &Halma, seconds: f64) -> DepthIn {
    let mut done = DepthIn {
        depth: 0,
        seconds: 0.0,
        nodes: 0,
        best: None,
    };
    alphabeta::search_reporting(pos, Limits::time(seconds, 3.0 * seconds), 64 << 20, |info| {
        if !info.partial && info.seconds <= seconds {
            done = DepthIn {
                depth: info.depth,
                seconds: info.seconds,
                nodes: info.nodes,
                best: Some(info.best),
            };
        }
    });
    done
}

/// `agent halma check INPUT OUTPUT`: the referee's judgement of an
/// `output.txt` for the position of an `input.txt`.
pub(crate) fn check_command(input: &Path, output: &Path) -> Result<String, String> {
    let pos = load(input)?;
    let text = read_bounded(output).map_err(|e| format!("cannot read {}: {e}", output.display()))?;
    match pos.parse_move(&text) {
        Ok(m) => Ok(format!("legal: {}", pos.describe_move(m))),
        Err(e) => Err(e.to_string()),
    }
}

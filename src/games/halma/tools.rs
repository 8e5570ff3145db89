//! Halma tools for developers: perft (bitboard and simple), bench,
//! calibration and an in-process duel between two strategies under a CPU
//! clock (a strength check that needs no referee).

use super::simple::{self, SimpleBoard};
use super::{colour_name, format, HMove, Halma, Reading};
use crate::clock::CpuTimer;
use crate::protocol::{ByPlayer, FileGame, Mode, Player};
use crate::search::{alphabeta::Searcher, minimax, Game, Limits, Outcome, Strategy};
use crate::timing;
use fxhash::FxHashSet;
use std::path::Path;

/// Leaf count `depth` plies below `pos`: moves are distinct (from, to)
/// pairs, sides alternate, a won position is a leaf.
pub fn perft(pos: &Halma, depth: u32) -> u64 {
    let mut bufs: Vec<Vec<HMove>> = (0..=depth).map(|_| Vec::with_capacity(256)).collect();
    perft_rec(pos, depth, &mut bufs)
}

fn perft_rec(pos: &Halma, depth: u32, bufs: &mut [Vec<HMove>]) -> u64 {
    if depth == 0 || pos.has_won(pos.side().other()) {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let (head, rest) = bufs.split_first_mut().expect("a buffer per ply");
    head.clear();
    pos.moves(Reading::Narrow, head);
    let mut n = 0;
    for &m in head.iter() {
        let mut c = *pos;
        c.play(m);
        n += perft_rec(&c, depth - 1, rest);
    }
    n
}

/// The simple implementation's view of a position.
pub fn to_simple(pos: &Halma) -> SimpleBoard {
    let mut b = SimpleBoard {
        cells: [[0; 16]; 16],
        side: pos.side(),
    };
    for c in Player::ALL {
        for p in pos.pieces(c).iter() {
            b.cells[p as usize / 16][p as usize % 16] = c.index() as u8 + 1;
        }
    }
    b
}

/// Reads and parses an `input.txt`.
pub fn load(path: &Path) -> Result<Halma, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    format::parse_input(&text)
        .map(|i| i.state)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `agent perft FILE DEPTH [--simple]`: the leaf count and its speed.
pub fn perft_command(file: &Path, depth: u32, simple_impl: bool) -> Result<String, String> {
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
pub const BENCH_SAMPLES: [&str; 4] = [
    "start_black.txt",
    "midgame_1.txt",
    "midgame_white.txt",
    "late_black.txt",
];

/// `agent bench`: move generation and search speed on fixed samples.
pub fn bench(samples: &Path, seconds: f64) -> Result<String, String> {
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
        let mut searcher = Searcher::<Halma>::new(64 << 20);
        let r = searcher.search(&pos, Limits::time(seconds, seconds), |_| {});
        out.push_str(&format!(
            "{name}: perft({depth}) = {n}: bitboard {:.2} M leaves/s (again: {:.2}) vs simple {:.2} M leaves/s, ratio {:.1}x; search {} nodes in {:.2} CPU s = {:.0} nodes/s, depth {} reached in {seconds} s\n",
            n as f64 / s / 1e6,
            bn as f64 / bs / 1e6,
            sn as f64 / ss / 1e6,
            (n as f64 / s).max(bn as f64 / bs) / (sn as f64 / ss),
            r.nodes,
            r.seconds,
            r.nodes as f64 / r.seconds.max(1e-9),
            r.depth
        ));
    }
    Ok(out)
}

/// `agent calibrate`: measures search speed from the start position.
pub fn calibrate(dir: &Path) -> Result<String, String> {
    let nps = crate::driver::calibrate(dir, &Halma::start(Player::One), 0.5)
        .map_err(|e| format!("cannot write calibration.txt: {e}"))?;
    Ok(format!("nodes_per_second {nps:.0}"))
}

/// How one side of a duel chooses its moves.
#[derive(Clone, Copy, Debug)]
pub struct DuelPlayer {
    /// The strategy (Best, AlphaBeta(d) or Minimax(d)).
    pub strategy: Strategy,
}

/// Result of one duel game.
#[derive(Clone, Debug)]
pub struct DuelResult {
    /// Winning colour (None: draw or cap reached with equal time).
    pub winner: Option<Player>,
    /// Plies played.
    pub plies: u32,
    /// CPU seconds used by each colour.
    pub used: ByPlayer<f64>,
    /// How it ended.
    pub reason: String,
}

/// Plays one game in-process: `players[c]` plays colour c, each with
/// `seconds` of CPU for the whole game (GAME mode budgeting, repeats
/// avoided as the driver does), `first` moves first. A side that runs out of
/// time loses; at `max_plies` the side with more time left wins.
pub fn duel(players: ByPlayer<DuelPlayer>, seconds: f64, first: Player, max_plies: u32) -> DuelResult {
    duel_recorded(players, seconds, first, max_plies, |_, _| {})
}

/// [`duel`], calling `record(ply, position)` before every move.
pub fn duel_recorded(
    players: ByPlayer<DuelPlayer>,
    seconds: f64,
    first: Player,
    max_plies: u32,
    mut record: impl FnMut(u32, &Halma),
) -> DuelResult {
    let mut pos = Halma::start(first);
    let mut used = ByPlayer::new(0.0f64, 0.0);
    let mut seen: ByPlayer<FxHashSet<u64>> = ByPlayer::default();
    let mut plies = 0;
    loop {
        if let Some(r) = pos.result() {
            let reason = if r.is_some() {
                "goal camp filled"
            } else {
                "no legal move"
            };
            return settle(r, plies, used, reason);
        }
        if plies >= max_plies {
            let w = if used[Player::One] < used[Player::Two] {
                Some(Player::One)
            } else if used[Player::Two] < used[Player::One] {
                Some(Player::Two)
            } else {
                None
            };
            return DuelResult {
                winner: w,
                plies,
                used,
                reason: "move cap".into(),
            };
        }
        record(plies, &pos);
        let c = pos.side();
        let remaining = seconds - used[c];
        let t = CpuTimer::start();
        let budget = timing::plan(Mode::Game, remaining, 0.0, pos.moves_left_estimate());
        let mv = match players[c].strategy {
            Strategy::Minimax(d) => minimax::search(&pos, d.max(1), budget.hard, |_| {}).best,
            Strategy::AlphaBeta(_) | Strategy::Best => {
                let max_depth = if let Strategy::AlphaBeta(d) = players[c].strategy {
                    d
                } else {
                    128
                };
                let mut s = Searcher::<Halma>::new(timing::tt_bytes(budget.hard, 1.0e6));
                let mut avoid = seen[c].clone();
                avoid.insert(pos.hash());
                s.set_avoid(avoid, Halma::REPEAT_SCORE);
                s.search(
                    &pos,
                    Limits {
                        soft: budget.soft,
                        hard: budget.hard,
                        max_depth,
                        max_nodes: None,
                    },
                    |_| {},
                )
                .best
            }
            _ => crate::search::greedy::choose(&pos),
        };
        used[c] += t.elapsed();
        let Some(mv) = mv else {
            return settle(None, plies, used, "no move returned");
        };
        if used[c] > seconds {
            return DuelResult {
                winner: Some(c.other()),
                plies,
                used,
                reason: format!("{} ran out of time", colour_name(c)),
            };
        }
        seen[c].insert(pos.hash());
        pos.play(mv);
        seen[c].insert(pos.hash());
        plies += 1;
        if pos.outcome() == Some(Outcome::Loss) {
            return settle(Some(c), plies, used, "goal camp filled");
        }
    }
}

fn settle(winner: Option<Player>, plies: u32, used: ByPlayer<f64>, reason: &str) -> DuelResult {
    DuelResult {
        winner,
        plies,
        used,
        reason: reason.into(),
    }
}

/// `agent halma duel`: `games` games alternating who moves first; the first
/// player plays `a`, the second `b`. Returns a summary.
/// Each game's line is printed as soon as it ends; with `record`, every
/// position of every game is written there as `gN_plyNNN.txt` (an input.txt).
pub fn duel_command(
    a: Strategy,
    b: Strategy,
    games: u32,
    seconds: f64,
    max_plies: u32,
    record: Option<&Path>,
) -> String {
    let mut wins = [0u32; 3];
    for g in 0..games {
        // `a` takes BLACK in even games, WHITE in odd ones; BLACK always moves first.
        let a_colour = Player::from_index((g % 2) as usize);
        let mut players = ByPlayer::new(DuelPlayer { strategy: b }, DuelPlayer { strategy: b });
        players[a_colour] = DuelPlayer { strategy: a };
        let r = duel_recorded(players, seconds, Player::One, max_plies, |ply, pos| {
            if let Some(dir) = record {
                let _ = std::fs::write(
                    dir.join(format!("g{}_ply{ply:03}.txt", g + 1)),
                    format::write_input(pos, Mode::Single, 30.0),
                );
            }
        });
        let who = match r.winner {
            Some(w) if w == a_colour => 0,
            Some(_) => 1,
            None => 2,
        };
        wins[who] += 1;
        let line = format!(
            "game {}: A={} winner={} plies={} cpu A={:.1}s B={:.1}s ({})\n",
            g + 1,
            colour_name(a_colour),
            ["A", "B", "draw"][who],
            r.plies,
            r.used[a_colour],
            r.used[a_colour.other()],
            r.reason
        );
        print!("{line}");
    }
    format!(
        "A {:?} vs B {:?}: A won {}, B won {}, draws {}\n",
        a, b, wins[0], wins[1], wins[2]
    )
}

/// `agent halma check INPUT OUTPUT`: the referee's judgement of an
/// `output.txt` for the position of an `input.txt`.
pub fn check_command(input: &Path, output: &Path) -> Result<String, String> {
    let pos = load(input)?;
    let text = std::fs::read_to_string(output).map_err(|e| format!("cannot read {}: {e}", output.display()))?;
    match pos.parse_move(&text) {
        Ok(m) => Ok(format!("legal: {}", pos.describe_move(m))),
        Err(e) => Err(e.to_string()),
    }
}

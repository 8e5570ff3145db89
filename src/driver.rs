//! One turn of the file protocol for any game: read `input.txt`, write a
//! legal move to `output.txt` at once, then improve it within the CPU budget.

use crate::clock::{process_cpu_seconds, CpuTimer};
use crate::playdata::PlayData;
use crate::protocol::{write_atomic, FileGame, GameKind, Input, Mode, ParseError};
use crate::search::{alphabeta::Searcher, greedy, mcts, minimax, Game, Limits, Strategy};
use crate::timing::{self, Budget};
use rand::seq::SliceRandom;
use std::fmt;
use std::path::{Path, PathBuf};

/// What the agent binary was asked to do.
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// Directory holding `input.txt`; `output.txt` goes there too.
    pub dir: PathBuf,
    /// How to choose the move.
    pub strategy: Strategy,
    /// Use at most this fraction of the computed budget (tests, tuning).
    pub time_scale: f64,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            dir: PathBuf::from("."),
            strategy: Strategy::Best,
            time_scale: 1.0,
        }
    }
}

/// Why a turn failed.
#[derive(Debug)]
pub enum TurnError {
    /// `input.txt` could not be read.
    Io(PathBuf, std::io::Error),
    /// `input.txt` is malformed.
    Parse(PathBuf, ParseError),
    /// The position has no legal move (or the game is already over).
    NoMove(String),
    /// `output.txt` could not be written.
    Write(PathBuf, std::io::Error),
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Io(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            TurnError::Parse(p, e) => write!(f, "{}: {e}", p.display()),
            TurnError::NoMove(m) => write!(f, "{m}"),
            TurnError::Write(p, e) => write!(f, "cannot write {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for TurnError {}

/// Summary of a finished turn (for logging and tests).
#[derive(Clone, Debug)]
pub struct TurnReport {
    /// The move text written to `output.txt`.
    pub output: String,
    /// Depth reached by the search (0 for non-searching strategies).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The budget planned for the move.
    pub budget: Budget,
}

/// Nodes per CPU second assumed when there is no `calibration.txt`.
pub const DEFAULT_NPS: f64 = 1.0e6;

/// Reads `calibration.txt` (`nodes_per_second N`), if present and sane.
pub fn read_calibration(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("calibration.txt")).ok()?;
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("nodes_per_second") {
            let v: f64 = v.trim().parse().ok()?;
            if v.is_finite() && v > 1.0 {
                return Some(v);
            }
        }
    }
    None
}

/// Plays one turn of whatever game `dir/input.txt` holds.
pub fn run_turn(opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let path = opts.dir.join("input.txt");
    let bytes = std::fs::read(&path).map_err(|e| TurnError::Io(path.clone(), e))?;
    let text = String::from_utf8_lossy(&bytes);
    let kind = GameKind::detect(&text).map_err(|e| TurnError::Parse(path.clone(), e))?;
    crate::games::dispatch_turn(kind, &text, opts).map_err(|e| match e {
        TurnError::Parse(_, pe) => TurnError::Parse(path.clone(), pe),
        other => other,
    })
}

/// Plays one turn of game `G` from the text of its `input.txt`.
pub fn turn<G: FileGame>(text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let input: Input<G> = G::parse_input(text).map_err(|e| TurnError::Parse(opts.dir.join("input.txt"), e))?;
    let state = input.state;
    if let Some(r) = state.result() {
        return Err(TurnError::NoMove(format!(
            "the game is already over in input.txt ({r:?}); there is no move to make"
        )));
    }
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    if moves.is_empty() {
        return Err(TurnError::NoMove(
            "the side to move has no legal move in input.txt".into(),
        ));
    }

    // Never silent: a legal move is on disk before any real thinking.
    let quick = greedy::choose(&state).unwrap_or(moves[0]);
    let out_path = opts.dir.join("output.txt");
    let write = |mv: G::Move| -> Result<String, TurnError> {
        let s = state.format_move(mv);
        write_atomic(&opts.dir, "output.txt", &s).map_err(|e| TurnError::Write(out_path.clone(), e))?;
        Ok(s)
    };
    let mut written = quick;
    let mut output = write(quick)?;

    let mut playdata = match input.mode {
        Mode::Game => Some(PlayData::load(&opts.dir, G::NAME)),
        Mode::Single => None,
    };
    let mut budget = timing::plan(
        input.mode,
        input.remaining,
        process_cpu_seconds(),
        state.moves_left_estimate(),
    );
    budget.soft *= opts.time_scale;
    budget.hard *= opts.time_scale;
    let nps = read_calibration(&opts.dir).unwrap_or(DEFAULT_NPS);

    let mut depth = 0;
    let mut nodes = 0;
    let chosen = if let Some(mv) = state.special_move(opts.strategy, budget) {
        mv
    } else {
        match opts.strategy {
            Strategy::Best | Strategy::AlphaBeta(_) => {
                let max_depth = match opts.strategy {
                    Strategy::AlphaBeta(d) => d.max(1),
                    _ => 128,
                };
                let mut searcher = Searcher::<G>::new(timing::tt_bytes(budget.hard, nps));
                if let Some(pd) = &playdata {
                    let mut seen = pd.seen.clone();
                    seen.insert(state.hash());
                    searcher.set_avoid(seen, G::REPEAT_SCORE);
                }
                let limits = Limits {
                    soft: budget.soft,
                    hard: budget.hard,
                    max_depth,
                    max_nodes: None,
                };
                let mut write_err = None;
                let r = searcher.search(&state, limits, |info| {
                    if info.best != written {
                        match write(info.best) {
                            Ok(s) => {
                                output = s;
                                written = info.best;
                            }
                            Err(e) => write_err = Some(e),
                        }
                    }
                });
                if let Some(e) = write_err {
                    return Err(e);
                }
                depth = r.depth;
                nodes = r.nodes;
                r.best.unwrap_or(quick)
            }
            Strategy::Minimax(d) => {
                let r = minimax::search(&state, d.max(1), budget.hard, |_| {});
                depth = r.depth;
                nodes = r.nodes;
                r.best.unwrap_or(quick)
            }
            Strategy::Greedy => quick,
            Strategy::Mcts => {
                let o = mcts::MctsOptions {
                    seconds: budget.soft,
                    seed: state.hash(),
                    ..Default::default()
                };
                let (mv, it) = mcts::search(&state, o);
                nodes = it;
                mv.unwrap_or(quick)
            }
            Strategy::Random => {
                let mut rng = rand::thread_rng();
                *moves.choose(&mut rng).expect("non-empty")
            }
        }
    };
    if chosen != written {
        output = write(chosen)?;
    }
    if let Some(pd) = playdata.as_mut() {
        pd.moves += 1;
        pd.seen.insert(state.hash());
        let mut after = state.clone();
        after.play(chosen);
        pd.seen.insert(after.hash());
        pd.save(&opts.dir);
    }
    Ok(TurnReport {
        output,
        depth,
        nodes,
        budget,
    })
}

/// `agent calibrate`: measures search speed on a fixed position and writes
/// `calibration.txt` in `dir`.
pub fn calibrate<G: Game>(dir: &Path, position: &G, seconds: f64) -> std::io::Result<f64> {
    let t = CpuTimer::start();
    let r = Searcher::<G>::new(16 << 20).search(position, Limits::time(seconds, seconds), |_| {});
    let nps = r.nodes as f64 / t.elapsed().max(1e-6);
    write_atomic(dir, "calibration.txt", &format!("nodes_per_second {nps:.0}\n"))?;
    Ok(nps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testgames::Nim;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("agent-driver-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn opts(d: &Path, strategy: Strategy) -> AgentOptions {
        AgentOptions {
            dir: d.to_path_buf(),
            strategy,
            time_scale: 1.0,
        }
    }

    #[test]
    fn every_strategy_writes_a_legal_move() {
        let d = dir("strategies");
        for s in [
            Strategy::Best,
            Strategy::AlphaBeta(3),
            Strategy::Minimax(3),
            Strategy::Greedy,
            Strategy::Mcts,
            Strategy::Random,
        ] {
            let text = "NIM\nSINGLE\n1\n0.05\n6\n";
            let r = turn::<Nim>(text, &opts(&d, s)).unwrap();
            let written = std::fs::read_to_string(d.join("output.txt")).unwrap();
            assert_eq!(written, r.output);
            let mv: u32 = written.trim().parse().unwrap();
            assert!((1..=3).contains(&mv), "{s:?}: {written:?}");
            if matches!(s, Strategy::Best | Strategy::AlphaBeta(_) | Strategy::Minimax(_)) {
                // Only taking 2 (leaving 4) wins, three plies deep; first-generated is 1.
                assert_eq!(mv, 2, "{s:?} should find the win (6 -> 4)");
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn game_mode_keeps_playdata_and_tolerates_garbage() {
        let d = dir("playdata");
        std::fs::write(d.join("playdata.txt"), "garbage\n\u{0}").unwrap();
        let text = "NIM\nGAME\n2\n5.0\n10\n";
        turn::<Nim>(text, &opts(&d, Strategy::Best)).unwrap();
        let pd = PlayData::load(&d, "nim");
        assert_eq!(pd.moves, 1);
        assert_eq!(pd.seen.len(), 2);
        turn::<Nim>("NIM\nGAME\n2\n4.0\n6\n", &opts(&d, Strategy::Best)).unwrap();
        assert_eq!(PlayData::load(&d, "nim").moves, 2);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_input_and_finished_games_are_errors_not_panics() {
        let d = dir("bad");
        let e = turn::<Nim>("NIM\nGAME\n3\n5.0\n10\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let e = turn::<Nim>("NIM\nGAME\n1\n5.0\n0\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(matches!(e, TurnError::NoMove(_)));
        assert!(!d.join("output.txt").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn budget_is_respected_with_tiny_time() {
        let d = dir("tiny");
        let start = process_cpu_seconds();
        let r = turn::<Nim>("NIM\nSINGLE\n1\n0.01\n1000\n", &opts(&d, Strategy::Best)).unwrap();
        assert!(r.budget.hard < 0.01);
        // Process CPU includes other test threads, so only a loose bound here;
        // the per-process checks live in the games' CLI tests.
        assert!(process_cpu_seconds() - start < 1.0);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn calibration_file_is_read_when_sane() {
        let d = dir("calib");
        assert_eq!(read_calibration(&d), None);
        std::fs::write(d.join("calibration.txt"), "nodes_per_second 123456\n").unwrap();
        assert_eq!(read_calibration(&d), Some(123456.0));
        std::fs::write(d.join("calibration.txt"), "nodes_per_second -5\n").unwrap();
        assert_eq!(read_calibration(&d), None);
        let nps = calibrate(&d, &Nim::new(30), 0.02).unwrap();
        assert!(nps > 0.0);
        assert!(read_calibration(&d).is_some());
        std::fs::remove_dir_all(&d).unwrap();
    }
}

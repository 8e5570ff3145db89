//! One turn of the file protocol for any game: read `input.txt`, write a
//! legal move to `output.txt` at once, then improve it within the CPU budget.

use crate::clock::process_cpu_seconds;
use crate::games::GameKind;
use crate::play::{self, ChooseOptions};
use crate::playdata::{Clock, PlayData};
use crate::protocol::{read_bounded, write_atomic, FileGame, Input, Mode, ParseError, Player};
use crate::search::{greedy, Limits, Strategy};
use crate::timing;
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
    /// `--level` was asked for a game without a ladder.
    NoLevels(&'static str),
    /// `output.txt` could not be written.
    Write(PathBuf, std::io::Error),
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Io(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            TurnError::Parse(p, e) => write!(f, "{}: {e}", p.display()),
            TurnError::NoMove(m) => write!(f, "{m}"),
            TurnError::NoLevels(game) => write!(
                f,
                "--level is offered for {} only (the games whose ladder was measured); this input.txt is {game}: use --strategy instead",
                GameKind::level_games()
            ),
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
    /// The chosen move's score from the mover's view, when the strategy
    /// scores moves (see [`crate::play::Choice::score`]).
    pub score: Option<i32>,
    /// The CPU limits planned for the move.
    pub limits: Limits,
}

impl TurnReport {
    /// The per-move report the referee records when it is the last stderr
    /// line (`info depth D score S nodes N`, `score` where the strategy has
    /// one), or `None` when no search ran (a game's own solver, a random move).
    pub fn info_line(&self) -> Option<String> {
        if self.nodes == 0 {
            return None;
        }
        let score = self.score.map(|s| format!(" score {s}")).unwrap_or_default();
        Some(format!("info depth {}{score} nodes {}", self.depth, self.nodes))
    }
}

impl fmt::Display for TurnReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {:?} (depth {}, {} nodes; planned {:.3} s soft, {:.3} s hard)",
            self.output.trim_end(),
            self.depth,
            self.nodes,
            self.limits.soft,
            self.limits.hard
        )
    }
}

/// Plays one turn of whatever game `dir/input.txt` holds.
pub fn run_turn(opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let path = opts.dir.join("input.txt");
    let text = read_bounded(&path).map_err(|e| TurnError::Io(path.clone(), e))?;
    let kind = GameKind::detect(&text).map_err(|e| TurnError::Parse(path.clone(), e))?;
    dispatch_turn(kind, &text, opts)
}

/// Plays one turn of the game `kind` from its `input.txt` text.
pub(crate) fn dispatch_turn(kind: GameKind, text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    with_game!(kind, |G| turn::<G>(text, opts))
}

/// "player 1 has won" in the game's own seat names.
fn winner_words<G: FileGame>(result: Option<Player>) -> String {
    match result {
        Some(p) => {
            let name = G::player_names()[p.index()];
            if name.bytes().all(|b| b.is_ascii_digit()) {
                format!("player {name} has won")
            } else {
                format!("{name} has won")
            }
        }
        None => "it ended without a winner".to_string(),
    }
}

/// Plays one turn of game `G` from the text of its `input.txt`.
pub fn turn<G: FileGame>(text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let input: Input<G> = G::parse_input(text).map_err(|e| TurnError::Parse(opts.dir.join("input.txt"), e))?;
    if matches!(opts.strategy, Strategy::Level(..)) && !G::LEVELS {
        return Err(TurnError::NoLevels(G::NAME));
    }
    let state = input.state;
    // Never silent: a legal move is on disk before any real thinking.
    let quick = quick_move(&state)?;
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
    // What a move costs outside its search, from the clock's drop since
    // the last move (GAME mode keeps that in the play data).
    let last = playdata.as_ref().and_then(|pd| pd.clock);
    let overhead = last.map_or(timing::MOVE_OVERHEAD, |c| {
        timing::next_overhead(Some(c.overhead), c.remaining - input.remaining, c.search)
    });
    // Half a millisecond of margin on a measured figure.
    let planned_overhead = if last.is_some() { overhead + 0.0005 } else { overhead };
    let planned_at = process_cpu_seconds();
    let limits = timing::plan_with_overhead(
        input.mode,
        input.remaining,
        planned_at,
        timing::MovesLeft {
            total: state.moves_left_estimate(),
            searched: state.searched_moves_left(),
        },
        planned_overhead,
    )
    .scaled(opts.time_scale);
    let choose_opts = ChooseOptions {
        nodes_per_second: timing::read_calibration(&opts.dir),
        seen: playdata.as_ref().map(|pd| pd.seen.clone()),
        seed: state.hash() ^ u64::from(std::process::id()),
        ..ChooseOptions::default()
    };
    // Every improvement goes to disk at once, so a kill mid-think leaves the
    // best move found so far. The log line is what `-v` shows (and what the
    // kill tests look for).
    let mut write_err = None;
    let mut on_improve = |mv: G::Move| {
        log::debug!("improved move: {}", state.describe_move(mv));
        if mv != written && write_err.is_none() {
            match write(mv) {
                Ok(s) => {
                    output = s;
                    written = mv;
                }
                Err(e) => write_err = Some(e),
            }
        }
    };
    let choice = play::choose(&state, opts.strategy, &limits, &choose_opts, &mut on_improve);
    if let Some(c) = choice.filter(|c| c.table_bytes > 0) {
        log::debug!("search table: {} KiB", c.table_bytes >> 10);
    }
    if let Some(e) = write_err {
        return Err(e);
    }
    let (chosen, depth, nodes, score) = choice.map_or((quick, 0, 0, None), |c| (c.best, c.depth, c.nodes, c.score));
    if chosen != written {
        output = write(chosen)?;
    }
    if let Some(pd) = playdata.as_mut() {
        pd.clock = Some(Clock {
            remaining: input.remaining,
            search: process_cpu_seconds() - planned_at,
            overhead,
        });
        remember(pd, &opts.dir, &state, chosen);
    }
    Ok(TurnReport {
        output,
        depth,
        nodes,
        score,
        limits,
    })
}

/// A legal move found at once (greedy's, else the first), or why there is
/// none: the game is over, or the side to move is stuck.
fn quick_move<G: FileGame>(state: &G) -> Result<G::Move, TurnError> {
    if let Some(r) = state.result() {
        return Err(TurnError::NoMove(format!(
            "the game is already over in input.txt ({}); there is no move to make",
            winner_words::<G>(r)
        )));
    }
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    if moves.is_empty() {
        return Err(TurnError::NoMove(
            "the side to move has no legal move in input.txt".into(),
        ));
    }
    Ok(greedy::choose(state).unwrap_or(moves[0]))
}

/// Counts the move and records the positions before and after it in the
/// game's play data (saved in `dir`), so later turns can avoid repeating
/// them.
fn remember<G: FileGame>(pd: &mut PlayData, dir: &Path, state: &G, chosen: G::Move) {
    pd.moves += 1;
    pd.seen.insert(state.hash());
    let mut after = state.clone();
    after.play(chosen);
    pd.seen.insert(after.hash());
    pd.save(dir);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim;
    use std::path::Path;

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
            // The plan charges the CPU this process has used, and other
            // tests run in it too: give the move time on top of that.
            let text = format!("TESTNIM\nSINGLE\n1\n{:.3}\n6\n", process_cpu_seconds() + 2.0);
            let r = turn::<TestNim>(&text, &opts(&d, s)).unwrap();
            let written = std::fs::read_to_string(d.join("output.txt")).unwrap();
            assert_eq!(written, r.output);
            let mv: u32 = written.trim().parse().unwrap();
            assert!((1..=3).contains(&mv), "{s:?}: {written:?}");
            if matches!(s, Strategy::Best | Strategy::AlphaBeta(_) | Strategy::Minimax(_)) {
                // Only taking 2 (leaving 4) wins, three plies deep; first-generated is 1.
                assert_eq!(mv, 2, "{s:?} should find the win (6 -> 4)");
            }
            // The line the referee records: with the score wherever the strategy has one.
            let info = r.info_line();
            match s {
                Strategy::Random => assert_eq!(info, None),
                Strategy::Mcts => assert!(info.as_deref().is_some_and(|l| !l.contains("score")), "{info:?}"),
                _ => {
                    let l = info.unwrap_or_default();
                    assert!(
                        l.starts_with("info depth ") && l.contains(" score ") && l.contains(" nodes "),
                        "{s:?}: {l}"
                    );
                }
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn game_mode_keeps_playdata_and_tolerates_garbage() {
        let d = dir("playdata");
        std::fs::write(d.join("playdata.txt"), "garbage\n\u{0}").unwrap();
        let text = "TESTNIM\nGAME\n2\n5.0\n10\n";
        turn::<TestNim>(text, &opts(&d, Strategy::Best)).unwrap();
        let pd = PlayData::load(&d, "testnim");
        assert_eq!(pd.moves, 1);
        assert_eq!(pd.seen.len(), 2);
        turn::<TestNim>("TESTNIM\nGAME\n2\n4.0\n6\n", &opts(&d, Strategy::Best)).unwrap();
        assert_eq!(PlayData::load(&d, "testnim").moves, 2);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_input_and_finished_games_are_errors_not_panics() {
        let d = dir("bad");
        let e = turn::<TestNim>("TESTNIM\nGAME\n3\n5.0\n10\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let e = turn::<TestNim>("TESTNIM\nGAME\n1\n5.0\n0\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(matches!(e, TurnError::NoMove(_)));
        // Player 2 took the last counter; said in words, not as `Some(Two)`.
        assert!(e.to_string().contains("player 2 has won"), "{e}");
        assert!(!e.to_string().contains("Some"), "{e}");
        assert!(!d.join("output.txt").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn budget_is_respected_with_tiny_time() {
        let d = dir("tiny");
        let start = process_cpu_seconds();
        let r = turn::<TestNim>("TESTNIM\nSINGLE\n1\n0.01\n1000\n", &opts(&d, Strategy::Best)).unwrap();
        assert!(r.limits.hard < 0.01);
        assert!(!r.to_string().contains('{'), "no Rust debug text: {r}");
        // Process CPU includes other test threads, so only a loose bound here;
        // the per-process checks live in the games' CLI tests.
        assert!(process_cpu_seconds() - start < 1.0);
        std::fs::remove_dir_all(&d).unwrap();
    }
}

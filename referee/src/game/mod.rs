//! One timed game between two seats, generic over the game's rules, played
//! as a loop of named steps: `ending` (is the game over, and how),
//! `seat_move` (a person's or an agent's move, judged), and the record.

mod dirs;
pub(crate) mod human;
pub(crate) mod judge;
mod seat;

pub(crate) use seat::resolve_command;
pub use seat::{Contestant, SeatKind};

use crate::output::record::{Discarded, Ending, GameRecord, LossReason, MoveRecord, RunInfo};
use crate::process::agentinfo::{self, AgentInfo};
use crate::process::runner;
use crate::process::sandbox::Sandbox;
use agent::Game;
use agent::{format_time, ByPlayer, FileGame, Mode, Player};
use dirs::{agent_dirs, prepare_dirs, Settle};
pub(crate) use dirs::{opaque_dir, seat_dir};
use human::{HumanIo, HumanMove};
use judge::{run_agent_move, Judged, Played};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Time control and judging options shared by every game of a run.
#[derive(Clone, Debug)]
pub struct Rules {
    /// Line 1 of the agents' `input.txt`.
    pub mode: Mode,
    /// CPU seconds past the remaining time before an agent is killed.
    pub grace: f64,
    /// Plies after which the game ends and time decides.
    pub max_plies: usize,
    /// Per-move CPU cap: an agent is given min(remaining, this) and loses on exceeding it.
    pub move_time: Option<f64>,
    /// Wall-clock kill at (limit + grace) × `wall_factor` + `wall_extra` seconds.
    pub wall_factor: f64,
    /// See `wall_factor` (5 s by default: process start-up on a loaded machine).
    pub wall_extra: f64,
    /// Bytes of `output.txt` read at most.
    pub output_cap: usize,
    /// Confinement of the agents (shared by every game of a run).
    pub sandbox: Arc<Sandbox>,
    /// Keep every game's working directories on disk, not only those of
    /// forfeits.
    pub keep_dirs: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            mode: Mode::Game,
            grace: 10.0,
            max_plies: 1000,
            move_time: None,
            wall_factor: 3.0,
            wall_extra: 5.0,
            output_cap: runner::OUTPUT_CAP,
            sandbox: Arc::new(Sandbox::none()),
            keep_dirs: false,
        }
    }
}

/// What a game is told about each move, for drawing it as it goes.
pub struct MoveEvent<'a, G> {
    /// The position after the move.
    pub state: &'a G,
    /// The move as recorded.
    pub record: &'a MoveRecord,
    /// The move as shown to a person.
    pub described: String,
    /// Remaining seconds by seat.
    pub clocks: ByPlayer<f64>,
}

/// Everything one game needs.
pub struct GameSetup<'a, G> {
    /// Unique key of this game within the run.
    pub key: String,
    /// Start position (its side to move moves first).
    pub start: G,
    /// Contestants by seat.
    pub seats: ByPlayer<&'a Contestant>,
    /// Starting CPU seconds by seat.
    pub time: ByPlayer<f64>,
    /// Working directories by seat (created fresh).
    pub dirs: ByPlayer<PathBuf>,
}

/// Why a game did not finish.
#[derive(Debug)]
pub enum GameError {
    /// The run is stopping; the game is discarded (not recorded).
    Interrupted,
    /// The referee itself failed (cannot create a directory, spawn `sh`, ...).
    Io(String),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Interrupted => write!(f, "interrupted"),
            GameError::Io(m) => write!(f, "{m}"),
        }
    }
}

/// How a game ended, as recorded.
struct End {
    winner: Option<Player>,
    ending: Ending,
    loss: Option<LossReason>,
    reason: String,
}

/// Lines of a crashed agent's stderr quoted in the verdict.
const CRASH_STDERR_LINES: usize = 3;

/// Plays one game to its end. `on_move` sees every move (for drawing);
/// `human` is the terminal used by `human` seats.
pub fn play_game<G: FileGame>(
    setup: GameSetup<'_, G>,
    rules: &Rules,
    stop: &AtomicBool,
    mut human: Option<&mut HumanIo>,
    on_move: &mut dyn FnMut(&MoveEvent<'_, G>),
) -> Result<GameRecord, GameError> {
    prepare_dirs(&setup, rules)?;
    let settle = Settle {
        dirs: agent_dirs(&setup),
        disk: rules.sandbox.limits.disk,
    };
    let names = G::player_names();
    // Seat names as people read them ("player 1" for numbered seats).
    let lab = ByPlayer::from(names.map(human::seat_label));
    let mut state = setup.start.clone();
    let mut rec = new_record(&setup, rules);
    let mut clocks = setup.time;
    let mut buf = Vec::new();
    let end = loop {
        if let Some(end) = ending(&state, clocks, rec.moves.len(), rules, &lab) {
            break end;
        }
        if stop.load(Ordering::Relaxed) {
            return Err(GameError::Interrupted);
        }
        let seat = state.to_move();
        let played = seat_move(&state, &setup, clocks, rules, stop, human.as_deref_mut(), &mut buf)?;
        let Played {
            judged,
            cpu,
            wall,
            discarded,
            stderr_tail,
        } = played;
        clocks[seat] -= cpu;
        note_discarded(&mut rec, seat, discarded, rules);
        let is_agent = setup.seats[seat].kind != SeatKind::Human;
        let (mv, text) = match judged {
            Judged::Move(mv, text) => (mv, text),
            Judged::Loss(reason, msg) => {
                let msg = if reason == LossReason::Crash && is_agent {
                    with_stderr_tail(&msg, &stderr_tail)
                } else {
                    msg
                };
                break forfeit(seat, reason, &msg, &lab, &setup.seats[seat].name);
            }
        };
        let info = if is_agent {
            AgentInfo::from_stderr(&agentinfo::last_lines(&stderr_tail, 1))
        } else {
            None
        };
        let described = state.describe_move(mv);
        state.play(mv);
        rec.moves.push(MoveRecord {
            ply: rec.moves.len() + 1,
            seat: seat.index(),
            text,
            cpu,
            left: clocks[seat],
            wall,
            info,
        });
        let record = rec.moves.last().expect("just pushed");
        on_move(&MoveEvent {
            state: &state,
            record,
            described,
            clocks,
        });
    };
    rec.winner = end.winner.map(Player::index);
    rec.ending = end.ending;
    rec.loss = end.loss;
    rec.reason = end.reason;
    rec.clocks = clocks.into_array();
    let keep = rules.keep_dirs || rec.loss.is_some();
    settle.finish(keep, &mut rec.reason);
    Ok(rec)
}

/// Notes the bytes of an agent's stdout and stderr that went past the
/// capture cap and were thrown away, if any.
fn note_discarded(rec: &mut GameRecord, seat: Player, discarded: [u64; 2], rules: &Rules) {
    if discarded != [0, 0] {
        rec.discarded.push(Discarded {
            ply: rec.moves.len() + 1,
            seat: seat.index(),
            stdout: discarded[0],
            stderr: discarded[1],
            cap: rules.sandbox.limits.file_size,
        });
    }
}

/// A crash's verdict with its cause: the last lines of the agent's stderr.
pub(crate) fn with_stderr_tail(msg: &str, stderr: &[u8]) -> String {
    let tail = agentinfo::last_lines(stderr, CRASH_STDERR_LINES);
    if tail.is_empty() {
        format!("{msg}; its stderr was empty")
    } else {
        format!("{msg}; stderr ends: {}", tail.lines().collect::<Vec<_>>().join(" / "))
    }
}

/// The record of a game about to start (no moves, no result yet).
fn new_record<G: FileGame>(setup: &GameSetup<'_, G>, rules: &Rules) -> GameRecord {
    let names = G::player_names();
    let first = setup.start.to_move();
    GameRecord {
        key: setup.key.clone(),
        game: G::NAME.to_string(),
        agents: setup.seats.map(|c| c.name.clone()).into_array(),
        commands: setup.seats.map(|c| c.kind.command().to_string()).into_array(),
        seat_names: names.map(str::to_string),
        first: first.index(),
        mode: rules.mode.token().to_string(),
        time: setup.time.into_array(),
        start: setup.start.write_input(rules.mode, setup.time[first].max(1e-3)),
        moves: Vec::new(),
        winner: None,
        ending: Ending::Rules,
        loss: None,
        reason: String::new(),
        clocks: setup.time.into_array(),
        dirs: setup.dirs.clone().map(|d| d.display().to_string()).into_array(),
        discarded: Vec::new(),
        run: RunInfo::default(),
    }
}

/// Judging step: `Some` when the game is over before the side to move
/// plays: by the rules, by having no legal move, or at the move cap.
fn ending<G: FileGame>(
    state: &G,
    clocks: ByPlayer<f64>,
    plies: usize,
    rules: &Rules,
    lab: &ByPlayer<String>,
) -> Option<End> {
    let result = state.result();
    let stuck = no_legal_move(state);
    // Halma's rule 6 reports a drawn result when the side to move is stuck;
    // that end, like being stuck in any unfinished game, is settled on time.
    let settled_on_time = result == Some(None) && stuck && G::NO_MOVE_SETTLED_BY_TIME;
    let by_rules = |winner: Option<Player>, reason: String| End {
        winner,
        ending: Ending::Rules,
        loss: None,
        reason,
    };
    let on_time = |ending: Ending, why: String| {
        let (winner, detail) = by_time(clocks, lab);
        End {
            winner,
            ending,
            loss: None,
            reason: format!("{why}; {detail}"),
        }
    };
    // The game's own account (the camp filled, the hinger taken, the
    // scores), as the report's verdict gives it, so the terminal's
    // `Finished game` line says as much.
    let account = || state.board_view().outcome.map(|o| format!(": {o}")).unwrap_or_default();
    match result.filter(|_| !settled_on_time) {
        Some(Some(p)) => Some(by_rules(Some(p), format!("{} wins by the rules{}", lab[p], account()))),
        Some(None) => Some(by_rules(None, format!("draw by the rules{}", account()))),
        None if stuck => Some(on_time(
            Ending::NoLegalMove,
            format!("{} has no legal move", lab[state.to_move()]),
        )),
        None if plies >= rules.max_plies => Some(on_time(
            Ending::MoveCap,
            format!("move cap of {} plies reached", rules.max_plies),
        )),
        None => None,
    }
}

/// The seat to move plays: a person types a move (thinking time is not
/// charged), an agent is run and judged.
fn seat_move<G: FileGame>(
    state: &G,
    setup: &GameSetup<'_, G>,
    clocks: ByPlayer<f64>,
    rules: &Rules,
    stop: &AtomicBool,
    human: Option<&mut HumanIo>,
    buf: &mut Vec<G::Move>,
) -> Result<Played<G::Move>, GameError> {
    let seat = state.to_move();
    match &setup.seats[seat].kind {
        SeatKind::Human => {
            let io = human.ok_or_else(|| GameError::Io("a human seat needs a terminal".into()))?;
            let t0 = Instant::now();
            let judged = match human::ask_move(state, io, ByPlayer::from(G::player_names()), clocks, buf) {
                HumanMove::Move(m) => Judged::Move(m, state.format_move(m).trim_end().to_string()),
                HumanMove::Resign(why) => Judged::Loss(LossReason::Resigned, why),
            };
            Ok(Played::without_process(judged, t0.elapsed().as_secs_f64()))
        }
        SeatKind::Agent(_) if clocks[seat] <= 0.0 => {
            let lost = Judged::Loss(LossReason::OverTime, "no time left".into());
            Ok(Played::without_process(lost, 0.0))
        }
        SeatKind::Agent(cmd) => {
            let homes = runner::Homes {
                own: setup.seats[seat].home.as_deref(),
                others: setup.seats[seat.other()].home.as_slice(),
            };
            run_agent_move(state, cmd.as_str(), homes, &setup.dirs[seat], clocks[seat], rules, stop)
        }
    }
}

/// The end of a game the seat to move forfeits.
fn forfeit(seat: Player, reason: LossReason, msg: &str, lab: &ByPlayer<String>, name: &str) -> End {
    End {
        winner: Some(seat.other()),
        ending: Ending::Forfeit,
        loss: Some(reason),
        reason: format!("{} ({name}) loses: {}: {msg}", lab[seat], reason.label()),
    }
}

fn no_legal_move<G: Game>(state: &G) -> bool {
    let mut v = Vec::new();
    state.legal_moves(&mut v);
    v.is_empty()
}

/// The player with more remaining time wins; equal is a draw.
fn by_time(clocks: ByPlayer<f64>, names: &ByPlayer<String>) -> (Option<Player>, String) {
    let (one, two) = (Player::One, Player::Two);
    let detail = format!(
        "clocks {} {} / {} {}",
        names[one],
        format_time(clocks[one].max(0.0)),
        names[two],
        format_time(clocks[two].max(0.0))
    );
    if clocks[one] > clocks[two] {
        (Some(one), format!("{} wins on remaining time ({detail})", names[one]))
    } else if clocks[two] > clocks[one] {
        (Some(two), format!("{} wins on remaining time ({detail})", names[two]))
    } else {
        (None, format!("draw on equal remaining time ({detail})"))
    }
}

/// Seat names with the agents in them, for messages.
pub(crate) fn seat_line(rec: &GameRecord) -> String {
    format!(
        "{} {} vs {} {}",
        rec.seat_names[0], rec.agents[0], rec.seat_names[1], rec.agents[1]
    )
}

/// Replays a record's moves from its start, for `replay` and checks.
pub fn replay_states<G: FileGame>(rec: &GameRecord) -> Result<Vec<G>, String> {
    let start = G::parse_input(&rec.start)
        .map_err(|e| format!("game {}: start position: {e}", rec.key))?
        .state;
    let mut out = vec![start.clone()];
    let mut s = start;
    for m in &rec.moves {
        let mv = s
            .parse_move(&m.text)
            .map_err(|e| format!("game {} ply {}: {e}", rec.key, m.ply))?;
        s.play(mv);
        out.push(s.clone());
    }
    Ok(out)
}

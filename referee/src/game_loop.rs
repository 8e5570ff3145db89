//! One timed game between two seats, generic over the game's rules.

use crate::human::{self, HumanIo, HumanMove};
use crate::record::{Ending, GameRecord, LossReason, MoveRecord};
use crate::runner::{self, Exit, Killed, RunSpec};
use agent::protocol::{format_time, FileGame, Mode, MoveError, Player};
use agent::search::Game;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatKind {
    /// An agent program: a shell command run in its working directory.
    Agent(String),
    /// The person at the terminal.
    Human,
}

impl SeatKind {
    /// Parses a seat argument: `human` or an agent command.
    pub fn parse(s: &str) -> SeatKind {
        if s.trim() == "human" {
            SeatKind::Human
        } else {
            SeatKind::Agent(resolve_command(s))
        }
    }

    /// The command as recorded (`human` for a person).
    pub fn command(&self) -> &str {
        match self {
            SeatKind::Agent(c) => c,
            SeatKind::Human => "human",
        }
    }
}

/// Agents run in their own working directories, so a program given by a
/// relative path (`./agent`, `target/release/agent`) that exists from the
/// referee's directory is made absolute; anything else is left to `sh`.
pub fn resolve_command(cmd: &str) -> String {
    let trimmed = cmd.trim_start();
    let prog = trimmed.split_whitespace().next().unwrap_or("");
    if prog.contains('/') && !prog.starts_with('/') && !prog.contains(['\'', '"', '$', '`']) {
        if let Ok(abs) = std::fs::canonicalize(prog) {
            if abs.is_file() {
                let abs = abs.display().to_string();
                if !abs.contains(char::is_whitespace) {
                    return format!("{abs}{}", &trimmed[prog.len()..]);
                }
            }
        }
    }
    cmd.to_string()
}

/// A named participant.
#[derive(Clone, Debug)]
pub struct Contestant {
    /// Display name (unique within a run).
    pub name: String,
    /// Agent command or human.
    pub kind: SeatKind,
    /// A `calibration.txt` to copy into each game directory.
    pub calibration: Option<PathBuf>,
}

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
    pub clocks: [f64; 2],
}

/// Everything one game needs.
pub struct GameSetup<'a, G> {
    /// Unique key of this game within the run.
    pub key: String,
    /// Start position (its side to move moves first).
    pub start: G,
    /// Contestants by seat (index 0 plays `Player::One`).
    pub seats: [&'a Contestant; 2],
    /// Starting CPU seconds by seat.
    pub time: [f64; 2],
    /// Working directories by seat (created fresh).
    pub dirs: [PathBuf; 2],
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

/// The judged outcome of one agent move.
enum Judged<M> {
    Move(M, String),
    Loss(LossReason, String),
}

/// Plays one game to its end. `on_move` sees every move (for drawing);
/// `human` is the terminal used by `human` seats.
pub fn play_game<G: FileGame>(
    setup: GameSetup<'_, G>,
    rules: &Rules,
    stop: &AtomicBool,
    mut human: Option<&mut HumanIo>,
    on_move: &mut dyn FnMut(&MoveEvent<'_, G>),
) -> Result<GameRecord, GameError> {
    let names = G::player_names();
    for (i, d) in setup.dirs.iter().enumerate() {
        if setup.seats[i].kind == SeatKind::Human {
            continue;
        }
        // Fresh directory: no playdata.txt or output.txt from an earlier game.
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(|e| GameError::Io(format!("cannot clear {}: {e}", d.display())))?;
        }
        std::fs::create_dir_all(d).map_err(|e| GameError::Io(format!("cannot create {}: {e}", d.display())))?;
        if let Some(c) = &setup.seats[i].calibration {
            std::fs::copy(c, d.join("calibration.txt"))
                .map_err(|e| GameError::Io(format!("cannot copy {} into {}: {e}", c.display(), d.display())))?;
        }
    }
    // Seat names as people read them ("player 1" for numbered seats).
    let lab = [crate::human::seat_label(names[0]), crate::human::seat_label(names[1])];
    let lab_refs = [lab[0].as_str(), lab[1].as_str()];
    let mut state = setup.start.clone();
    let first = state.to_move().index();
    let mut rec = GameRecord {
        key: setup.key.clone(),
        game: G::NAME.to_string(),
        agents: [setup.seats[0].name.clone(), setup.seats[1].name.clone()],
        commands: [
            setup.seats[0].kind.command().to_string(),
            setup.seats[1].kind.command().to_string(),
        ],
        seat_names: [names[0].to_string(), names[1].to_string()],
        first,
        mode: rules.mode.token().to_string(),
        time: setup.time,
        start: state.write_input(rules.mode, setup.time[first].max(1e-3)),
        moves: Vec::new(),
        winner: None,
        ending: Ending::Rules,
        loss: None,
        reason: String::new(),
        clocks: setup.time,
        dirs: [setup.dirs[0].display().to_string(), setup.dirs[1].display().to_string()],
    };
    let mut clocks = setup.time;
    let mut moves = Vec::new();
    let finish = |rec: &mut GameRecord,
                  clocks: [f64; 2],
                  winner: Option<usize>,
                  ending: Ending,
                  loss: Option<LossReason>,
                  reason: String| {
        rec.winner = winner;
        rec.ending = ending;
        rec.loss = loss;
        rec.reason = reason;
        rec.clocks = clocks;
    };
    loop {
        let result = state.result();
        let stuck = no_legal_move(&state);
        // Halma's rule 6 reports a drawn result when the side to move is
        // stuck; that end, like being stuck in any unfinished game, is
        // settled on time below.
        let settled_on_time = result == Some(None) && stuck && settles_no_move_by_time::<G>();
        if let Some(r) = result.filter(|_| !settled_on_time) {
            match r {
                Some(p) => finish(
                    &mut rec,
                    clocks,
                    Some(p.index()),
                    Ending::Rules,
                    None,
                    format!("{} wins by the rules", lab[p.index()]),
                ),
                None => finish(
                    &mut rec,
                    clocks,
                    None,
                    Ending::Rules,
                    None,
                    "draw by the rules".to_string(),
                ),
            }
            break;
        }
        if stuck {
            let (w, why) = by_time(clocks, &lab_refs);
            finish(
                &mut rec,
                clocks,
                w,
                Ending::NoLegalMove,
                None,
                format!("{} has no legal move; {why}", lab[state.to_move().index()]),
            );
            break;
        }
        if rec.moves.len() >= rules.max_plies {
            let (w, why) = by_time(clocks, &lab_refs);
            finish(
                &mut rec,
                clocks,
                w,
                Ending::MoveCap,
                None,
                format!("move cap of {} plies reached; {why}", rules.max_plies),
            );
            break;
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(GameError::Interrupted);
        }
        let seat = state.to_move().index();
        let who = setup.seats[seat];
        let (judged, cpu, wall) = match &who.kind {
            SeatKind::Human => {
                let io = human
                    .as_deref_mut()
                    .ok_or_else(|| GameError::Io("a human seat needs a terminal".into()))?;
                let t0 = Instant::now();
                match human::ask_move(&state, io, &names, clocks, &mut moves) {
                    HumanMove::Move(m) => (
                        Judged::Move(m, state.format_move(m).trim_end().to_string()),
                        0.0,
                        t0.elapsed().as_secs_f64(),
                    ),
                    HumanMove::Resign(why) => {
                        (Judged::Loss(LossReason::Resigned, why), 0.0, t0.elapsed().as_secs_f64())
                    }
                }
            }
            SeatKind::Agent(cmd) => {
                if clocks[seat] <= 0.0 {
                    (Judged::Loss(LossReason::OverTime, "no time left".into()), 0.0, 0.0)
                } else {
                    run_agent_move(&state, cmd, &setup.dirs[seat], clocks[seat], rules, stop)?
                }
            }
        };
        clocks[seat] -= cpu;
        match judged {
            Judged::Move(mv, text) => {
                let described = state.describe_move(mv);
                state.play(mv);
                let mr = MoveRecord {
                    ply: rec.moves.len() + 1,
                    seat,
                    text,
                    cpu,
                    left: clocks[seat],
                    wall,
                };
                rec.moves.push(mr);
                let ev = MoveEvent {
                    state: &state,
                    record: rec.moves.last().expect("just pushed"),
                    described,
                    clocks,
                };
                on_move(&ev);
            }
            Judged::Loss(reason, msg) => {
                let other = 1 - seat;
                finish(
                    &mut rec,
                    clocks,
                    Some(other),
                    Ending::Forfeit,
                    Some(reason),
                    format!("{} ({}) loses: {}: {msg}", lab[seat], who.name, reason.label()),
                );
                break;
            }
        }
    }
    Ok(rec)
}

/// Halma's rule 6 (SPEC §2): no legal move ends the game as the move cap
/// does. In every other game a drawn `result()` is a real draw.
fn settles_no_move_by_time<G: FileGame>() -> bool {
    G::NO_MOVE_SETTLED_BY_TIME
}

fn no_legal_move<G: Game>(state: &G) -> bool {
    let mut v = Vec::new();
    state.legal_moves(&mut v);
    v.is_empty()
}

/// The player with more remaining time wins; equal is a draw.
fn by_time(clocks: [f64; 2], names: &[&str; 2]) -> (Option<usize>, String) {
    let detail = format!(
        "clocks {} {} / {} {}",
        names[0],
        format_time(clocks[0].max(0.0)),
        names[1],
        format_time(clocks[1].max(0.0))
    );
    if clocks[0] > clocks[1] {
        (Some(0), format!("{} wins on remaining time ({detail})", names[0]))
    } else if clocks[1] > clocks[0] {
        (Some(1), format!("{} wins on remaining time ({detail})", names[1]))
    } else {
        (None, format!("draw on equal remaining time ({detail})"))
    }
}

/// Runs one agent move and judges it.
fn run_agent_move<G: FileGame>(
    state: &G,
    cmd: &str,
    dir: &std::path::Path,
    remaining: f64,
    rules: &Rules,
    stop: &AtomicBool,
) -> Result<(Judged<G::Move>, f64, f64), GameError> {
    let offered = match rules.move_time {
        Some(m) => remaining.min(m),
        None => remaining,
    };
    let input = state.write_input(rules.mode, offered);
    std::fs::write(dir.join("input.txt"), input)
        .map_err(|e| GameError::Io(format!("cannot write {}: {e}", dir.join("input.txt").display())))?;
    let cpu_kill = offered + rules.grace;
    let spec = RunSpec {
        cmd,
        extra_arg: None,
        dir,
        cpu_kill,
        wall_kill: cpu_kill * rules.wall_factor + rules.wall_extra,
        output_cap: rules.output_cap,
    };
    let r =
        runner::run(&spec, stop).map_err(|e| GameError::Io(format!("cannot run {cmd:?} in {}: {e}", dir.display())))?;
    let judged = judge(state, &r, offered, rules.move_time.is_some_and(|m| m < remaining));
    if let Judged::Loss(..) = judged {
        if r.killed == Some(Killed::Interrupted) {
            return Err(GameError::Interrupted);
        }
    }
    Ok((judged, r.cpu, r.wall))
}

fn judge<G: FileGame>(state: &G, r: &runner::RunResult, offered: f64, per_move_cap: bool) -> Judged<G::Move> {
    let limit_name = if per_move_cap {
        "per-move limit"
    } else {
        "remaining time"
    };
    match r.killed {
        Some(Killed::Cpu) => {
            return Judged::Loss(
                LossReason::OverTime,
                format!(
                    "killed after {:.2} s CPU ({limit_name} {:.2} s + grace)",
                    r.cpu, offered
                ),
            )
        }
        Some(Killed::Wall) => {
            return Judged::Loss(
                LossReason::OverTime,
                format!(
                    "killed at the wall-clock limit after {:.1} s ({:.2} s CPU used)",
                    r.wall, r.cpu
                ),
            )
        }
        Some(Killed::Interrupted) => return Judged::Loss(LossReason::OverTime, "interrupted".into()),
        None => {}
    }
    if r.cpu > offered {
        return Judged::Loss(
            LossReason::OverTime,
            format!("used {:.3} s CPU, more than its {limit_name} {:.3} s", r.cpu, offered),
        );
    }
    match r.exit {
        Exit::Code(0) => {}
        Exit::Code(c) => return Judged::Loss(LossReason::Crash, format!("exit status {c}")),
        Exit::Signal(s) => return Judged::Loss(LossReason::Crash, format!("killed by signal {s}")),
    }
    let Some(bytes) = &r.output else {
        return Judged::Loss(LossReason::NoOutput, "no output.txt".into());
    };
    if r.output_truncated {
        return Judged::Loss(
            LossReason::Malformed,
            format!("output.txt is longer than {} bytes", bytes.len()),
        );
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Judged::Loss(LossReason::Malformed, "output.txt is not UTF-8 text".into());
    };
    if text.trim().is_empty() {
        return Judged::Loss(LossReason::NoOutput, "output.txt is empty".into());
    }
    match state.parse_move(text) {
        Ok(mv) => Judged::Move(mv, state.format_move(mv).trim_end().to_string()),
        Err(MoveError::Malformed(m)) => Judged::Loss(LossReason::Malformed, format!("{m} (output {:?})", clip(text))),
        Err(MoveError::Illegal(m)) => Judged::Loss(LossReason::IllegalMove, format!("{m} (output {:?})", clip(text))),
    }
}

fn clip(s: &str) -> String {
    let t = s.trim_end();
    if t.chars().count() > 80 {
        format!("{}...", t.chars().take(80).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Seat names with the agents in them, for messages.
pub fn seat_line(rec: &GameRecord) -> String {
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

/// The seat to move as a [`Player`] index helper for callers.
pub fn seat_of(p: Player) -> usize {
    p.index()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_programs_become_absolute() {
        // Unit tests run in the package directory, which holds Cargo.toml.
        let r = resolve_command("./Cargo.toml --depth 2");
        assert!(r.starts_with('/') && r.ends_with("/Cargo.toml --depth 2"), "{r}");
        assert_eq!(resolve_command("agent --x"), "agent --x");
        assert_eq!(resolve_command("./missing-program"), "./missing-program");
        assert_eq!(resolve_command("/bin/true"), "/bin/true");
        assert_eq!(SeatKind::parse(" human "), SeatKind::Human);
    }
}

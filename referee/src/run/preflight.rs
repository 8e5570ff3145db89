//! Pre-flight: before the first game, each agent plays one move from the
//! run's first start position, so an agent that cannot start (a missing
//! interpreter, a wrong path, a crash on reading input) stops the run at
//! once with its command and stderr, instead of losing every game for hours;
//! and an agent whose start-up alone would eat its clock is warned about
//! ([`crate::run::startup`]).

use crate::game::judge::stdout_move_hint;
use crate::game::{Contestant, Rules, SeatKind};
use crate::output::board_text::seat_label;
use crate::process::agent_files::Output;
use crate::process::agentinfo;
use crate::process::runner::{self, Exit, Homes, Killed, RunSpec};
use crate::process::workdir;
use crate::run::startup;
use agent::FileGame;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Lines of stderr shown for a failing agent.
pub(crate) const STDERR_LINES: usize = 8;

/// Which pre-flight move an agent is making: its seat and the position.
struct Trial<'a, G> {
    position: &'a G,
    /// "on the start position", "after BLACK's first move", ...
    from: String,
}

/// Runs the agent once in `dir` (created, emptied of old files, with its
/// calibration file) on the trial's position with `time` CPU seconds (`mode`
/// as the games use), the other agents' homes hidden from it as in the
/// games. Returns its legal move and the CPU seconds it used, or a message
/// naming the agent, the seat, the command as run, what went wrong and the
/// tail of its stderr.
fn check<G: FileGame>(
    agent: &Contestant,
    trial: &Trial<'_, G>,
    rules: &Rules,
    time: f64,
    dir: &Path,
    other_homes: &[PathBuf],
    stop: &AtomicBool,
) -> Result<(G::Move, f64), String> {
    let start = trial.position;
    let grace = rules.grace;
    let name = &agent.name;
    let cmd = agent.kind.command();
    workdir::create(dir, rules.sandbox.limits.disk).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if let Some(c) = &agent.calibration {
        crate::process::agent_files::copy_in(c, dir, "calibration.txt")?;
    }
    crate::process::agent_files::write_fresh(dir, "input.txt", start.write_input(rules.mode, time).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", dir.join("input.txt").display()))?;
    let spec = RunSpec {
        cmd,
        extra_arg: None,
        dir,
        cpu_kill: time + grace,
        // A first move may pay for an interpreter's or a JVM's start-up.
        wall_kill: (time + grace) * 3.0 + 10.0,
        output_cap: runner::OUTPUT_CAP,
        sandbox: &rules.sandbox,
        homes: Homes {
            own: agent.home.as_deref(),
            others: other_homes,
        },
    };
    let seat = seat_label(G::player_names()[start.to_move().index()]);
    let r = {
        let _waiting = Waiting::start(format!("agent {name} as {seat}"));
        runner::run(&spec, stop).map_err(|e| format!("agent {name}: cannot start {cmd:?}: {e}"))?
    };
    let problem = match (r.killed, r.exit, &r.output) {
        (Some(Killed::Interrupted), _, _) => return Err("interrupted during the pre-flight move".into()),
        (Some(Killed::Cpu), _, _) => format!("it used more than {:.1} CPU seconds", time + grace),
        (Some(Killed::Wall), _, _) => format!("it was still running after {:.0} s of wall-clock time", spec.wall_kill),
        (Some(Killed::Memory), _, _) => format!(
            "its processes together held more memory than --memory allows ({} MiB)",
            spec.sandbox.limits.memory >> 20
        ),
        (Some(Killed::Disk), _, _) => format!(
            "it wrote more than --disk allows ({} MiB) into its working directory",
            spec.sandbox.limits.disk >> 20
        ),
        (None, Exit::Code(0), Output::Missing) => match stdout_move_hint(start, &r.stdout_tail) {
            Some(hint) => format!("it exited without writing output.txt; {hint}"),
            None => "it exited without writing output.txt".to_string(),
        },
        (None, Exit::Code(0), Output::TooLarge) => "its output.txt is too long to be a move".to_string(),
        (None, Exit::Code(0), Output::NotAFile(what)) => format!("its output.txt is {what}, not a regular file"),
        (None, Exit::Code(0), Output::Unreadable(e)) => format!("its output.txt cannot be read: {e}"),
        (None, Exit::Code(0), Output::Text(bytes)) => {
            let text = String::from_utf8_lossy(bytes);
            // parse_move judges legality too.
            match start.parse_move(&text) {
                Ok(mv) => return Ok((mv, r.cpu)),
                Err(e) => format!(
                    "its output.txt {:?} was rejected: {e}",
                    crate::process::agentinfo::printable(text.trim())
                ),
            }
        }
        (None, Exit::Code(c), _) => format!("it exited with status {c}"),
        (None, Exit::Signal(s), _) => format!("it was killed by signal {s}"),
    };
    let tail = agentinfo::last_lines(&r.stderr_tail, STDERR_LINES);
    let hint = hints(&tail, &spec, stop, &problem);
    let stderr = if tail.is_empty() {
        "  (its stderr was empty)".to_string()
    } else {
        tail.lines().map(|l| format!("  | {l}")).collect::<Vec<_>>().join("\n")
    };
    Err(format!(
        "agent {name} failed its pre-flight move as {seat} {}: {problem}.\n  command as run: {cmd}\n  in directory:   {}\n  last lines of its stderr:\n{stderr}\n{hint}Fix the agent or its command (run it by hand in that directory), then start again; no game was played.",
        trial.from,
        dir.display()
    ))
}

/// What a failed pre-flight move may owe to the sandbox rather than to the
/// agent: its process limit, or (at the full levels) a file the sandbox
/// hides, found by playing the same move again with limits only.
fn hints(stderr: &str, spec: &RunSpec<'_>, stop: &AtomicBool, problem: &str) -> String {
    use crate::process::sandbox::{Level, LevelChoice, Sandbox};
    let sb = spec.sandbox;
    let mut out = String::new();
    let lower = stderr.to_ascii_lowercase();
    if problem.contains("status 126") || (lower.contains("permission denied") && problem.contains("status")) {
        out += "Its program is not executable, or lies where the agent may not read: make it so with chmod +x (and chmod a+rx on its directories), or run it through its interpreter (python3 FILE, sh FILE).\n";
    }
    if lower.contains("fork")
        || lower.contains("resource temporarily unavailable")
        || lower.contains("cannot create thread")
    {
        out += &format!(
            "It could not start a process or thread: each move may have {} (--max-procs); raise it if the agent needs more.\n",
            sb.limits.max_procs
        );
    }
    if !matches!(sb.level, Level::Full | Level::FullRootless) {
        return out;
    }
    let Ok(mut plain) = Sandbox::new(LevelChoice::Rlimits, sb.limits, Vec::new(), sb.hide.clone()) else {
        return out;
    };
    plain.env = sb.env.clone();
    let scratch = spec.dir.with_extension("unconfined");
    let copied = workdir::create(&scratch, sb.limits.disk).is_ok()
        && ["input.txt", "calibration.txt"].iter().all(|f| {
            let from = spec.dir.join(f);
            !from.exists() || std::fs::copy(&from, scratch.join(f)).is_ok()
        });
    let again = RunSpec {
        dir: &scratch,
        sandbox: &plain,
        ..spec.clone()
    };
    let passed = copied
        && runner::run(&again, stop)
            .is_ok_and(|r| r.killed.is_none() && r.exit == Exit::Code(0) && matches!(r.output, Output::Text(_)));
    let _ = workdir::remove_all(&scratch);
    if passed {
        let hidden: Vec<&str> = stderr
            .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ':' | ',' | '(' | ')'))
            .filter(|w| w.starts_with('/') && w.len() > 1 && Path::new(w).exists())
            .collect();
        let named = match hidden.first() {
            Some(p) => format!(" (it names {p}, which the sandbox hides or shows read-only)"),
            None => String::new(),
        };
        out += &format!(
            "Without the sandbox the same move works ({problem} only inside it): it needs something the sandbox hides{named}. Show a directory read-only with --sandbox-ro DIR, give the agent's home with dir=, or write only in its working directory.\n"
        );
    }
    out
}

/// Says on stderr, every few seconds while a pre-flight move runs, that the
/// referee is still waiting for it: a hung agent is named within seconds,
/// not only when its wall-clock limit ends it.
struct Waiting {
    done: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Seconds between the pre-flight's "still waiting" lines.
const WAITING_EVERY: u64 = 5;

impl Waiting {
    fn start(who: String) -> Waiting {
        let done = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let flag = done.clone();
        let thread = std::thread::spawn(move || {
            let t0 = std::time::Instant::now();
            let (lock, cv) = &*flag;
            let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                let wait = std::time::Duration::from_secs(WAITING_EVERY);
                let (guard, timeout) = cv.wait_timeout(finished, wait).unwrap_or_else(|e| e.into_inner());
                finished = guard;
                if *finished {
                    return;
                }
                if timeout.timed_out() {
                    eprintln!(
                        "referee: pre-flight: still waiting for {who} after {:.0} s (no output.txt yet; is it reading stdin or waiting for something?)",
                        t0.elapsed().as_secs_f64()
                    );
                }
            }
        });
        Waiting {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let (lock, cv) = &*self.done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The agent's first move on the start position and, where the other side
/// moves next, its reply to that move; then its start-up move (see
/// [`startup_cost`]). Returns what a move costs it before any search, or
/// `None` when the start-up move failed (said on stderr).
fn check_both<G: FileGame>(
    c: &Contestant,
    start: &G,
    first: &str,
    rules: &Rules,
    time: f64,
    d: &Path,
    others: &[PathBuf],
) -> Result<Option<f64>, String> {
    let opening = Trial {
        position: start,
        from: "on the start position".to_string(),
    };
    let stop = &crate::signals::STOP;
    let (mv, mut least) = check(c, &opening, rules, time, d, others, stop)?;
    let mut next = start.clone();
    next.play(mv);
    if next.result().is_none() && next.to_move() != start.to_move() {
        let reply = Trial {
            position: &next,
            from: format!("after {first}'s first move ({})", start.describe_move(mv)),
        };
        least = least.min(check(c, &reply, rules, time, d, others, stop)?.1);
    }
    Ok(startup_cost(c, start, rules, d, others)?.map(|cpu| cpu.min(least)))
}

/// The agent's move on the start position with [`startup::TINY_CLOCK`]
/// seconds on its clock: an agent that watches its clock answers at once,
/// so the CPU it uses is what any of its moves costs before it searches.
/// The full-clock moves before it may have searched, and would overstate
/// that. An agent that fails here would lose the same way late in a game,
/// when its clock runs low: a warning, not a stop (`None`).
fn startup_cost<G: FileGame>(
    c: &Contestant,
    start: &G,
    rules: &Rules,
    d: &Path,
    others: &[PathBuf],
) -> Result<Option<f64>, String> {
    let tiny = Trial {
        position: start,
        from: format!("on the start position with {} s on its clock", startup::TINY_CLOCK),
    };
    match check(c, &tiny, rules, startup::TINY_CLOCK, d, others, &crate::signals::STOP) {
        Ok((_, cpu)) => Ok(Some(cpu)),
        Err(e) if crate::signals::stopped() => Err(e),
        Err(e) => {
            let what = e.lines().next().unwrap_or_default();
            let w = format!("referee: warning: {what} When its clock runs that low late in a game, it will lose the same way; the games go ahead.");
            eprintln!("{}", crate::output::board_text::wrap80(&w));
            Ok(None)
        }
    }
}

/// Pre-flight for every agent seat (`times` by contestant), each in its own
/// directory under `dir`, removed when all pass. Each agent moves once for
/// each side it will play: from the start position, then (for the other
/// side) from the position after its own first move, so an agent that
/// breaks only on the second side (a mirrored camp, a flipped board) is
/// caught before any game. Then it moves once with almost no time left, and
/// where that move's cost over a typical game would take more than a third
/// of its clock, a warning says so before the games.
pub(crate) fn check_all<G: FileGame>(
    contestants: &[Contestant],
    times: &[f64],
    start: &G,
    rules: &Rules,
    dir: &Path,
) -> Result<(), String> {
    let homes: Vec<PathBuf> = contestants.iter().filter_map(|c| c.home.clone()).collect();
    let first = seat_label(G::player_names()[start.to_move().index()]);
    for (c, time) in contestants.iter().zip(times) {
        if c.kind == SeatKind::Human {
            continue;
        }
        let d = dir.join(&c.name);
        let others: Vec<PathBuf> = homes.iter().filter(|h| c.home.as_ref() != Some(h)).cloned().collect();
        eprintln!("referee: pre-flight: agent {} plays one move as each side", c.name);
        let checked = check_both(c, start, &first, rules, *time, &d, &others);
        // A failure's files stay to be read (moved off its tmpfs, if any).
        workdir::settle(&d, checked.is_err().then_some(rules.sandbox.limits.disk));
        if let Some(cost) = checked? {
            let moves = startup::typical_moves(G::NAME, start.moves_left_estimate());
            if let Some(w) = startup::warning(&c.name, G::NAME, cost, moves, *time) {
                eprintln!("{}", crate::output::board_text::wrap80(&w));
            }
        }
        let _ = workdir::remove_all(&d);
    }
    let _ = std::fs::remove_dir(dir);
    Ok(())
}

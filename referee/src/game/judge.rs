//! One agent move: write its `input.txt`, run it under the limits, and judge
//! what it left in `output.txt`.

use super::{GameError, Rules};
use crate::output::record::LossReason;
use crate::process::agent_files::{self, Output};
use crate::process::runner::{self, Exit, Homes, Killed, RunSpec};
use crate::process::workdir;
use agent::{FileGame, MoveError};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The judged outcome of one move.
pub(crate) enum Judged<M> {
    /// A legal move and its text as recorded.
    Move(M, String),
    /// The mover loses, for this reason, with this explanation.
    Loss(LossReason, String),
}

/// One move as played: the verdict and what it cost.
pub(crate) struct Played<M> {
    /// The verdict.
    pub judged: Judged<M>,
    /// CPU seconds charged.
    pub cpu: f64,
    /// Wall-clock seconds.
    pub wall: f64,
    /// Bytes of stdout and stderr read past the capture cap and thrown away.
    pub discarded: [u64; 2],
    /// The end of the agent's stderr, as read from its pipe (empty for a
    /// move that ran no process).
    pub stderr_tail: Vec<u8>,
}

impl<M> Played<M> {
    /// A move that ran no agent process.
    pub(crate) fn without_process(judged: Judged<M>, wall: f64) -> Self {
        Played {
            judged,
            cpu: 0.0,
            wall,
            discarded: [0, 0],
            stderr_tail: Vec::new(),
        }
    }
}

/// Runs one agent move and judges it.
pub(crate) fn run_agent_move<G: FileGame>(
    state: &G,
    cmd: &str,
    homes: Homes<'_>,
    dir: &Path,
    remaining: f64,
    rules: &Rules,
    stop: &AtomicBool,
) -> Result<Played<G::Move>, GameError> {
    let offered = match rules.move_time {
        Some(m) => remaining.min(m),
        None => remaining,
    };
    if offered <= 0.0 {
        // Lost already: the protocol has no way to offer no time.
        let lost = Judged::Loss(LossReason::OverTime, "no time left to move".into());
        return Ok(Played::without_process(lost, 0.0));
    }
    let input = state.write_input(rules.mode, offered);
    if let Err(e) = agent_files::write_fresh(dir, "input.txt", input.as_bytes()) {
        return workdir_failure(
            dir,
            &e,
            &format!("cannot write {}: {e}", dir.join("input.txt").display()),
        );
    }
    let cpu_kill = offered + rules.grace;
    let spec = RunSpec {
        cmd,
        extra_arg: None,
        dir,
        cpu_kill,
        wall_kill: cpu_kill * rules.wall_factor + rules.wall_extra,
        output_cap: rules.output_cap,
        sandbox: &rules.sandbox,
        homes,
    };
    let r = match runner::run(&spec, stop) {
        Ok(r) => r,
        Err(e) => match runner::workdir_error(&e) {
            Some(w) => return workdir_failure(dir, &e, &w.to_string()),
            None => return Err(GameError::Io(format!("cannot run {cmd:?} in {}: {e}", dir.display()))),
        },
    };
    let mut judged = judge(
        state,
        &r,
        offered,
        rules.move_time.is_some_and(|m| m < remaining),
        rules.output_cap,
    );
    if let Some(why) = workdir::usage(dir).excess(rules.sandbox.limits.disk) {
        // What it kept beyond its allowance must not stay (a kept
        // forfeit's directory, or the disk of --out).
        if let Err(e) = workdir::clear_but(dir, &REFEREES_FILES) {
            log::warn!("cannot clear {}: {e}", dir.display());
        }
        judged = Judged::Loss(LossReason::Disk, why);
    }
    if let Judged::Loss(reason, _) = &judged {
        if r.killed == Some(Killed::Interrupted) {
            return Err(GameError::Interrupted);
        }
        // Where working directories share the disk of --out, an agent that
        // kept within --disk and failed with no room left failed because
        // of the organiser's disk, not its own play: the run stops.
        let could_be_the_disk = matches!(reason, LossReason::Crash | LossReason::NoOutput | LossReason::Malformed);
        if could_be_the_disk && !workdir::is_bounded(dir) && free_bytes(dir).is_some_and(|f| f < DISK_FULL_BELOW) {
            return Err(disk_full(dir));
        }
    }
    Ok(Played {
        judged,
        cpu: r.cpu,
        wall: r.wall,
        discarded: r.discarded,
        stderr_tail: r.stderr_tail,
    })
}

/// The files the referee itself reads or writes in a working directory.
const REFEREES_FILES: [&str; 4] = ["input.txt", "output.txt", "stdout.txt", "stderr.txt"];

/// A working directory that could not be readied for a move: in a bounded
/// directory, or for any reason but a full disk, the agent that filled or
/// mangled it loses; a full disk shared with --out stops the run.
fn workdir_failure<M>(dir: &Path, e: &std::io::Error, what: &str) -> Result<Played<M>, GameError> {
    let full = matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT));
    if full && !workdir::is_bounded(dir) {
        return Err(disk_full(dir));
    }
    let reason = if full { LossReason::Disk } else { LossReason::Crash };
    Ok(Played::without_process(Judged::Loss(reason, what.to_string()), 0.0))
}

/// Free bytes below which an agent's failure is put down to a full disk:
/// room for a move, a `playdata.txt` and the captured output.
pub(crate) const DISK_FULL_BELOW: u64 = 1 << 20;

/// Bytes an unprivileged process can still write on the file system of `dir`.
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(dir).ok()?;
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

/// The error that stops a run whose disk filled up: the game in play is
/// not recorded (it is played again on resuming), and the message says
/// where and how to go on.
fn disk_full(dir: &Path) -> GameError {
    GameError::Io(disk_full_message(dir))
}

/// What the organiser reads when the disk holding `dir` filled up.
pub(crate) fn disk_full_message(dir: &Path) -> String {
    let free = free_bytes(dir).unwrap_or(0);
    format!(
        "the disk holding {} is full ({free} bytes free): the game in play is not recorded and will be played again; free some space (or move --out to a larger disk) and continue with --resume",
        dir.display()
    )
}

fn judge<G: FileGame>(
    state: &G,
    r: &runner::RunResult,
    offered: f64,
    per_move_cap: bool,
    output_cap: usize,
) -> Judged<G::Move> {
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
        Some(Killed::Disk) => {
            return Judged::Loss(
                LossReason::Disk,
                "killed for writing more into its working directory than --disk allows".into(),
            )
        }
        Some(Killed::Memory) => {
            return Judged::Loss(
                LossReason::Memory,
                format!(
                    "killed after {:.1} s for holding more memory than --memory allows (all its processes together)",
                    r.wall
                ),
            )
        }
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
    judge_output(state, r, output_cap)
}

/// Judges the bytes of `output.txt` of a move that ended in time.
fn judge_output<G: FileGame>(state: &G, r: &runner::RunResult, output_cap: usize) -> Judged<G::Move> {
    let bytes = match &r.output {
        Output::Text(b) => b,
        Output::Missing => {
            let hint = stdout_move_hint(state, &r.stdout_tail)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Judged::Loss(LossReason::NoOutput, format!("no output.txt{hint}"));
        }
        Output::TooLarge => {
            return Judged::Loss(
                LossReason::Malformed,
                format!("output.txt is longer than {output_cap} bytes"),
            )
        }
        Output::NotAFile(what) => {
            return Judged::Loss(
                LossReason::Malformed,
                format!("output.txt is {what}, not a regular file"),
            )
        }
        Output::Unreadable(e) => return Judged::Loss(LossReason::Malformed, format!("output.txt cannot be read: {e}")),
    };
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

/// When an agent left no `output.txt` but printed a legal move on stdout
/// (the commonest first mistake), a sentence that says so.
pub(crate) fn stdout_move_hint<G: FileGame>(state: &G, stdout_tail: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout_tail);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    // A move may take several lines (a Halma jump chain): try the last
    // lines together, then each line alone, newest first.
    let tries = (1..=lines.len().min(8))
        .map(|k| lines[lines.len() - k..].join("\n"))
        .chain(lines.iter().rev().map(|l| l.to_string()));
    for t in tries {
        if state.parse_move(&t).is_ok() {
            let shown = crate::process::agentinfo::printable(&clip(&t.replace('\n', " | ")));
            return Some(format!(
                "its stdout held the move `{shown}`: write the move to output.txt, not to stdout"
            ));
        }
    }
    None
}

fn clip(s: &str) -> String {
    let t = s.trim_end();
    if t.chars().count() > 80 {
        format!("{}...", t.chars().take(80).collect::<String>())
    } else {
        t.to_string()
    }
}

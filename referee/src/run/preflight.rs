//! Pre-flight: before the first game, each agent plays one move from the
//! run's first start position, so an agent that cannot start (a missing
//! interpreter, a wrong path, a crash on reading input) stops the run at
//! once with its command and stderr, instead of losing every game for hours.

use crate::game::{Contestant, Rules, SeatKind};
use crate::process::agent_files::Output;
use crate::process::agentinfo;
use crate::process::runner::{self, Exit, Homes, Killed, RunSpec};
use agent::protocol::FileGame;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Lines of stderr shown for a failing agent.
pub const STDERR_LINES: usize = 8;

/// Runs the agent once in `dir` (created, emptied of old files, with its
/// calibration file) on `start` with `time` CPU seconds (`mode` as the games
/// use), the other agents' homes hidden from it as in the games; `Ok(())` when it writes a legal move in time, else a message naming
/// the agent, the command as run, what went wrong and the tail of its stderr.
pub fn check<G: FileGame>(
    agent: &Contestant,
    start: &G,
    rules: &Rules,
    time: f64,
    dir: &Path,
    other_homes: &[PathBuf],
    stop: &AtomicBool,
) -> Result<(), String> {
    let grace = rules.grace;
    let name = &agent.name;
    let cmd = agent.kind.command();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
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
    let r = runner::run(&spec, stop).map_err(|e| format!("agent {name}: cannot start {cmd:?}: {e}"))?;
    let problem = match (r.killed, r.exit, &r.output) {
        (Some(Killed::Interrupted), _, _) => return Err("interrupted during the pre-flight move".into()),
        (Some(Killed::Cpu), _, _) => format!("it used more than {:.1} CPU seconds", time + grace),
        (Some(Killed::Wall), _, _) => format!("it was still running after {:.0} s of wall-clock time", spec.wall_kill),
        (None, Exit::Code(0), Output::Missing) => "it exited without writing output.txt".to_string(),
        (None, Exit::Code(0), Output::TooLarge) => "its output.txt is too long to be a move".to_string(),
        (None, Exit::Code(0), Output::NotAFile(what)) => format!("its output.txt is {what}, not a regular file"),
        (None, Exit::Code(0), Output::Unreadable(e)) => format!("its output.txt cannot be read: {e}"),
        (None, Exit::Code(0), Output::Text(bytes)) => {
            let text = String::from_utf8_lossy(bytes);
            // parse_move judges legality too.
            match start.parse_move(&text) {
                Ok(_) => return Ok(()),
                Err(e) => format!("its output.txt {:?} was rejected: {e}", text.trim()),
            }
        }
        (None, Exit::Code(c), _) => format!("it exited with status {c}"),
        (None, Exit::Signal(s), _) => format!("it was killed by signal {s}"),
    };
    let tail = agentinfo::last_lines(&r.stderr_tail, STDERR_LINES);
    let stderr = if tail.is_empty() {
        "  (its stderr was empty)".to_string()
    } else {
        tail.lines().map(|l| format!("  | {l}")).collect::<Vec<_>>().join("\n")
    };
    Err(format!(
        "agent {name} failed its pre-flight move on the start position: {problem}.\n  command as run: sh -c {cmd:?}\n  in directory:   {}\n  last lines of its stderr:\n{stderr}\nFix the agent or its command (run it by hand in that directory), then start again; no game was played.",
        dir.display()
    ))
}

/// Pre-flight for every agent seat (`times` by contestant), each in its own
/// directory under `dir`, removed when all pass.
pub fn check_all<G: FileGame>(
    contestants: &[Contestant],
    times: &[f64],
    start: &G,
    rules: &Rules,
    dir: &Path,
) -> Result<(), String> {
    let homes: Vec<PathBuf> = contestants.iter().filter_map(|c| c.home.clone()).collect();
    for (c, time) in contestants.iter().zip(times) {
        if c.kind == SeatKind::Human {
            continue;
        }
        let d = dir.join(&c.name);
        let others: Vec<PathBuf> = homes.iter().filter(|h| c.home.as_ref() != Some(h)).cloned().collect();
        check(c, start, rules, *time, &d, &others, &crate::process::signals::STOP)?;
        let _ = std::fs::remove_dir_all(&d);
    }
    let _ = std::fs::remove_dir(dir);
    Ok(())
}

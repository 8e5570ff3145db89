//! Runs one agent move as a child process and charges its CPU time.
//!
//! The agent runs as `sh -c CMD` in its own working directory and its own
//! process group. The referee is a child subreaper, so processes the agent
//! leaves behind are re-parented to it and can be charged, killed and reaped.
//! CPU time is polled from `/proc` every few milliseconds (to kill at the
//! limit) and taken at the end from `wait4` rusage; the larger figure is
//! charged. Only specific pids and this move's own process group are ever
//! waited for, so concurrent games never steal each other's children.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

/// Default cap on the bytes of `output.txt` that are read.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How often the child's CPU time is polled.
const POLL: Duration = Duration::from_millis(10);
/// Every this many polls, all of `/proc` is scanned for new descendants.
const FULL_SCAN_EVERY: u64 = 10;

/// Limits and files for one run.
#[derive(Clone, Debug)]
pub struct RunSpec<'a> {
    /// Shell command line (run with `sh -c`).
    pub cmd: &'a str,
    /// Extra argument appended to the command (e.g. `calibrate`), if any.
    pub extra_arg: Option<&'a str>,
    /// Working directory (must exist).
    pub dir: &'a Path,
    /// Kill the process group once it has used this many CPU seconds.
    pub cpu_kill: f64,
    /// Kill the process group after this many wall-clock seconds.
    pub wall_kill: f64,
    /// Bytes of `output.txt` read at most.
    pub output_cap: usize,
}

/// Why the referee killed the process group before the agent exited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Killed {
    /// The CPU limit was reached.
    Cpu,
    /// The wall-clock limit was reached.
    Wall,
    /// The referee is shutting down (SIGINT/SIGTERM, or a decided match).
    Interrupted,
}

/// How the agent's main process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Normal exit with this status code.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
}

/// What happened during one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// CPU seconds charged (user + system, the child and all descendants).
    pub cpu: f64,
    /// Wall-clock seconds from spawn to the end of the main process.
    pub wall: f64,
    /// How the main process ended.
    pub exit: Exit,
    /// Set when the referee killed the group before the main process ended.
    pub killed: Option<Killed>,
    /// Contents of `output.txt` (at most `output_cap` bytes), `None` if absent.
    pub output: Option<Vec<u8>>,
    /// True when `output.txt` was longer than the cap.
    pub output_truncated: bool,
}

/// Makes this process a child subreaper (once), so orphaned descendants of
/// an agent are re-parented to us instead of init and can still be killed,
/// charged and reaped.
pub fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a process flag.
        let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
        if rc != 0 {
            log::warn!(
                "prctl(PR_SET_CHILD_SUBREAPER) failed: {}",
                std::io::Error::last_os_error()
            );
        }
    });
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

fn rusage_seconds(ru: &libc::rusage) -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The fields of `/proc/<pid>/stat` the runner needs.
#[derive(Clone, Copy, Debug)]
struct ProcStat {
    ppid: i32,
    pgid: i32,
    /// utime + stime + cutime + cstime, in clock ticks.
    ticks: u64,
}

fn read_stat(pid: i32, buf: &mut String) -> Option<ProcStat> {
    buf.clear();
    File::open(format!("/proc/{pid}/stat")).ok()?.read_to_string(buf).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces:
    // parse from the last ')'.
    let rest = &buf[buf.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest fields: 0 state, 1 ppid, 2 pgrp, ..., 11 utime, 12 stime, 13 cutime, 14 cstime
    if f.len() < 15 {
        return None;
    }
    let n = |i: usize| f[i].parse::<i64>().ok();
    let ticks = [11, 12, 13, 14].iter().map(|&i| n(i).unwrap_or(0).max(0) as u64).sum();
    Some(ProcStat {
        ppid: n(1)? as i32,
        pgid: n(2)? as i32,
        ticks,
    })
}

/// Processes belonging to one run: its process group, plus any descendant
/// that left the group (found through parent links while it was visible).
struct Tracker {
    pgid: i32,
    members: HashSet<i32>,
    buf: String,
    tick: f64,
}

impl Tracker {
    /// Updates the member set and returns the CPU seconds currently held by
    /// live (or zombie) members. A `full` scan reads every process in
    /// `/proc` to find new members; otherwise only known members are read
    /// (cheap enough for every poll; new descendants are picked up by the
    /// next full scan, and their time is in the final `wait4` figure anyway).
    fn scan(&mut self, full: bool) -> f64 {
        let mut stats = Vec::new();
        if full {
            if let Ok(rd) = std::fs::read_dir("/proc") {
                for e in rd.flatten() {
                    let name = e.file_name();
                    let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
                        continue;
                    };
                    if let Some(st) = read_stat(pid, &mut self.buf) {
                        stats.push((pid, st));
                    }
                }
            }
        } else {
            for &pid in &self.members {
                if let Some(st) = read_stat(pid, &mut self.buf) {
                    stats.push((pid, st));
                }
            }
        }
        // Membership: the group, then anything whose parent is a member
        // (repeat to follow chains of escaped descendants).
        for &(pid, st) in &stats {
            if st.pgid == self.pgid {
                self.members.insert(pid);
            }
        }
        loop {
            let mut grew = false;
            for &(pid, st) in &stats {
                if !self.members.contains(&pid) && self.members.contains(&st.ppid) {
                    self.members.insert(pid);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let mut live = HashSet::new();
        let mut ticks = 0u64;
        for &(pid, st) in &stats {
            if self.members.contains(&pid) {
                live.insert(pid);
                ticks += st.ticks;
            }
        }
        // Forget members that are gone so a recycled pid is not adopted.
        self.members.retain(|p| live.contains(p));
        ticks as f64 / self.tick
    }
}

/// Runs one move. Returns an error only when the process cannot be started.
pub fn run(spec: &RunSpec<'_>, stop: &AtomicBool) -> std::io::Result<RunResult> {
    become_subreaper();
    let out_path = spec.dir.join("output.txt");
    let _ = std::fs::remove_file(&out_path);
    let stdout = File::create(spec.dir.join("stdout.txt"))?;
    let stderr = File::create(spec.dir.join("stderr.txt"))?;
    let script = match spec.extra_arg {
        Some(a) => format!("{} {}", spec.cmd, a),
        None => spec.cmd.to_string(),
    };
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&script)
        .current_dir(spec.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr));
    // SAFETY: setpgid is async-signal-safe; it puts the child in a new group
    // whose id is its pid, so the whole agent can be killed at once.
    unsafe {
        command.pre_exec(|| {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    // The Child handle is never waited on: the pid is reaped below with wait4.
    let child = command.spawn()?;
    let pid = child.id() as i32;
    drop(child);

    let mut tracker = Tracker {
        pgid: pid,
        members: HashSet::from([pid]),
        buf: String::new(),
        tick: clock_ticks(),
    };
    let mut polled_max = 0.0f64;
    let mut killed = None;
    let mut polls = 0u64;
    let (exit, child_cpu, wall) = loop {
        let mut status = 0;
        // SAFETY: wait4 on our own child's pid, with a zeroed rusage we own.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            let wall = start.elapsed().as_secs_f64();
            break (decode_status(status), rusage_seconds(&ru), wall);
        }
        if r < 0 {
            // Cannot happen for our own unreaped child; do not spin.
            let e = std::io::Error::last_os_error();
            kill_all(&tracker);
            return Err(std::io::Error::new(e.kind(), format!("wait4 on the agent failed: {e}")));
        }
        // Orphans that exit meanwhile stay zombies (their time still shows
        // in /proc) and are reaped after the main process: reaping the group
        // here could take the main process itself and race with the wait4
        // above.
        polls += 1;
        let now = tracker.scan(polls % FULL_SCAN_EVERY == 1);
        polled_max = polled_max.max(now);
        let wall = start.elapsed().as_secs_f64();
        if killed.is_none() {
            let why = if polled_max > spec.cpu_kill {
                Some(Killed::Cpu)
            } else if wall > spec.wall_kill {
                Some(Killed::Wall)
            } else if stop.load(Ordering::Relaxed) {
                Some(Killed::Interrupted)
            } else {
                None
            };
            if let Some(w) = why {
                killed = Some(w);
                kill_all(&tracker);
            }
        }
        std::thread::sleep(POLL);
    };
    // The main process is gone: nothing of the agent may outlive the move.
    polled_max = polled_max.max(tracker.scan(true));
    kill_all(&tracker);
    let mut orphan_cpu = reap_group(pid);
    for &m in &tracker.members {
        // Descendants that left the group: reap them if they are ours.
        orphan_cpu += reap_pid(m);
    }
    let cpu = polled_max.max(child_cpu + orphan_cpu);

    let (output, output_truncated) = match File::open(&out_path) {
        Ok(f) => {
            let mut data = Vec::new();
            let mut limited = f.take(spec.output_cap as u64 + 1);
            limited.read_to_end(&mut data)?;
            let truncated = data.len() > spec.output_cap;
            data.truncate(spec.output_cap);
            (Some(data), truncated)
        }
        Err(_) => (None, false),
    };
    Ok(RunResult {
        cpu,
        wall,
        exit,
        killed,
        output,
        output_truncated,
    })
}

fn decode_status(status: i32) -> Exit {
    if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(-1)
    }
}

/// SIGKILLs the group and every known descendant outside it.
fn kill_all(t: &Tracker) {
    // SAFETY: plain signal sends; a stale pid only yields ESRCH.
    unsafe {
        libc::killpg(t.pgid, libc::SIGKILL);
        for &m in &t.members {
            if m != t.pgid && m > 1 {
                libc::kill(m, libc::SIGKILL);
            }
        }
    }
}

/// Reaps members of process group `pgid` that are our children (orphans
/// re-parented to us), returning their CPU seconds. Blocks until none of
/// our children is left in the group: call after SIGKILL.
fn reap_group(pgid: i32) -> f64 {
    let mut total = 0.0;
    loop {
        let mut status = 0;
        // SAFETY: wait4 restricted to our children in this run's own group.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(-pgid, &mut status, 0, &mut ru) };
        if r > 0 {
            total += rusage_seconds(&ru);
            continue;
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return total;
    }
}

fn reap_pid(pid: i32) -> f64 {
    let mut status = 0;
    // SAFETY: wait4 on one specific pid; ECHILD if it is not ours.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if r == pid {
        rusage_seconds(&ru)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_spaces_in_name() {
        let dir = std::env::temp_dir();
        let _ = dir;
        let mut buf = String::new();
        let me = std::process::id() as i32;
        let st = read_stat(me, &mut buf).expect("own stat");
        assert!(st.pgid > 0 && st.ppid >= 0);
    }

    #[test]
    fn shell_exit_code_and_output_are_reported() {
        let dir = std::env::temp_dir().join(format!("referee-runner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stop = AtomicBool::new(false);
        let spec = RunSpec {
            cmd: "printf 'E 1,1 2,2\\n' > output.txt; exit 3",
            extra_arg: None,
            dir: &dir,
            cpu_kill: 5.0,
            wall_kill: 20.0,
            output_cap: 4,
        };
        let r = run(&spec, &stop).unwrap();
        assert_eq!(r.exit, Exit::Code(3));
        assert_eq!(r.output.as_deref(), Some(&b"E 1,"[..]));
        assert!(r.output_truncated);
        assert!(r.killed.is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

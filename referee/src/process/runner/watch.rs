//! Watching a move: waiting on the agent's pidfd and output pipes at once,
//! charging CPU as it goes (from the move's cgroup or its tracked
//! processes) and ending the move at a limit.

use super::{Exit, Killed, RunSpec, POLL};
use crate::process::agent_files::Capture;
use crate::process::sandbox::cgroup::Leaf;
use crate::process::sandbox::pgroup::{self, Tracker};
use crate::process::sandbox::Level;
use crate::process::workdir;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How a move's processes are counted and ended.
pub(super) enum Accounting {
    /// The move's cgroup, and its CPU seconds when `exec` was reached (the
    /// sandbox's own set-up, not charged to the agent).
    Cgroup(Leaf, f64),
    /// The tracked processes, and the same set-up CPU.
    Group(Tracker, f64),
}

impl Accounting {
    pub(super) fn cpu(&mut self) -> f64 {
        match self {
            Accounting::Cgroup(l, base) => (l.cpu() - *base).max(0.0),
            Accounting::Group(t, base) => (t.scan(false) - *base).max(0.0),
        }
    }

    /// Whether the move's processes together hold more than `limit`
    /// bytes, where the referee counts it (a memory cgroup, where there
    /// is one, stops the move itself: see [`Accounting::oom_killed`]).
    fn over_memory(&mut self, limit: u64) -> bool {
        match self {
            Accounting::Cgroup(l, _) => l.memory_uncharged() && pgroup::pids_over_memory(&l.pids(), limit),
            Accounting::Group(t, _) => t.over_memory(limit),
        }
    }

    /// Whether the kernel's memory cgroup ended a process of the move.
    pub(super) fn oom_killed(&self) -> bool {
        matches!(self, Accounting::Cgroup(l, _) if l.oom_killed())
    }

    /// Whether the kernel says no process of the move is left (its cgroup
    /// is empty); `false` where it cannot tell.
    pub(super) fn none_left(&self) -> bool {
        matches!(self, Accounting::Cgroup(l, _) if l.empty())
    }

    /// How often the move pressed its memory cgroup's limit (0 without one).
    pub(super) fn memory_pressed(&self) -> u64 {
        match self {
            Accounting::Cgroup(l, _) => l.memory_pressed(),
            Accounting::Group(..) => 0,
        }
    }

    pub(super) fn kill(&self) {
        match self {
            Accounting::Cgroup(l, _) => l.kill(),
            Accounting::Group(t, _) => t.kill(),
        }
    }

    /// After the main process is reaped: ends the rest of the move and
    /// returns its charge. Where there is a cgroup, its figure (from exec
    /// on) is the whole truth. Otherwise the largest of the polled figure,
    /// the last scan and wait4's (which counts the sandbox set-up too, so
    /// less the set-up); but a rootless move's init reaps every process of
    /// its namespace, so there, when the move ended by itself, wait4's
    /// figure is the whole charge, and the scans of `/proc`, which can
    /// count a child twice (read as a zombie, then again in its parent's
    /// total once reaped), only enforced the limit. (A move the referee
    /// killed took its init down with it, whose figure then lacks the
    /// processes the kernel reaped for it.)
    pub(super) fn charge(&mut self, w: &Watched) -> f64 {
        let waited = match self {
            Accounting::Group(_, base) => (w.child_cpu - *base).max(0.0),
            Accounting::Cgroup(..) => 0.0,
        };
        let finished = self.finish();
        match self {
            Accounting::Group(t, _) if t.is_namespace() && w.killed.is_none() => waited,
            _ => w.polled_max.max(finished).max(waited),
        }
    }

    /// After the main process is reaped: ends the rest, returns the CPU
    /// figure from the accounting itself and from reaped orphans.
    fn finish(&mut self) -> f64 {
        match self {
            Accounting::Cgroup(l, base) => {
                l.kill();
                (l.cpu() - *base).max(0.0)
            }
            Accounting::Group(t, base) => {
                let seen = t.scan(true);
                (seen.max(t.finish()) - *base).max(0.0)
            }
        }
    }
}

/// How long a move may press its memory limit without CPU progress.
const STALL: std::time::Duration = std::time::Duration::from_millis(500);

/// A move stalled at its memory limit (one whose process the kernel ended
/// for memory is ended at once: that verdict is decided): its processes
/// wait on reclaim in
/// the kernel (no swap to go to, and nothing the OOM killer ends), which
/// would last until the wall-clock limit. Stalled: the limit pressed at
/// every check for [`STALL`], with less than a quarter of a CPU used.
#[derive(Default)]
struct Stall {
    /// The limit's count at the last check.
    pressed: u64,
    /// When the pressing began, and the CPU figure then.
    since: Option<(Instant, f64)>,
}

impl Stall {
    fn check(&mut self, pressed: u64, cpu: f64, now: Instant) -> bool {
        let pressing = pressed > self.pressed;
        self.pressed = pressed;
        if !pressing {
            self.since = None;
            return false;
        }
        let (t0, cpu0) = *self.since.get_or_insert((now, cpu));
        let span = now.duration_since(t0);
        if span < STALL {
            return false;
        }
        if cpu - cpu0 < 0.25 * span.as_secs_f64() {
            return true;
        }
        // Working at its limit, not stalled: a new window.
        self.since = Some((now, cpu));
        false
    }
}

/// How the main process of a move ended, as watched.
pub(super) struct Watched {
    pub(super) exit: Exit,
    /// Its raw wait status.
    pub(super) status: i32,
    /// CPU of the main process and the children it reaped (wait4).
    pub(super) child_cpu: f64,
    pub(super) wall: f64,
    /// Largest CPU figure seen while polling.
    pub(super) polled_max: f64,
    pub(super) killed: Option<Killed>,
}

/// Waits for the main process to end, draining its output, and kills the
/// move at the CPU or wall limit or when the referee is stopping.
pub(super) fn watch(
    spec: &RunSpec<'_>,
    stop: &AtomicBool,
    pid: i32,
    pidfd: &OwnedFd,
    start: Instant,
    acct: &mut Accounting,
    mut caps: [&mut Capture; 2],
) -> std::io::Result<Watched> {
    let mut polled_max = 0.0f64;
    let mut killed = None;
    let mut polls = 0u64;
    let mut stall = Stall::default();
    loop {
        polls += 1;
        let [out, err] = &mut caps;
        wait_events(pidfd, [&mut **out, &mut **err]);
        if let Some((status, child_cpu)) = try_reap(pid)? {
            let wall = start.elapsed().as_secs_f64();
            return Ok(Watched {
                exit: decode_status(status),
                status,
                child_cpu,
                wall,
                polled_max,
                killed,
            });
        }
        polled_max = polled_max.max(acct.cpu());
        if killed.is_none() {
            killed = if polled_max > spec.cpu_kill {
                Some(Killed::Cpu)
            } else if start.elapsed().as_secs_f64() > spec.wall_kill {
                Some(Killed::Wall)
            } else if stop.load(Ordering::Relaxed) {
                Some(Killed::Interrupted)
            } else if over_disk(spec, polls) {
                Some(Killed::Disk)
            } else if (spec.sandbox.level != Level::None && acct.over_memory(spec.sandbox.limits.memory))
                || (polls.is_multiple_of(10)
                    && (acct.oom_killed() || stall.check(acct.memory_pressed(), polled_max, Instant::now())))
            {
                Some(Killed::Memory)
            } else {
                None
            };
            if killed.is_some() {
                acct.kill();
            }
        }
    }
}

/// Every tenth poll (a tenth of a second), whether the move's working
/// directory has grown past `--disk`: a move that fills the disk is ended
/// within moments, not only judged after it (a bounded directory cannot
/// grow past its reserve, but a move that keeps writing into a full one
/// is ended all the same).
fn over_disk(spec: &RunSpec<'_>, polls: u64) -> bool {
    let sb = spec.sandbox;
    sb.level != Level::None && polls.is_multiple_of(10) && workdir::usage(spec.dir).excess(sb.limits.disk).is_some()
}

/// Waits up to [`POLL`] for the agent to exit or write, and drains output.
fn wait_events(pidfd: &OwnedFd, caps: [&mut Capture; 2]) {
    use rustix::event::{poll, PollFd, PollFlags};
    use std::os::fd::BorrowedFd;
    let pipes: Vec<BorrowedFd<'_>> = caps.iter().filter_map(|c| c.fd()).collect();
    let mut fds: Vec<PollFd<'_>> = std::iter::once(pidfd.as_fd())
        .chain(pipes)
        .map(|fd| PollFd::from_borrowed_fd(fd, PollFlags::IN))
        .collect();
    let timeout = rustix::time::Timespec {
        tv_sec: 0,
        tv_nsec: POLL.as_nanos() as i64,
    };
    // An interrupted or failed wait only means the next round comes sooner.
    let _ = poll(&mut fds, Some(&timeout));
    drop(fds);
    for c in caps {
        c.drain();
    }
}

/// Reaps the main process if it has ended: its wait status and CPU (with
/// its reaped children's).
fn try_reap(pid: i32) -> std::io::Result<Option<(i32, f64)>> {
    match pgroup::wait4(pid, libc::WNOHANG) {
        Ok((r, status, cpu)) if r == pid => Ok(Some((status, cpu))),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Ok(None),
        // Cannot happen for our own unreaped child; never spin on it.
        Err(e) => Err(std::io::Error::new(e.kind(), format!("wait4 on the agent failed: {e}"))),
    }
}

pub(super) fn decode_status(status: i32) -> Exit {
    if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(-1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_move_pressing_its_limit_without_cpu_is_stalled_and_one_working_is_not() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // Pressed at every check, 0.1 s of CPU in 0.6 s: stalled.
        let mut s = Stall::default();
        let stalled = (0..7).any(|i| s.check(i + 1, 0.02 * i as f64, at(100 * i)));
        assert!(stalled);
        // Pressed at every check, but a whole CPU used: working.
        let mut s = Stall::default();
        assert!(!(0..20).any(|i| s.check(i + 1, 0.1 * i as f64, at(100 * i))));
        // No CPU, but the limit not pressed again: waiting on something else.
        let mut s = Stall::default();
        assert!(!(0..20).any(|i| s.check(1, 0.0, at(100 * i))));
    }
}

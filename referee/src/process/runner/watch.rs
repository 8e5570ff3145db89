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
            } else if spec.sandbox.level != Level::None && acct.over_memory(spec.sandbox.limits.memory) {
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

//! Starting an agent process: one `clone3` that puts the child into new
//! mount, PID, network, IPC and UTS namespaces (plus, rootless, a new user
//! namespace; as root, it joins its seat's network namespace instead of a
//! new one where the seat has one, [`super::netns`]) and, at the `full` level, straight into its move's cgroup
//! (CLONE_INTO_CGROUP). The child builds its file-system view (or, given
//! a prepared view, enters a copy of it instead of a mount namespace made
//! at clone time: [`super::prepared`]), sets its
//! limits, takes the agent's identity and a fresh session keyring, reports
//! the CPU its own set-up took (not charged to the agent), and executes
//! `sh -c CMD` with a clean environment. Rootless, where no cgroup counts
//! the move, the child stays as its PID namespace's init: it forks the
//! agent, and kills and reaps everything the agent leaves behind, so that
//! detached processes are charged through its rusage (the kernel's own
//! clean-up of a PID namespace reaps without charging anyone), and reports
//! the agent's exit status.
//!
//! The `clone3` is a fork (no `CLONE_VM`, no stack of its own): the child
//! runs in a copy of the referee's memory, never in the referee's own, and
//! the referee's other threads go on untouched. It is a copy of a
//! multi-threaded process (a lock another thread held is held for ever in
//! the copy), so until exec the child makes system calls only, on data
//! prepared here, and allocates nothing; failures travel back through a
//! close-on-exec pipe as (stage, step, errno).

use super::limits::SandboxLimits;
use super::namespaces::MountPlan;

mod child;
#[cfg(test)]
mod tests;
use child::Stage;
use std::ffi::{c_char, CString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const CLONE_PIDFD: u64 = 0x1000;
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 4;
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
/// The child normally reaches exec in about a millisecond; this only
/// stops a wedged child from hanging the referee.
const START_TIMEOUT_MS: i32 = 60_000;

/// The kernel's `struct clone_args` (version 2, with `cgroup`).
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

/// Who the agent runs as.
pub(crate) enum Identity {
    /// As root: switch to this user and group (`full`).
    User {
        /// User id.
        uid: u32,
        /// Group id.
        gid: u32,
    },
    /// Rootless: a new user namespace mapping one id inside to the
    /// referee's own user outside (`full-rootless`).
    Mapped(UserMaps),
}

/// The contents written to `/proc/self/{setgroups,uid_map,gid_map}`.
pub(crate) struct UserMaps {
    uid_map: CString,
    gid_map: CString,
}

/// The user and group ids the agent has inside its user namespace.
pub(crate) const INNER_ID: u32 = 1000;

impl UserMaps {
    /// Maps [`INNER_ID`] to the calling process's user and group.
    pub(crate) fn for_self() -> UserMaps {
        let (uid, gid) = (rustix::process::geteuid().as_raw(), rustix::process::getegid().as_raw());
        let line = |outer: u32| CString::new(format!("{INNER_ID} {outer} 1\n")).unwrap_or_default();
        UserMaps {
            uid_map: line(uid),
            gid_map: line(gid),
        }
    }
}

/// Confinement for one child.
pub(crate) struct Confine<'a> {
    /// Open cgroup directory to start in (`full`).
    pub cgroup: Option<&'a File>,
    /// System calls refused to the agent (installed just before exec).
    pub filter: Option<&'a super::seccomp::Filter>,
    /// `tasks` files of cgroup v1 leaves, open for writing, that the
    /// child joins (writing `0`, itself) before anything else.
    pub join: Vec<RawFd>,
    /// The file-system view.
    pub plan: &'a MountPlan,
    /// A prepared view of `plan` to enter a copy of (one lent for the
    /// move, see [`super::prepared`]); `None`: the child builds the view
    /// in a new mount namespace made at clone time.
    pub view: Option<std::os::fd::BorrowedFd<'a>>,
    /// The seat's network namespace to join ([`super::netns`]); `None`:
    /// one is made at clone time, for this move alone.
    pub net: Option<std::os::fd::BorrowedFd<'a>>,
    /// The agent's identity.
    pub identity: Identity,
}

/// Everything the child needs, prepared before the clone.
pub(crate) struct Launch<'a> {
    /// What is executed.
    pub exec: Exec,
    /// Working directory (used when there is no mount plan).
    pub dir: CString,
    /// Standard input, output and error of the agent.
    pub stdio: [RawFd; 3],
    /// The agent's whole environment, as `NAME=VALUE`.
    pub env: Vec<CString>,
    /// The limits to set (none at the `none` level).
    pub limits: Option<SandboxLimits>,
    /// Namespaces, cgroup and user (the `full` levels).
    pub confine: Option<Confine<'a>>,
}

/// A program and its arguments, ready for execve(2) in the child (which
/// may not allocate): the pointer array is built here.
pub(crate) struct Exec {
    path: CString,
    /// Owns the strings `ptrs` points into (their bytes never move).
    _argv: Vec<CString>,
    ptrs: Vec<*const c_char>,
    /// What to execute if this cannot be (a direct program the agent's view
    /// does not hold, a script without `#!`): the same command through
    /// `sh -c`, which then fails, if it fails, as the agent's own error.
    pub(crate) fallback: Option<Box<Exec>>,
}

impl Exec {
    fn new(path: CString, argv: Vec<CString>) -> Exec {
        let ptrs = argv
            .iter()
            .map(|a| a.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        Exec {
            path,
            _argv: argv,
            ptrs,
            fallback: None,
        }
    }

    /// `sh -c SCRIPT`.
    pub(crate) fn shell(script: CString) -> Exec {
        Exec::new(c"/bin/sh".into(), vec![c"sh".into(), c"-c".into(), script])
    }

    /// `path` run with `words` (its own name first), no shell in between;
    /// `sh -c script` if that cannot be executed.
    pub(crate) fn direct(path: &std::path::Path, words: &[String], script: CString) -> std::io::Result<Exec> {
        let c =
            |s: &[u8]| CString::new(s).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte"));
        let argv = words.iter().map(|w| c(w.as_bytes())).collect::<Result<_, _>>()?;
        let mut e = Exec::new(c(path.as_os_str().as_encoded_bytes())?, argv);
        e.fallback = Some(Box::new(Exec::shell(script)));
        Ok(e)
    }

    /// The program's path and the argv array, null-terminated.
    pub(crate) fn raw(&self) -> (*const c_char, *const *const c_char) {
        (self.path.as_ptr(), self.ptrs.as_ptr())
    }
}

impl Launch<'_> {
    /// Rootless moves have no cgroup: their init reaps and reports.
    fn reaper(&self) -> bool {
        matches!(&self.confine, Some(c) if matches!(c.identity, Identity::Mapped(_)))
    }
}

/// A started agent.
pub(crate) struct Started {
    /// Its pid (in the referee's namespace); rootless, the pid of its
    /// namespace's init, whose end is the end of the move.
    pub pid: i32,
    /// A pidfd: readable once the process has exited.
    pub pidfd: OwnedFd,
    /// CPU seconds the sandbox's own set-up took before the agent's first
    /// instruction (to subtract from every figure of the move).
    pub setup_cpu: f64,
    /// Rootless: where the init writes the agent's wait status.
    pub status: Option<File>,
}

impl Started {
    /// The agent's wait status as its init reported it (rootless), or
    /// `reaped` (the status of `pid` itself).
    pub(crate) fn agent_status(&mut self, reaped: i32) -> i32 {
        let Some(f) = &mut self.status else { return reaped };
        let mut b = [0u8; 4];
        if read_full(f, &mut b) == 4 {
            i32::from_ne_bytes(b)
        } else {
            // The init was killed (limit or stop): so was the agent.
            libc::SIGKILL
        }
    }
}

/// The clone flags and cgroup of a launch.
fn clone_args(l: &Launch<'_>, pidfd: &mut RawFd) -> CloneArgs {
    let mut args = CloneArgs {
        flags: CLONE_PIDFD,
        pidfd: pidfd as *mut RawFd as u64,
        exit_signal: libc::SIGCHLD as u64,
        ..Default::default()
    };
    if let Some(c) = &l.confine {
        // An IPC namespace made for the move, destroyed with it: nothing an
        // agent leaves there (a message queue, a shared memory segment) is
        // ever seen by another move. The network namespace too, unless the
        // seat has one of its own, kept only while empty (`super::netns`).
        let new = libc::CLONE_NEWPID | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
        args.flags |= new as u64;
        if c.net.is_none() {
            args.flags |= libc::CLONE_NEWNET as u64;
        }
        if c.view.is_none() {
            args.flags |= libc::CLONE_NEWNS as u64;
        }
        if let Identity::Mapped(_) = c.identity {
            args.flags |= libc::CLONE_NEWUSER as u64;
        }
        if let Some(cg) = c.cgroup {
            args.flags |= CLONE_INTO_CGROUP;
            args.cgroup = cg.as_raw_fd() as u64;
        }
    }
    args
}

fn cloexec_pipe() -> std::io::Result<(File, OwnedFd)> {
    let (rd, wr) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    Ok((File::from(rd), wr))
}

/// Starts the agent; returns once it has executed `sh` (or failed to).
pub(crate) fn spawn(l: &Launch<'_>) -> std::io::Result<Started> {
    let (mut rd, wr) = cloexec_pipe()?;
    let (status_rd, status_wr) = cloexec_pipe()?;
    let mut envp: Vec<*const c_char> = l.env.iter().map(|e| e.as_ptr()).collect();
    envp.push(std::ptr::null());
    let mut pidfd: RawFd = -1;
    let mut args = clone_args(l, &mut pidfd);
    let wipe = child::own_arg_env();
    // SAFETY: clone3 without CLONE_VM and without a stack is a fork: the
    // child runs in a copy of this process's memory, on a copy of this
    // stack, and only in `child`, which never returns (it executes the
    // agent or exits); `args` and the pidfd slot are this frame's.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &mut args as *mut CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if pid == 0 {
        child::child(l, wr.as_raw_fd(), &envp, status_wr.as_raw_fd(), wipe);
    }
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let pid = pid as i32;
    drop((wr, status_wr));
    // SAFETY: the kernel stored a new descriptor for us.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let mut msg = [0u8; 12];
    // The ready report with the set-up's CPU, then the end of the pipe
    // (exec done) or a failure report.
    let ready = wait_readable(&rd) && read_full(&mut rd, &mut msg) == 12 && word(&msg, 0) == Stage::Ready as u32;
    let setup_ns = u64::from(word(&msg, 1)) | u64::from(word(&msg, 2)) << 32;
    let done = ready && wait_readable(&rd) && read_full(&mut rd, &mut msg) == 0;
    if done {
        return Ok(Started {
            pid,
            pidfd,
            setup_cpu: setup_ns as f64 * 1e-9,
            status: l.reaper().then_some(status_rd),
        });
    }
    // The child failed (or hangs before exec): end it, reap it, say where.
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    }
    let _ = super::pgroup::wait4(pid, 0);
    if word(&msg, 0) == Stage::Ready as u32 {
        let e = std::io::ErrorKind::TimedOut;
        return Err(std::io::Error::new(e, "the agent's sandbox was not ready within 60 s"));
    }
    Err(start_error(l, &msg))
}

/// Waits until `f` can be read (or the start timeout passes).
fn wait_readable(f: &File) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let timeout = Timespec {
        tv_sec: i64::from(START_TIMEOUT_MS / 1000),
        tv_nsec: i64::from(START_TIMEOUT_MS % 1000) * 1_000_000,
    };
    poll(&mut [PollFd::new(f, PollFlags::IN)], Some(&timeout)).is_ok_and(|n| n > 0)
}

fn word(msg: &[u8; 12], i: usize) -> u32 {
    u32::from_ne_bytes([msg[4 * i], msg[4 * i + 1], msg[4 * i + 2], msg[4 * i + 3]])
}

/// The child's report (stage, step, errno; see `report`) as an error that
/// says which part of starting the agent failed.
fn start_error(l: &Launch<'_>, msg: &[u8; 12]) -> std::io::Error {
    let os = std::io::Error::from_raw_os_error(word(msg, 2) as i32);
    let step = word(msg, 1) as usize;
    let what = match word(msg, 0) {
        1 => l
            .confine
            .as_ref()
            .map_or("setting up the sandbox".into(), |c| c.plan.describe(step)),
        2 => "setting resource limits".into(),
        3 => "switching to the unprivileged user".into(),
        4 => "connecting standard input/output".into(),
        5 => "entering the working directory".into(),
        7 => "mapping the agent's user in its user namespace".into(),
        8 => "starting the move's init process".into(),
        9 => "joining the move's cgroup v1 memory and pids limits".into(),
        10 => "installing the seccomp filter".into(),
        11 => "joining the seat's network namespace".into(),
        _ => "starting /bin/sh".into(),
    };
    std::io::Error::new(
        os.kind(),
        format!("the agent could not be started: {what} failed: {os}"),
    )
}

/// Reads up to `buf.len()` bytes (fewer at the end of the pipe).
fn read_full(f: &mut File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match rustix::io::read(&*f, &mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => break,
        }
    }
    n
}

//! Starting an agent process: one `clone3` that, at the `full` level, puts
//! the child straight into its move's cgroup (CLONE_INTO_CGROUP, so not one
//! instruction of it runs uncharged) and into new mount, PID, network, IPC
//! and UTS namespaces; the child then builds its file-system view, sets its
//! limits, drops to the unprivileged user and executes `sh -c CMD`.
//!
//! The child runs in a copy of a multi-threaded process until exec, so it
//! only makes raw system calls on data prepared here; failures travel back
//! through a close-on-exec pipe as (stage, step, errno).

use super::limits::{self, Limits};
use super::namespaces::{self, MountPlan};
use std::ffi::CString;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const CLONE_PIDFD: u64 = 0x1000;
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 4;
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

/// Confinement for one child.
pub(crate) struct Confine<'a> {
    /// Open cgroup directory to start in.
    pub cgroup: &'a File,
    /// The file-system view.
    pub plan: &'a MountPlan,
    /// User and group the agent runs as.
    pub uid: u32,
    /// See `uid`.
    pub gid: u32,
}

/// Everything the child needs, prepared before the clone.
pub(crate) struct Launch<'a> {
    /// `sh -c SCRIPT`.
    pub script: CString,
    /// Working directory (used when there is no mount plan).
    pub dir: CString,
    /// Standard input, output and error of the agent.
    pub stdio: [RawFd; 3],
    /// Limits to set (none at the `none` level).
    pub limits: Option<Limits>,
    /// Namespaces, cgroup and user (the `full` level).
    pub confine: Option<Confine<'a>>,
}

/// A started agent.
pub(crate) struct Started {
    /// Its pid (in the referee's namespace).
    pub pid: i32,
    /// A pidfd: readable once the process has exited.
    pub pidfd: OwnedFd,
}

/// Where a child failed before exec.
#[derive(Clone, Copy)]
#[repr(u32)]
enum Stage {
    Mounts = 1,
    Limits,
    User,
    Stdio,
    Chdir,
    Exec,
}

fn report(fd: RawFd, stage: Stage, step: usize) -> ! {
    // SAFETY: plain writes of a stack buffer and _exit, in the child.
    unsafe {
        let err = *libc::__errno_location();
        let msg: [u32; 3] = [stage as u32, step as u32, err as u32];
        libc::write(fd, msg.as_ptr().cast(), std::mem::size_of_val(&msg));
        libc::_exit(127)
    }
}

/// The child's side: never returns.
fn child(l: &Launch<'_>, err: RawFd) -> ! {
    // SAFETY: raw system calls on prepared data only (see the module doc).
    unsafe {
        if let Some(c) = &l.confine {
            if let Err(step) = namespaces::enter(c.plan) {
                report(err, Stage::Mounts, step);
            }
        } else {
            // Its own process group, so the whole agent can be signalled.
            libc::setpgid(0, 0);
            if libc::chdir(l.dir.as_ptr()) != 0 {
                report(err, Stage::Chdir, 0);
            }
        }
        if let Some(lim) = &l.limits {
            if limits::apply(lim).is_err() {
                report(err, Stage::Limits, 0);
            }
        }
        if let Some(c) = &l.confine {
            // Raw system calls: glibc's wrappers would try to change every
            // thread of the (copied) multi-threaded referee and wait forever.
            let (u, g) = (c.uid as libc::c_long, c.gid as libc::c_long);
            if libc::syscall(libc::SYS_setgroups, 0 as libc::c_long, std::ptr::null::<libc::gid_t>()) != 0
                || libc::syscall(libc::SYS_setresgid, g, g, g) != 0
                || libc::syscall(libc::SYS_setresuid, u, u, u) != 0
                || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                // After the uid change, which clears it: if the referee dies,
                // the agent (its PID namespace's init) and so all of it dies.
                || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0
            {
                report(err, Stage::User, 0);
            }
        }
        for (i, &fd) in l.stdio.iter().enumerate() {
            if libc::dup2(fd, i as RawFd) < 0 {
                report(err, Stage::Stdio, i);
            }
        }
        // Descriptors the referee opened for other moves must not leak in
        // (they would hold their pipes open); the error pipe closes on exec.
        libc::close_range(3, libc::c_uint::MAX, CLOSE_RANGE_CLOEXEC as libc::c_int);
        let argv = [c"sh".as_ptr(), c"-c".as_ptr(), l.script.as_ptr(), std::ptr::null()];
        libc::execv(c"/bin/sh".as_ptr(), argv.as_ptr());
        report(err, Stage::Exec, 0)
    }
}

/// Starts the agent; returns once it has executed `sh` (or failed to).
pub(crate) fn spawn(l: &Launch<'_>) -> std::io::Result<Started> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here.
    let (rd, wr) = unsafe { (File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let mut pidfd: RawFd = -1;
    let mut args = CloneArgs {
        flags: CLONE_PIDFD,
        pidfd: &mut pidfd as *mut RawFd as u64,
        exit_signal: libc::SIGCHLD as u64,
        ..Default::default()
    };
    if let Some(c) = &l.confine {
        args.flags |= CLONE_INTO_CGROUP
            | (libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS)
                as u64;
        args.cgroup = c.cgroup.as_raw_fd() as u64;
    }
    // SAFETY: clone3 with no stack behaves like fork; the child only runs
    // `child`, which never returns.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &mut args as *mut CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if pid == 0 {
        child(l, wr.as_raw_fd());
    }
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let pid = pid as i32;
    drop(wr);
    // SAFETY: the kernel stored a new descriptor for us.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let mut msg = [0u8; 12];
    let mut rd = rd;
    let mut ready = libc::pollfd {
        fd: rd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll on one descriptor we own.
    let started = unsafe { libc::poll(&mut ready, 1, START_TIMEOUT_MS) } > 0;
    let n = if started { read_full(&mut rd, &mut msg) } else { 0 };
    if started && n == 0 {
        return Ok(Started { pid, pidfd });
    }
    // The child failed (or hangs before exec): end it, reap it, say where.
    // SAFETY: signal and waitpid on our own child.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    if !started {
        let e = std::io::ErrorKind::TimedOut;
        return Err(std::io::Error::new(e, "the agent's sandbox was not ready within 60 s"));
    }
    Err(start_error(l, &msg))
}

/// The child's report (stage, step, errno; see `report`) as an error that
/// says which part of starting the agent failed.
fn start_error(l: &Launch<'_>, msg: &[u8; 12]) -> std::io::Error {
    let word = |i: usize| u32::from_ne_bytes([msg[4 * i], msg[4 * i + 1], msg[4 * i + 2], msg[4 * i + 3]]);
    let os = std::io::Error::from_raw_os_error(word(2) as i32);
    let step = word(1) as usize;
    let what = match word(0) {
        1 => l
            .confine
            .as_ref()
            .map_or("setting up the sandbox".into(), |c| c.plan.describe(step)),
        2 => "setting resource limits".into(),
        3 => "switching to the unprivileged user".into(),
        4 => "connecting standard input/output".into(),
        5 => "entering the working directory".into(),
        _ => "starting /bin/sh".into(),
    };
    std::io::Error::new(
        os.kind(),
        format!("the agent could not be started: {what} failed: {os}"),
    )
}

fn read_full(f: &mut File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    n
}

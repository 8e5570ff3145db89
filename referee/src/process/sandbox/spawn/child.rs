//! The child's side of a start, between `clone3` and `exec`: it runs in a
//! copy of a multi-threaded process's memory (locks other threads held stay
//! held), so it makes system calls only, on data the parent prepared
//! ([`super::Launch`]), allocates nothing, and reports a failure as (stage,
//! step, errno) through the close-on-exec pipe.

use super::{Identity, Launch, CLOSE_RANGE_CLOEXEC, INNER_ID, KEYCTL_JOIN_SESSION_KEYRING};
use crate::process::sandbox::{limits, namespaces};
use std::ffi::c_char;
use std::os::fd::RawFd;

/// The referee's own command line and environment in memory, as
/// `[(start, end); 2]` addresses (the same in the cloned child).
pub(super) type Wipe = [(usize, usize); 2];

/// [`Wipe`] for this process, from /proc/self/stat (fields 48-51), read
/// once; zeros where it cannot be read.
pub(super) fn own_arg_env() -> Wipe {
    static RANGES: std::sync::OnceLock<Wipe> = std::sync::OnceLock::new();
    *RANGES.get_or_init(|| {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
        // After the name: field 3 is the first; arg_start is field 48.
        let f: Vec<usize> = rest
            .split_whitespace()
            .skip(45)
            .take(4)
            .filter_map(|v| v.parse().ok())
            .collect();
        match f[..] {
            [a, b, c, d] => [(a, b), (c, d)],
            _ => [(0, 0); 2],
        }
    })
}

/// Where a child failed before exec.
#[derive(Clone, Copy)]
#[repr(u32)]
pub(super) enum Stage {
    Ready = 0,
    Mounts,
    SandboxLimits,
    User,
    Stdio,
    Chdir,
    Exec,
    UserMap,
    Reaper,
    Cgroup,
    Seccomp,
    Net,
}

/// Reports a failure with the error left in `errno`, and exits.
fn report(fd: RawFd, stage: Stage, step: usize) -> ! {
    report_errno(
        fd,
        stage,
        step,
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
    )
}

/// Reports a failure with the error `err`, and exits.
fn report_errno(fd: RawFd, stage: Stage, step: usize, err: i32) -> ! {
    // SAFETY: plain writes of a stack buffer and _exit, in the child.
    unsafe {
        let msg: [u32; 3] = [stage as u32, step as u32, err as u32];
        libc::write(fd, msg.as_ptr().cast(), std::mem::size_of_val(&msg));
        libc::_exit(127)
    }
}

/// Tells the referee that set-up is done and how much CPU it took; exits
/// if the referee is gone (its end of the pipe closed), which it may have
/// been before the child's parent-death signal was set.
fn report_ready(fd: RawFd) {
    // SAFETY: clock_gettime fills a struct we own; write of a stack buffer.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
        let ns = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
        let msg: [u32; 3] = [Stage::Ready as u32, ns as u32, (ns >> 32) as u32];
        let len = std::mem::size_of_val(&msg);
        if libc::write(fd, msg.as_ptr().cast(), len) != len as isize {
            libc::_exit(127);
        }
    }
}

/// Signals as a freshly started program expects them: none blocked, none
/// ignored. The referee, as every Rust program, ignores SIGPIPE, and an
/// ignored signal stays ignored across exec.
fn default_signals() {
    // SAFETY: sigset_t is plain data we own; the calls change only this
    // process (a fork, so no shared handler table).
    unsafe {
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        // SIGKILL, SIGSTOP and the C library's own signals refuse: harmless.
        for sig in 1..=libc::SIGRTMAX() {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
}

/// Writes `text` to the file at `path` (raw calls, for the child).
fn write_file(path: &std::ffi::CStr, text: &[u8]) -> bool {
    // SAFETY: open/write/close on a NUL-terminated path and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let ok = libc::write(fd, text.as_ptr().cast(), text.len()) == text.len() as isize;
        libc::close(fd) == 0 && ok
    }
}

/// Per-user kernel counts an agent could otherwise exhaust for the
/// organiser's user (the kernel charges a user namespace's counts to its
/// owner too), capped in the move's own user namespace. Written through
/// /proc/sys of the new namespace's view (the counts are the writer's
/// namespace's); a kernel without one of them keeps its default.
fn cap_user_quotas() {
    write_file(c"/proc/sys/user/max_inotify_instances", b"16");
    write_file(c"/proc/sys/user/max_inotify_watches", b"8192");
    write_file(c"/proc/sys/user/max_fanotify_groups", b"0");
}

/// Becomes the agent's user (raw system calls: glibc's wrappers would try
/// to change every thread of the copied multi-threaded referee and wait
/// forever), then makes sure no exec can regain privileges and that the
/// agent dies with the referee.
fn take_identity(identity: &Identity) -> bool {
    let (u, g) = match identity {
        Identity::User { uid, gid } => (*uid as libc::c_long, *gid as libc::c_long),
        Identity::Mapped(_) => (INNER_ID as libc::c_long, INNER_ID as libc::c_long),
    };
    // SAFETY: raw system calls without pointers (setgroups gets null, 0).
    unsafe {
        let groups = matches!(identity, Identity::Mapped(_))
            || libc::syscall(libc::SYS_setgroups, 0 as libc::c_long, std::ptr::null::<libc::gid_t>()) == 0;
        groups
            && libc::syscall(libc::SYS_setresgid, g, g, g) == 0
            && libc::syscall(libc::SYS_setresuid, u, u, u) == 0
            && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            // After the uid change, which clears it: if the referee dies,
            // the agent (its PID namespace's init) and so all of it dies.
            && libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == 0
    }
}

/// The child's side: never returns.
pub(super) fn child(l: &Launch<'_>, err: RawFd, envp: &[*const c_char], status: RawFd, wipe: Wipe) -> ! {
    // SAFETY: raw system calls on prepared data only (see the module doc).
    unsafe {
        // Dies with the thread that started it, at every level (the user
        // change below clears this; it is set again after it).
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        // Its own process group, so the whole agent can be found and signalled.
        libc::setpgid(0, 0);
        default_signals();
        if let Some(c) = &l.confine {
            // Still root and nothing of the agent has run: from here on
            // every page and task of the move is charged to its v1 leaves.
            for &fd in &c.join {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    report(err, Stage::Cgroup, 0);
                }
            }
            if let Some(net) = c.net {
                use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};
                if let Err(e) = move_into_link_name_space(net, Some(LinkNameSpaceType::Network)) {
                    report_errno(err, Stage::Net, 0, e.raw_os_error());
                }
            }
            if let Identity::Mapped(m) = &c.identity {
                if !write_file(c"/proc/self/setgroups", b"deny")
                    || !write_file(c"/proc/self/uid_map", m.uid_map.as_bytes())
                    || !write_file(c"/proc/self/gid_map", m.gid_map.as_bytes())
                {
                    report(err, Stage::UserMap, 0);
                }
                cap_user_quotas();
            }
            let entered = match c.view {
                Some(view) => namespaces::enter_prepared(c.plan, view),
                None => namespaces::enter(c.plan),
            };
            if let Err((step, errno)) = entered {
                report_errno(err, Stage::Mounts, step, errno.raw_os_error());
            }
        } else if libc::chdir(l.dir.as_ptr()) != 0 {
            report(err, Stage::Chdir, 0);
        }
        if let Some(lim) = &l.limits {
            if limits::apply(lim).is_err() {
                report(err, Stage::SandboxLimits, 0);
            }
        }
        if let Some(c) = &l.confine {
            if !take_identity(&c.identity) {
                report(err, Stage::User, 0);
            }
            // A keyring of its own: no notes left for, or by, other agents.
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                std::ptr::null::<c_char>(),
            );
        }
        report_ready(err);
        if l.reaper() {
            init(l, err, envp, status, wipe)
        }
        exec_agent(l, err, envp)
    }
}

/// Connects the agent's standard streams and executes `sh -c SCRIPT`.
fn exec_agent(l: &Launch<'_>, err: RawFd, envp: &[*const c_char]) -> ! {
    // SAFETY: raw system calls on prepared data only.
    unsafe {
        for (i, &fd) in l.stdio.iter().enumerate() {
            if libc::dup2(fd, i as RawFd) < 0 {
                report(err, Stage::Stdio, i);
            }
        }
        // Descriptors the referee opened for other moves must not leak in
        // (they would hold their pipes open); the error pipe closes on exec.
        libc::close_range(3, libc::c_uint::MAX, CLOSE_RANGE_CLOEXEC as libc::c_int);
        // Last, after no_new_privs: nothing of the set-up needs these calls.
        if let Some(f) = l.confine.as_ref().and_then(|c| c.filter) {
            if !f.apply() {
                report(err, Stage::Seccomp, 0);
            }
        }
        let (path, argv) = l.exec.raw();
        libc::execve(path, argv, envp.as_ptr());
        if let Some(f) = &l.exec.fallback {
            let (path, argv) = f.raw();
            libc::execve(path, argv, envp.as_ptr());
        }
        report(err, Stage::Exec, 0)
    }
}

/// The rootless move's init (pid 1 of its namespace): forks the agent,
/// reaps every process of the move, ends them all once the agent's main
/// process has exited, writes that process's wait status to `status` and
/// exits. Everything it reaped is in its own rusage, which the referee
/// gets when it reaps the init.
fn init(l: &Launch<'_>, err: RawFd, envp: &[*const c_char], status: RawFd, wipe: Wipe) -> ! {
    // SAFETY: raw system calls only; the fork is a raw clone, so no atfork
    // handler of the copied referee runs.
    unsafe {
        // A copy of the referee, with its environment and memory: the
        // agent (same user) may not read it through /proc or ptrace. The
        // agent's exec makes it dumpable again, for itself only.
        if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            report(err, Stage::Reaper, 1);
        }
        // Its command line and environment, which anyone may read in
        // /proc/1/cmdline, are the referee's (the opponent's command among
        // them): blanked, and it is named `init`.
        for &(start, end) in &wipe {
            if start > 0 && end > start {
                std::ptr::write_bytes(start as *mut u8, 0, end - start);
            }
        }
        libc::prctl(libc::PR_SET_NAME, c"init".as_ptr());
        let agent = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0);
        if agent == 0 {
            exec_agent(l, err, envp);
        }
        if agent < 0 {
            report(err, Stage::Reaper, 0);
        }
        // Keep only the status pipe: the agent's streams and the error pipe
        // must close when the agent's do.
        let keep = status as libc::c_uint;
        if keep > 0 {
            libc::close_range(0, keep - 1, 0);
        }
        libc::close_range(keep + 1, libc::c_uint::MAX, 0);
        let mut agent_status = None;
        loop {
            let mut st = 0;
            let r = libc::waitpid(-1, &mut st, 0);
            if r == agent as i32 {
                agent_status = Some(st);
                // The move ends with its main process: the rest goes too.
                libc::kill(-1, libc::SIGKILL);
            } else if r < 0 && *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        if let Some(st) = agent_status {
            let b = st.to_ne_bytes();
            libc::write(status, b.as_ptr().cast(), b.len());
        }
        libc::_exit(0)
    }
}

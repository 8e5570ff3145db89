//! Runs one agent move as a child process and charges its CPU time.
//!
//! The agent runs as `sh -c CMD` in its own working directory, confined as
//! the run's [`Sandbox`] says (see [`crate::process::sandbox`]). At the `full` level
//! the move has its own cgroup: CPU comes from its `cpu.stat`, which nothing
//! the move starts can leave, and `cgroup.kill` ends everything at the end
//! of the move. Otherwise the process group and its descendants are tracked
//! through `/proc` ([`crate::process::sandbox::pgroup`]). The referee waits on a pidfd and the
//! agent's output pipes at once, polling CPU every few milliseconds to kill
//! at the limit; the larger of the polled and final figures is charged.

use crate::process::agent_files::{self, Capture, Output};
use crate::process::closer::{drop_later, hold_view};
use crate::process::sandbox::cgroup::Leaf;
use crate::process::sandbox::namespaces::{self, MountPlan};
use crate::process::sandbox::netns;
use crate::process::sandbox::pgroup::Tracker;
use crate::process::sandbox::prepared::ViewLease;
use crate::process::sandbox::spawn::{self, Confine, Exec, Identity, Launch, UserMaps};
use crate::process::sandbox::{Jail, Level, Sandbox};
use crate::process::workdir;
use watch::{decode_status, watch, Accounting};

mod watch;
use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Default cap on the bytes of `output.txt` that are read.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How often the child's CPU time is polled.
const POLL: Duration = Duration::from_millis(10);

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
    /// Confinement and limits.
    pub sandbox: &'a Sandbox,
    /// Where the agent's and the other agents' programs live.
    pub homes: Homes<'a>,
}

/// The homes (`--agent ...,dir=DIR`) a move's sandbox must know about.
#[derive(Clone, Copy, Debug, Default)]
pub struct Homes<'a> {
    /// The moving agent's home: shown read-only at the `full` level.
    pub own: Option<&'a Path>,
    /// The other agents' homes: hidden at the `full` level (unless one
    /// holds the moving agent's home).
    pub others: &'a [PathBuf],
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
    /// Its working directory grew past `--disk` during the move.
    Disk,
    /// Its processes together held more memory than `--memory` (the
    /// kernel's memory cgroup ended it, or the referee's count of the
    /// move's resident memory did).
    Memory,
}

/// How the agent's main process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Normal exit with this status code.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit status {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s}"),
        }
    }
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
    /// What was found at `output.txt`.
    pub output: Output,
    /// Bytes of stdout and stderr discarded past the capture cap.
    pub discarded: [u64; 2],
    /// The last bytes of stdout, as read from the agent's pipe.
    pub stdout_tail: Vec<u8>,
    /// The last bytes of stderr, as read from the agent's pipe (never from
    /// `stderr.txt`, which the agent may have replaced).
    pub stderr_tail: Vec<u8>,
}

fn cpath(p: &Path) -> std::io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a path contains a NUL byte"))
}

/// What a move executes: the command and its extra argument, if any,
/// directly when it has no shell syntax and names an executable program
/// (one process less per move), else through `sh -c`. Either way the CPU
/// of everything it starts is charged.
fn program(spec: &RunSpec<'_>) -> std::io::Result<Exec> {
    let cmd = match spec.extra_arg {
        Some(a) => format!("{} {}", spec.cmd, a),
        None => spec.cmd.to_string(),
    };
    let path = spec
        .sandbox
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str());
    let direct = crate::process::command::direct(&cmd, path);
    let script = CString::new(cmd)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "the command contains a NUL byte"))?;
    match direct {
        // sh -c the same command if the program cannot be executed in the
        // agent's view (not shown there, a script without #!).
        Some((prog, words)) => Exec::direct(&prog, &words, script),
        None => Ok(Exec::shell(script)),
    }
}

/// The full sandbox's mounts for a move: the agent's programs, its home and
/// the read-only extras visible in `root` (the other agents' homes hidden),
/// its working directory `dir` writable.
fn mount_plan(root: &Path, spec: &RunSpec<'_>, dir: &Path) -> MountPlan {
    let sb = spec.sandbox;
    let mut programs = namespaces::command_paths(spec.cmd);
    let home = spec.homes.own;
    programs.extend(home.filter(|h| *h != Path::new("/")).map(Path::to_path_buf));
    programs.extend(sb.read_only.iter().cloned());
    let mut hide = sb.hide.clone();
    // An opponent's home nested in this agent's home, or in a directory
    // shown to all, is covered; one holding this agent's home cannot be.
    hide.extend(
        spec.homes
            .others
            .iter()
            .filter(|o| home.is_none_or(|h| !h.starts_with(o)))
            .cloned(),
    );
    MountPlan::new(root, dir, &programs, &hide, sb.limits.file_size.saturating_mul(4))
}

/// The move's confinement: the agent's identity (as root, a user of the
/// move's own, who then owns the working directory and what earlier moves
/// left there; rootless, the referee's own user seen as
/// [`spawn::INNER_ID`]) and its cgroup.
fn confinement<'a>(
    j: &'a Jail,
    leaf: Option<&'a Leaf>,
    plan: &'a MountPlan,
    view: Option<&'a ViewLease<'_>>,
    dir: &Path,
) -> std::io::Result<Confine<'a>> {
    let identity = match &j.ids {
        Some(ids) => {
            let id = ids.take();
            workdir::chown_tree(dir, id).map_err(in_workdir)?;
            Identity::User { uid: id, gid: id }
        }
        None => Identity::Mapped(UserMaps::for_self()),
    };
    Ok(Confine {
        cgroup: leaf.map(Leaf::fd),
        join: leaf.map(|l| l.v1_tasks().collect()).unwrap_or_default(),
        filter: j.filter.as_ref(),
        plan,
        view: view.and_then(ViewLease::ns),
        net: view.and_then(ViewLease::net),
        identity,
    })
}

/// The limits of one move. At `rlimits` the agent is the referee's own
/// user, whose every task counts against RLIMIT_NPROC: the move gets its
/// allowance on top of what the user already runs.
fn move_limits(sb: &Sandbox) -> crate::process::sandbox::SandboxLimits {
    let mut l = sb.limits;
    if sb.level == Level::Rlimits {
        l.max_procs = l
            .max_procs
            .saturating_add(crate::process::sandbox::limits::user_tasks());
    }
    l
}

/// The agent's environment: the sandbox's, plus `HOME`: its working
/// directory (at the same path inside the full levels' view).
fn environment(sb: &Sandbox, home: &Path) -> std::io::Result<Vec<CString>> {
    let pairs = sb.env.iter().map(|(k, v)| format!("{k}={v}"));
    pairs
        .chain(std::iter::once(format!("HOME={}", home.display())))
        .map(|kv| {
            CString::new(kv).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "an environment value contains a NUL byte",
                )
            })
        })
        .collect()
}

/// A failure to ready the agent's working directory for its move (to
/// clear its old `output.txt`, create the captures, hand it over): caused
/// by what the agent left there, so its loss, not the run's end.
#[derive(Debug)]
pub(crate) struct WorkdirError(std::io::Error);

impl std::fmt::Display for WorkdirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "its working directory could not be readied for the move: {}", self.0)
    }
}

impl std::error::Error for WorkdirError {}

fn in_workdir(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), WorkdirError(e))
}

/// The [`WorkdirError`] inside `e`, if that is what `e` is.
pub(crate) fn workdir_error(e: &std::io::Error) -> Option<&WorkdirError> {
    e.get_ref().and_then(|i| i.downcast_ref::<WorkdirError>())
}

/// Runs one move. Returns an error only when the process cannot be started
/// (a [`WorkdirError`] when its working directory could not be readied).
pub fn run(spec: &RunSpec<'_>, stop: &AtomicBool) -> std::io::Result<RunResult> {
    let sb = spec.sandbox;
    let dir = spec.dir.canonicalize().map_err(in_workdir)?;
    agent_files::remove(&dir, "output.txt").map_err(in_workdir)?;
    let cap = sb.limits.file_size;
    let (mut out, out_w) = Capture::new(&dir, "stdout.txt", cap).map_err(in_workdir)?;
    let (mut err, err_w) = Capture::new(&dir, "stderr.txt", cap).map_err(in_workdir)?;
    let null = std::fs::File::open("/dev/null")?;
    let exec = program(spec)?;
    let jail = match (&sb.level, &sb.jail) {
        (Level::Full | Level::FullRootless, Some(j)) => Some(j),
        _ => None,
    };
    let leaf = jail
        .and_then(|j| j.cgroup.as_ref())
        .map(|cg| cg.leaf(sb.limits.memory, sb.limits.max_procs))
        .transpose()?;
    if let Some(j) = jail {
        // The empty mount point may have been swept by a cleaner of the
        // temp directory during a long run: it is made again, not fatal.
        std::fs::create_dir_all(&j.root)?;
    }
    let plan = jail.map(|j| mount_plan(&j.root, spec, &dir));
    // The agent's own prepared view, if any; held until the move's
    // processes are ended (`acct.charge`), below.
    let mut view = jail.zip(plan.as_ref()).and_then(|(j, p)| j.views.as_ref()?.lend(p));
    let confine = match (jail, &plan) {
        (Some(j), Some(plan)) => Some(confinement(j, leaf.as_ref(), plan, view.as_ref(), &dir)?),
        _ => None,
    };
    let launch = Launch {
        exec,
        dir: cpath(&dir)?,
        stdio: [null.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()],
        env: environment(sb, &dir)?,
        limits: (sb.level != Level::None).then(|| move_limits(sb)),
        confine,
    };
    let start = Instant::now();
    let mut started = spawn::spawn(&launch)?;
    let (pid, base) = (started.pid, started.setup_cpu);
    let held = jail.and_then(|_| hold_view(pid));
    drop((launch, out_w, err_w, null));
    let mut acct = match leaf {
        // The child's own figure for its set-up, not a read of the cgroup
        // after the start: what the agent ran meanwhile would go uncharged.
        Some(leaf) => Accounting::Cgroup(leaf, base),
        None if sb.level == Level::FullRootless => Accounting::Group(Tracker::in_namespace(pid), base),
        None => Accounting::Group(Tracker::new(pid), base),
    };
    let mut w = watch(spec, stop, pid, &started.pidfd, start, &mut acct, [&mut out, &mut err])?;
    w.exit = decode_status(started.agent_status(w.status));
    // The main process is gone: nothing of the agent may outlive the move.
    let cpu = acct.charge(&w);
    if let Some(v) = view.as_mut().filter(|_| acct.none_left()) {
        v.ended();
    }
    drop((view, held));
    if jail.is_some() {
        netns::collect_sockets();
    }
    // Ended for time after pressing its memory limit: judged for memory.
    let pressed = matches!(w.killed, Some(Killed::Cpu | Killed::Wall)) && acct.memory_pressed() > 0;
    if pressed || (w.killed.is_none() && acct.oom_killed()) {
        w.killed = Some(Killed::Memory);
    }
    // Ended (`charge`) and read: its cgroups go away off the move's path.
    if let Accounting::Cgroup(leaf, _) = acct {
        drop_later(leaf);
    }
    out.finish();
    err.finish();
    let output = agent_files::read_capped(&dir, "output.txt", spec.output_cap);
    if output == Output::TooLarge {
        // Directories of forfeits are kept: not with a file this size.
        let _ = agent_files::remove(&dir, "output.txt");
    }
    Ok(RunResult {
        cpu,
        wall: w.wall,
        exit: w.exit,
        killed: w.killed,
        output,
        discarded: [out.discarded, err.discarded],
        stdout_tail: out.tail().to_vec(),
        stderr_tail: err.tail().to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_exit_code_and_output_are_reported() {
        let dir = std::env::temp_dir().join(format!("referee-runner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stop = AtomicBool::new(false);
        let sandbox = Sandbox::none();
        let spec = RunSpec {
            cmd: "printf 'E 1,1 2,2\\n' > output.txt; echo said; exit 3",
            extra_arg: None,
            dir: &dir,
            cpu_kill: 5.0,
            wall_kill: 20.0,
            output_cap: 4,
            sandbox: &sandbox,
            homes: Homes::default(),
        };
        let r = run(&spec, &stop).unwrap();
        assert_eq!(r.exit, Exit::Code(3));
        assert_eq!(r.output, Output::TooLarge);
        assert!(r.killed.is_none());
        assert_eq!(std::fs::read_to_string(dir.join("stdout.txt")).unwrap(), "said\n");
        assert_eq!(r.stdout_tail, b"said\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! How far agent processes are confined. Levels, strongest first:
//!
//! - `full`: per move a cgroup v2 leaf ([`cgroup`]: CPU of every process the
//!   move creates, however it detaches, and `cgroup.kill` at the end) and new
//!   mount, PID, network, IPC and UTS namespaces ([`namespaces`]: the agent
//!   sees its own directory read-write, the system and its program read-only,
//!   nothing else, and cannot see or signal any process outside its move),
//!   run as the unprivileged user `nobody`, plus the limits of `rlimits`.
//!   Needs root and a writable cgroup v2 hierarchy.
//! - `rlimits`: resource limits only ([`limits`]: data memory, file size,
//!   processes, open files, no core dumps); processes are tracked through
//!   their group and parent links ([`pgroup`]), files are not confined.
//! - `none`: as `rlimits` without the limits.
//!
//! `auto` (the default) picks `full` where the machine allows it, else
//! `rlimits`; `referee doctor` says which and why.

pub mod cgroup;
pub mod limits;
pub mod namespaces;
pub mod pgroup;
pub(crate) mod spawn;

pub use limits::Limits;
use std::path::{Path, PathBuf};

/// The level asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Choice {
    /// The strongest level this machine allows.
    Auto,
    /// cgroup + namespaces + unprivileged user + limits (root, cgroup v2).
    Full,
    /// Resource limits only.
    Rlimits,
    /// No confinement (trusted agents only).
    None,
}

/// The level in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// See [`Choice::Full`].
    Full,
    /// See [`Choice::Rlimits`].
    Rlimits,
    /// See [`Choice::None`].
    None,
}

/// Command-line options of the sandbox (flattened into the commands that run agents).
#[derive(clap::Args, Clone, Debug)]
pub struct SandboxOpts {
    /// Confinement of agents: auto (strongest available), full, rlimits or none.
    #[arg(long, value_enum, default_value_t = Choice::Auto, env = "REFEREE_SANDBOX")]
    pub sandbox: Choice,
    /// Memory per agent process (private writable memory; the whole move where cgroups allow), e.g. 2G.
    #[arg(long, default_value = "2G", value_parser = limits::parse_bytes)]
    pub memory: u64,
    /// Largest file an agent may write, e.g. 16M (also caps its captured stdout/stderr).
    #[arg(long, default_value = "16M", value_parser = limits::parse_bytes)]
    pub file_size: u64,
    /// Processes and threads per agent move.
    #[arg(long, default_value_t = 256)]
    pub max_procs: u64,
    /// Extra directory an agent may read at the full level (repeatable).
    #[arg(long = "sandbox-ro", value_name = "DIR")]
    pub read_only: Vec<PathBuf>,
}

impl SandboxOpts {
    /// Builds the sandbox for a run whose records live in `out` (hidden from
    /// agents), refusing limits no agent can run under and read-only
    /// directories that would show agents the whole system or the records.
    pub fn build(&self, out: &Path) -> Result<Sandbox, String> {
        if self.memory < MIN_MEMORY {
            return Err(format!(
                "--memory {} MiB is too little for any agent to start (a shell alone needs a few MiB); give at least {} MiB, such as --memory 512M",
                self.memory >> 20,
                MIN_MEMORY >> 20
            ));
        }
        if self.max_procs < MIN_PROCS {
            return Err(format!(
                "--max-procs {} leaves no room for the agent's shell and program; give at least {MIN_PROCS}",
                self.max_procs
            ));
        }
        let limits = Limits {
            memory: self.memory,
            file_size: self.file_size,
            max_procs: self.max_procs,
            ..Limits::default()
        };
        let out = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
        let mut ro = Vec::new();
        for p in &self.read_only {
            let dir = p
                .canonicalize()
                .map_err(|e| format!("--sandbox-ro {}: {e}", p.display()))?;
            if dir == Path::new("/") {
                return Err(
                    "--sandbox-ro / would show agents the whole file system; name the directories they need".into(),
                );
            }
            if out.starts_with(&dir) || dir.starts_with(&out) {
                return Err(format!(
                    "--sandbox-ro {} would show agents the run's records and the other agents' directories in {}; name a directory outside --out",
                    p.display(),
                    out.display()
                ));
            }
            ro.push(dir);
        }
        Sandbox::new(self.sandbox, limits, ro, vec![out])
    }
}

/// The least `--memory` accepted: below it not even `sh` starts.
pub const MIN_MEMORY: u64 = 32 << 20;
/// The least `--max-procs` accepted: the shell, the agent and a helper.
pub const MIN_PROCS: u64 = 8;

/// The `full` level's machinery, created once per run.
#[derive(Debug)]
pub struct Jail {
    /// Parent of the per-move cgroups.
    pub cgroup: cgroup::Parent,
    /// Empty directory each agent's root is mounted on (in its own namespace).
    pub root: PathBuf,
    /// The agent's user and group.
    pub uid: u32,
    /// See `uid`.
    pub gid: u32,
}

impl Drop for Jail {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.root);
    }
}

/// Confinement settings for every agent move of a run.
#[derive(Debug)]
pub struct Sandbox {
    /// The level in force.
    pub level: Level,
    /// Limits (ignored at `none`).
    pub limits: Limits,
    /// Extra read-only directories.
    pub read_only: Vec<PathBuf>,
    /// Directories covered in the agent's view (`--out`).
    pub hide: Vec<PathBuf>,
    /// Present at the `full` level.
    pub jail: Option<Jail>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::none()
    }
}

/// What this machine offers, for `auto` and `referee doctor`.
#[derive(Debug)]
pub struct Support {
    /// Running as root (needed for namespaces without a user namespace and for setuid).
    pub root: bool,
    /// A cgroup v2 parent could be created (or why not).
    pub cgroup: Result<cgroup::Parent, String>,
    /// Namespaces could be created (or why not).
    pub namespaces: Result<(), String>,
}

impl Support {
    /// Probes the machine (creates and removes a cgroup, forks a child).
    pub fn probe() -> Support {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        Support {
            root,
            cgroup: cgroup::Parent::create(),
            namespaces: probe_namespaces(),
        }
    }

    /// Why `full` is impossible here, or `None` if it is possible.
    pub fn full_missing(&self) -> Option<String> {
        let mut why = Vec::new();
        if !self.root {
            why.push("the referee is not running as root".to_string());
        }
        if let Err(e) = &self.cgroup {
            why.push(format!("no writable cgroup v2: {e}"));
        }
        if let Err(e) = &self.namespaces {
            why.push(format!("no namespaces: {e}"));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

fn probe_namespaces() -> Result<(), String> {
    let flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    // SAFETY: the child only calls unshare and _exit; the parent reaps it.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            libc::_exit(if libc::unshare(flags) == 0 {
                0
            } else {
                *libc::__errno_location()
            });
        }
        if pid < 0 {
            return Err(format!("fork failed: {}", std::io::Error::last_os_error()));
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        match libc::WEXITSTATUS(status) {
            0 => Ok(()),
            e => Err(format!("unshare failed: {}", std::io::Error::from_raw_os_error(e))),
        }
    }
}

/// Removes the (empty) root mount points of referees that no longer run
/// (killed with SIGKILL, or a test process that never dropped its sandbox).
fn sweep_stale_roots() {
    for e in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("referee-root-")) else {
            continue;
        };
        if pid.bytes().all(|b| b.is_ascii_digit()) && !Path::new("/proc").join(pid).exists() {
            // remove_dir: only ever an empty directory.
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

fn nobody() -> (u32, u32) {
    // The conventional ids; /etc/passwd is consulted when it names nobody.
    let from_passwd = std::fs::read_to_string("/etc/passwd").ok().and_then(|s| {
        s.lines().find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.first() == Some(&"nobody") && f.len() > 3).then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))?
        })
    });
    from_passwd.unwrap_or((65534, 65534))
}

impl Sandbox {
    /// No confinement and no limits.
    pub fn none() -> Sandbox {
        Sandbox {
            level: Level::None,
            limits: Limits::default(),
            read_only: Vec::new(),
            hide: Vec::new(),
            jail: None,
        }
    }

    /// The sandbox for `choice`; `full` fails with what the machine lacks.
    pub fn new(choice: Choice, limits: Limits, read_only: Vec<PathBuf>, hide: Vec<PathBuf>) -> Result<Sandbox, String> {
        let mut sb = Sandbox {
            level: Level::Rlimits,
            limits,
            read_only,
            hide,
            jail: None,
        };
        match choice {
            Choice::None => sb.level = Level::None,
            Choice::Rlimits => {}
            Choice::Full | Choice::Auto => {
                let support = Support::probe();
                let missing = support.full_missing();
                match (missing, support.cgroup) {
                    (None, Ok(cgroup)) => {
                        sweep_stale_roots();
                        let root = std::env::temp_dir().join(format!("referee-root-{}", std::process::id()));
                        std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
                        let (uid, gid) = nobody();
                        sb.jail = Some(Jail { cgroup, root, uid, gid });
                        sb.level = Level::Full;
                    }
                    (why, _) => {
                        let why = why.unwrap_or_default();
                        if choice == Choice::Full {
                            return Err(format!(
                                "--sandbox full is not available here: {why} (see `referee doctor`)"
                            ));
                        }
                        log::info!("sandbox: full level unavailable ({why})");
                    }
                }
            }
        }
        Ok(sb)
    }

    /// The run's sandbox line (under 80 columns with the `referee: `
    /// prefix): the level, its main limits and what it leaves open;
    /// `referee doctor` gives the details.
    pub fn describe(&self) -> String {
        let l = &self.limits;
        let limits = format!("{} MiB, {} procs", l.memory >> 20, l.max_procs);
        match (&self.level, &self.jail) {
            (Level::Full, Some(j)) => format!(
                "sandbox: full (namespaces, cgroup, uid {}, {limits}{})",
                j.uid,
                if j.cgroup.memory { "" } else { " each" }
            ),
            (Level::None, _) => "sandbox: none (agents trusted; nothing enforced)".into(),
            _ => format!("sandbox: rlimits ({limits}; agents NOT confined: see referee doctor)"),
        }
    }
}

/// Builds the run's sandbox for records in `out` and says on stderr which
/// level is in force and what it leaves unenforced.
pub fn install(opts: &SandboxOpts, out: &Path) -> Result<std::sync::Arc<Sandbox>, String> {
    let sb = opts.build(out)?;
    eprintln!("referee: {}", sb.describe());
    Ok(std::sync::Arc::new(sb))
}

/// The report of `referee doctor`.
pub fn doctor() -> String {
    let s = Support::probe();
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = String::new();
    out += &format!("running as root:           {}\n", yes(s.root));
    out += &match &s.cgroup {
        Ok(p) => format!(
            "cgroup v2 (writable):      yes, {} (memory.max: {}, pids.max: {})\n",
            p.dir().parent().unwrap_or(p.dir()).display(),
            yes(p.memory),
            yes(p.pids)
        ),
        Err(e) => format!("cgroup v2 (writable):      no: {e}\n"),
    };
    out += &match &s.namespaces {
        Ok(()) => "namespaces (mnt/pid/net/ipc/uts): yes\n".to_string(),
        Err(e) => format!("namespaces (mnt/pid/net/ipc/uts): no: {e}\n"),
    };
    out += "rlimits:                   yes (always)\n";
    out += &match s.full_missing() {
        None => "--sandbox auto will use:   full\n".to_string(),
        Some(why) => format!("--sandbox auto will use:   rlimits (full needs: {why})\n"),
    };
    out
}

//! How far agent processes are confined. Levels, strongest first:
//!
//! - `full`: per move a cgroup v2 leaf ([`cgroup`]: CPU of every process the
//!   move creates, however it detaches, and `cgroup.kill` at the end) and new
//!   mount, PID, network, IPC and UTS namespaces ([`namespaces`]: the agent
//!   sees its own directory read-write, the system and its program read-only,
//!   nothing else, and cannot see or signal any process outside its move),
//!   run as an unprivileged user of its own ([`Ids`]: a uid and gid no
//!   other move has, so process counts, keyrings and files are never
//!   shared), plus the limits of `rlimits`.
//!   Needs root and a writable cgroup v2 hierarchy.
//! - `full-rootless`: the same view and namespaces for a referee that is not
//!   root, inside a new user namespace (as bubblewrap does) where the agent
//!   is user 1000, mapped to the referee's own user outside. No cgroup: the
//!   move's PID namespace has an init of the referee's own ([`spawn`]) that
//!   kills and reaps everything the agent starts, however it detaches, so
//!   its CPU is charged; ending the init ends the move. Process limits
//!   count the move's own processes (the user namespace has its own
//!   counts); memory is limited per process.
//! - `rlimits`: resource limits only ([`limits`]: data memory, file size,
//!   processes, open files, no core dumps); processes are tracked through
//!   their group and parent links ([`pgroup`]), files are not confined.
//! - `none`: as `rlimits` without the limits.
//!
//! `auto` (the default) picks `full` where the machine allows it, else
//! `full-rootless`, else `rlimits`; `referee doctor` says which and why.
//!
//! At every level the agent gets a clean environment: `PATH`, `LANG`,
//! `HOME` (its working directory), `TMPDIR`, and what `--env` adds.

pub(crate) mod cgroup;
pub(crate) mod cgroup_v1;
mod host_mounts;
pub(crate) mod limits;
pub(crate) mod namespaces;
pub(crate) mod netns;
mod opts;
pub(crate) mod pgroup;
pub(crate) mod prepared;
mod probe;
mod program_paths;
pub(crate) mod seccomp;
pub(crate) mod spawn;

use opts::base_env;
pub use opts::SandboxOpts;
pub(crate) use probe::doctor;
use probe::Support;

pub use limits::SandboxLimits;
use std::path::{Path, PathBuf};

/// The level asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelChoice {
    /// The strongest level this machine allows.
    Auto,
    /// cgroup + namespaces + unprivileged user + limits (root, cgroup v2).
    Full,
    /// User + mount + PID + network namespaces, a reaper init, limits (no root needed).
    FullRootless,
    /// Resource limits only.
    Rlimits,
    /// No confinement (trusted agents only).
    None,
}

/// The level in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// See [`LevelChoice::Full`].
    Full,
    /// See [`LevelChoice::FullRootless`].
    FullRootless,
    /// See [`LevelChoice::Rlimits`].
    Rlimits,
    /// See [`LevelChoice::None`].
    None,
}

/// The `full` levels' machinery, created once per run.
#[derive(Debug)]
pub struct Jail {
    /// Parent of the per-move cgroups (`full` only).
    pub(crate) cgroup: Option<cgroup::Parent>,
    /// Empty directory each agent's root is mounted on (in its own namespace).
    pub root: PathBuf,
    /// The moves' user and group ids (`full`; rootless the agent is
    /// [`spawn::INNER_ID`] in a user namespace of its own).
    pub(crate) ids: Option<Ids>,
    /// The system calls refused where no memory cgroup charges a move.
    pub(crate) filter: Option<seccomp::Filter>,
    /// Prepared views lent to moves (`full`; rootless moves build their own).
    pub(crate) views: Option<prepared::ViewPool>,
}

impl Jail {
    /// The jail's root mount point (removed with the jail) and identity.
    fn new(cgroup: Option<cgroup::Parent>, ids: Option<Ids>) -> Result<Jail, String> {
        // Several sandboxes may live in one process (tests): one root each.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        sweep_stale_roots();
        let root = std::env::temp_dir().join(format!("referee-root-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
        let mut jail = Jail {
            cgroup,
            views: ids.is_some().then(prepared::ViewPool::default),
            root,
            ids,
            filter: None,
        };
        jail.allow_calls(&[])?;
        Ok(jail)
    }

    /// Sets the seccomp filter, without the groups in `allow`: needed only
    /// where no memory cgroup charges the move (rootless, or no controller).
    pub(crate) fn allow_calls(&mut self, allow: &[seccomp::Allow]) -> Result<(), String> {
        let charged = self.cgroup.as_ref().is_some_and(|c| c.memory);
        self.filter = if charged { None } else { seccomp::Filter::new(allow)? };
        Ok(())
    }
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
    /// The limits (ignored at `none`).
    pub limits: SandboxLimits,
    /// Extra read-only directories.
    pub read_only: Vec<PathBuf>,
    /// Directories covered in the agent's view (`--out`).
    pub hide: Vec<PathBuf>,
    /// Present at the `full` levels.
    pub jail: Option<Jail>,
    /// The agents' environment (without `HOME`, set per move).
    pub env: Vec<(String, String)>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::none()
    }
}

/// Removes the (empty) root mount points of referees that no longer run
/// (killed with SIGKILL, or a test process that never dropped its sandbox).
fn sweep_stale_roots() {
    for e in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("referee-root-")) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or_default();
        if pid.bytes().all(|b| b.is_ascii_digit()) && !Path::new("/proc").join(pid).exists() {
            // remove_dir: only ever an empty directory.
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// The user and group ids of the moves at `full`, as isolate's boxes have:
/// each move takes an id no other move has had, counting up from a random
/// base per run (far above any account's id), so two agents never share a
/// process count, a user keyring or a file, even across runs.
#[derive(Debug)]
pub(crate) struct Ids {
    base: u32,
    next: std::sync::atomic::AtomicU32,
}

impl Ids {
    /// Ids from 2^30 up: no distribution gives accounts such ids.
    fn new() -> Ids {
        let base = (1 << 30) + (rand::random::<u32>() % (1 << 30)) / 2;
        Ids {
            base,
            next: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// A fresh id for one move (user and group alike).
    pub(crate) fn take(&self) -> u32 {
        self.base + self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % (1 << 29)
    }
}

impl Sandbox {
    /// No confinement and no limits.
    pub(crate) fn none() -> Sandbox {
        Sandbox {
            level: Level::None,
            limits: SandboxLimits::default(),
            read_only: Vec::new(),
            hide: Vec::new(),
            jail: None,
            env: base_env(false),
        }
    }

    /// The sandbox for `choice`; `full` and `full-rootless` fail with
    /// what the machine lacks.
    pub fn new(
        choice: LevelChoice,
        limits: SandboxLimits,
        read_only: Vec<PathBuf>,
        hide: Vec<PathBuf>,
    ) -> Result<Sandbox, String> {
        let mut sb = Sandbox {
            level: Level::Rlimits,
            limits,
            read_only,
            hide,
            jail: None,
            env: base_env(false),
        };
        match choice {
            LevelChoice::None => sb.level = Level::None,
            LevelChoice::Rlimits => {}
            LevelChoice::Full | LevelChoice::FullRootless | LevelChoice::Auto => {
                let support = Support::probe();
                let full_missing = support.full_missing();
                let rootless_missing = support.rootless_missing();
                let delegated = support.delegated;
                let mut cgroup = support.cgroup.ok();
                if choice != LevelChoice::FullRootless && full_missing.is_none() {
                    if let Some(cgroup) = cgroup.take() {
                        sb.jail = Some(Jail::new(Some(cgroup), Some(Ids::new()))?);
                        sb.level = Level::Full;
                        sb.env = base_env(true);
                        return Ok(sb);
                    }
                }
                if choice != LevelChoice::Full && rootless_missing.is_none() {
                    // A cgroup delegated to this user charges all CPU,
                    // that of auto-reaped children too.
                    let cgroup = if delegated { cgroup } else { None };
                    sb.jail = Some(Jail::new(cgroup, None)?);
                    sb.level = Level::FullRootless;
                    sb.env = base_env(true);
                    return Ok(sb);
                }
                let why = if choice == LevelChoice::FullRootless {
                    rootless_missing
                } else {
                    full_missing
                };
                let why = why.unwrap_or_default();
                match choice {
                    LevelChoice::Full => {
                        return Err(format!(
                            "--sandbox full is not available here: {why} (see `referee doctor`)"
                        ))
                    }
                    LevelChoice::FullRootless => {
                        return Err(format!(
                            "--sandbox full-rootless is not available here: {why} (see `referee doctor`)"
                        ))
                    }
                    _ => log::info!("sandbox: full levels unavailable ({why})"),
                }
            }
        }
        Ok(sb)
    }

    /// The run's sandbox line (under 80 columns with the `referee: `
    /// prefix): the level, its main limits and what it leaves open;
    /// `referee doctor` gives the details.
    pub(crate) fn describe(&self) -> String {
        let l = &self.limits;
        let (mib, procs) = (l.memory >> 20, l.max_procs);
        match (&self.level, &self.jail) {
            (Level::Full, Some(j)) => {
                let [m, p] = j.cgroup.as_ref().map_or([None, None], |c| c.mechanisms());
                match (m, p) {
                    (Some(m), Some(p)) if m == p => format!("sandbox: full ({m}: {mib} MiB, {procs} procs a move)"),
                    (Some(m), _) => format!("sandbox: full ({m}: {mib} MiB a move; {procs} procs)"),
                    (None, _) => format!("sandbox: full (cgroup; {mib} MiB a process, {procs} procs)"),
                }
            }
            (Level::FullRootless, Some(j)) if j.cgroup.is_some() => {
                format!("sandbox: full-rootless (delegated cgroup; {mib} MiB a move, {procs} procs)")
            }
            (Level::FullRootless, Some(_)) => {
                format!("sandbox: full-rootless (user namespace, seccomp; {mib} MiB a move, {procs} procs)")
            }
            (Level::None, _) => "sandbox: none (agents trusted; nothing enforced)".into(),
            _ => format!("sandbox: rlimits ({mib} MiB, {procs} procs; agents NOT confined: see doctor)"),
        }
    }
}

/// Builds the run's sandbox for records in `out` and says on stderr which
/// level is in force and what it leaves unenforced.
pub(crate) fn install(opts: &SandboxOpts, out: &Path) -> Result<std::sync::Arc<Sandbox>, String> {
    install_hiding(opts, out, &[])
}

/// [`install`], with `also` covered in every agent's view besides `out`
/// (a grading's class folder and builds).
pub(crate) fn install_hiding(
    opts: &SandboxOpts,
    out: &Path,
    also: &[PathBuf],
) -> Result<std::sync::Arc<Sandbox>, String> {
    let mut sb = opts.build(out)?;
    sb.hide.extend(also.iter().cloned());
    eprintln!("referee: {}", sb.describe());
    if sb.level == Level::FullRootless && sb.jail.as_ref().is_some_and(|j| j.cgroup.is_none()) {
        eprintln!("referee: CPU of auto-reaped children is not charged here (no delegated cgroup: see doctor)");
    }
    if sb.level != Level::None {
        eprintln!("referee: {}", crate::process::workdir::describe());
    }
    Ok(std::sync::Arc::new(sb))
}

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

pub mod cgroup;
pub mod limits;
pub mod namespaces;
pub mod pgroup;
pub(crate) mod spawn;

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

/// Command-line options of the sandbox (flattened into the commands that run agents).
#[derive(clap::Args, Clone, Debug)]
pub struct SandboxOpts {
    /// Confinement of agents: auto (strongest available), full, full-rootless, rlimits or none.
    #[arg(long, value_enum, default_value_t = LevelChoice::Auto, env = "REFEREE_SANDBOX")]
    pub sandbox: LevelChoice,
    /// Memory per agent process (private writable memory; the whole move where cgroups allow), e.g. 2G.
    #[arg(long, default_value = "2G", value_parser = limits::parse_bytes)]
    pub memory: u64,
    /// Largest file an agent may write, e.g. 16M (also caps its captured stdout/stderr).
    #[arg(long, default_value = "16M", value_parser = limits::parse_bytes)]
    pub file_size: u64,
    /// Space an agent may keep in its working directory, checked after each
    /// move (more loses the game), e.g. 64M.
    #[arg(long, default_value = "64M", value_parser = limits::parse_bytes)]
    pub disk: u64,
    /// Processes and threads per agent move.
    #[arg(long, default_value_t = 256)]
    pub max_procs: u64,
    /// Extra directory an agent may read at the full levels (repeatable).
    #[arg(long = "sandbox-ro", value_name = "DIR")]
    pub read_only: Vec<PathBuf>,
    /// Environment variable passed to agents besides PATH, LANG, HOME and
    /// TMPDIR (repeatable); NAME alone passes the referee's value.
    #[arg(long = "env", value_name = "NAME[=VALUE]")]
    pub env: Vec<String>,
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
        if self.disk < MIN_DISK {
            return Err(format!(
                "--disk {} KiB leaves no room for an agent's files (input, output, captured stderr); give at least {} MiB",
                self.disk >> 10,
                MIN_DISK >> 20
            ));
        }
        let limits = SandboxLimits {
            disk: self.disk,
            memory: self.memory,
            file_size: self.file_size,
            max_procs: self.max_procs,
            ..SandboxLimits::default()
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
        let extra = self.env.iter().map(|e| env_entry(e)).collect::<Result<Vec<_>, _>>()?;
        let mut sb = Sandbox::new(self.sandbox, limits, ro, vec![out])?;
        for (k, v) in extra {
            sb.env.retain(|(name, _)| *name != k);
            sb.env.push((k, v));
        }
        Ok(sb)
    }
}

/// One `--env NAME[=VALUE]`: NAME alone takes the referee's own value.
fn env_entry(arg: &str) -> Result<(String, String), String> {
    let (name, value) = match arg.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (arg, None),
    };
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "--env {arg:?}: expected NAME or NAME=VALUE with a name of letters, digits and _"
        ));
    }
    if name == "HOME" {
        return Err("--env HOME: an agent's HOME is always its working directory".into());
    }
    let value = match value {
        Some(v) => v,
        None => std::env::var(name).map_err(|_| {
            format!("--env {name}: {name} is not set in the referee's environment; give a value as --env {name}=VALUE")
        })?,
    };
    if value.contains('\0') {
        return Err(format!("--env {name}: the value contains a NUL byte"));
    }
    Ok((name.to_string(), value))
}

/// The environment every agent gets (before `HOME` and `--env`): the
/// referee's `PATH` (so interpreters resolve as on the user's shell) and
/// `LANG`, and `TMPDIR`: the private `/tmp` where the agent has one.
fn base_env(private_tmp: bool) -> Vec<(String, String)> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.contains('\0'));
    let mut env = vec![
        (
            "PATH".to_string(),
            get("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()),
        ),
        ("LANG".to_string(), get("LANG").unwrap_or_else(|| "C.UTF-8".into())),
    ];
    let tmp = if private_tmp {
        Some("/tmp".to_string())
    } else {
        get("TMPDIR")
    };
    env.extend(tmp.map(|t| ("TMPDIR".to_string(), t)));
    env
}

/// The least `--memory` accepted: below it not even `sh` starts.
pub(crate) const MIN_MEMORY: u64 = 32 << 20;
/// The least `--disk` accepted.
pub(crate) const MIN_DISK: u64 = 1 << 20;
/// The least `--max-procs` accepted: the shell, the agent and a helper.
pub(crate) const MIN_PROCS: u64 = 8;

/// The `full` levels' machinery, created once per run.
#[derive(Debug)]
pub struct Jail {
    /// Parent of the per-move cgroups (`full` only).
    pub cgroup: Option<cgroup::Parent>,
    /// Empty directory each agent's root is mounted on (in its own namespace).
    pub root: PathBuf,
    /// The moves' user and group ids (`full`; rootless the agent is
    /// [`spawn::INNER_ID`] in a user namespace of its own).
    pub ids: Option<Ids>,
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
        Ok(Jail { cgroup, root, ids })
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

/// What this machine offers, for `auto` and `referee doctor`.
#[derive(Debug)]
pub(crate) struct Support {
    /// Running as root (needed for namespaces without a user namespace and for setuid).
    pub root: bool,
    /// A cgroup v2 parent could be created (or why not).
    pub cgroup: Result<cgroup::Parent, String>,
    /// Namespaces could be created (or why not).
    pub namespaces: Result<(), String>,
    /// A rootless sandbox started a shell (or why not).
    pub rootless: Result<(), String>,
}

impl Support {
    /// Probes the machine (creates and removes a cgroup, forks a child).
    pub fn probe() -> Support {
        let root = rustix::process::geteuid().is_root();
        Support {
            root,
            cgroup: cgroup::Parent::create(),
            namespaces: probe_namespaces(),
            rootless: probe_rootless(),
        }
    }

    /// Why `full` is impossible here, or `None` if it is possible.
    pub(crate) fn full_missing(&self) -> Option<String> {
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

    /// Why `full-rootless` is impossible here, or `None` if it is possible.
    pub(crate) fn rootless_missing(&self) -> Option<String> {
        if self.root {
            // A user namespace can map only the referee's own user: root
            // outside would give agents root's access to every file shown.
            return Some("the referee runs as root (use --sandbox full)".into());
        }
        self.rootless.as_ref().err().cloned()
    }
}

/// Starts `exit 0` in a rootless sandbox: user namespaces can be switched
/// off (a sysctl, AppArmor, seccomp in containers), so only trying tells.
fn probe_rootless() -> Result<(), String> {
    if rustix::process::geteuid().is_root() {
        return Err("not tried as root".into());
    }
    let base = std::env::temp_dir().join(format!("referee-probe-{}", std::process::id()));
    let (root, work) = (base.join("root"), base.join("work"));
    let made = std::fs::create_dir_all(&root).and_then(|()| std::fs::create_dir_all(&work));
    let result = made
        .map_err(|e| format!("cannot create {}: {e}", base.display()))
        .and_then(|()| try_rootless(&root, &work));
    let _ = std::fs::remove_dir_all(&base);
    result
}

fn try_rootless(root: &Path, work: &Path) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let null = std::fs::File::open("/dev/null").map_err(|e| format!("cannot open /dev/null: {e}"))?;
    let plan = namespaces::MountPlan::new(root, work, &[], &[], 1 << 20);
    let launch = spawn::Launch {
        script: c"exit 0".into(),
        dir: std::ffi::CString::new(work.as_os_str().as_encoded_bytes()).unwrap_or_default(),
        stdio: [null.as_raw_fd(); 3],
        env: vec![c"PATH=/usr/bin:/bin".into()],
        limits: None,
        confine: Some(spawn::Confine {
            cgroup: None,
            plan: &plan,
            identity: spawn::Identity::Mapped(spawn::UserMaps::for_self()),
        }),
    };
    let mut started = spawn::spawn(&launch).map_err(|e| e.to_string())?;
    let mut status = 0;
    // SAFETY: waitpid on the child just started.
    unsafe { libc::waitpid(started.pid, &mut status, 0) };
    match started.agent_status(status) {
        0 => Ok(()),
        st => Err(format!("a shell in the sandbox ended with wait status {st}")),
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
pub struct Ids {
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
    pub fn take(&self) -> u32 {
        self.base + self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % (1 << 29)
    }
}

impl Sandbox {
    /// No confinement and no limits.
    pub fn none() -> Sandbox {
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
                if choice != LevelChoice::FullRootless {
                    if let (None, Ok(cgroup)) = (&full_missing, support.cgroup) {
                        sb.jail = Some(Jail::new(Some(cgroup), Some(Ids::new()))?);
                        sb.level = Level::Full;
                        sb.env = base_env(true);
                        return Ok(sb);
                    }
                }
                if choice != LevelChoice::Full && rootless_missing.is_none() {
                    sb.jail = Some(Jail::new(None, None)?);
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
    pub fn describe(&self) -> String {
        let l = &self.limits;
        let (mib, procs) = (l.memory >> 20, l.max_procs);
        match (&self.level, &self.jail) {
            (Level::Full, Some(j)) => {
                let whole = j.cgroup.as_ref().is_some_and(|c| c.memory && c.pids);
                let per = if whole { "a move" } else { "a process" };
                format!("sandbox: full (namespaces, cgroup; {mib} MiB {per}, {procs} procs)")
            }
            (Level::FullRootless, Some(_)) => {
                format!("sandbox: full-rootless (user namespace; {mib} MiB a process, {procs} procs)")
            }
            (Level::None, _) => "sandbox: none (agents trusted; nothing enforced)".into(),
            _ => format!("sandbox: rlimits ({mib} MiB, {procs} procs; agents NOT confined: see doctor)"),
        }
    }
}

/// Builds the run's sandbox for records in `out` and says on stderr which
/// level is in force and what it leaves unenforced.
pub fn install(opts: &SandboxOpts, out: &Path) -> Result<std::sync::Arc<Sandbox>, String> {
    let sb = opts.build(out)?;
    eprintln!("referee: {}", sb.describe());
    if sb.level != Level::None {
        eprintln!("referee: {}", crate::process::workdir::describe());
    }
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
    out += &match s.rootless_missing() {
        None => "user namespaces (rootless): yes\n".to_string(),
        Some(why) => format!("user namespaces (rootless): no: {why}\n"),
    };
    out += "rlimits:                   yes (always)\n";
    out += &format!("working directories:       {}\n", crate::process::workdir::describe());
    out += &match (s.full_missing(), s.rootless_missing()) {
        (None, _) => "--sandbox auto will use:   full\n".to_string(),
        (Some(_), None) => {
            "--sandbox auto will use:   full-rootless (memory and processes limited per process)\n".to_string()
        }
        (Some(why), Some(rl)) => {
            format!("--sandbox auto will use:   rlimits (full needs: {why}; full-rootless: {rl})\n")
        }
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_arguments_are_checked_in_words() {
        assert_eq!(env_entry("A_1=x=y").unwrap(), ("A_1".to_string(), "x=y".to_string()));
        for (arg, says) in [
            ("1A=x", "expected NAME or NAME=VALUE"),
            ("=x", "expected NAME or NAME=VALUE"),
            ("A-B=x", "expected NAME or NAME=VALUE"),
            ("HOME=/x", "always its working directory"),
            (
                "REFEREE_SURELY_UNSET_VARIABLE",
                "is not set in the referee's environment",
            ),
        ] {
            let e = env_entry(arg).unwrap_err();
            assert!(e.contains(says), "{arg}: {e}");
        }
    }

    #[test]
    fn the_base_environment_has_a_path_and_a_language() {
        let env = base_env(true);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", "LANG", "TMPDIR"]);
        assert_eq!(env[2].1, "/tmp", "a private /tmp");
    }
}

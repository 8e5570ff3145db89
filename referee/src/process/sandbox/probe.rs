//! What this machine offers the sandbox (root, a writable cgroup v2,
//! namespaces, user namespaces), found by trying: `--sandbox auto` and
//! `referee doctor`.

use super::{cgroup, namespaces, spawn};
use std::path::Path;

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
    /// Rootless, the cgroup is a subtree delegated to the referee's user
    /// (by systemd) that a rootless move can be started in.
    pub delegated: bool,
}

impl Support {
    /// Probes the machine (creates and removes a cgroup, forks a child).
    pub(crate) fn probe() -> Support {
        let root = rustix::process::geteuid().is_root();
        let cgroup = cgroup::Parent::create();
        let rootless = probe_rootless(None);
        let delegated = rootless.is_ok() && cgroup.as_ref().is_ok_and(|p| probe_rootless(Some(p)).is_ok());
        Support {
            root,
            cgroup,
            namespaces: probe_namespaces(),
            rootless,
            delegated,
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
fn probe_rootless(cgroup: Option<&cgroup::Parent>) -> Result<(), String> {
    if rustix::process::geteuid().is_root() {
        return Err("not tried as root".into());
    }
    let base = std::env::temp_dir().join(format!("referee-probe-{}", std::process::id()));
    let (root, work) = (base.join("root"), base.join("work"));
    let made = std::fs::create_dir_all(&root).and_then(|()| std::fs::create_dir_all(&work));
    let result = made
        .map_err(|e| format!("cannot create {}: {e}", base.display()))
        .and_then(|()| try_rootless(&root, &work, cgroup));
    let _ = std::fs::remove_dir_all(&base);
    result
}

fn try_rootless(root: &Path, work: &Path, cgroup: Option<&cgroup::Parent>) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let null = std::fs::File::open("/dev/null").map_err(|e| format!("cannot open /dev/null: {e}"))?;
    let plan = namespaces::MountPlan::new(root, work, &[], &[], 1 << 20);
    let leaf = cgroup
        .map(|p| p.leaf(256 << 20, 64))
        .transpose()
        .map_err(|e| format!("cannot create a cgroup for a move: {e}"))?;
    let launch = spawn::Launch {
        exec: spawn::Exec::shell(c"exit 0".into()),
        dir: std::ffi::CString::new(work.as_os_str().as_encoded_bytes()).unwrap_or_default(),
        stdio: [null.as_raw_fd(); 3],
        env: vec![c"PATH=/usr/bin:/bin".into()],
        limits: None,
        confine: Some(spawn::Confine {
            cgroup: leaf.as_ref().map(cgroup::Leaf::fd),
            join: Vec::new(),
            filter: None,
            plan: &plan,
            view: None,
            net: None,
            identity: spawn::Identity::Mapped(spawn::UserMaps::for_self()),
        }),
    };
    let mut started = spawn::spawn(&launch).map_err(|e| e.to_string())?;
    let status = super::pgroup::wait4(started.pid, 0).map_or(-1, |(_, status, _)| status);
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

/// What holds a move's memory and process count at the level `auto` picks.
fn bounds(s: &Support) -> String {
    match (&s.cgroup, s.full_missing(), s.rootless_missing()) {
        (Ok(p), None, _) => match p.mechanisms() {
            [Some(m), Some(n)] => format!("per move at full: memory by {m}, processes by {n}"),
            [Some(m), None] => format!("per move at full: memory by {m}; processes per user (RLIMIT_NPROC)"),
            _ => "per process at full (no memory controller in cgroup v2 or v1)".into(),
        },
        (Ok(p), _, None) if s.delegated => match p.mechanisms() {
            [Some(m), _] => format!("per move at full-rootless: memory by {m} (a delegated cgroup)"),
            _ => "per move at full-rootless: the referee sums the resident memory of the move's processes (the delegated cgroup has no memory controller)".into(),
        },
        (_, _, None) => "per move at full-rootless: the referee sums the resident memory of the move's processes; seccomp refuses memfd, SysV shared memory and nested user namespaces (--allow gives them back)".into(),
        _ => "per process (rlimits)".into(),
    }
}

/// The report of `referee doctor`.
pub(crate) fn doctor() -> String {
    let s = Support::probe();
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = String::new();
    out += &format!("running as root:           {}\n", yes(s.root));
    out += &match &s.cgroup {
        Ok(p) => format!(
            "cgroup v2 (writable):      yes, {} (memory.max: {}, pids.max: {})\n",
            p.dir().parent().unwrap_or(p.dir()).display(),
            yes(p.mechanisms()[0] == Some("cgroup v2")),
            yes(p.mechanisms()[1] == Some("cgroup v2"))
        ),
        Err(e) => format!("cgroup v2 (writable):      no: {e}\n"),
    };
    out += &format!("memory and processes:      {}\n", bounds(&s));
    out += &match &s.namespaces {
        Ok(()) => "namespaces (mnt/pid/net/ipc/uts): yes\n".to_string(),
        Err(e) => format!("namespaces (mnt/pid/net/ipc/uts): no: {e}\n"),
    };
    out += &match s.rootless_missing() {
        None if s.delegated => "user namespaces (rootless): yes, in a delegated cgroup (all CPU charged)\n".to_string(),
        None => "user namespaces (rootless): yes; CPU of children an agent lets the kernel reap (SIGCHLD ignored) is not charged: run the referee in a cgroup delegated to you, e.g. systemd-run --user --scope -p Delegate=yes referee ...\n".to_string(),
        Some(why) => format!("user namespaces (rootless): no: {why}\n"),
    };
    out += "rlimits:                   yes (always)\n";
    out += &format!("working directories:       {}\n", crate::process::workdir::describe());
    out += &match (s.full_missing(), s.rootless_missing()) {
        (None, _) => "--sandbox auto will use:   full\n".to_string(),
        (Some(_), None) => {
            "--sandbox auto will use:   full-rootless (memory summed over the move's processes)\n".to_string()
        }
        (Some(why), Some(rl)) => {
            format!("--sandbox auto will use:   rlimits (full needs: {why}; full-rootless: {rl})\n")
        }
    };
    out
}

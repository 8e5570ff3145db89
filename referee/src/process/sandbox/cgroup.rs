//! cgroup v2: one leaf cgroup per agent move, under a parent the referee
//! creates inside its own cgroup. The leaf's `cpu.stat` counts the CPU of
//! every process that was ever in it (the kernel adds each task's time as it
//! runs and keeps it after the task exits), and a child created with
//! CLONE_INTO_CGROUP cannot leave it: setsid, double forks and daemons stay
//! in the leaf, are charged to the move and die with `cgroup.kill`.
//! Memory and process limits come from the v2 controllers where they are
//! delegated, otherwise from the v1 hierarchies ([`super::cgroup_v1`]).

use super::cgroup_v1::{Controller, V1Leaf, V1Parent};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The cgroup v2 directory this process belongs to, or why there is none.
pub(crate) fn own_cgroup() -> Result<PathBuf, String> {
    let info = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    // mountinfo: id parent major:minor root mountpoint opts ... - fstype source superopts
    let (root, mount) = info
        .lines()
        .find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            if right.split_whitespace().next()? != "cgroup2" {
                return None;
            }
            let f: Vec<&str> = left.split_whitespace().collect();
            Some((f.get(3)?.to_string(), PathBuf::from(f.get(4)?)))
        })
        .ok_or("no cgroup v2 file system is mounted (only cgroup v1, or none)")?;
    let own =
        std::fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    let path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .ok_or("this process has no cgroup v2 membership in /proc/self/cgroup")?;
    // The mount may show a subtree (a container's cgroup namespace root).
    let rel = Path::new(path).strip_prefix(&root).unwrap_or(Path::new(path));
    let rel = rel.strip_prefix("/").unwrap_or(rel);
    Ok(mount.join(rel))
}

/// Removes the cgroups of referees that no longer run, ending what is
/// left in their leaves.
fn sweep_stale(own: &Path) {
    for dir in super::cgroup_v1::stale(own) {
        for leaf in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if leaf.path().is_dir() {
                let _ = std::fs::write(leaf.path().join("cgroup.kill"), "1");
                let _ = std::fs::remove_dir(leaf.path());
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
}

/// The referee's own cgroup for this run's moves; removed on drop.
#[derive(Debug)]
pub(crate) struct Parent {
    dir: PathBuf,
    next: AtomicU64,
    /// A move's memory is limited as a whole (v2 `memory.max` or v1).
    pub memory: bool,
    /// The v2 controllers themselves are delegated.
    v2: [bool; 2],
    /// The v1 hierarchies that stand in for missing v2 controllers.
    v1: Option<V1Parent>,
}

impl Parent {
    /// Creates `referee-<pid>-<n>` in this process's cgroup and enables the
    /// memory and pids controllers for its leaves where the hierarchy offers
    /// them (on a hybrid v1/v2 machine it offers none: only `cpu.stat` and
    /// `cgroup.kill`, which every v2 cgroup has).
    pub(crate) fn create() -> Result<Parent, String> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let own = own_cgroup()?;
        sweep_stale(&own);
        let dir = own.join(format!(
            "referee-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create a cgroup in {}: {e}", own.display()))?;
        if !dir.join("cgroup.kill").exists() {
            let _ = std::fs::remove_dir(&dir);
            return Err("the kernel has no cgroup.kill (Linux 5.14 or later is needed)".into());
        }
        let offered = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
        let enable = |c: &str| {
            offered.split_whitespace().any(|o| o == c)
                && std::fs::write(dir.join("cgroup.subtree_control"), format!("+{c}")).is_ok()
        };
        let v2 = [enable("memory"), enable("pids")];
        let wanted: Vec<Controller> = [(v2[0], Controller::Memory), (v2[1], Controller::Pids)]
            .iter()
            .filter(|(has, _)| !has)
            .map(|&(_, c)| c)
            .collect();
        let v1 = V1Parent::create(&wanted);
        let in_v1 = |c| v1.as_ref().is_some_and(|p| p.has(c));
        Ok(Parent {
            dir,
            next: AtomicU64::new(0),
            memory: v2[0] || in_v1(Controller::Memory),
            v2,
            v1,
        })
    }

    /// Where each whole-move limit comes from, for `doctor` and the run's
    /// first line: `(memory, pids)`, each "cgroup v2", "cgroup v1" or
    /// `None`.
    pub(crate) fn mechanisms(&self) -> [Option<&'static str>; 2] {
        let v1 = |c| self.v1.as_ref().is_some_and(|p| p.has(c)).then_some("cgroup v1");
        [
            self.v2[0].then_some("cgroup v2").or_else(|| v1(Controller::Memory)),
            self.v2[1].then_some("cgroup v2").or_else(|| v1(Controller::Pids)),
        ]
    }

    /// The parent's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// A new empty leaf for one move, with the memory and process limits set
    /// where the controllers are available.
    pub(crate) fn leaf(&self, memory: u64, pids: u64) -> std::io::Result<Leaf> {
        let dir = self.dir.join(format!("m{}", self.next.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir(&dir)?;
        let leaf = Leaf {
            dir_fd: File::open(&dir)?,
            cpu_stat: File::open(dir.join("cpu.stat"))?,
            dir,
            v2_memory: self.v2[0],
            v1: self.v1.as_ref().map(|p| p.leaf(memory, pids)).transpose()?,
        };
        if self.v2[0] {
            std::fs::write(leaf.dir.join("memory.max"), memory.to_string())?;
            // Swap would let a move exceed its memory; absent without swap accounting.
            let _ = std::fs::write(leaf.dir.join("memory.swap.max"), "0");
        }
        if self.v2[1] {
            std::fs::write(leaf.dir.join("pids.max"), pids.to_string())?;
        }
        Ok(leaf)
    }
}

impl Drop for Parent {
    fn drop(&mut self) {
        // The moves' leaves are removed by the closer thread: they go first.
        crate::process::closer::flush();
        let _ = std::fs::remove_dir(&self.dir);
        // Again at the end: a killed referee's moves may still have been
        // exiting when this run started.
        if let Some(own) = self.dir.parent() {
            sweep_stale(own);
        }
    }
}

/// One move's cgroup; killed and removed on drop (the runner hands it to
/// [`crate::process::closer`] once the move is ended and read).
#[derive(Debug)]
pub(crate) struct Leaf {
    dir: PathBuf,
    dir_fd: File,
    cpu_stat: File,
    /// `memory.max` is set on it (else the v1 leaf holds the limit).
    v2_memory: bool,
    /// The move's v1 leaves, removed after the v2 leaf has ended them.
    v1: Option<V1Leaf>,
}

impl Leaf {
    /// The open directory, for CLONE_INTO_CGROUP.
    pub(crate) fn fd(&self) -> &File {
        &self.dir_fd
    }

    /// The `tasks` files of the move's v1 leaves, which the child joins.
    pub(crate) fn v1_tasks(&self) -> impl Iterator<Item = std::os::fd::RawFd> + '_ {
        self.v1.iter().flat_map(V1Leaf::tasks)
    }

    /// Whether the kernel's memory limit ended a process of the move.
    pub(crate) fn oom_killed(&self) -> bool {
        let v2 = self.v2_memory
            && std::fs::read_to_string(self.dir.join("memory.events")).is_ok_and(|s| {
                s.lines()
                    .any(|l| l.strip_prefix("oom_kill ").is_some_and(|n| n.trim() != "0"))
            });
        v2 || self.v1.as_ref().is_some_and(V1Leaf::oom_killed)
    }

    /// How often the move has pressed its memory limit: a charge refused
    /// at the limit, or a process ended for it (v2 `memory.events` `max`,
    /// `oom` and `oom_kill`; v1 `memory.failcnt` and `oom_kill`); 0 where
    /// no memory controller limits the leaf.
    pub(crate) fn memory_pressed(&self) -> u64 {
        let v2 = if self.v2_memory {
            let events = std::fs::read_to_string(self.dir.join("memory.events")).unwrap_or_default();
            events
                .lines()
                .filter_map(|l| l.split_once(' '))
                .filter(|(k, _)| matches!(*k, "max" | "oom" | "oom_kill"))
                .filter_map(|(_, n)| n.trim().parse::<u64>().ok())
                .sum()
        } else {
            0
        };
        v2 + self.v1.as_ref().map_or(0, V1Leaf::failcnt)
    }

    /// Whether no memory controller limits the leaf (the referee counts).
    pub(crate) fn memory_uncharged(&self) -> bool {
        !self.v2_memory && !self.v1.as_ref().is_some_and(V1Leaf::has_memory)
    }

    /// The processes in the leaf now.
    pub(crate) fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// CPU seconds used by every process that has been in the leaf.
    pub(crate) fn cpu(&self) -> f64 {
        let mut buf = [0u8; 512];
        let n = self.cpu_stat.read_at(&mut buf, 0).unwrap_or(0);
        let text = std::str::from_utf8(&buf[..n]).unwrap_or("");
        text.lines()
            .find_map(|l| l.strip_prefix("usage_usec "))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(0.0, |us| us as f64 * 1e-6)
    }

    /// SIGKILLs every process in the leaf and waits (up to 5 s) until it is
    /// empty.
    pub(crate) fn kill(&self) {
        // The usual end of a move: the agent exited and left nothing. Only
        // a member can add to the leaf (by forking), so an empty one stays
        // empty, and `cgroup.kill` would take the cgroup tree's global
        // lock that the other workers' moves wait on to start and end.
        if self.empty() {
            return;
        }
        let _ = File::options()
            .write(true)
            .open(self.dir.join("cgroup.kill"))
            .and_then(|mut f| f.write_all(b"1"));
        let start = Instant::now();
        while self.populated() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Whether the kernel says the leaf holds no process (`false` where
    /// it cannot be read).
    pub(crate) fn empty(&self) -> bool {
        self.events_say("populated 0")
    }

    fn populated(&self) -> bool {
        self.events_say("populated 1")
    }

    /// Whether `cgroup.events` could be read and holds the line `line`.
    fn events_say(&self, line: &str) -> bool {
        std::fs::read_to_string(self.dir.join("cgroup.events")).is_ok_and(|s| s.lines().any(|l| l == line))
    }
}

impl Drop for Leaf {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

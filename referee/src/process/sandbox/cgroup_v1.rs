//! cgroup v1 `memory` and `pids` hierarchies, as isolate uses them: on a
//! hybrid machine whose cgroup v2 offers no memory or pids controller (the
//! v1 hierarchies hold them), each move also gets a leaf in each v1
//! hierarchy. The move's child joins them itself, as root, before anything
//! of the agent runs (v1 has no CLONE_INTO_CGROUP), so every page the move
//! touches (anonymous memory, memfd, SysV shared memory, tmpfs files) and
//! every task it starts is charged to the leaf from the first instruction.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A v1 controller the referee uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Controller {
    /// `memory.limit_in_bytes` per move.
    Memory,
    /// `pids.max` per move.
    Pids,
}

impl Controller {
    fn name(self) -> &'static str {
        match self {
            Controller::Memory => "memory",
            Controller::Pids => "pids",
        }
    }
}

/// This process's cgroup directory in the v1 hierarchy of `c`, if one is
/// mounted and this process is in it.
fn own_dir(c: Controller) -> Option<PathBuf> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // mountinfo: id parent major:minor root mountpoint opts ... - fstype source superopts
    let (root, mount) = info.lines().find_map(|l| {
        let (left, right) = l.split_once(" - ")?;
        let r: Vec<&str> = right.split_whitespace().collect();
        if r.first() != Some(&"cgroup") || !r.get(2)?.split(',').any(|o| o == c.name()) {
            return None;
        }
        let f: Vec<&str> = left.split_whitespace().collect();
        Some((f.get(3)?.to_string(), PathBuf::from(f.get(4)?)))
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // Lines: id:controller[,controller...]:path
    let path = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, ctl, path) = (parts.next()?, parts.next()?, parts.next()?);
        ctl.split(',').any(|x| x == c.name()).then(|| path.to_string())
    })?;
    let rel = Path::new(&path).strip_prefix(&root).unwrap_or(Path::new(&path));
    let rel = rel.strip_prefix("/").unwrap_or(rel);
    Some(mount.join(rel))
}

/// The cgroups `referee-PID-N` in `own` whose referee no longer runs
/// (killed with SIGKILL, or a test process that never dropped its sandbox):
/// the v1 and the v2 hierarchies name the run's cgroups alike.
pub(super) fn stale(own: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(own)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let pid = name
                .to_str()
                .and_then(|n| n.strip_prefix("referee-")?.split('-').next())
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            pid.is_some_and(|p| !Path::new("/proc").join(p).exists())
        })
        .map(|e| e.path())
        .collect()
}

/// Removes the v1 cgroups of referees that no longer run (their moves'
/// processes died with them: the agents have a parent-death signal).
fn sweep_stale(own: &Path) {
    for dir in stale(own) {
        for leaf in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let _ = std::fs::remove_dir(leaf.path());
        }
        let _ = std::fs::remove_dir(&dir);
    }
}

/// The run's parents in the v1 hierarchies it could write to.
#[derive(Debug)]
pub(crate) struct V1Parent {
    dirs: Vec<(Controller, PathBuf)>,
    next: AtomicU64,
}

impl V1Parent {
    /// Creates `referee-<pid>-<n>` in this process's cgroup of each wanted
    /// controller that has a writable v1 hierarchy; `None` when none has.
    pub(crate) fn create(wanted: &[Controller]) -> Option<V1Parent> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let dirs: Vec<(Controller, PathBuf)> = wanted
            .iter()
            .filter_map(|&c| {
                let own = own_dir(c)?;
                sweep_stale(&own);
                let dir = own.join(format!("referee-{}-{n}", std::process::id()));
                std::fs::create_dir(&dir).ok()?;
                Some((c, dir))
            })
            .collect();
        (!dirs.is_empty()).then(|| V1Parent {
            dirs,
            next: AtomicU64::new(0),
        })
    }

    /// Whether this parent holds controller `c`.
    pub(crate) fn has(&self, c: Controller) -> bool {
        self.dirs.iter().any(|(d, _)| *d == c)
    }

    /// A new leaf in each hierarchy with the move's limits set.
    pub(crate) fn leaf(&self, memory: u64, pids: u64) -> std::io::Result<V1Leaf> {
        let name = format!("m{}", self.next.fetch_add(1, Ordering::Relaxed));
        let mut leaf = V1Leaf {
            dirs: Vec::new(),
            tasks: Vec::new(),
        };
        for (c, parent) in &self.dirs {
            let dir = parent.join(&name);
            std::fs::create_dir(&dir)?;
            leaf.dirs.push((*c, dir.clone()));
            match c {
                Controller::Memory => {
                    std::fs::write(dir.join("memory.limit_in_bytes"), memory.to_string())?;
                    // With swap accounting, swap may not stretch the limit.
                    let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), memory.to_string());
                }
                Controller::Pids => std::fs::write(dir.join("pids.max"), pids.to_string())?,
            }
            // `tasks`, not `cgroup.procs`: the child, one thread, moves
            // itself (`0`), which the kernel does without the global
            // write lock on every thread group; through `cgroup.procs`
            // that lock waits out an RCU grace period whenever the cgroup
            // tree has been quiet for a moment: 6.5-10 ms, against
            // 0.6 ms (timed on a 6.18 kernel, 40 writes 30 ms apart).
            leaf.tasks.push(File::options().write(true).open(dir.join("tasks"))?);
        }
        Ok(leaf)
    }
}

impl Drop for V1Parent {
    fn drop(&mut self) {
        for (_, d) in &self.dirs {
            let _ = std::fs::remove_dir(d);
            // As the v2 parent does: a killed referee's moves may still
            // have been exiting when this run started.
            if let Some(own) = d.parent() {
                sweep_stale(own);
            }
        }
    }
}

/// One move's v1 leaves; removed on drop (once the move's processes are
/// gone: the v2 leaf beside it kills them first).
#[derive(Debug)]
pub(crate) struct V1Leaf {
    dirs: Vec<(Controller, PathBuf)>,
    /// Each leaf's `tasks`, open for writing: the child writes `0`
    /// (itself, still its only thread) into each before it executes the
    /// agent.
    tasks: Vec<File>,
}

impl V1Leaf {
    /// The descriptors the child joins the leaves through.
    pub(crate) fn tasks(&self) -> impl Iterator<Item = RawFd> + '_ {
        self.tasks.iter().map(|f| f.as_raw_fd())
    }

    /// Whether a memory leaf is among them.
    pub(crate) fn has_memory(&self) -> bool {
        self.dirs.iter().any(|(c, _)| *c == Controller::Memory)
    }

    /// The memory leaf's charges refused at the limit (`memory.failcnt`)
    /// and processes ended for it (`oom_kill` in `memory.oom_control`).
    pub(crate) fn failcnt(&self) -> u64 {
        let Some((_, d)) = self.dirs.iter().find(|(c, _)| *c == Controller::Memory) else {
            return 0;
        };
        let read = |f: &str| std::fs::read_to_string(d.join(f)).unwrap_or_default();
        let failed = read("memory.failcnt").trim().parse().unwrap_or(0);
        let oom = read("memory.oom_control");
        let killed = oom
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok());
        failed + killed.unwrap_or(0)
    }

    /// Whether the kernel's memory limit ended a process of the move.
    pub(crate) fn oom_killed(&self) -> bool {
        self.dirs.iter().any(|(c, d)| {
            *c == Controller::Memory
                && std::fs::read_to_string(d.join("memory.oom_control")).is_ok_and(|s| {
                    s.lines()
                        .any(|l| l.strip_prefix("oom_kill ").is_some_and(|n| n.trim() != "0"))
                })
        })
    }
}

impl Drop for V1Leaf {
    fn drop(&mut self) {
        for (_, d) in &self.dirs {
            // Tasks that were just killed may take a moment to leave.
            for _ in 0..50 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

//! Prepared views for the `full` level's moves as root: the agent's whole
//! file-system view but for its `/tmp`, its `/proc` and its working
//! directory, built once per working directory and command (so per seat
//! of one game: one agent's) and kept as a mount namespace. Building the
//! view in each move (a tmpfs root, the system directories' overlays,
//! `/dev`, the program directories, then a switch of root and an unmount
//! of the host's tree) costs an RCU grace period per move for the
//! unmount alone. Instead the move's child enters a copy of its prepared
//! view (`setns`, then `unshare`: a copy of a dozen mounts) and mounts
//! only what is its own: a fresh `/tmp` and what lies below it, its
//! working directory and its `/proc`
//! ([`super::namespaces::enter_prepared`]).
//!
//! Why a view may be kept: it is only ever lent to the moves of one agent
//! in one game (its key holds the working directory), one move at a time
//! and only once the move's processes are ended; it holds nothing
//! writable (its root, overlays and binds are read-only, and what an agent
//! may write, `/tmp` and its working directory, is mounted in the move's
//! own copy, which ends with the move); and an agent, unprivileged in the
//! copy, cannot change the view itself. A lock the agent takes through
//! the view's overlays lands on inodes no other agent's view has. The few
//! views last used longest ago are let go.
//!
//! Rootless moves cannot enter a view (it belongs to the referee's user
//! namespace, where they have no capability): they build their own. Where
//! a view cannot be built, moves build their own too.

use super::namespaces::{build_view, MountPlan};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;

/// How many views are kept when not lent: a few games' seats at a time.
const KEPT: usize = 8;

/// How the pool builds views: each built is logged with its number; after
/// the first failure (logged once, with what moves do instead) it builds
/// no more.
#[derive(Debug)]
struct Making {
    /// How a made one is logged: `prepared view` and `built` give
    /// `sandbox: prepared view 3 built`.
    what: (&'static str, &'static str),
    /// How the first failure is logged: `prepared views` and `each move
    /// builds its own` give `sandbox: no prepared views (ERROR): each move
    /// builds its own`.
    failed: (&'static str, &'static str),
    broken: std::sync::atomic::AtomicBool,
    made: std::sync::atomic::AtomicU32,
}

impl Making {
    const fn new(what: (&'static str, &'static str), failed: (&'static str, &'static str)) -> Making {
        Making {
            what,
            failed,
            broken: std::sync::atomic::AtomicBool::new(false),
            made: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// What `make` makes; `None` if it fails, or failed before.
    fn make<T>(&self, make: impl FnOnce() -> std::io::Result<T>) -> Option<T> {
        use std::sync::atomic::Ordering::Relaxed;
        if self.broken.load(Relaxed) {
            return None;
        }
        match make() {
            Ok(made) => {
                let n = self.made.fetch_add(1, Relaxed) + 1;
                log::debug!("sandbox: {} {n} {}", self.what.0, self.what.1);
                Some(made)
            }
            Err(e) => {
                if !self.broken.swap(true, Relaxed) {
                    log::info!("sandbox: no {} ({e}): {}", self.failed.0, self.failed.1);
                }
                None
            }
        }
    }
}

/// A prepared view: its plan's key, its mount namespace and the seat's
/// network namespace ([`super::netns`]; `None` until one is made, or
/// where none can be).
#[derive(Debug)]
struct View {
    key: Vec<u8>,
    ns: OwnedFd,
    net: Option<OwnedFd>,
}

/// The views not lent out, the last used last.
#[derive(Debug)]
pub(crate) struct ViewPool {
    free: Mutex<Vec<View>>,
    /// Builds the views; once one could not be built, moves build their own.
    making: Making,
    /// Makes the seats' network namespaces; once one could not be made,
    /// each move has one made with it.
    nets: Making,
}

impl Default for ViewPool {
    fn default() -> ViewPool {
        ViewPool {
            free: Mutex::new(Vec::new()),
            making: Making::new(
                ("prepared view", "built"),
                ("prepared views", "each move builds its own"),
            ),
            nets: Making::new(
                ("seat's network namespace", "made"),
                ("network namespaces kept for a seat", "each move has its own"),
            ),
        }
    }
}

/// A view lent to one move: given back to the pool when dropped, its
/// network namespace with it only if [`ViewLease::ended`] said the move
/// left no process and the namespace holds no socket.
pub(crate) struct ViewLease<'a> {
    pool: &'a ViewPool,
    view: Option<View>,
    /// Set by [`ViewLease::ended`]: no process of the move is left.
    ended: bool,
}

impl ViewPool {
    /// Lends the view `plan` describes: a kept one, or a new one (`None`
    /// where none can be built: the move then builds its own).
    pub(crate) fn lend(&self, plan: &MountPlan) -> Option<ViewLease<'_>> {
        if !plan.preparable() {
            return None;
        }
        let kept = {
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            let at = free.iter().rposition(|v| v.key.as_slice() == plan.key());
            at.map(|i| free.remove(i))
        };
        let mut view = kept.or_else(|| self.making.make(|| new_view(plan)))?;
        if view.net.is_none() {
            view.net = self.nets.make(super::netns::make);
        }
        Some(ViewLease {
            pool: self,
            view: Some(view),
            ended: false,
        })
    }
}

impl ViewLease<'_> {
    /// The view's mount namespace, for setns(2) in the move's child.
    pub(crate) fn ns(&self) -> Option<BorrowedFd<'_>> {
        self.view.as_ref().map(|v| v.ns.as_fd())
    }

    /// The seat's network namespace, for setns(2) in the move's child
    /// (`None`: the child has one made at clone time).
    pub(crate) fn net(&self) -> Option<BorrowedFd<'_>> {
        self.view.as_ref()?.net.as_ref().map(|n| n.as_fd())
    }

    /// Says that the move is over and none of its processes is left (its
    /// cgroup is empty): its network namespace may then be kept.
    pub(crate) fn ended(&mut self) {
        self.ended = true;
    }
}

impl Drop for ViewLease<'_> {
    fn drop(&mut self) {
        let Some(mut view) = self.view.take() else { return };
        view.net = view
            .net
            .take()
            .filter(|_| self.ended)
            .and_then(super::netns::keep_if_empty);
        let mut free = self.pool.free.lock().unwrap_or_else(|p| p.into_inner());
        free.push(view);
        if free.len() > KEPT {
            // Unmounting a view waits for the kernel: not on a move's path.
            crate::process::closer::drop_later(free.remove(0));
        }
    }
}

/// Builds the view of `plan` in a thread of its own (a mount namespace is
/// a thread's, so the referee's other threads keep theirs).
fn new_view(plan: &MountPlan) -> std::io::Result<View> {
    let ns = std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: a new mount namespace (and, implied, file-system
            // context) for this thread alone, which ends after the build.
            unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS) }?;
            let ns: OwnedFd = std::fs::File::open("/proc/thread-self/ns/mnt")?.into();
            build_view(plan).map_err(|(step, errno)| {
                let e = std::io::Error::from(errno);
                std::io::Error::new(e.kind(), format!("{}: {e}", plan.describe(step)))
            })?;
            Ok(ns)
        })
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("the thread building a view panicked")))
    })?;
    Ok(View {
        key: plan.key().to_vec(),
        ns,
        net: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_is_lent_to_one_move_at_a_time_and_kept_for_the_next() {
        let base = std::env::temp_dir().join(format!("referee-views-{}", std::process::id()));
        let (root, work) = (base.join("root"), base.join("work"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let plan = MountPlan::new(&root, &work, &[], &[], 1 << 20);
        let pool = ViewPool::default();
        if !rustix::process::geteuid().is_root() {
            // A mount namespace of its own needs root here.
            assert!(pool.lend(&plan).is_none());
            std::fs::remove_dir_all(&base).unwrap();
            return;
        }
        let ns = |l: &ViewLease<'_>| rustix::fs::fstat(l.ns().unwrap()).unwrap().st_ino;
        let first = pool.lend(&plan).expect("root can build a view");
        assert_ne!(
            ns(&first),
            rustix::fs::stat("/proc/self/ns/mnt").unwrap().st_ino,
            "a namespace of its own"
        );
        let second = pool.lend(&plan).unwrap();
        assert_ne!(ns(&first), ns(&second), "never lent twice at once");
        let kept = ns(&first);
        drop(first);
        let again = pool.lend(&plan).unwrap();
        assert_eq!(ns(&again), kept, "the view given back is lent again");
        // Another working directory is another view.
        let other = MountPlan::new(&root, &base, &[], &[], 1 << 20);
        let third = pool.lend(&other).unwrap();
        assert!(ns(&third) != kept && ns(&third) != ns(&second));
        drop((second, again, third));
        assert_eq!(pool.free.lock().unwrap().len(), 3);
        drop(pool);
        crate::process::closer::flush();
        std::fs::remove_dir_all(&base).unwrap();
    }
}

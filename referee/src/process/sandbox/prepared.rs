//! Prepared views for the `full` level's moves as root: the agent's whole
//! file-system view but for its `/tmp`, its `/proc` and its working
//! directory, built once per
//! working directory and command and kept as a mount namespace, as
//! [`super::netns`] keeps network namespaces. A move used to copy the
//! referee's mount namespace at clone time, build the view in the copy
//! (a tmpfs root, the system directories' overlays, `/dev`, the program
//! directories, its working directory), switch root and unmount the
//! host's tree; the unmount alone waits out an RCU grace period, 0.2 ms
//! and up to 1 ms of the move's wall time when other moves' teardowns
//! queue for the same grace period. Now the move's child enters a copy of
//! the prepared view (`setns`, then `unshare`: a copy of a dozen mounts)
//! and mounts only what is its own: a fresh `/tmp` and what lies below it,
//! its working directory and its `/proc`
//! ([`super::namespaces::enter_prepared`]).
//!
//! A view is lent to one move at a time and given back once the move's
//! processes are ended, like the pools it replaces for these moves: its
//! overlays are its own (a lock an agent takes through them is seen by a
//! later move only once its taker is dead), and its working directory is
//! one agent's in one game, whose moves come one after another anyway. Its
//! root and everything shown in it are read-only to the agent; what an
//! agent may write (`/tmp`, its working directory) is the move's own or
//! its own. The few views last used longest ago are let go.
//!
//! Rootless moves cannot enter a view (it belongs to the referee's user
//! namespace, where they have no capability): they build their own, as
//! before. Where a view cannot be built, moves build their own too.

use super::namespaces::{build_view, MountPlan};
use super::Making;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

/// How many views are kept when not lent: a few games' seats at a time.
const KEPT: usize = 8;

/// A prepared view: its plan's key and its mount namespace.
#[derive(Debug)]
struct View {
    key: Vec<u8>,
    ns: OwnedFd,
}

/// The views not lent out, the last used last.
#[derive(Debug)]
pub(crate) struct ViewPool {
    free: Mutex<Vec<View>>,
    /// Builds the views; once one could not be built, moves build their own.
    making: Making,
}

impl Default for ViewPool {
    fn default() -> ViewPool {
        ViewPool {
            free: Mutex::new(Vec::new()),
            making: Making::new(
                ("prepared view", "built"),
                ("prepared views", "each move builds its own"),
            ),
        }
    }
}

/// A view lent to one move: given back to the pool when dropped.
pub(crate) struct ViewLease<'a> {
    pool: &'a ViewPool,
    view: Option<View>,
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
        let view = kept.or_else(|| self.making.make(|| new_view(plan)))?;
        Some(ViewLease {
            pool: self,
            view: Some(view),
        })
    }
}

impl ViewLease<'_> {
    /// The view's mount namespace, for setns(2) in the move's child.
    pub(crate) fn fd(&self) -> RawFd {
        self.view.as_ref().map_or(-1, |v| v.ns.as_raw_fd())
    }
}

impl Drop for ViewLease<'_> {
    fn drop(&mut self) {
        let Some(view) = self.view.take() else { return };
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
            build_view(plan).map_err(|step| {
                let e = std::io::Error::last_os_error();
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
        let ns = |l: &ViewLease<'_>| {
            // SAFETY: the lease's descriptor stays open while it is borrowed.
            let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(l.fd()) };
            rustix::fs::fstat(fd).unwrap().st_ino
        };
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

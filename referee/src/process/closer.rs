//! What is slow to close, closed off the move's path: a thread of its own
//! drops what a finished move leaves (its cgroups), and another holds
//! each move's mount namespace and lets it go once the move is over
//! ([`View`]), so the next move, and the referee waiting for this one's
//! end, do not wait for the kernel's teardown.

use std::sync::mpsc::{channel, sync_channel, Sender, SyncSender};
use std::sync::OnceLock;

type Item = Box<dyn Send>;

/// The closer thread's queue; `None` when the thread could not start.
fn queue() -> Option<&'static Sender<Item>> {
    static CLOSER: OnceLock<Option<Sender<Item>>> = OnceLock::new();
    CLOSER
        .get_or_init(|| {
            let (tx, rx) = channel::<Item>();
            let closer = move || rx.into_iter().for_each(drop);
            std::thread::Builder::new()
                .name("view-closer".into())
                .spawn(closer)
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// A move's mount namespace, held from the move's start so that the
/// agent's exit does not tear it down on the move's path; dropping it lets
/// the namespace go, away from the path (see [`drop_later`]).
///
/// The namespace is held by a descriptor in the table of a thread of its
/// own (unshared from the referee's), not in the referee's table: every
/// move's child starts with a copy of that table, and when the referee
/// closed a view while another move's child still had its copy, that
/// child's exec dropped the namespace's last reference, so the next agent
/// waited out the teardown's RCU grace period, and was charged for it, at
/// its first instruction (about one move in six at `--concurrency 2`).
pub(crate) struct View(Option<Held>);

/// Where a [`View`] is held.
enum Held {
    /// By the view thread, under this number.
    Away(u64),
    /// Here (where the view thread could not start).
    Here(std::fs::File),
}

/// What the view thread is asked: hold the mount namespace of a process
/// under a number, or let one go.
enum ViewOrder {
    Hold(u64, i32),
    Release(u64),
}

/// The view thread's queue; `None` when it could not start or could not
/// have a table of its own.
fn views() -> Option<&'static Sender<ViewOrder>> {
    static VIEWS: OnceLock<Option<Sender<ViewOrder>>> = OnceLock::new();
    VIEWS
        .get_or_init(|| {
            let (tx, rx) = channel::<ViewOrder>();
            let (ready_tx, ready) = sync_channel(1);
            let holder = move || {
                if !own_table() {
                    let _ = ready_tx.send(false);
                    return;
                }
                let _ = ready_tx.send(true);
                let mut held = std::collections::HashMap::new();
                for order in rx {
                    match order {
                        ViewOrder::Hold(n, pid) => {
                            // Fails if the move has already ended: its exit
                            // tore the namespace down, as without a view.
                            if let Ok(f) = std::fs::File::open(format!("/proc/{pid}/ns/mnt")) {
                                held.insert(n, f);
                            }
                        }
                        ViewOrder::Release(n) => drop(held.remove(&n)),
                    }
                }
            };
            let started = std::thread::Builder::new().name("view-holder".into()).spawn(holder);
            (started.is_ok() && ready.recv() == Ok(true)).then_some(tx)
        })
        .as_ref()
}

/// Gives the calling thread a descriptor table of its own, holding only
/// the standard streams: the copies of the referee's other descriptors
/// that unsharing made are closed at once, so none of them outlives the
/// referee's own.
fn own_table() -> bool {
    // SAFETY: unshare(CLONE_FILES) changes only this thread's table;
    // close_range then closes this thread's copies, which nothing in this
    // thread uses (it opens its own files afterwards).
    unsafe {
        libc::unshare(libc::CLONE_FILES) == 0
            && libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                0 as libc::c_uint,
            ) == 0
    }
}

/// The mount namespace of the move whose first process is `pid`, held
/// until the returned [`View`] is dropped. The process must not have been
/// reaped yet (its pid could be another's by the time the view thread
/// looks: a wrap of the whole pid space, so only in principle, and then
/// another namespace would be held a little while, nothing more).
pub(crate) fn hold_view(pid: i32) -> Option<View> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    match views() {
        Some(tx) => {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tx.send(ViewOrder::Hold(n, pid))
                .ok()
                .map(|()| View(Some(Held::Away(n))))
        }
        None => std::fs::File::open(format!("/proc/{pid}/ns/mnt"))
            .ok()
            .map(|f| View(Some(Held::Here(f)))),
    }
}

impl Drop for View {
    fn drop(&mut self) {
        match self.0.take() {
            Some(Held::Away(n)) => {
                if let Some(tx) = views() {
                    let _ = tx.send(ViewOrder::Release(n));
                }
            }
            Some(Held::Here(f)) => drop_later(f),
            None => {}
        }
    }
}

/// Drops `what` away from the move's path, once nothing of the move runs.
/// Closing a move's mount namespace waits out an RCU grace period
/// (`namespace_unlock`), and removing its cgroups takes the cgroup tree's
/// locks: the referee, waiting for the agent's exit or starting the next
/// move, would sit idle. If the thread cannot start, `what` drops here.
pub(crate) fn drop_later<T: Send + 'static>(what: T) {
    if let Some(tx) = queue() {
        // A send fails only if the thread has gone; the item drops here then.
        let _ = tx.send(Box::new(what));
    }
}

/// Waits until everything given to [`drop_later`] so far is dropped (a
/// run's cgroup can be removed only once its moves' leaves are).
pub(crate) fn flush() {
    /// Tells the waiter, when dropped, that everything queued before it was.
    struct Ack(SyncSender<()>);
    impl Drop for Ack {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let Some(tx) = queue() else { return };
    let (ack, done) = sync_channel(1);
    if tx.send(Box::new(Ack(ack))).is_ok() {
        let _ = done.recv();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The links to this process's own mount namespace (which a child
    /// without a namespace of its own shares) in the descriptor table of
    /// /proc/self/task/`task`; other tests' moves have namespaces of their own.
    fn mount_views(task: &str) -> usize {
        let ours = std::fs::read_link("/proc/self/ns/mnt").unwrap();
        let Ok(dir) = std::fs::read_dir(format!("/proc/self/task/{task}/fd")) else {
            return 0;
        };
        dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .filter(|l| *l == ours)
            .count()
    }

    /// The view thread's task id.
    fn view_thread() -> Option<String> {
        std::fs::read_dir("/proc/self/task").ok()?.find_map(|e| {
            let e = e.ok()?;
            let name = std::fs::read_to_string(e.path().join("comm")).ok()?;
            (name.trim() == "view-holder").then(|| e.file_name().to_string_lossy().into_owned())
        })
    }

    fn wait_for(what: impl Fn() -> bool) -> bool {
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if what() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    #[test]
    fn a_view_is_held_outside_the_table_children_copy() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let view = hold_view(child.id() as i32).expect("a view");
        assert!(matches!(view.0, Some(Held::Away(_))), "the view thread did not start");
        let holder = view_thread().expect("the view thread runs");
        assert!(wait_for(|| mount_views(&holder) >= 1), "the view thread holds nothing");
        // The referee's own table (what a move's child copies) holds no view.
        let me = std::process::id().to_string();
        assert_eq!(mount_views(&me), 0);
        drop(view);
        assert!(wait_for(|| mount_views(&holder) == 0), "the view was not let go");
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

//! What is slow to close, closed off the move's path: a thread of its own
//! drops what a finished move leaves (its mount namespace, its cgroups),
//! so the next move, and the referee waiting for this one's end, do not
//! wait for the kernel's teardown.

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

/// The mount namespace of the move whose first process is `pid`, held
/// from its start so that the agent's exit does not tear it down (see
/// [`drop_later`]).
pub(crate) fn hold_view(pid: i32) -> Option<std::fs::File> {
    std::fs::File::open(format!("/proc/{pid}/ns/mnt")).ok()
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

//! What is slow to close, closed off the move's path.

/// The mount namespace of the move whose first process is `pid`, held
/// from its start so that the agent's exit does not tear it down (see
/// [`drop_later`]).
pub(super) fn hold_view(pid: i32) -> Option<std::fs::File> {
    std::fs::File::open(format!("/proc/{pid}/ns/mnt")).ok()
}

/// Closes the move's mount namespace away from the move's path. The
/// referee holds it open from the start, so the agent's last process does
/// not tear it down on exit: that teardown waits out an RCU grace period
/// (`namespace_unlock`), and the referee, waiting for that exit, would sit
/// idle. A thread of its own closes it instead, once nothing of the move
/// runs; if that thread cannot start, the descriptor closes here.
pub(super) fn drop_later(ns: Option<std::fs::File>) {
    let Some(ns) = ns else { return };
    use std::sync::mpsc::{channel, Sender};
    static CLOSER: std::sync::OnceLock<Option<Sender<std::fs::File>>> = std::sync::OnceLock::new();
    let tx = CLOSER.get_or_init(|| {
        let (tx, rx) = channel::<std::fs::File>();
        let closer = move || rx.into_iter().for_each(drop);
        std::thread::Builder::new()
            .name("view-closer".into())
            .spawn(closer)
            .ok()
            .map(|_| tx)
    });
    if let Some(tx) = tx {
        let _ = tx.send(ns);
    }
}

//! The network namespace of one seat in one game (`full` as root): made
//! with the seat's prepared view ([`super::prepared`]), joined by each of
//! the seat's moves (`setns` in the child, instead of a namespace made at
//! clone time), and kept for the seat's next move only when the move left
//! nothing in it. Otherwise it is let go, and the seat's next move gets a
//! new one. Making a network namespace and tearing it down costs the
//! machine about 0.4 ms of CPU, more than many moves of a grading take;
//! the check costs a few microseconds.
//!
//! Why "no socket" is "nothing left": the namespace belongs to the
//! referee's user namespace, and the agent is an unprivileged user with
//! no capability in it. It cannot add an address, a route, a filter or a
//! setting, nor bring its loopback up. What it can make there is sockets
//! (a Unix socket, abstract or not, a netlink socket, an unbound one), and
//! the namespace counts every one it holds, whether an open descriptor or
//! only a descriptor in flight keeps it alive (`sockets: used` in its
//! `/proc/net/sockstat`; the kernel's own sockets are not counted). The
//! count is read once the move's cgroup is empty: no process of the move
//! is left to make another. A namespace is never lent to two seats, nor
//! to two moves at once (it travels with the view's lease).
//!
//! Both the making and the check run in one thread of the referee's, which
//! enters the namespace (a network namespace is a thread's own) and comes
//! back to its own. If it cannot come back, it stops, and every move makes
//! its own namespace again.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::mpsc::{channel, sync_channel, Sender, SyncSender};
use std::sync::{Mutex, OnceLock};

use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};

/// What the namespace thread is asked.
enum Order {
    /// Make a new namespace.
    Make(SyncSender<std::io::Result<OwnedFd>>),
    /// Say whether this namespace holds no socket (and give it back).
    Check(OwnedFd, SyncSender<(OwnedFd, bool)>),
}

/// The namespace thread's queue; `None` once it could not start.
fn thread() -> Option<&'static Mutex<Sender<Order>>> {
    static THREAD: OnceLock<Option<Mutex<Sender<Order>>>> = OnceLock::new();
    THREAD
        .get_or_init(|| {
            let home: OwnedFd = File::open("/proc/thread-self/ns/net").ok()?.into();
            let (tx, rx) = channel::<Order>();
            let serve = move || {
                for order in rx {
                    // Each answer is given once the thread is back home.
                    let home_again = match order {
                        Order::Make(reply) => {
                            let made = make_here();
                            let back = made.is_err() || go_home(&home).is_ok();
                            let _ = reply.send(made.and_then(|ns| {
                                back.then_some(ns).ok_or_else(|| std::io::Error::other("no way back"))
                            }));
                            back
                        }
                        Order::Check(ns, reply) => {
                            let (entered, used) = sockets_in(&ns);
                            let back = !entered || go_home(&home).is_ok();
                            let _ = reply.send((ns, used == Some(0) && back));
                            back
                        }
                    };
                    if !home_again {
                        log::warn!("sandbox: the network namespace thread could not return to its own namespace; each move makes its own");
                        return;
                    }
                }
            };
            let started = std::thread::Builder::new().name("netns".into()).spawn(serve);
            started.ok().map(|_| Mutex::new(tx))
        })
        .as_ref()
}

fn ask<T>(order: impl FnOnce(SyncSender<T>) -> Order) -> Option<T> {
    let (tx, rx) = sync_channel(1);
    let sent = thread()?.lock().unwrap_or_else(|p| p.into_inner()).send(order(tx));
    sent.ok()?;
    rx.recv().ok()
}

fn go_home(home: &OwnedFd) -> std::io::Result<()> {
    Ok(move_into_link_name_space(
        home.as_fd(),
        Some(LinkNameSpaceType::Network),
    )?)
}

/// A new network namespace (the calling thread is left in it, unless
/// this fails).
fn make_here() -> std::io::Result<OwnedFd> {
    // SAFETY: CLONE_NEWNET changes only this thread's network namespace
    // (the namespace thread's, which then returns to its own); no
    // descriptor table or file-system context is unshared.
    unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNET) }?;
    Ok(File::open("/proc/thread-self/ns/net")?.into())
}

/// Whether the calling thread entered `ns` (and is left there), and the
/// sockets `ns` holds (`None` if it cannot be entered or read).
fn sockets_in(ns: &OwnedFd) -> (bool, Option<u64>) {
    if move_into_link_name_space(ns.as_fd(), Some(LinkNameSpaceType::Network)).is_err() {
        return (false, None);
    }
    let mut text = String::new();
    let read = File::open("/proc/thread-self/net/sockstat").and_then(|f| f.take(4096).read_to_string(&mut text));
    let used = text.lines().find_map(|l| l.strip_prefix("sockets: used "));
    (true, read.ok().and(used).and_then(|u| u.trim().parse().ok()))
}

/// A new network namespace for a seat.
pub(crate) fn make() -> std::io::Result<OwnedFd> {
    ask(Order::Make).unwrap_or_else(|| Err(std::io::Error::other("the network namespace thread is not running")))
}

/// `ns` again if it holds no socket (so may serve the seat's next move);
/// `None` (and the namespace let go) otherwise.
pub(crate) fn keep_if_empty(ns: OwnedFd) -> Option<OwnedFd> {
    let (ns, empty) = ask(|reply| Order::Check(ns, reply))?;
    empty.then_some(ns)
}

/// Has the kernel collect the Unix sockets that no process holds any
/// more, only descriptors in flight (as an agent can leave them, each in
/// its own queue): its collector runs when a Unix socket is closed, and
/// nothing else on a machine may close one for a long time. Until then they
/// keep their namespace, their queued data (megabytes a move) and their
/// count against the descriptors in flight their user may have (rootless,
/// the referee's own user for every move). Called once a move is over.
pub(crate) fn collect_sockets() {
    drop(std::os::unix::net::UnixDatagram::unbound());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_is_kept_only_while_it_holds_no_socket() {
        if !rustix::process::geteuid().is_root() {
            // Making a network namespace needs root here.
            assert!(make().is_err());
            return;
        }
        let ours = rustix::fs::stat("/proc/self/ns/net").unwrap().st_ino;
        let ns = make().expect("root can make a network namespace");
        assert_ne!(rustix::fs::fstat(&ns).unwrap().st_ino, ours, "a namespace of its own");
        let ns = keep_if_empty(ns).expect("a new namespace holds no socket");
        // A socket made in it, whose descriptor the test holds.
        let sock = std::thread::scope(|s| {
            s.spawn(|| {
                move_into_link_name_space(ns.as_fd(), Some(LinkNameSpaceType::Network)).unwrap();
                std::os::unix::net::UnixDatagram::unbound().unwrap()
            })
            .join()
            .unwrap()
        });
        let (ns, empty) = ask(|reply| Order::Check(ns, reply)).unwrap();
        assert!(!empty, "a namespace holding a socket is not empty");
        drop(sock);
        let ns = keep_if_empty(ns).expect("empty again once the socket is closed");
        // The thread came back: what it makes next is another namespace.
        let other = make().unwrap();
        assert_ne!(
            rustix::fs::fstat(&other).unwrap().st_ino,
            rustix::fs::fstat(&ns).unwrap().st_ino
        );
        assert_eq!(rustix::fs::stat("/proc/self/ns/net").unwrap().st_ino, ours);
    }
}

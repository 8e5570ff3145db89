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
//! A namespace is made in a short-lived thread of its own (a network
//! namespace is a thread's), and checked by the thread that ran the move,
//! which enters it and comes back ([`keep_if_empty`]).

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};

thread_local! {
    /// The calling thread's own network namespace, to come back to after
    /// a check (read before its first: it never stays in another).
    static HOME: Option<OwnedFd> = File::open("/proc/thread-self/ns/net").ok().map(OwnedFd::from);
}

/// Set once a thread could not come back from a check: no more checks,
/// so no namespace is kept (each move makes its own).
static STUCK: AtomicBool = AtomicBool::new(false);

fn go_home(home: &OwnedFd) -> std::io::Result<()> {
    Ok(move_into_link_name_space(
        home.as_fd(),
        Some(LinkNameSpaceType::Network),
    )?)
}

/// Whether the calling thread entered `ns` (and is left there), and the
/// sockets `ns` holds (`None` if it cannot be entered or read).
fn sockets_in(ns: &OwnedFd) -> (bool, Option<u64>) {
    if move_into_link_name_space(ns.as_fd(), Some(LinkNameSpaceType::Network)).is_err() {
        return (false, None);
    }
    let mut buf = [0u8; 1024];
    let n = File::open("/proc/thread-self/net/sockstat").and_then(|f| f.take(1024).read(&mut buf));
    let text = std::str::from_utf8(&buf[..n.unwrap_or(0)]).unwrap_or("");
    let used = text.lines().find_map(|l| l.strip_prefix("sockets: used "));
    (true, used.and_then(|u| u.trim().parse().ok()))
}

/// A new network namespace for a seat, made in a thread of its own (a
/// network namespace is a thread's, and that thread ends with the making).
pub(crate) fn make() -> std::io::Result<OwnedFd> {
    std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: CLONE_NEWNET changes only this thread's network
            // namespace (a thread that ends right after); no descriptor
            // table or file-system context is unshared.
            unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNET) }?;
            Ok(File::open("/proc/thread-self/ns/net")?.into())
        })
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("the thread making a network namespace panicked")))
    })
}

/// `ns` again if it holds no socket (so may serve the seat's next move);
/// `None` (and the namespace let go) otherwise. The calling thread enters
/// `ns` to read its count, right after its move, and comes back: a check
/// handed to another thread waited for that thread to be scheduled, on a
/// machine whose cores the agents keep busy. A thread that cannot come
/// back (only when the kernel is out of memory) stays in a namespace that
/// holds nothing and reaches nothing, and no agent ever runs in it (each
/// move joins its seat's or has one made at clone time); no namespace is
/// kept after that.
pub(crate) fn keep_if_empty(ns: OwnedFd) -> Option<OwnedFd> {
    if STUCK.load(Ordering::Relaxed) {
        return None;
    }
    HOME.with(|home| {
        let home = home.as_ref()?;
        let (entered, used) = sockets_in(&ns);
        if entered && go_home(home).is_err() {
            STUCK.store(true, Ordering::Relaxed);
            log::warn!(
                "sandbox: a thread could not return to its own network namespace; each move makes its own from now on"
            );
            return None;
        }
        (used == Some(0)).then_some(ns)
    })
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
        let ours = rustix::fs::stat("/proc/thread-self/ns/net").unwrap().st_ino;
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
        let fd = ns.as_fd().try_clone_to_owned().unwrap();
        assert!(keep_if_empty(ns).is_none(), "a namespace holding a socket is not empty");
        drop(sock);
        let ns = keep_if_empty(fd).expect("empty again once the socket is closed");
        // The thread came back to its own namespace.
        let other = make().unwrap();
        assert_ne!(
            rustix::fs::fstat(&other).unwrap().st_ino,
            rustix::fs::fstat(&ns).unwrap().st_ino
        );
        assert_eq!(rustix::fs::stat("/proc/thread-self/ns/net").unwrap().st_ino, ours);
    }
}

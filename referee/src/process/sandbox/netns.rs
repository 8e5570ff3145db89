//! Network namespaces without network for the `full` level's moves, made
//! once and lent out: a move used to get a new one at clone time, whose
//! set-up (a loopback device, its sysctls) and teardown (a kernel worker's
//! `cleanup_net`) were the largest part of a sandboxed move's cost after
//! the agent itself. A namespace is lent to one move at a time and given
//! back only after the move's processes are ended, so no two live agents
//! ever share one (an abstract Unix socket, the only thing an unprivileged
//! agent can make there, lives no longer than its process); its loopback
//! stays down, and only root could change that.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

/// The namespaces not lent out.
#[derive(Debug, Default)]
pub(crate) struct NetPool {
    free: Mutex<Vec<OwnedFd>>,
}

/// A namespace lent to one move: given back to the pool when dropped.
pub(crate) struct NetLease<'a> {
    pool: &'a NetPool,
    fd: Option<OwnedFd>,
}

impl NetPool {
    /// Lends a namespace: a free one, or a new one (`None` where none can
    /// be made: the move then gets a new one at clone time, as before).
    pub(crate) fn lend(&self) -> Option<NetLease<'_>> {
        let free = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let fd = free.or_else(|| new_namespace().ok())?;
        Some(NetLease {
            pool: self,
            fd: Some(fd),
        })
    }
}

impl NetLease<'_> {
    /// The namespace's descriptor, for setns(2) in the move's child.
    pub(crate) fn fd(&self) -> RawFd {
        self.fd.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }
}

impl Drop for NetLease<'_> {
    fn drop(&mut self) {
        if let Some(fd) = self.fd.take() {
            self.pool.free.lock().unwrap_or_else(|p| p.into_inner()).push(fd);
        }
    }
}

/// A new network namespace, made in a thread of its own (a namespace is a
/// thread's, so the referee's other threads keep theirs) and held by a
/// descriptor.
fn new_namespace() -> std::io::Result<OwnedFd> {
    std::thread::spawn(|| {
        crate::process::workdir::unshare(rustix::thread::UnshareFlags::NEWNET)?;
        Ok(std::fs::File::open("/proc/thread-self/ns/net")?.into())
    })
    .join()
    .unwrap_or_else(|_| Err(std::io::Error::other("the namespace's thread panicked")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_namespace_comes_back_and_is_lent_again() {
        if !rustix::process::geteuid().is_root() {
            // Rootless moves make their own (the pool is for `full`).
            assert!(NetPool::default().lend().is_none());
            return;
        }
        let pool = NetPool::default();
        let first = pool.lend().expect("root can make a network namespace");
        let ino = |fd: RawFd| {
            std::fs::metadata(format!("/proc/self/fd/{fd}")).map(|m| std::os::unix::fs::MetadataExt::ino(&m))
        };
        let own = std::fs::metadata("/proc/self/ns/net").map(|m| std::os::unix::fs::MetadataExt::ino(&m));
        let made = ino(first.fd()).unwrap();
        assert_ne!(Some(made), own.ok(), "a namespace of its own, not the referee's");
        let second = pool.lend().unwrap();
        assert_ne!(ino(second.fd()).unwrap(), made, "never lent twice at once");
        drop((first, second));
        let again = pool.lend().unwrap();
        assert!(ino(again.fd()).is_ok());
        assert_eq!(pool.free.lock().unwrap().len(), 1);
    }
}

//! The `full` level's read-only overlays of the system directories, made
//! once and lent out (as [`super::netns`] lends network namespaces). Each
//! system directory is shown to an agent as an overlay of its own, so that
//! a lock it takes lands on the overlay's inode, never on the host's (see
//! [`super::namespaces`]). A move used to mount its overlays itself (one
//! per system directory that is not a link: 3 on a merged-/usr system, up
//! to 9) and destroy them with its mount namespace: every superblock freed
//! waits for an expedited RCU grace period (`ovl_free_fs`), measured at
//! 0.2-0.6 ms of wall time per move against plain binds.
//!
//! Now the referee makes a set of overlays as detached mounts (the new
//! mount API: `fsopen`, `fsconfig`, `fsmount`), and a move's child, in its
//! new mount namespace, attaches a clone of each (`open_tree` with
//! `OPEN_TREE_CLONE`, then `move_mount`): the clone is a new mount of the
//! same superblock, so the move makes and destroys mounts only, and the
//! set's own detached mounts outlive the move's namespace. Checked on
//! Linux 6.18: the child, in the mount namespace clone3 gave it, may clone
//! a detached mount the referee made with `fsmount` (and so may the
//! referee itself), so nothing is cloned in the referee before `clone3`.
//! Where the kernel refuses (older kernels clone no mount outside the
//! caller's namespace), the referee finds out when it makes a set and
//! keeps none; if a child still cannot attach one, it mounts an
//! overlay itself, or binds, as before.
//!
//! A set is lent to one move at a time and given back only after the
//! move's processes are ended, so a lock an agent takes through it (which
//! ends with its process or descriptor) is only ever seen by a later move
//! once its taker is dead. The overlays are read-only, without an upper
//! layer: nothing else of a move stays in them.

use super::host_mounts::{devices, system_dirs, System, DEV_LINKS};
use super::Making;
use rustix::fs::{openat, symlinkat, Mode, OFlags, CWD};
use rustix::mount::{
    fsconfig_create, fsconfig_set_string, fsmount, fsopen, move_mount, open_tree, FsMountFlags, FsOpenFlags,
    MountAttrFlags, MoveMountFlags, OpenTreeFlags,
};
use std::ffi::CStr;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One overlay per entry of [`system_dirs`] (`None` for a link or a
/// directory an overlay cannot show), then the agent's `/dev` at
/// [`dev_slot`] (`None` if it could not be made): detached mounts.
pub(crate) type Set = Vec<Option<OwnedFd>>;

/// The sets not lent out.
#[derive(Debug)]
pub(crate) struct OverlayPool {
    free: Mutex<Vec<Set>>,
    /// The overlays' second, empty lower layer (the kernel wants two lower
    /// layers where there is no upper one): the jail's empty root.
    empty: PathBuf,
    /// Makes the sets; once one could not be made, moves mount their own.
    making: Making,
}

/// A set lent to one move: given back to the pool when dropped.
pub(crate) struct OverlayLease<'a> {
    pool: &'a OverlayPool,
    set: Option<Set>,
}

impl OverlayPool {
    /// A pool of sets whose empty lower layer is the directory `empty`.
    pub(crate) fn new(empty: PathBuf) -> OverlayPool {
        OverlayPool {
            free: Mutex::new(Vec::new()),
            empty,
            making: Making::new(
                ("overlay set", "made"),
                ("lasting overlays", "each move mounts its own"),
            ),
        }
    }

    /// Lends a set: a free one, or a new one (`None` where none can be
    /// made, e.g. not root: the move then mounts its own overlays).
    pub(crate) fn lend(&self) -> Option<OverlayLease<'_>> {
        let free = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let set = free.or_else(|| self.making.make(|| new_set(&self.empty)))?;
        Some(OverlayLease {
            pool: self,
            set: Some(set),
        })
    }
}

impl OverlayLease<'_> {
    /// The set's mounts, for [`attach`] in the move's child.
    pub(crate) fn set(&self) -> &[Option<OwnedFd>] {
        self.set.as_deref().unwrap_or_default()
    }
}

impl Drop for OverlayLease<'_> {
    fn drop(&mut self) {
        if let Some(set) = self.set.take() {
            self.pool.free.lock().unwrap_or_else(|p| p.into_inner()).push(set);
        }
    }
}

/// A set of detached overlays, one per overlayable system directory.
/// Fails too where the kernel will not clone them (as moves do, see
/// [`attach`]; older kernels clone no mount outside the caller's own
/// namespace): a set nobody could attach is not kept.
fn new_set(empty: &Path) -> std::io::Result<Set> {
    let mut set: Set = system_dirs()
        .iter()
        .map(|(dir, what)| match what {
            System::Dir { kept, overlay: true } => overlay(dir, empty, *kept).map(Some),
            _ => Ok(None),
        })
        .collect::<std::io::Result<_>>()?;
    if let Some(fd) = set.iter().flatten().next() {
        open_tree(fd, c"", OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::AT_EMPTY_PATH)?;
    }
    // Where the kernel will not build it, each move makes its own /dev.
    set.push(
        dev_tree()
            .inspect_err(|e| log::debug!("sandbox: no lasting /dev ({e})"))
            .ok(),
    );
    Ok(set)
}

/// Where a [`Set`] holds its `/dev`: after one slot per system directory.
pub(crate) fn dev_slot() -> usize {
    system_dirs().len()
}

/// The agent's `/dev` as one detached tree: a small tmpfs (root's, mode
/// 0755) holding the host's devices, each bound onto a file of its name,
/// and the links to `/proc/self/fd`. A move attaches it with one recursive
/// clone instead of a file, a bind and a remount per device (15 system
/// calls). The device mounts keep the host's own `/dev` flags and are not
/// made nosuid: a device node is never executed.
fn dev_tree() -> std::io::Result<OwnedFd> {
    let fs = fsopen("tmpfs", FsOpenFlags::FSOPEN_CLOEXEC)?;
    fsconfig_set_string(&fs, "mode", "0755")?;
    fsconfig_set_string(&fs, "size", "64k")?;
    fsconfig_create(&fs)?;
    let attrs =
        MountAttrFlags::MOUNT_ATTR_NOSUID | MountAttrFlags::MOUNT_ATTR_NODEV | MountAttrFlags::MOUNT_ATTR_NOEXEC;
    let tree = fsmount(&fs, FsMountFlags::FSMOUNT_CLOEXEC, attrs)?;
    let name = |p: &'static str| p.strip_prefix("/dev/").unwrap_or(p);
    for (dev, _) in devices() {
        let dev = dev
            .to_str()
            .ok_or_else(|| std::io::Error::other("a device name not in UTF-8"))?;
        let file = OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC;
        drop(openat(&tree, name(dev), file, Mode::from_raw_mode(0o644))?);
        let bound = open_tree(
            CWD,
            dev,
            OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC,
        )?;
        move_mount(&bound, c"", &tree, name(dev), MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH)?;
    }
    for (at, to) in DEV_LINKS {
        symlinkat(*to, &tree, name(at))?;
    }
    Ok(tree)
}

/// A read-only, nosuid, nodev overlay of `dir` over `empty` as a detached
/// mount, with the flags of `dir`'s own mount (`kept`: a noexec /opt stays
/// so). `lowerdir+` takes one layer per call, so no path needs escaping.
fn overlay(dir: &Path, empty: &Path, kept: libc::c_ulong) -> std::io::Result<OwnedFd> {
    let fs = fsopen("overlay", FsOpenFlags::FSOPEN_CLOEXEC)?;
    fsconfig_set_string(&fs, "lowerdir+", dir)?;
    fsconfig_set_string(&fs, "lowerdir+", empty)?;
    fsconfig_create(&fs)?;
    Ok(fsmount(&fs, FsMountFlags::FSMOUNT_CLOEXEC, attributes(kept))?)
}

/// The mount attributes of a set's overlay: read-only, nosuid, nodev, and
/// the source's noexec and atime flags.
fn attributes(kept: libc::c_ulong) -> MountAttrFlags {
    let mut a =
        MountAttrFlags::MOUNT_ATTR_RDONLY | MountAttrFlags::MOUNT_ATTR_NOSUID | MountAttrFlags::MOUNT_ATTR_NODEV;
    for (ms, attr) in [
        (libc::MS_NOEXEC, MountAttrFlags::MOUNT_ATTR_NOEXEC),
        (libc::MS_NOATIME, MountAttrFlags::MOUNT_ATTR_NOATIME),
        (libc::MS_NODIRATIME, MountAttrFlags::MOUNT_ATTR_NODIRATIME),
    ] {
        if kept & ms != 0 {
            a |= attr;
        }
    }
    a
}

/// Attaches a clone of the detached mount `set` at `dst`, with the mounts
/// below it if `tree`. Runs in the move's child between clone and exec:
/// system calls only (rustix's are raw, and a `&CStr` path is passed
/// without a copy), nothing allocated.
pub(super) fn attach(set: &OwnedFd, dst: &CStr, tree: bool) -> bool {
    let mut flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | OpenTreeFlags::AT_EMPTY_PATH;
    if tree {
        flags |= OpenTreeFlags::AT_RECURSIVE;
    }
    open_tree(set, c"", flags).is_ok_and(|clone| {
        move_mount(
            &clone,
            c"",
            rustix::fs::CWD,
            dst,
            MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
        )
        .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_set_comes_back_and_is_lent_again() {
        let base = std::env::temp_dir().join(format!("referee-overlays-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let pool = OverlayPool::new(base.clone());
        if !rustix::process::geteuid().is_root() {
            // Making a superblock needs root in the initial namespace.
            assert!(pool.lend().is_none());
            std::fs::remove_dir(&base).unwrap();
            return;
        }
        let first = pool.lend().expect("root can make detached overlays");
        let mounts = |s: &[Option<OwnedFd>]| {
            s.iter()
                .flatten()
                .map(|fd| rustix::fs::fstat(fd).map(|st| (st.st_dev, st.st_ino)).unwrap())
                .collect::<Vec<_>>()
        };
        let made = mounts(first.set());
        assert!(!made.is_empty(), "at least /usr or /etc is a directory");
        let etc = rustix::fs::stat("/etc").unwrap().st_dev;
        assert!(
            made.iter().all(|(dev, _)| *dev != etc),
            "overlays, not the host's mounts"
        );
        let second = pool.lend().unwrap();
        assert_ne!(mounts(second.set()), made, "never lent twice at once");
        drop(first);
        let again = pool.lend().unwrap();
        assert_eq!(mounts(again.set()), made, "the set given back is lent again");
        assert_eq!(pool.making.made(), 2);
        drop((second, again));
        drop(pool);
        std::fs::remove_dir(&base).unwrap();
    }
}

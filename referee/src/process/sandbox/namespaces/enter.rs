//! The child's side of [`super::MountPlan`]: building the view and
//! entering it ([`enter`]), building a prepared view once
//! ([`build_view`]), and entering a copy of one ([`enter_prepared`]).
//! Everything here but [`build_view`] runs in the child between clone and
//! exec: system calls on the plan's prepared C strings only (rustix's, which
//! allocate nothing for a `&CStr` path).

use super::{MountPlan, Step};
use rustix::fs::{Mode, OFlags, CWD};
use rustix::io::Errno;
use rustix::mount::{move_mount, open_tree, MountFlags, MoveMountFlags, OpenTreeFlags, UnmountFlags};
use std::ffi::CStr;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

/// Where building a view failed: the step (for [`MountPlan::describe`])
/// and the error.
pub(crate) type Failed = (usize, Errno);

/// mount(2) with the kernel's `MS_*` flags; a missing source or type
/// (a remount, a change of propagation) is passed as an empty string,
/// which the kernel does not read for those.
pub(super) fn mount(
    src: Option<&CStr>,
    dst: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> Result<(), Errno> {
    let flags = MountFlags::from_bits_retain(flags as _);
    rustix::mount::mount(src.unwrap_or(c""), dst, fstype.unwrap_or(c""), flags, data)
}

/// Binds `src` at `dst`, then makes it nosuid, read-only or not, nodev or
/// not, keeping `kept` (the flags of `src`'s own mount).
fn bind(src: &CStr, dst: &CStr, read_only: bool, dev: bool, kept: libc::c_ulong) -> Result<(), Errno> {
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_NOSUID | kept;
    if read_only {
        flags |= libc::MS_RDONLY;
    }
    if !dev {
        flags |= libc::MS_NODEV;
    }
    mount(Some(src), dst, None, libc::MS_BIND | libc::MS_REC, None)?;
    mount(None, dst, None, flags, None)
}

/// Binds `src` at `dst` read-only, nosuid and nodev, keeping `kept`.
pub(super) fn bind_read_only(src: &CStr, dst: &CStr, kept: libc::c_ulong) -> Result<(), Errno> {
    bind(src, dst, true, false, kept)
}

/// Builds the root and enters it. Runs in the freshly cloned child (new
/// mount and PID namespaces, with every capability there): system calls
/// only.
pub(crate) fn enter(plan: &MountPlan) -> Result<(), Failed> {
    build(plan, false)
}

/// Builds the root without the steps each move makes afresh (its `/tmp`
/// and `/proc`) and enters it: a prepared view, made once in a thread of
/// its own and kept as a mount namespace ([`super::prepared`]). Mounts its own
/// overlays, which are then the view's alone.
pub(crate) fn build_view(plan: &MountPlan) -> Result<(), Failed> {
    build(plan, true)
}

/// The most binds a prepared view leaves to its move.
pub(super) const LATE_BINDS: usize = 16;

/// Enters a copy of the prepared view `view` (a mount namespace that
/// [`build_view`] made from a plan with this one's key) and adds what is
/// the move's own: a fresh `/tmp`, what lies below it (directories, binds
/// of host directories, covers), its working directory, and the `/proc`
/// of its PID namespace.
/// The copy holds nothing of the host's tree, so nothing has to be
/// unmounted here (an unmount waits out an RCU grace period). Runs in the
/// move's child (root, still in the referee's mount namespace): raw
/// system calls only.
pub(crate) fn enter_prepared(plan: &MountPlan, view: BorrowedFd<'_>) -> Result<(), Failed> {
    let n = plan.steps.len();
    // The binds left to the move, as detached copies made while the
    // host's tree is still in view (a copy can be attached in the view's
    // namespace; a clone of a mount of another namespace cannot).
    let mut trees: [Option<OwnedFd>; LATE_BINDS] = Default::default();
    let mut made = 0;
    for (i, _) in &plan.late {
        if let Step::Bind {
            src, read_only, dev, ..
        } = &plan.steps[*i]
        {
            if made == LATE_BINDS {
                return Err((*i, Errno::NOMEM));
            }
            trees[made] = Some(detached(src, *read_only, *dev).map_err(|e| (*i, e))?);
            made += 1;
        }
    }
    // setns moves the root and working directory to the view's root.
    let ns = Some(rustix::thread::LinkNameSpaceType::Mount);
    rustix::thread::move_into_link_name_space(view, ns).map_err(|e| (n + 3, e))?;
    // SAFETY: a new mount namespace (and, implied, file-system context) for
    // this child, which has one thread; no file table is unshared.
    unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS) }.map_err(|e| (n + 3, e))?;
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    mount(Some(c"tmpfs"), c"/tmp", Some(c"tmpfs"), flags, Some(&plan.tmp_opts)).map_err(|e| (plan.per_move[0], e))?;
    let mut bound = trees[..made].iter().flatten();
    for (i, path) in &plan.late {
        let done = match &plan.steps[*i] {
            Step::Dir(_) => make_dir(path),
            Step::Bind { .. } => bound.next().map_or(Err(Errno::NOENT), |tree| attach_tree(tree, path)),
            Step::Tmpfs { opts, .. } => mount(Some(c"tmpfs"), path, Some(c"tmpfs"), flags, Some(opts)),
            _ => Err(Errno::INVAL),
        };
        done.map_err(|e| (*i, e))?;
    }
    let proc_flags = flags | libc::MS_NOEXEC;
    mount(Some(c"proc"), c"/proc", Some(c"proc"), proc_flags, None).map_err(|e| (plan.per_move[1], e))?;
    rustix::process::chdir(plan.workdir.as_c_str()).map_err(|e| (n + 2, e))
}

/// mkdir 0755; an existing directory is fine.
fn make_dir(path: &CStr) -> Result<(), Errno> {
    match rustix::fs::mkdir(path, Mode::from_raw_mode(0o755)) {
        Err(Errno::EXIST) => Ok(()),
        r => r,
    }
}

/// Attaches the detached tree `tree` at `path`.
fn attach_tree(tree: &OwnedFd, path: &CStr) -> Result<(), Errno> {
    move_mount(tree, c"", CWD, path, MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH)
}

/// The kernel's `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A detached copy of `src` with the mounts below it, nosuid, read-only
/// or not, nodev or not (the flags [`bind`] gives).
fn detached(src: &CStr, read_only: bool, dev: bool) -> Result<OwnedFd, Errno> {
    let mut set = libc::MOUNT_ATTR_NOSUID;
    if read_only {
        set |= libc::MOUNT_ATTR_RDONLY;
    }
    if !dev {
        set |= libc::MOUNT_ATTR_NODEV;
    }
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let clone = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | OpenTreeFlags::AT_RECURSIVE;
    let tree = open_tree(CWD, src, clone)?;
    let flags = libc::AT_EMPTY_PATH | libc::AT_RECURSIVE;
    let size = std::mem::size_of::<MountAttr>();
    // SAFETY: mount_setattr (which rustix does not offer) on a descriptor
    // we own, an empty path and a struct of the kernel's layout on this
    // stack.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree.as_raw_fd(),
            c"".as_ptr(),
            flags,
            &attr,
            size,
        )
    };
    if r != 0 {
        return Err(Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::INVAL));
    }
    Ok(tree)
}

/// [`enter`], or [`build_view`] (`view`: without the per-move steps).
fn build(plan: &MountPlan, view: bool) -> Result<(), Failed> {
    let n = plan.steps.len();
    // Nothing mounted here may propagate back to the referee's namespace.
    mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None).map_err(|e| (n, e))?;
    let root_flags = libc::MS_NOSUID | libc::MS_NODEV;
    mount(
        Some(c"tmpfs"),
        &plan.root,
        Some(c"tmpfs"),
        root_flags,
        Some(c"mode=0755,size=1m"),
    )
    .map_err(|e| (n, e))?;
    for (i, s) in plan.steps.iter().enumerate() {
        let elsewhere = plan.per_move.contains(&i) || plan.late.binary_search_by_key(&i, |(k, _)| *k).is_ok();
        if view && elsewhere {
            continue;
        }
        step(s).map_err(|e| (i, e))?;
    }
    // pivot_root(".", ".") stacks the new root on the old one, and the
    // detach then drops the old root from this namespace.
    let pivot = || -> Result<(), Errno> {
        rustix::process::chdir(plan.root.as_c_str())?;
        rustix::process::pivot_root(c".", c".")?;
        rustix::mount::unmount(c".", UnmountFlags::DETACH)?;
        rustix::process::chdir(c"/")
    };
    pivot().map_err(|e| (n + 1, e))?;
    // (A view's working directory may be one of the per-move steps.)
    if !view {
        rustix::process::chdir(plan.workdir.as_c_str()).map_err(|e| (n + 2, e))?;
    }
    Ok(())
}

/// One step of [`build`].
fn step(s: &Step) -> Result<(), Errno> {
    match s {
        Step::Dir(d) => make_dir(d),
        Step::File(f) => {
            let flags = OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC;
            rustix::fs::open(f.as_c_str(), flags, Mode::from_raw_mode(0o644)).map(drop)
        }
        Step::Link { at, to } => rustix::fs::symlink(to.as_c_str(), at.as_c_str()),
        Step::Bind {
            src,
            dst,
            read_only,
            dev,
            kept,
        } => bind(src, dst, *read_only, *dev, *kept),
        Step::Overlay(o) => o.show(),
        Step::Tmpfs { dst, opts } => mount(
            Some(c"tmpfs"),
            dst,
            Some(c"tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(opts),
        ),
        Step::Proc(dst) => mount(
            Some(c"proc"),
            dst,
            Some(c"proc"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            None,
        ),
    }
}

//! The child's side of [`super::MountPlan`]: building the view and
//! entering it ([`enter`]), building a prepared view once
//! ([`build_view`]), and entering a copy of one ([`enter_prepared`]).
//! Everything here but [`build_view`] runs in the child between clone and
//! exec: raw system calls on the plan's prepared C strings only.

use super::{MountPlan, Step};
use std::ffi::CStr;

pub(super) fn mount(
    src: Option<&CStr>,
    dst: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> bool {
    let p = |c: Option<&CStr>| c.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: every pointer is a NUL-terminated string we own, or null.
    unsafe { libc::mount(p(src), dst.as_ptr(), p(fstype), flags, p(data).cast()) == 0 }
}

/// Binds `src` at `dst`, then makes it nosuid, read-only or not, nodev or
/// not, keeping `kept` (the flags of `src`'s own mount).
fn bind(src: &CStr, dst: &CStr, read_only: bool, dev: bool, kept: libc::c_ulong) -> bool {
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_NOSUID | kept;
    if read_only {
        flags |= libc::MS_RDONLY;
    }
    if !dev {
        flags |= libc::MS_NODEV;
    }
    mount(Some(src), dst, None, libc::MS_BIND | libc::MS_REC, None) && mount(None, dst, None, flags, None)
}

/// Binds `src` at `dst` read-only, nosuid and nodev, keeping `kept`.
pub(super) fn bind_read_only(src: &CStr, dst: &CStr, kept: libc::c_ulong) -> bool {
    bind(src, dst, true, false, kept)
}

/// Builds the root and enters it. Runs in the freshly cloned child (new
/// mount and PID namespaces, with every capability there): raw system calls only. On failure
/// returns the number of the failed step for [`MountPlan::describe`]
/// (errno is left set).
pub(crate) fn enter(plan: &MountPlan) -> Result<(), usize> {
    build(plan, false)
}

/// Builds the root without the steps each move makes afresh (its `/tmp`
/// and `/proc`) and enters it: a prepared view, made once in a thread of
/// its own and kept as a mount namespace ([`super::prepared`]). Mounts its own
/// overlays, which are then the view's alone.
pub(crate) fn build_view(plan: &MountPlan) -> Result<(), usize> {
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
pub(crate) fn enter_prepared(plan: &MountPlan, view: libc::c_int) -> Result<(), usize> {
    let n = plan.steps.len();
    // The binds left to the move, as detached copies made while the
    // host's tree is still in view (a copy can be attached in the view's
    // namespace; a clone of a mount of another namespace cannot).
    let mut trees = [-1; LATE_BINDS];
    let mut made = 0;
    for (i, _) in &plan.late {
        if let Step::Bind {
            src, read_only, dev, ..
        } = &plan.steps[*i]
        {
            let tree = detached(src, *read_only, *dev);
            if tree < 0 || made == LATE_BINDS {
                return Err(*i);
            }
            trees[made] = tree;
            made += 1;
        }
    }
    // SAFETY: raw system calls on descriptors and strings the plan owns.
    unsafe {
        // setns moves the root and working directory to the view's root.
        if libc::setns(view, libc::CLONE_NEWNS) != 0 || libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(n + 3);
        }
    }
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    if !mount(Some(c"tmpfs"), c"/tmp", Some(c"tmpfs"), flags, Some(&plan.tmp_opts)) {
        return Err(plan.per_move[0]);
    }
    let mut bound = trees[..made].iter();
    for (i, path) in &plan.late {
        let ok = match &plan.steps[*i] {
            Step::Dir(_) => make_dir(path),
            Step::Bind { .. } => bound.next().is_some_and(|&tree| attach_tree(tree, path)),
            Step::Tmpfs { opts, .. } => mount(Some(c"tmpfs"), path, Some(c"tmpfs"), flags, Some(opts)),
            _ => false,
        };
        if !ok {
            return Err(*i);
        }
    }
    if !mount(Some(c"proc"), c"/proc", Some(c"proc"), flags | libc::MS_NOEXEC, None) {
        return Err(plan.per_move[1]);
    }
    // SAFETY: chdir on a string owned by the plan.
    if unsafe { libc::chdir(plan.workdir.as_ptr()) } != 0 {
        return Err(n + 2);
    }
    Ok(())
}

/// mkdir 0755; an existing directory is fine (raw call, for the child).
fn make_dir(path: &CStr) -> bool {
    // SAFETY: mkdir on a NUL-terminated string; errno is the thread's.
    unsafe { libc::mkdir(path.as_ptr(), 0o755) == 0 || *libc::__errno_location() == libc::EEXIST }
}

/// Attaches the detached tree `tree` at `path` (raw call, for the child).
fn attach_tree(tree: libc::c_int, path: &CStr) -> bool {
    // SAFETY: move_mount of a descriptor with an empty source path onto a
    // NUL-terminated string.
    unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        ) == 0
    }
}

/// `move_mount`'s flag: the source is the descriptor itself.
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

/// The kernel's `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A detached copy of `src` with the mounts below it, nosuid, read-only
/// or not, nodev or not (the flags [`bind`] gives), as a descriptor; -1 on
/// failure (errno set). Raw system calls only, for the child.
fn detached(src: &CStr, read_only: bool, dev: bool) -> libc::c_int {
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
    let clone = libc::OPEN_TREE_CLONE | libc::OPEN_TREE_CLOEXEC | libc::AT_RECURSIVE as libc::c_uint;
    // SAFETY: open_tree and mount_setattr on a string the plan owns, an
    // empty path and a struct of the kernel's layout on this stack.
    unsafe {
        let tree = libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, src.as_ptr(), clone) as libc::c_int;
        let flags = libc::AT_EMPTY_PATH | libc::AT_RECURSIVE;
        let size = std::mem::size_of::<MountAttr>();
        if tree >= 0 && libc::syscall(libc::SYS_mount_setattr, tree, c"".as_ptr(), flags, &attr, size) != 0 {
            libc::close(tree);
            return -1;
        }
        tree
    }
}

/// [`enter`], or [`build_view`] (`view`: without the per-move steps).
fn build(plan: &MountPlan, view: bool) -> Result<(), usize> {
    let n = plan.steps.len();
    let fail = |i: usize| Err(i);
    // Nothing mounted here may propagate back to the referee's namespace.
    if !mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None)
        || !mount(
            Some(c"tmpfs"),
            &plan.root,
            Some(c"tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(c"mode=0755,size=1m"),
        )
    {
        return fail(n);
    }
    for (i, s) in plan.steps.iter().enumerate() {
        let elsewhere = plan.per_move.contains(&i) || plan.late.binary_search_by_key(&i, |(k, _)| *k).is_ok();
        if view && elsewhere {
            continue;
        }
        // SAFETY: system calls on NUL-terminated strings owned by the plan.
        let ok = unsafe {
            match s {
                Step::Dir(d) => libc::mkdir(d.as_ptr(), 0o755) == 0 || *libc::__errno_location() == libc::EEXIST,
                Step::File(f) => {
                    let fd = libc::open(f.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                    fd >= 0 && libc::close(fd) == 0
                }
                Step::Link { at, to } => libc::symlink(to.as_ptr(), at.as_ptr()) == 0,
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
        };
        if !ok {
            return fail(i);
        }
    }
    // SAFETY: as above; pivot_root(".", ".") stacks the new root on the old
    // one, and the detach then drops the old root from this namespace.
    unsafe {
        if libc::chdir(plan.root.as_ptr()) != 0
            || libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) != 0
            || libc::umount2(c".".as_ptr(), libc::MNT_DETACH) != 0
            || libc::chdir(c"/".as_ptr()) != 0
        {
            return fail(n + 1);
        }
    }
    // (A view's working directory may be one of the per-move steps.)
    // SAFETY: chdir on a string owned by the plan.
    if !view && unsafe { libc::chdir(plan.workdir.as_ptr()) } != 0 {
        return fail(n + 2);
    }
    Ok(())
}

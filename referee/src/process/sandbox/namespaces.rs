//! The agent's view of the file system, built in its own mount namespace:
//! an empty tmpfs root holding the system directories read-only (each a
//! read-only overlay of its own, so that a lock an agent takes on a host
//! file such as `/etc/passwd` lands on the overlay's inode and never
//! reaches the organiser's tools, which lock the real one), its home
//! and the program directories named in its command read-only, a private `/tmp`,
//! a minimal `/dev`, a `/proc` of its own PID namespace, and its working
//! directory read-write at the same path as outside. Nothing else exists
//! for it: not the opponent's directory, the records or `--out`.
//!
//! The plan is built in the referee (allocating freely); [`enter`] runs in
//! the child between clone and exec, where only raw system calls on the
//! prepared C strings are safe (the referee is multi-threaded), hence libc
//! rather than a wrapper crate that may allocate (rustix's raw calls on a
//! `&CStr` do not, and attach the lent overlays: [`super::overlays`]).

use super::host_mounts::{devices, locked_flags, overlay_options, system_dirs, System, DEV_LINKS};
use super::overlays::{attach, dev_slot};
pub(crate) use super::program_paths::command_paths;
use std::ffi::{CStr, CString};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A system directory shown read-only ([`Step::Overlay`]).
#[derive(Debug)]
struct Overlay {
    src: CString,
    dst: CString,
    opts: CString,
    kept: libc::c_ulong,
    slot: usize,
}

impl Overlay {
    /// Shows it: the lent set's overlay, else an overlay mounted here, else
    /// a bind (in the child: system calls only).
    fn show(&self, set: &[Option<OwnedFd>]) -> bool {
        // The source mount's own flags too (a noexec /opt stays so).
        let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | self.kept;
        let lent = set.get(self.slot).and_then(Option::as_ref);
        lent.is_some_and(|fd| attach(fd, &self.dst, false))
            || mount(Some(c"overlay"), &self.dst, Some(c"overlay"), flags, Some(&self.opts))
            || bind_read_only(&self.src, &self.dst, self.kept)
    }
}

/// One step of building the root, in order.
#[derive(Debug)]
enum Step {
    /// mkdir (an existing directory is fine).
    Dir(CString),
    /// Create an empty file to bind a device onto.
    File(CString),
    /// A symbolic link `at` -> `to`.
    Link { at: CString, to: CString },
    /// Bind `src` at `dst`, then make it read-only (or not) with nosuid/nodev,
    /// keeping the flags of `src`'s own mount (`kept`), which a user
    /// namespace may not clear.
    Bind {
        src: CString,
        dst: CString,
        read_only: bool,
        dev: bool,
        kept: libc::c_ulong,
    },
    /// A read-only overlay of the host directory `src` at `dst` (options
    /// `lowerdir=src:empty` in `opts`: the kernel wants two lower layers
    /// without an upper one, and `empty` is the root's `/proc` mount point,
    /// still empty then). Locks taken through it stay on its own inodes.
    /// Where the move has a lent set of overlays ([`super::overlays`]),
    /// the set's overlay number `slot` is attached instead; if the kernel
    /// refuses both, `src` is bound read-only.
    Overlay(Overlay),
    /// The `/proc` of the new PID namespace, mounted before the switch of
    /// root: in a user namespace the kernel allows it only while a full
    /// `/proc` is still visible.
    Proc(CString),
    /// A tmpfs at `dst` with these options.
    Tmpfs { dst: CString, opts: CString },
    /// The lent set's `/dev` (its `slot`) attached at `dst`, whole; where
    /// it is, the `skip` steps after this one, which make the same `/dev`
    /// device by device, are skipped.
    DevTree { dst: CString, slot: usize, skip: usize },
}

impl Step {
    fn describe(&self) -> String {
        let s = |c: &CString| String::from_utf8_lossy(c.as_bytes()).into_owned();
        match self {
            Step::Dir(d) => format!("creating the mount point {}", s(d)),
            Step::File(f) => format!("creating {}", s(f)),
            Step::Link { at, to } => format!("linking {} to {}", s(at), s(to)),
            Step::Bind { src, read_only, .. } => {
                format!(
                    "mounting {} {}",
                    s(src),
                    if *read_only { "read-only" } else { "read-write" }
                )
            }
            Step::Tmpfs { dst, .. } => format!("mounting a tmpfs at {}", s(dst)),
            Step::Overlay(o) => format!("mounting {} read-only", s(&o.src)),
            Step::Proc(_) => "mounting /proc for the PID namespace".into(),
            Step::DevTree { .. } => "attaching the prepared /dev".into(),
        }
    }
}

/// Everything [`enter`] needs, prepared in the referee.
#[derive(Debug)]
pub(crate) struct MountPlan {
    root: CString,
    steps: Vec<Step>,
    workdir: CString,
}

fn cstr(p: &Path) -> CString {
    // Paths come from the file system or the command line: no NUL inside.
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

impl MountPlan {
    /// The view for an agent working in `workdir`, seeing `programs`
    /// read-only; any of `hide` visible through those is covered by an
    /// empty directory. `root` is an empty directory to build on.
    pub(crate) fn new(root: &Path, workdir: &Path, programs: &[PathBuf], hide: &[PathBuf], tmp_size: u64) -> MountPlan {
        let mut plan = MountPlan {
            root: cstr(root),
            steps: Vec::new(),
            workdir: cstr(workdir),
        };
        let at = |p: &Path| root.join(p.strip_prefix("/").unwrap_or(p));
        let mut shown: Vec<PathBuf> = Vec::new();
        // The overlays' empty lower layer: made first, mounted on last.
        plan.dirs(root, Path::new("/proc"));
        let empty = at(Path::new("/proc"));
        for (slot, (p, what)) in system_dirs().iter().enumerate() {
            match what {
                System::Link(to) => plan.steps.push(Step::Link {
                    at: cstr(&at(p)),
                    to: cstr(to),
                }),
                System::Dir { kept, overlay } => {
                    plan.dirs(root, p);
                    match overlay_options(p, &empty).filter(|_| *overlay) {
                        Some(opts) => plan.steps.push(Step::Overlay(Overlay {
                            src: cstr(p),
                            dst: cstr(&at(p)),
                            opts,
                            kept: *kept,
                            slot,
                        })),
                        None => plan.bind_kept(p, &at(p), true, false, *kept),
                    }
                    shown.push(p.to_path_buf());
                }
            }
        }
        plan.dirs(root, Path::new("/tmp"));
        let opts = format!("mode=1777,size={tmp_size},nr_inodes=4096");
        plan.steps.push(Step::Tmpfs {
            dst: cstr(&at(Path::new("/tmp"))),
            opts: CString::new(opts).unwrap_or_default(),
        });
        plan.dirs(root, Path::new("/dev"));
        let tree = plan.steps.len();
        plan.steps.push(Step::DevTree {
            dst: cstr(&at(Path::new("/dev"))),
            slot: dev_slot(),
            skip: 0,
        });
        for (d, kept) in devices() {
            plan.steps.push(Step::File(cstr(&at(d))));
            plan.bind_kept(d, &at(d), false, true, *kept);
        }
        for (l, to) in DEV_LINKS {
            plan.steps.push(Step::Link {
                at: cstr(&at(Path::new(l))),
                to: cstr(Path::new(to)),
            });
        }
        let made_here = plan.steps.len() - tree - 1;
        if let Step::DevTree { skip, .. } = &mut plan.steps[tree] {
            *skip = made_here;
        }
        let inside = |p: &Path, dirs: &[PathBuf]| dirs.iter().any(|d| p.starts_with(d));
        // Nothing inside a hidden directory is shown, even if named in the command.
        for p in programs {
            if inside(p, &shown) || inside(p, hide) {
                continue;
            }
            plan.dirs(root, p);
            plan.bind(p, &at(p), true, false);
            shown.push(p.to_path_buf());
        }
        // Covers go on after the binds that would show them and before the
        // working directory inside them.
        // (A hidden directory that does not exist has nothing to cover.)
        for h in hide.iter().filter(|h| inside(h, &shown) && h.is_dir()) {
            plan.steps.push(Step::Tmpfs {
                dst: cstr(&at(h)),
                opts: c"mode=0755,size=4k".into(),
            });
        }
        plan.dirs(root, workdir);
        plan.bind(workdir, &at(workdir), false, false);
        plan.steps.push(Step::Proc(cstr(&at(Path::new("/proc")))));
        plan
    }

    fn dirs(&mut self, root: &Path, p: &Path) {
        let mut cur = root.to_path_buf();
        for c in p.components().skip(1) {
            cur.push(c);
            self.steps.push(Step::Dir(cstr(&cur)));
        }
    }

    fn bind(&mut self, src: &Path, dst: &Path, read_only: bool, dev: bool) {
        self.bind_kept(src, dst, read_only, dev, locked_flags(src));
    }

    /// [`MountPlan::bind`] where the flags to keep are known.
    fn bind_kept(&mut self, src: &Path, dst: &Path, read_only: bool, dev: bool, kept: libc::c_ulong) {
        self.steps.push(Step::Bind {
            src: cstr(src),
            dst: cstr(dst),
            read_only,
            dev,
            kept,
        });
    }

    /// Words for a failure report from [`enter`]'s step number.
    pub(crate) fn describe(&self, step: usize) -> String {
        match step {
            s if s < self.steps.len() => self.steps[s].describe(),
            s if s == self.steps.len() => "making the new root private and mounting it".into(),
            s if s == self.steps.len() + 1 => "switching to the new root (pivot_root)".into(),
            _ => "entering the working directory".into(),
        }
    }
}

fn mount(src: Option<&CStr>, dst: &CStr, fstype: Option<&CStr>, flags: libc::c_ulong, data: Option<&CStr>) -> bool {
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
fn bind_read_only(src: &CStr, dst: &CStr, kept: libc::c_ulong) -> bool {
    bind(src, dst, true, false, kept)
}

/// Builds the root and enters it, attaching the overlays of `set` (a set
/// lent to the move, if any). Runs in the freshly cloned child (new
/// mount and PID namespaces, with every capability there): raw system calls only. On failure
/// returns the number of the failed step for [`MountPlan::describe`]
/// (errno is left set).
pub(crate) fn enter(plan: &MountPlan, set: &[Option<OwnedFd>]) -> Result<(), usize> {
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
    let mut skip_to = 0;
    for (i, s) in plan.steps.iter().enumerate() {
        if i < skip_to {
            continue;
        }
        // SAFETY: system calls on NUL-terminated strings owned by the plan.
        let ok = unsafe {
            match s {
                Step::DevTree { dst, slot, skip } => {
                    let lent = set.get(*slot).and_then(Option::as_ref);
                    if lent.is_some_and(|fd| attach(fd, dst, true)) {
                        skip_to = i + 1 + skip;
                    }
                    true
                }
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
                Step::Overlay(o) => o.show(set),
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
    // SAFETY: chdir on a string owned by the plan.
    if unsafe { libc::chdir(plan.workdir.as_ptr()) } != 0 {
        return fail(n + 2);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_directories_are_covered_before_anything_inside_them() {
        let base = std::env::temp_dir().join(format!("referee-plan-{}", std::process::id()));
        let work = base.join("out/games/1/a");
        std::fs::create_dir_all(&work).unwrap();
        let plan = MountPlan::new(
            Path::new("/r"),
            &work,
            std::slice::from_ref(&base),
            &[base.join("out")],
            1 << 20,
        );
        let pos = |want: &dyn Fn(&Step) -> bool| plan.steps.iter().position(want).unwrap();
        let s = |p: &Path| cstr(&Path::new("/r").join(p.strip_prefix("/").unwrap()));
        let program = pos(&|st| matches!(st, Step::Bind { dst, .. } if *dst == s(&base)));
        let cover = pos(&|st| matches!(st, Step::Tmpfs { dst, .. } if *dst == s(&base.join("out"))));
        let own = pos(&|st| matches!(st, Step::Bind { dst, read_only: false, .. } if *dst == s(&work)));
        assert!(program < cover && cover < own, "{plan:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }
}

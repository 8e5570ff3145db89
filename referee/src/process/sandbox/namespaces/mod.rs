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
//! `&CStr` do not).

mod enter;

use super::host_mounts::{devices, locked_flags, overlay_options, system_dirs, System, DEV_LINKS};
pub(crate) use super::program_paths::command_paths;
use enter::{bind_read_only, mount, LATE_BINDS};
pub(crate) use enter::{build_view, enter, enter_prepared};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A system directory shown read-only ([`Step::Overlay`]).
#[derive(Debug)]
struct Overlay {
    src: CString,
    dst: CString,
    opts: CString,
    kept: libc::c_ulong,
}

impl Overlay {
    /// Shows it: an overlay mounted here, else a bind (in the child:
    /// system calls only).
    fn show(&self) -> Result<(), rustix::io::Errno> {
        // The source mount's own flags too (a noexec /opt stays so).
        let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | self.kept;
        mount(Some(c"overlay"), &self.dst, Some(c"overlay"), flags, Some(&self.opts))
            .or_else(|_| bind_read_only(&self.src, &self.dst, self.kept))
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
    /// Where the kernel refuses it, `src` is bound read-only.
    Overlay(Overlay),
    /// The `/proc` of the new PID namespace, mounted before the switch of
    /// root: in a user namespace the kernel allows it only while a full
    /// `/proc` is still visible.
    Proc(CString),
    /// A tmpfs at `dst` with these options.
    Tmpfs { dst: CString, opts: CString },
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
        }
    }
}

/// Everything [`enter`] needs, prepared in the referee.
#[derive(Debug)]
pub(crate) struct MountPlan {
    root: CString,
    steps: Vec<Step>,
    workdir: CString,
    /// The steps each move makes afresh even in a prepared view
    /// ([`enter_prepared`]): its private `/tmp` and its `/proc`.
    per_move: [usize; 2],
    /// The options of the private `/tmp`.
    tmp_opts: CString,
    /// The steps each move makes afresh after its `/tmp` in a prepared
    /// view, in order, with their paths inside the view: those below
    /// `/tmp` (which the private `/tmp` would cover) and the bind of the
    /// working directory.
    late: Vec<(usize, CString)>,
    /// What the view depends on (root, working directory, programs shown,
    /// directories hidden): two plans with one key build the same view.
    key: Vec<u8>,
}

/// [`MountPlan::key`]: the paths, each ended by a NUL (which no path
/// holds), the hidden ones after an empty one.
fn key_of(root: &Path, workdir: &Path, programs: &[PathBuf], hide: &[PathBuf]) -> Vec<u8> {
    let shown = [root, workdir].into_iter().chain(programs.iter().map(PathBuf::as_path));
    let hidden = hide.iter().map(PathBuf::as_path);
    let mut key = Vec::new();
    for p in shown.chain(std::iter::once(Path::new(""))).chain(hidden) {
        key.extend_from_slice(p.as_os_str().as_bytes());
        key.push(0);
    }
    key
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
        let opts = format!("mode=1777,size={tmp_size},nr_inodes=4096");
        let mut plan = MountPlan {
            root: cstr(root),
            steps: Vec::new(),
            workdir: cstr(workdir),
            per_move: [0; 2],
            tmp_opts: CString::new(opts).unwrap_or_default(),
            late: Vec::new(),
            key: key_of(root, workdir, programs, hide),
        };
        let at = |p: &Path| root.join(p.strip_prefix("/").unwrap_or(p));
        let mut shown: Vec<PathBuf> = Vec::new();
        // The overlays' empty lower layer: made first, mounted on last.
        plan.dirs(root, Path::new("/proc"));
        let empty = at(Path::new("/proc"));
        for (p, what) in system_dirs() {
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
                        })),
                        None => plan.bind_kept(p, &at(p), true, false, *kept),
                    }
                    shown.push(p.to_path_buf());
                }
            }
        }
        plan.dirs(root, Path::new("/tmp"));
        plan.per_move[0] = plan.steps.len();
        plan.steps.push(Step::Tmpfs {
            dst: cstr(&at(Path::new("/tmp"))),
            opts: plan.tmp_opts.clone(),
        });
        plan.dev(root);
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
        let own = plan.steps.len();
        plan.bind(workdir, &at(workdir), false, false);
        plan.per_move[1] = plan.steps.len();
        plan.steps.push(Step::Proc(cstr(&at(Path::new("/proc")))));
        plan.late = plan.late_steps(root, own);
        plan
    }

    /// The steps a prepared view leaves to each move, with their paths
    /// inside the view: those after the private `/tmp` that make something
    /// below it, and the bind of the working directory (step `own`), so
    /// that a view kept after its game holds no agent's files.
    fn late_steps(&self, root: &Path, own: usize) -> Vec<(usize, CString)> {
        let root = root.as_os_str().as_bytes();
        let tmp = [root, b"/tmp/"].concat();
        let late = self.steps.iter().enumerate().skip(self.per_move[0] + 1);
        late.filter_map(|(i, step)| {
            let path = match step {
                Step::Dir(d) => d,
                Step::Bind { dst, .. } | Step::Tmpfs { dst, .. } => dst,
                _ => return None,
            };
            let inside = path.to_bytes().strip_prefix(root)?;
            (i == own || path.to_bytes().starts_with(&tmp)).then(|| (i, CString::new(inside).unwrap_or_default()))
        })
        .collect()
    }

    /// Whether the plan can be entered as a prepared view: not more
    /// binds left to the move than [`enter_prepared`] holds at once.
    pub(crate) fn preparable(&self) -> bool {
        let binds = self
            .late
            .iter()
            .filter(|(i, _)| matches!(self.steps[*i], Step::Bind { .. }));
        binds.count() <= LATE_BINDS
    }

    /// The agent's `/dev`, device by device.
    fn dev(&mut self, root: &Path) {
        let at = |p: &Path| root.join(p.strip_prefix("/").unwrap_or(p));
        self.dirs(root, Path::new("/dev"));
        for (d, kept) in devices() {
            self.steps.push(Step::File(cstr(&at(d))));
            self.bind_kept(d, &at(d), false, true, *kept);
        }
        for (l, to) in DEV_LINKS {
            self.steps.push(Step::Link {
                at: cstr(&at(Path::new(l))),
                to: cstr(Path::new(to)),
            });
        }
    }

    /// See [`MountPlan::key`].
    pub(crate) fn key(&self) -> &[u8] {
        &self.key
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

    /// Words for a failure report from [`enter`]'s (or
    /// [`enter_prepared`]'s) step number.
    pub(crate) fn describe(&self, step: usize) -> String {
        match step {
            s if s < self.steps.len() => self.steps[s].describe(),
            s if s == self.steps.len() => "making the new root private and mounting it".into(),
            s if s == self.steps.len() + 1 => "switching to the new root (pivot_root)".into(),
            s if s == self.steps.len() + 2 => "entering the working directory".into(),
            _ => "entering the move's prepared view".into(),
        }
    }
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

    #[test]
    fn a_prepared_view_leaves_the_working_directory_and_what_is_below_tmp_to_the_move() {
        // Paths only: nothing here is mounted or looked at but /tmp itself.
        let base = Path::new("/tmp/referee-late-plan");
        let work = base.join("games/1/a");
        let plan = MountPlan::new(Path::new("/r"), &work, &[base.join("bin")], &[], 1 << 20);
        let late: Vec<&[u8]> = plan.late.iter().map(|(_, p)| p.to_bytes()).collect();
        // Below /tmp: the directories, the program's bind, and last the
        // working directory's own (read-write) bind.
        assert!(late.contains(&b"/tmp/referee-late-plan/bin".as_slice()), "{late:?}");
        assert!(late.iter().all(|p| p.starts_with(b"/tmp/")), "{late:?}");
        assert_eq!(late.last(), Some(&work.as_os_str().as_bytes()), "{late:?}");
        assert!(matches!(
            plan.steps[plan.late.last().unwrap().0],
            Step::Bind { read_only: false, .. }
        ));
        // Elsewhere, only the working directory's bind is the move's.
        let elsewhere = MountPlan::new(
            Path::new("/r"),
            Path::new("/srv/w"),
            &[PathBuf::from("/srv/bin")],
            &[],
            1,
        );
        let late: Vec<&[u8]> = elsewhere.late.iter().map(|(_, p)| p.to_bytes()).collect();
        assert_eq!(late, vec![b"/srv/w".as_slice()]);
        assert!(plan.preparable() && elsewhere.preparable());
        // One view per key: another working directory is another view.
        assert_ne!(plan.key(), elsewhere.key());
    }
}

//! An agent's working directory: how the referee makes it, measures it,
//! hands it to the next move's user and removes it, whatever the agent
//! left there.
//!
//! Where the referee has a mount namespace of its own
//! ([`enter_private_mounts`], which the binary calls before anything
//! else), each working directory is a tmpfs of `--disk` plus a small
//! reserve for the referee's own files, with at most [`MAX_ENTRIES`]
//! inodes: the kernel bounds what an agent keeps there from its first
//! write, `fallocate`, hidden modes, deep paths and entry counts included,
//! and none of it lands on the disk of `--out`. Removing it is one unmount,
//! and the namespace, with every tmpfs in it, ends with the referee even
//! when it is killed. Elsewhere (the library used in-process, or a
//! machine with no namespaces) the directory is ordinary and its size is
//! measured by a walk.
//!
//! Every walk of an agent-written tree is fd-relative: each directory is
//! opened from the one above it with `O_NOFOLLOW`, never by path, so no
//! path length, link or entry count can make it fail or lead it outside
//! the tree. It holds at most [`MAX_DEPTH`] levels open; removal moves
//! deeper directories up to the top instead of descending further, so it
//! empties a tree of any depth.

use rustix::fs::{AtFlags, Dir, FileType, Gid, Mode, OFlags, Uid};
use rustix::io::Errno;
use std::ffi::{CStr, CString};
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};

/// Files and directories an agent may keep in its working directory.
pub const MAX_ENTRIES: u64 = 10_000;
/// Directory levels a walk holds open at once.
pub const MAX_DEPTH: usize = 48;
/// Room in a bounded directory beyond `--disk`: the referee's own next
/// files (`input.txt`, the captured streams' first bytes) always fit after
/// a move that kept within `--disk`, and one that went past it is caught.
const RESERVE_BYTES: u64 = 1 << 20;
/// Inodes beyond [`MAX_ENTRIES`], for the same reason.
const RESERVE_INODES: u64 = 16;

/// How working directories are bounded in this process.
const UNKNOWN: u8 = 0;
const MOUNTS: u8 = 1;
const POLLED: u8 = 2;
static MODE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Gives the referee a mount namespace of its own (as root a new one; as an
/// ordinary user inside a user namespace that maps only its own ids), in
/// which it mounts one tmpfs per working directory. Must be called while
/// the process has one thread (first thing in `main`); later calls, and
/// machines that refuse namespaces, leave directories polled. Returns how
/// working directories are bounded, in words for the run's first lines.
pub fn enter_private_mounts() -> &'static str {
    if MODE.load(Ordering::Relaxed) == UNKNOWN {
        let mode = if single_threaded() && try_enter().is_ok() {
            MOUNTS
        } else {
            POLLED
        };
        MODE.store(mode, Ordering::Relaxed);
    }
    describe()
}

/// How working directories are bounded, in words.
pub fn describe() -> &'static str {
    if mounts() {
        "disk: a tmpfs of --disk per working directory (kernel-enforced)"
    } else {
        "disk: --disk measured after each move (no mount namespace here)"
    }
}

/// Whether working directories are tmpfs mounts in this process.
fn mounts() -> bool {
    MODE.load(Ordering::Relaxed) == MOUNTS
}

fn single_threaded() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|d| d.count() == 1)
}

/// The namespace itself. Rootless, the user namespace is tried first in a
/// forked child: a half-made one (maps refused) would leave the referee
/// unable to act as its own user.
fn try_enter() -> std::io::Result<()> {
    use rustix::thread::UnshareFlags;
    let root = rustix::process::geteuid().is_root();
    if !root && !fork_check(|| unshare_user().is_ok() && private_root().is_ok() && mount_probe().is_ok())? {
        return Err(std::io::Error::other("user namespaces refused"));
    }
    if root {
        // SAFETY: one thread (checked by the caller); no file table is unshared.
        unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) }?;
    } else {
        unshare_user()?;
    }
    private_root()?;
    mount_probe()
}

/// A new user and mount namespace mapping the referee's uid and gid to
/// themselves: files it writes keep its identity, and it may mount.
fn unshare_user() -> std::io::Result<()> {
    use rustix::thread::UnshareFlags;
    let (uid, gid) = (rustix::process::getuid().as_raw(), rustix::process::getgid().as_raw());
    // SAFETY: one thread (checked by the caller); no file table is unshared.
    unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWUSER | UnshareFlags::NEWNS) }?;
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// Nothing mounted in the referee's namespace reaches the host's.
fn private_root() -> std::io::Result<()> {
    use rustix::mount::{mount_change, MountPropagationFlags};
    Ok(mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )?)
}

/// Mounts and unmounts a small tmpfs: only trying tells.
fn mount_probe() -> std::io::Result<()> {
    let d = std::env::temp_dir().join(format!("referee-mount-probe-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    let r = mount_tmpfs(&d, 1 << 20, 16).and_then(|()| Ok(unmount(&d)?));
    let _ = std::fs::remove_dir(&d);
    r
}

/// Runs `f` in a forked child and says whether it returned true.
fn fork_check(f: impl FnOnce() -> bool) -> std::io::Result<bool> {
    // SAFETY: one thread (checked by the caller), so the child may run
    // ordinary code; it leaves by _exit without running destructors.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        let ok = f();
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(i32::from(!ok)) };
    }
    let pid = rustix::process::Pid::from_raw(pid).ok_or_else(|| std::io::Error::other("fork gave pid 0"))?;
    let st = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty())?;
    Ok(st.is_some_and(|(_, s)| s.exit_status() == Some(0)))
}

fn mount_tmpfs(dir: &Path, bytes: u64, inodes: u64) -> std::io::Result<()> {
    use rustix::mount::{mount, MountFlags};
    let opts = CString::new(format!("size={bytes},nr_inodes={inodes},mode=0755"))?;
    Ok(mount(
        "tmpfs",
        dir,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV,
        Some(opts.as_c_str()),
    )?)
}

fn unmount(dir: &Path) -> rustix::io::Result<()> {
    rustix::mount::unmount(dir, rustix::mount::UnmountFlags::DETACH)
}

/// Whether `dir` is a bounded working directory: a tmpfs mounted on it
/// (a device of its own, apart from its parent's).
pub(crate) fn is_bounded(dir: &Path) -> bool {
    if !mounts() {
        return false;
    }
    let parent = dir.parent().unwrap_or(dir);
    match (
        rustix::fs::lstat(dir),
        rustix::fs::stat(parent),
        rustix::fs::statfs(dir),
    ) {
        (Ok(d), Ok(p), Ok(fs)) => d.st_dev != p.st_dev && fs.f_type == libc::TMPFS_MAGIC,
        _ => false,
    }
}

/// Makes `dir` a fresh, empty working directory holding at most `disk`
/// bytes: whatever was there before (an earlier game's files, a mount) is
/// removed first.
pub(crate) fn create(dir: &Path, disk: u64) -> std::io::Result<()> {
    remove_all(dir)?;
    std::fs::create_dir_all(dir)?;
    if mounts() {
        mount_tmpfs(dir, disk.saturating_add(RESERVE_BYTES), MAX_ENTRIES + RESERVE_INODES)?;
    }
    Ok(())
}

/// Ends a working directory's mount, if it has one: with `keep`, its files
/// are first copied to the directory underneath (on the disk of `--out`),
/// for the organiser to read. Copy failures are logged, never fatal: the
/// game is recorded already.
pub(crate) fn settle(dir: &Path, keep: bool) {
    if !is_bounded(dir) {
        return;
    }
    let held = if keep { open_dir(dir).ok() } else { None };
    if let Err(e) = unmount(dir) {
        log::warn!("cannot unmount {}: {e}", dir.display());
        return;
    }
    let Some(from) = held else { return };
    match open_dir(dir) {
        Ok(to) => {
            let mut left = MAX_ENTRIES;
            if let Err(e) = copy_tree(from.as_fd(), to.as_fd(), 0, &mut left) {
                log::warn!("cannot keep all files of {}: {e}", dir.display());
            }
        }
        Err(e) => log::warn!("cannot keep the files of {}: {e}", dir.display()),
    }
}

/// Removes `dir` and everything under it, whatever the agent made there
/// (any depth, any modes, links never followed); its mount, if any, first.
pub(crate) fn remove_all(dir: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(std::io::Error::other(format!(
            "{} is not a directory to remove",
            dir.display()
        )));
    };
    if is_bounded(dir) {
        unmount(dir)?;
    }
    let parent = match open_dir(parent) {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let name = CString::new(name.as_bytes())?;
    Ok(remove_entry(parent.as_fd(), &name)?)
}

/// Removes every entry of `dir` but those named in `keep`.
pub(crate) fn clear_but(dir: &Path, keep: &[&str]) -> std::io::Result<()> {
    let d = open_dir(dir)?;
    for name in names(d.as_fd())? {
        if !keep.iter().any(|k| k.as_bytes() == name.to_bytes()) {
            remove_entry(d.as_fd(), &name)?;
        }
    }
    Ok(())
}

/// What an agent keeps in its working directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Bytes of disk its files take.
    pub bytes: u64,
    /// Files, directories and links.
    pub entries: u64,
    /// Directories nested deeper than [`MAX_DEPTH`] were found (and not
    /// measured): only possible where the size is measured by a walk.
    pub too_deep: bool,
}

impl Usage {
    /// Why this is more than an agent may keep under `--disk`, if it is.
    pub(crate) fn excess(&self, disk: u64) -> Option<String> {
        let mib = |b: u64| b as f64 / f64::from(1 << 20);
        if self.bytes > disk {
            Some(format!(
                "left {:.1} MiB in its working directory; --disk allows {:.1} MiB",
                mib(self.bytes),
                mib(disk)
            ))
        } else if self.entries > MAX_ENTRIES {
            Some(format!(
                "made more than {MAX_ENTRIES} files and directories in its working directory, the most allowed"
            ))
        } else if self.too_deep {
            Some(format!(
                "nested directories more than {MAX_DEPTH} levels deep in its working directory, the most allowed"
            ))
        } else {
            None
        }
    }
}

/// What `dir` holds: from the file system's own counts where it is a
/// bounded mount, else by a bounded walk (which stops, over the limit,
/// after [`MAX_ENTRIES`] entries).
pub(crate) fn usage(dir: &Path) -> Usage {
    if is_bounded(dir) {
        if let Ok(st) = rustix::fs::statvfs(dir) {
            return Usage {
                bytes: st.f_blocks.saturating_sub(st.f_bfree).saturating_mul(st.f_frsize),
                // The root directory is the file system's, not the agent's.
                entries: st.f_files.saturating_sub(st.f_ffree).saturating_sub(1),
                too_deep: false,
            };
        }
    }
    let mut u = Usage::default();
    if let Ok(d) = open_dir(dir) {
        measure(d.as_fd(), 0, &mut u);
    }
    u
}

fn measure(d: BorrowedFd<'_>, depth: usize, u: &mut Usage) {
    let Ok(mut it) = Dir::read_from(d) else { return };
    while let Some(Ok(e)) = it.read() {
        let name = e.file_name();
        if is_dot(name) {
            continue;
        }
        u.entries += 1;
        if u.entries > MAX_ENTRIES {
            return;
        }
        let Ok(st) = rustix::fs::statat(d, name, AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        u.bytes = u.bytes.saturating_add((st.st_blocks as u64).saturating_mul(512));
        if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
            if depth + 1 >= MAX_DEPTH {
                u.too_deep = true;
                continue;
            }
            // A directory the agent closed to itself is opened to be measured.
            let _ = rustix::fs::chmodat(d, name, Mode::from_raw_mode(0o700), AtFlags::empty());
            if let Ok(sub) = open_at(d, name) {
                measure(sub.as_fd(), depth + 1, u);
            }
        }
    }
}

/// Gives `dir` and what is under it (links themselves, never what they
/// point to) to `id`, at most [`MAX_ENTRIES`] entries and [`MAX_DEPTH`]
/// levels: what lies beyond stays with the agent's earlier identity, which
/// harms nobody but that agent. Only the directory itself must change hands.
pub(crate) fn chown_tree(dir: &Path, id: u32) -> std::io::Result<()> {
    let d = open_dir(dir)?;
    let (uid, gid) = (Uid::from_raw(id), Gid::from_raw(id));
    rustix::fs::fchown(&d, Some(uid), Some(gid))?;
    let mut left = MAX_ENTRIES;
    give(d.as_fd(), 0, (uid, gid), &mut left);
    Ok(())
}

fn give(d: BorrowedFd<'_>, depth: usize, to: (Uid, Gid), left: &mut u64) {
    let Ok(mut it) = Dir::read_from(d) else { return };
    while let Some(Ok(e)) = it.read() {
        let name = e.file_name();
        if is_dot(name) {
            continue;
        }
        if *left == 0 {
            return;
        }
        *left -= 1;
        let _ = rustix::fs::chownat(d, name, Some(to.0), Some(to.1), AtFlags::SYMLINK_NOFOLLOW);
        if e.file_type() == FileType::Directory && depth + 1 < MAX_DEPTH {
            if let Ok(sub) = open_at(d, name) {
                give(sub.as_fd(), depth + 1, to, left);
            }
        }
    }
}

fn open_dir(p: &Path) -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        p,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

fn open_at(d: BorrowedFd<'_>, name: &CStr) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        d,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn is_dot(name: &CStr) -> bool {
    matches!(name.to_bytes(), b"." | b"..")
}

/// The names in `d` (without `.` and `..`), read through a descriptor of
/// their own so `d`'s position is left alone.
fn names(d: BorrowedFd<'_>) -> rustix::io::Result<Vec<CString>> {
    let mut out = Vec::new();
    for e in Dir::read_from(d)? {
        let e = e?;
        if !is_dot(e.file_name()) {
            out.push(e.file_name().to_owned());
        }
    }
    Ok(out)
}

/// Names read at once while emptying a directory: memory stays bounded
/// however many entries the agent made.
const BATCH: usize = 4096;

/// Removes `name` in `d`, a file or a whole tree.
fn remove_entry(d: BorrowedFd<'_>, name: &CStr) -> rustix::io::Result<()> {
    match rustix::fs::unlinkat(d, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => return Ok(()),
        Err(Errno::ISDIR) | Err(Errno::PERM) => {}
        Err(e) => return Err(e),
    }
    let _ = rustix::fs::chmodat(d, name, Mode::from_raw_mode(0o700), AtFlags::empty());
    let sub = open_at(d, name)?;
    let mut hoisted = 0u64;
    empty(sub.as_fd(), sub.as_fd(), 0, &mut hoisted)?;
    drop(sub);
    match rustix::fs::unlinkat(d, name, AtFlags::REMOVEDIR) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Empties `d`, which lies `depth` levels below `top`; a directory found
/// at [`MAX_DEPTH`] is moved up into `top` under a fresh name and emptied
/// from there, so no tree is too deep to remove.
fn empty(top: BorrowedFd<'_>, d: BorrowedFd<'_>, depth: usize, hoisted: &mut u64) -> rustix::io::Result<()> {
    loop {
        let mut batch = Vec::with_capacity(64);
        for e in Dir::read_from(d)? {
            let e = e?;
            if !is_dot(e.file_name()) {
                batch.push(e.file_name().to_owned());
                if batch.len() == BATCH {
                    break;
                }
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        for name in batch {
            match rustix::fs::unlinkat(d, &name, AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => continue,
                Err(Errno::ISDIR) | Err(Errno::PERM) => {}
                Err(e) => return Err(e),
            }
            if depth + 1 >= MAX_DEPTH {
                hoist(top, d, &name, hoisted)?;
                continue;
            }
            let _ = rustix::fs::chmodat(d, &name, Mode::from_raw_mode(0o700), AtFlags::empty());
            let sub = open_at(d, &name)?;
            empty(top, sub.as_fd(), depth + 1, hoisted)?;
            drop(sub);
            match rustix::fs::unlinkat(d, &name, AtFlags::REMOVEDIR) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Moves directory `name` of `d` up into `top` under a name not in use.
fn hoist(top: BorrowedFd<'_>, d: BorrowedFd<'_>, name: &CStr, hoisted: &mut u64) -> rustix::io::Result<()> {
    loop {
        *hoisted += 1;
        let fresh = CString::new(format!(".referee-deep-{hoisted}")).unwrap_or_default();
        match rustix::fs::renameat(d, name, top, &fresh) {
            Err(Errno::EXIST) | Err(Errno::NOTEMPTY) => continue,
            r => return r,
        }
    }
}

/// Copies the tree under `from` into `to`: directories, regular files and
/// links (as links); other kinds are left out. At most `left` entries and
/// [`MAX_DEPTH`] levels; the whole is bounded by the tmpfs it comes from.
fn copy_tree(from: BorrowedFd<'_>, to: BorrowedFd<'_>, depth: usize, left: &mut u64) -> std::io::Result<()> {
    for e in Dir::read_from(from)? {
        let e = e?;
        let name = e.file_name();
        if is_dot(name) || *left == 0 {
            continue;
        }
        *left -= 1;
        match e.file_type() {
            FileType::Directory if depth + 1 < MAX_DEPTH => {
                rustix::fs::mkdirat(to, name, Mode::from_raw_mode(0o755))?;
                let _ = rustix::fs::chmodat(from, name, Mode::from_raw_mode(0o700), AtFlags::empty());
                let (src, dst) = (open_at(from, name)?, open_at(to, name)?);
                copy_tree(src.as_fd(), dst.as_fd(), depth + 1, left)?;
            }
            FileType::RegularFile => copy_file(from, to, name)?,
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(from, name, Vec::new())?;
                rustix::fs::symlinkat(&target, to, name)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn copy_file(from: BorrowedFd<'_>, to: BorrowedFd<'_>, name: &CStr) -> std::io::Result<()> {
    let read = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let src = rustix::fs::openat(from, name, read, Mode::empty())?;
    let write = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let dst = rustix::fs::openat(to, name, write, Mode::from_raw_mode(0o644))?;
    let (mut src, mut dst) = (std::fs::File::from(src), std::fs::File::from(dst));
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match src.read(&mut buf)? {
            0 => return Ok(()),
            n => dst.write_all(&buf[..n])?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("referee-workdir-{name}-{}", std::process::id()));
        let _ = remove_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A chain of `levels` directories under `base`, made fd-relative (its
    /// full path is far past PATH_MAX), with a file at the bottom.
    fn deep_chain(base: &Path, levels: usize) {
        let mut d = open_dir(base).unwrap();
        let name = CString::new("d".repeat(200)).unwrap();
        for _ in 0..levels {
            rustix::fs::mkdirat(&d, &name, Mode::from_raw_mode(0o755)).unwrap();
            d = open_at(d.as_fd(), &name).unwrap();
        }
        let f = rustix::fs::openat(
            &d,
            c"bottom",
            OFlags::WRONLY | OFlags::CREATE,
            Mode::from_raw_mode(0o644),
        )
        .unwrap();
        std::fs::File::from(f).write_all(&[7u8; 5000]).unwrap();
    }

    #[test]
    fn a_tree_deeper_than_path_max_is_measured_as_too_deep_and_removed() {
        let d = scratch("deep");
        deep_chain(&d, 300);
        assert!(300 * 201 > libc::PATH_MAX as usize);
        let u = usage(&d);
        assert!(u.too_deep, "{u:?}");
        assert!(u.excess(1 << 30).unwrap().contains("levels deep"), "{u:?}");
        chown_tree(&d, rustix::process::getuid().as_raw()).unwrap();
        remove_all(&d).unwrap();
        assert!(!d.exists());
    }

    #[test]
    fn closed_directories_are_measured_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("modes");
        let hidden = d.join("hidden");
        std::fs::create_dir(&hidden).unwrap();
        std::fs::write(hidden.join("ballast"), vec![1u8; 300_000]).unwrap();
        std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o300)).unwrap();
        let u = usage(&d);
        assert!(u.bytes >= 300_000, "{u:?}");
        assert_eq!(u.entries, 2);
        assert!(u.excess(100_000).unwrap().contains("--disk allows"), "{u:?}");
        remove_all(&d).unwrap();
        assert!(!d.exists());
    }

    #[test]
    fn too_many_entries_are_over_the_limit_and_the_count_stops() {
        let d = scratch("many");
        let fd = open_dir(&d).unwrap();
        for i in 0..=MAX_ENTRIES {
            let n = CString::new(format!("f{i}")).unwrap();
            rustix::fs::openat(&fd, &n, OFlags::WRONLY | OFlags::CREATE, Mode::from_raw_mode(0o644)).unwrap();
        }
        let u = usage(&d);
        assert_eq!(u.entries, MAX_ENTRIES + 1);
        assert!(u.excess(1 << 30).unwrap().contains("files and directories"), "{u:?}");
        clear_but(&d, &["f7"]).unwrap();
        assert_eq!(names(fd.as_fd()).unwrap(), vec![CString::new("f7").unwrap()]);
        remove_all(&d).unwrap();
    }

    #[test]
    fn links_are_removed_never_followed() {
        let d = scratch("links");
        let outside = scratch("links-target");
        std::fs::write(outside.join("keep"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, d.join("to-outside")).unwrap();
        let u = usage(&d);
        assert_eq!(u.entries, 1);
        remove_all(&d).unwrap();
        assert!(outside.join("keep").exists());
        remove_all(&outside).unwrap();
    }
}

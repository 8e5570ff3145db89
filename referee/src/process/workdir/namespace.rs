//! The referee's own mount namespace, in which working directories are
//! tmpfs mounts (see [`super`]).

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};

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
pub(crate) fn enter_private_mounts() -> &'static str {
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
pub(crate) fn describe() -> &'static str {
    if mounts() {
        "disk: a tmpfs of --disk per working directory (kernel-enforced)"
    } else {
        "disk: --disk measured after each move (no mount namespace here)"
    }
}

/// Whether working directories are tmpfs mounts in this process.
pub(super) fn mounts() -> bool {
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
        unshare(UnshareFlags::NEWNS)?;
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
    unshare(UnshareFlags::NEWUSER | UnshareFlags::NEWNS)?;
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// unshare(2) of a user or mount namespace while the process has one
/// thread.
fn unshare(flags: rustix::thread::UnshareFlags) -> std::io::Result<()> {
    // SAFETY: the callers unshare a user or mount namespace while the
    // process has one thread (checked in enter_private_mounts, or in a
    // forked child of it); no file table or fs context is unshared, so
    // nothing another thread holds changes under it.
    Ok(unsafe { rustix::thread::unshare_unsafe(flags) }?)
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

pub(super) fn mount_tmpfs(dir: &Path, bytes: u64, inodes: u64) -> std::io::Result<()> {
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

pub(super) fn unmount(dir: &Path) -> rustix::io::Result<()> {
    rustix::mount::unmount(dir, rustix::mount::UnmountFlags::DETACH)
}

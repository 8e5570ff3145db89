//! What the agent's view needs to know of the host's own mounts: the
//! system directories and what each is (a link, or a directory whose mount
//! flags a bind must keep and that can or cannot be shown as an overlay;
//! see [`super::namespaces`]), found once per referee: the system's mounts
//! and links do not change during a run, and every move needs them.

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// System directories shown read-only (those that exist; symbolic links
/// such as a merged-/usr `/bin -> usr/bin` are recreated as links).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Devices bound into the agent's `/dev`.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// Links in the agent's `/dev` (so `> /dev/stdout` works).
pub(super) const DEV_LINKS: &[(&str, &str)] = &[
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
];

/// The [`DEVICES`] that exist and the flags of their mount a bind keeps,
/// read once per referee.
pub(super) fn devices() -> &'static [(&'static Path, libc::c_ulong)] {
    static DEVS: std::sync::OnceLock<Vec<(&'static Path, libc::c_ulong)>> = std::sync::OnceLock::new();
    DEVS.get_or_init(|| {
        DEVICES
            .iter()
            .map(Path::new)
            .filter(|d| d.exists())
            .map(|d| (d, locked_flags(d)))
            .collect()
    })
}

/// What one of the host's system directories is.
#[derive(Debug)]
pub(super) enum System {
    /// A symbolic link to this target.
    Link(PathBuf),
    /// A directory.
    Dir {
        /// The flags of its mount a bind or overlay of it keeps ([`locked_flags`]).
        kept: libc::c_ulong,
        /// Whether an overlay shows all of it ([`overlayable`]).
        overlay: bool,
    },
}

/// The system directories that exist, in [`SYSTEM`]'s order, read once
/// per referee (a symlink_metadata, a statvfs and a scan of the mount
/// table each, which every move used to repeat).
pub(super) fn system_dirs() -> &'static [(&'static Path, System)] {
    static DIRS: std::sync::OnceLock<Vec<(&'static Path, System)>> = std::sync::OnceLock::new();
    DIRS.get_or_init(|| {
        SYSTEM
            .iter()
            .map(Path::new)
            .filter_map(|p| match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => Some((p, System::Link(std::fs::read_link(p).ok()?))),
                Ok(m) if m.is_dir() => Some((
                    p,
                    System::Dir {
                        kept: locked_flags(p),
                        overlay: overlayable(p),
                    },
                )),
                _ => None,
            })
            .collect()
    })
}

/// `p` as an overlay option can carry it (no separator or escape in it).
fn plain(p: &Path) -> Option<&str> {
    p.to_str().filter(|s| !s.contains([':', ',', '\\']))
}

/// Whether an overlay of `dir` shows as much as a bind: not where `dir`
/// has mounts below it (an overlay shows only its own file system), or
/// where its path holds a character the option string cannot carry.
fn overlayable(dir: &Path) -> bool {
    plain(dir).is_some() && !submounted().iter().any(|m| m.starts_with(dir) && m != dir)
}

/// The overlay options showing the [`overlayable`] `dir` over the empty
/// directory `empty` (`None` if `empty`'s path cannot be carried).
pub(super) fn overlay_options(dir: &Path, empty: &Path) -> Option<CString> {
    let (d, e) = (plain(dir)?, plain(empty)?);
    CString::new(format!("lowerdir={d}:{e}")).ok()
}

/// The mount points of the referee's namespace (read once: the system
/// directories' mounts do not change during a run).
fn submounted() -> &'static [PathBuf] {
    static MOUNTS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    MOUNTS.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        // The fifth field is the mount point, with spaces and such octal-escaped.
        text.lines()
            .filter_map(|l| l.split(' ').nth(4))
            .map(|m| PathBuf::from(m.replace("\\040", " ")))
            .collect()
    })
}

/// The flags of the mount holding `p` that a bind of it must keep: a user
/// namespace may not clear read-only, noexec, nodev, nosuid or atime flags
/// set by its parent (the kernel refuses the remount otherwise).
pub(super) fn locked_flags(p: &Path) -> libc::c_ulong {
    use rustix::fs::StatVfsMountFlags as St;
    let Ok(st) = rustix::fs::statvfs(p) else {
        return 0;
    };
    let pairs = [
        (St::RDONLY, libc::MS_RDONLY),
        (St::NOEXEC, libc::MS_NOEXEC),
        (St::NODEV, libc::MS_NODEV),
        (St::NOSUID, libc::MS_NOSUID),
        (St::NOATIME, libc::MS_NOATIME),
        (St::NODIRATIME, libc::MS_NODIRATIME),
        (St::RELATIME, libc::MS_RELATIME),
    ];
    pairs
        .iter()
        .filter(|(st_flag, _)| st.f_flag.contains(*st_flag))
        .fold(0, |acc, (_, ms)| acc | ms)
}

//! What the agent's view needs to know of the host's own mounts: the
//! flags a bind must keep, and whether a system directory can be shown as
//! an overlay (see [`super::namespaces`]).

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// The overlay options showing `dir` over the empty directory `empty`, or
/// `None` where an overlay would show less than a bind: `dir` has mounts
/// below it (an overlay shows only its own file system), or a path holds
/// a character the option string cannot carry.
pub(super) fn overlay_options(dir: &Path, empty: &Path) -> Option<CString> {
    fn plain(p: &Path) -> Option<&str> {
        p.to_str().filter(|s| !s.contains([':', ',', '\\']))
    }
    let (d, e) = (plain(dir)?, plain(empty)?);
    if submounted().iter().any(|m| m.starts_with(dir) && m != dir) {
        return None;
    }
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

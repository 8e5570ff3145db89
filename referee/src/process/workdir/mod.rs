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

mod namespace;
mod walk;

pub(crate) use namespace::{describe, enter_private_mounts};
use namespace::{mount_tmpfs, mounts, unmount};
use rustix::fs::{Gid, Uid};
use std::ffi::CString;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use walk::{copy_tree, give, measure, names, open_dir, remove_entry, Budget};

/// Files and directories an agent may keep in its working directory.
pub(crate) const MAX_ENTRIES: u64 = 10_000;
/// Directory levels a walk holds open at once.
pub(crate) const MAX_DEPTH: usize = 48;
/// Room in a bounded directory beyond `--disk`: the referee's own next
/// files (`input.txt`, the captured streams' first bytes) always fit after
/// a move that kept within `--disk`, and one that went past it is caught.
const RESERVE_BYTES: u64 = 1 << 20;
/// Inodes beyond [`MAX_ENTRIES`], for the same reason.
const RESERVE_INODES: u64 = 16;

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

/// Ends a working directory's mount, if it has one. With `keep: Some(disk)`
/// its files are first copied to the directory underneath (on the disk of
/// `--out`), for the organiser to read, holes as holes and at most `disk`
/// bytes of data blocks: what an agent wrote never takes more of `--out`
/// than `--disk`. Returns a note for the record when files were left out.
/// Copy failures are logged, never fatal: the game is recorded already.
pub(crate) fn settle(dir: &Path, keep: Option<u64>) -> Option<String> {
    if !is_bounded(dir) {
        return None;
    }
    let held = keep.and_then(|_| open_dir(dir).ok());
    if let Err(e) = unmount(dir) {
        log::warn!("cannot unmount {}: {e}", dir.display());
        return None;
    }
    let from = held?;
    let to = open_dir(dir)
        .inspect_err(|e| log::warn!("cannot keep the files of {}: {e}", dir.display()))
        .ok()?;
    let mut budget = Budget {
        entries: MAX_ENTRIES,
        bytes: keep.unwrap_or_default(),
        skipped: 0,
    };
    if let Err(e) = copy_tree(from.as_fd(), to.as_fd(), 0, &mut budget) {
        log::warn!("cannot keep all files of {}: {e}", dir.display());
    }
    (budget.skipped > 0).then(|| {
        format!(
            "{} files of {} were not kept: their data went past --disk",
            budget.skipped,
            dir.display()
        )
    })
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

//! Walks of an agent-written tree, each directory opened from the one
//! above it with `O_NOFOLLOW` (never by path): measuring, handing over,
//! emptying at any depth (see [`hoist`]) and copying off a tmpfs.

use super::{Usage, MAX_DEPTH, MAX_ENTRIES};
use rustix::fs::{AtFlags, Dir, FileType, Gid, Mode, OFlags, Uid};
use rustix::io::Errno;
use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

pub(super) fn measure(d: BorrowedFd<'_>, depth: usize, u: &mut Usage) {
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

pub(super) fn give(d: BorrowedFd<'_>, depth: usize, to: (Uid, Gid), left: &mut u64) {
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

pub(super) fn open_dir(p: &Path) -> std::io::Result<OwnedFd> {
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
pub(super) fn names(d: BorrowedFd<'_>) -> rustix::io::Result<Vec<CString>> {
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
pub(super) fn remove_entry(d: BorrowedFd<'_>, name: &CStr) -> rustix::io::Result<()> {
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

/// What a copy may still take, and what it left out.
#[derive(Debug)]
pub(super) struct Budget {
    /// Entries still to copy.
    pub entries: u64,
    /// Bytes of data blocks still to write.
    pub bytes: u64,
    /// Files left out: their data did not fit in `bytes`.
    pub skipped: u64,
}

/// The block size a copy's data is counted in.
const BLOCK: u64 = 4096;
/// The most data extents of one file a copy follows; a file with more
/// is left out (a tmpfs of `--disk` holds at most one per page anyway).
const MAX_EXTENTS: usize = 1 << 16;

/// Copies the tree under `from` into `to`: directories, regular files and
/// links (as links); other kinds are left out. At most `budget`'s entries
/// and bytes of blocks and [`MAX_DEPTH`] levels; holes stay holes.
pub(super) fn copy_tree(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    depth: usize,
    budget: &mut Budget,
) -> std::io::Result<()> {
    for e in Dir::read_from(from)? {
        let e = e?;
        let name = e.file_name();
        if is_dot(name) || budget.entries == 0 {
            continue;
        }
        budget.entries -= 1;
        match e.file_type() {
            FileType::Directory if depth + 1 < MAX_DEPTH => {
                rustix::fs::mkdirat(to, name, Mode::from_raw_mode(0o755))?;
                let _ = rustix::fs::chmodat(from, name, Mode::from_raw_mode(0o700), AtFlags::empty());
                let (src, dst) = (open_at(from, name)?, open_at(to, name)?);
                copy_tree(src.as_fd(), dst.as_fd(), depth + 1, budget)?;
            }
            FileType::RegularFile => copy_file(from, to, name, budget)?,
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(from, name, Vec::new())?;
                rustix::fs::symlinkat(&target, to, name)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The data extents of `f` (`SEEK_DATA` to `SEEK_HOLE`), `None` past
/// [`MAX_EXTENTS`].
fn extents(f: &OwnedFd) -> std::io::Result<Option<Vec<(u64, u64)>>> {
    use rustix::fs::{seek, SeekFrom};
    let mut found = Vec::new();
    let mut at = 0;
    loop {
        let start = match seek(f, SeekFrom::Data(at)) {
            Ok(s) => s,
            // No data at or after `at`.
            Err(Errno::NXIO) => return Ok(Some(found)),
            Err(e) => return Err(e.into()),
        };
        let end = seek(f, SeekFrom::Hole(start))?;
        if found.len() == MAX_EXTENTS {
            return Ok(None);
        }
        found.push((start, end));
        at = end;
    }
}

/// Copies the regular file `name` with its holes, if its data blocks fit
/// in `budget`; else leaves it out and counts it.
fn copy_file(from: BorrowedFd<'_>, to: BorrowedFd<'_>, name: &CStr, budget: &mut Budget) -> std::io::Result<()> {
    let read = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let src = rustix::fs::openat(from, name, read, Mode::empty())?;
    let blocks = |x: &[(u64, u64)]| x.iter().map(|(s, e)| (e - s).div_ceil(BLOCK) * BLOCK).sum::<u64>();
    let data = extents(&src)?.filter(|x| blocks(x) <= budget.bytes);
    let Some(data) = data else {
        budget.skipped += 1;
        return Ok(());
    };
    budget.bytes -= blocks(&data);
    let write = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let dst = rustix::fs::openat(to, name, write, Mode::from_raw_mode(0o644))?;
    let mut buf = vec![0u8; 1 << 16];
    for (start, end) in data {
        let mut at = start;
        while at < end {
            let want = buf.len().min(usize::try_from(end - at).unwrap_or(usize::MAX));
            let n = rustix::io::pread(&src, &mut buf[..want], at)?;
            if n == 0 {
                break;
            }
            let mut done = 0;
            while done < n {
                done += rustix::io::pwrite(&dst, &buf[done..n], at + done as u64)?;
            }
            at += n as u64;
        }
    }
    // The length, holes at the end included.
    rustix::fs::ftruncate(&dst, rustix::fs::fstat(&src)?.st_size as u64)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::workdir::{chown_tree, clear_but, remove_all, usage};
    use std::io::Write;

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

    #[test]
    fn a_copy_keeps_holes_and_leaves_out_what_passes_its_bytes() {
        let (from, to) = (scratch("sparse-from"), scratch("sparse-to"));
        // 16 MiB long, one block of data at 8 MiB; and 64 KiB of data.
        let f = std::fs::File::create(from.join("sparse")).unwrap();
        f.set_len(16 << 20).unwrap();
        rustix::io::pwrite(&f, b"here", 8 << 20).unwrap();
        std::fs::write(from.join("dense"), vec![1u8; 64 << 10]).unwrap();
        let mut budget = Budget {
            entries: 10,
            bytes: 32 << 10,
            skipped: 0,
        };
        let (a, b) = (open_dir(&from).unwrap(), open_dir(&to).unwrap());
        copy_tree(a.as_fd(), b.as_fd(), 0, &mut budget).unwrap();
        let kept = std::fs::metadata(to.join("sparse")).unwrap();
        assert_eq!(kept.len(), 16 << 20);
        let blocks = std::os::unix::fs::MetadataExt::blocks(&kept);
        assert!(blocks * 512 <= 64 << 10, "holes stay holes: {blocks} blocks");
        let data = std::fs::read(to.join("sparse")).unwrap();
        assert_eq!(&data[8 << 20..(8 << 20) + 4], b"here");
        assert!(!to.join("dense").exists(), "64 KiB of data past a budget of 28 KiB");
        assert_eq!(budget.skipped, 1);
        remove_all(&from).unwrap();
        remove_all(&to).unwrap();
    }
}

//! Writing the agent's files (`output.txt`, `playdata.txt`, `calibration.txt`)
//! so that a kill at any instant leaves something the reader can use, at as
//! little cost as the file's role allows.
//!
//! A rename over an existing file is the safe way to replace it, but on a
//! disk file system it is dear: ext4 writes the new file's blocks out at the
//! rename (its `auto_da_alloc` guard) and frees the old inode's, about
//! 0.1 ms a file on this project's machines against under 0.01 ms for a
//! write in place. A short move writes two or three files, so that was a
//! third of the agent's whole per-move floor. Hence [`Replace`]: a file
//! whose content is worthless until rewritten is written in place, and so
//! is a file that a single write covers whole.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Up to this many bytes, a write at offset 0 is one page-cache copy, which a
/// kill cannot interrupt half-way (the kernel checks for a fatal signal only
/// between pages).
const ONE_PAGE: usize = 4096;

/// What a file holds before it is written, which decides how it may be
/// replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replace {
    /// Nothing worth keeping: a previous turn's move, or a record whose
    /// reader checks its integrity. Written in place (then cut to length),
    /// so a kill during the write leaves a damaged file.
    Stale,
    /// A valid text of this many bytes that a kill must never damage (this
    /// turn's move so far). Written in place when the new text covers it in
    /// one page; otherwise through a temporary file and a rename.
    Valid(usize),
}

/// Writes `contents` to `dir/name` as `replace` allows. Anything but a plain
/// regular file of ours at `name` (a symlink, a FIFO, a hard link to
/// another file, a directory) is replaced by a rename, never written
/// through.
pub(crate) fn write_file(dir: &Path, name: &str, contents: &str, replace: Replace) -> std::io::Result<()> {
    let in_place = match replace {
        Replace::Stale => true,
        Replace::Valid(old) => contents.len() >= old && contents.len() <= ONE_PAGE,
    };
    if in_place {
        if let Some((file, len)) = open_plain(&dir.join(name)) {
            return overwrite(&file, len, contents.as_bytes());
        }
    }
    write_atomic(dir, name, contents)
}

/// `path` opened for writing (created when missing), with its length, if it
/// is a regular file with no other name; None when it is anything else or
/// cannot be opened, for the caller to fall back on a rename.
fn open_plain(path: &Path) -> Option<(File, u64)> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .mode(0o644)
        // No following a symlink out of the directory, and no blocking on
        // a FIFO with no reader (that open fails with ENXIO instead).
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    (meta.file_type().is_file() && meta.nlink() == 1).then_some((file, meta.len()))
}

/// Writes `bytes` at the start of `file`, `old_len` bytes long, and cuts off
/// whatever the old content had beyond them.
fn overwrite(file: &File, old_len: u64, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all_at(bytes, 0)?;
    if old_len > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

/// Writes `contents` to `dir/name` through a temporary file and a rename, so
/// a reader (or a kill) never sees a half-written file. On any error the
/// temporary file is removed: no `.name.tmpPID` is left behind.
pub(crate) fn write_atomic(dir: &Path, name: &str, contents: &str) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = File::create(&tmp)
        .and_then(|mut f| f.write_all(contents.as_bytes()))
        // No fsync: the reader is on the same machine and the rename is
        // atomic for it; an fsync would cost milliseconds of a 0.01 s budget.
        .and_then(|()| std::fs::rename(&tmp, dir.join(name)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    use crate::scratch::scratch as temp_dir;

    fn inode(p: &Path) -> u64 {
        std::fs::symlink_metadata(p).unwrap().ino()
    }

    #[test]
    fn atomic_write_leaves_no_temp_file_when_the_rename_fails() {
        let dir = temp_dir("atomic-fail");
        // A non-empty directory where output.txt should go: the rename fails.
        std::fs::create_dir_all(dir.join("output.txt/inside")).unwrap();
        assert!(write_atomic(&dir, "output.txt", "1\n").is_err());
        assert!(write_file(&dir, "output.txt", "1\n", Replace::Stale).is_err());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("output.txt")],
            "a temp file was left behind"
        );
    }

    #[test]
    fn atomic_write_replaces_file() {
        let dir = temp_dir("atomic");
        write_atomic(&dir, "output.txt", "E 1,1 2,2\n").unwrap();
        write_atomic(&dir, "output.txt", "E 3,3 4,4\n").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("output.txt")).unwrap(), "E 3,3 4,4\n");
    }

    #[test]
    fn stale_files_are_written_in_place_and_cut_to_length() {
        let dir = temp_dir("stale");
        let p = dir.join("output.txt");
        write_file(&dir, "output.txt", "J 1,1 3,3\nJ 3,3 5,5\n", Replace::Stale).unwrap();
        let ino = inode(&p);
        write_file(&dir, "output.txt", "E 1,1 2,2\n", Replace::Stale).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "E 1,1 2,2\n");
        assert_eq!(inode(&p), ino, "not written in place");
    }

    #[test]
    fn a_valid_text_is_overwritten_in_place_only_by_one_write_that_covers_it() {
        let dir = temp_dir("valid");
        let p = dir.join("output.txt");
        let short = "E 1,1 2,2\n";
        let long = "J 1,1 3,3\nJ 3,3 5,5\n";
        write_file(&dir, "output.txt", short, Replace::Stale).unwrap();
        let ino = inode(&p);
        // Longer: one write covers the old text, so in place.
        write_file(&dir, "output.txt", long, Replace::Valid(short.len())).unwrap();
        assert_eq!((std::fs::read_to_string(&p).unwrap().as_str(), inode(&p)), (long, ino));
        // Shorter: an in-place write would leave the old tail until the
        // cut, so it goes through a rename (a new inode).
        write_file(&dir, "output.txt", short, Replace::Valid(long.len())).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), short);
        assert_ne!(inode(&p), ino, "a shorter text was written in place");
        // More than a page: a kill could stop the write between pages.
        let ino = inode(&p);
        let huge = "E 1,1 2,2\n".repeat(500);
        write_file(&dir, "output.txt", &huge, Replace::Valid(short.len())).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), huge);
        assert_ne!(inode(&p), ino, "a multi-page text was written in place");
    }

    #[test]
    fn links_and_special_files_are_replaced_never_written_through() {
        let dir = temp_dir("special");
        let p = dir.join("output.txt");
        // A symlink to a file elsewhere: that file is left alone.
        let target = dir.join("elsewhere.txt");
        std::fs::write(&target, "keep\n").unwrap();
        std::os::unix::fs::symlink(&target, &p).unwrap();
        write_file(&dir, "output.txt", "E 1,1 2,2\n", Replace::Stale).unwrap();
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_file());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
        // A hard link: the other name keeps its content.
        std::fs::remove_file(&p).unwrap();
        std::fs::hard_link(&target, &p).unwrap();
        write_file(&dir, "output.txt", "E 1,1 2,2\n", Replace::Stale).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "E 1,1 2,2\n");
        // A FIFO with no reader: no hang, replaced by a file.
        std::fs::remove_file(&p).unwrap();
        let fifo = rustix::fs::FileType::Fifo;
        rustix::fs::mknodat(rustix::fs::CWD, &p, fifo, rustix::fs::Mode::from_raw_mode(0o600), 0).unwrap();
        write_file(&dir, "output.txt", "E 1,1 2,2\n", Replace::Stale).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "E 1,1 2,2\n");
    }
}

//! The intake: how a class folder's entries become students, and how each
//! student's folder is taken in, once, into a snapshot their build and
//! tests run from. A submission is untrusted data from its first byte:
//!
//! - every folder is accounted for, under a safe id ([`id_of`]): a name
//!   that is not UTF-8, holds other characters, is too long or ends like a
//!   page of the report is graded under a sanitised id with a hash of the
//!   name, never skipped;
//! - the folder is read fd-relative, never following a link: a link that
//!   stays inside the folder is kept as a link, one that leads out is left
//!   out (and said so); FIFOs, devices and sockets refuse the submission;
//! - sizes are counted by length (a sparse file counts whole), with caps
//!   on the entries and the total, each refusal a reason of its own;
//! - modes are kept (an executable stays executable), and nothing in the
//!   organiser's class folder is ever written or re-moded.

use super::copies::{self, fnv1a};
use crate::process::agentinfo::printable;
use crate::process::workdir::MAX_DEPTH;
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, ResolveFlags};
use std::ffi::{CStr, OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The longest folder name used as an id as it is (bytes).
const MAX_ID: usize = 64;
/// The end of a student page's name that marks its replay page.
pub(crate) const GAMES_PAGE: &str = "-games";
/// Files, folders and links a submission may hold: the rest of the
/// snapshot's room is the build's.
pub(crate) const MAX_ENTRIES: u64 = 5_000;

/// A student: the class folder's entry and the id it is graded under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Student {
    /// Safe in a file name, a CSV cell, a terminal and HTML.
    pub id: String,
    /// The entry's name in the class folder, as it is.
    pub folder: OsString,
}

/// The class in `dir`: one student per entry that is a folder or a link
/// (a link is refused at its intake, with a reason), sorted by id; and a
/// note for each entry that is not a student (hidden names, plain files),
/// already escaped for a terminal.
pub(crate) fn class(dir: &Path) -> Result<(Vec<Student>, Vec<String>), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read the submissions {}: {e}", dir.display()))?;
    let (mut students, mut notes) = (Vec::new(), Vec::new());
    for e in rd {
        let e = e.map_err(|e| format!("cannot read the submissions {}: {e}", dir.display()))?;
        let name = e.file_name();
        let shown = shown(&name);
        let kind = e
            .file_type()
            .map_err(|err| format!("{}: {err}", dir.join(&name).display()))?;
        if name.as_bytes().starts_with(b".") {
            notes.push(format!("{shown}: a hidden entry, not a student"));
        } else if kind.is_dir() || kind.is_symlink() {
            let id = id_of(&name);
            if id.as_bytes() != name.as_bytes() {
                notes.push(format!("{shown} is graded as {id} (its name is not a plain file name)"));
            }
            students.push(Student { id, folder: name });
        } else {
            notes.push(format!("{shown}: not a folder, not a student"));
        }
    }
    students.sort_by(|a, b| a.id.cmp(&b.id));
    if students.is_empty() {
        return Err(format!("{} holds no submission folders", dir.display()));
    }
    Ok((students, notes))
}

/// A name as a person may see it: lossily decoded, control characters
/// escaped.
pub(crate) fn shown(name: &OsStr) -> String {
    printable(&name.to_string_lossy())
}

/// The id a folder is graded under: its name where that is plain (UTF-8
/// letters, digits, `.`, `_`, `-`; not starting with `.` or `-`; at most
/// [`MAX_ID`] bytes; not ending in [`GAMES_PAGE`]), else the name's plain
/// characters and a hash of all its bytes after a `~`, which no plain
/// name holds, so no two folders share an id.
pub(crate) fn id_of(name: &OsStr) -> String {
    let plain_char = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-');
    if let Some(s) = name.to_str() {
        let plain = !s.is_empty()
            && s.len() <= MAX_ID
            && s.chars().all(plain_char)
            && !s.starts_with(['.', '-'])
            && !s.ends_with(GAMES_PAGE);
        if plain {
            return s.to_string();
        }
    }
    let mut kept = String::new();
    for c in name.to_string_lossy().chars() {
        if kept.len() + c.len_utf8() > 40 {
            break;
        }
        kept.push(if plain_char(c) && !(kept.is_empty() && matches!(c, '.' | '-')) {
            c
        } else {
            '_'
        });
    }
    format!("{kept}~{:08x}", fnv1a(name.as_bytes()) >> 32)
}

/// What an intake left out (links that lead out of the folder, each said
/// in words, escaped) and the fingerprint of what it took in.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub left_out: Vec<String>,
    /// Each file's hash, comments and whitespace aside ([`copies`]).
    hashes: Vec<u64>,
}

impl Snapshot {
    /// The submission's fingerprint, whatever its files' names.
    pub(crate) fn fingerprint(&self) -> Option<String> {
        copies::fingerprint(self.hashes.clone())
    }
}

/// The caps on a submission.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    /// Bytes of all its files, each counted by its length.
    pub bytes: u64,
    /// Files, folders and links.
    pub entries: u64,
}

/// Takes `folder` of the class `class_dir` into the existing, empty
/// directory `dst`; or the reason the submission is refused, in words for
/// the student.
pub(crate) fn take_in(class_dir: &Path, folder: &OsStr, dst: &Path, caps: Caps) -> Result<Snapshot, String> {
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let class = rustix::fs::open(class_dir, dir_flags, Mode::empty())
        .map_err(|e| format!("cannot open the class folder {}: {e}", class_dir.display()))?;
    let root = match rustix::fs::openat(&class, folder, dir_flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
            return Err(
                "the class entry is a link, not a folder: links are not followed, so nothing was taken in".into(),
            )
        }
        Err(e) => return Err(format!("its folder cannot be read: {e}")),
    };
    let to = rustix::fs::open(dst, dir_flags, Mode::empty())
        .map_err(|e| format!("cannot open {} to take the submission in: {e}", dst.display()))?;
    let mut walk = Walk {
        root: root.as_fd(),
        caps,
        bytes: 0,
        entries: 0,
        snapshot: Snapshot::default(),
    };
    walk.copy_dir(root.as_fd(), to.as_fd(), &mut PathBuf::new(), 0)?;
    Ok(walk.snapshot)
}

/// One intake's walk.
struct Walk<'a> {
    /// The student's folder, which links must stay beneath.
    root: BorrowedFd<'a>,
    caps: Caps,
    bytes: u64,
    entries: u64,
    snapshot: Snapshot,
}

impl Walk<'_> {
    fn copy_dir(
        &mut self,
        from: BorrowedFd<'_>,
        to: BorrowedFd<'_>,
        rel: &mut PathBuf,
        depth: usize,
    ) -> Result<(), String> {
        let mut names: Vec<std::ffi::CString> = Vec::new();
        let read = Dir::read_from(from).map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
        for e in read {
            let e = e.map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
            if !matches!(e.file_name().to_bytes(), b"." | b"..") {
                names.push(e.file_name().to_owned());
            }
        }
        // In name order: the same snapshot, and the same first refusal, every time.
        names.sort();
        for name in &names {
            rel.push(OsStr::from_bytes(name.to_bytes()));
            let r = self.copy_entry(from, to, name, rel, depth);
            rel.pop();
            r?;
        }
        Ok(())
    }

    fn copy_entry(
        &mut self,
        from: BorrowedFd<'_>,
        to: BorrowedFd<'_>,
        name: &CStr,
        rel: &mut PathBuf,
        depth: usize,
    ) -> Result<(), String> {
        let st = rustix::fs::statat(from, name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
        self.entries += 1;
        if self.entries > self.caps.entries {
            return Err(format!(
                "it holds more than {} files and folders, the most a submission may hold",
                self.caps.entries
            ));
        }
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                if depth + 1 >= MAX_DEPTH {
                    return Err(format!(
                        "its folders nest more than {MAX_DEPTH} levels deep, the most allowed"
                    ));
                }
                rustix::fs::mkdirat(to, name, Mode::from_raw_mode(0o755)).map_err(|e| self.ours(rel, e))?;
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let src = rustix::fs::openat(from, name, flags, Mode::empty())
                    .map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
                let dst = rustix::fs::openat(to, name, flags, Mode::empty()).map_err(|e| self.ours(rel, e))?;
                self.copy_dir(src.as_fd(), dst.as_fd(), rel, depth + 1)
            }
            FileType::RegularFile => self.copy_file(from, to, name, rel, st.st_size.max(0) as u64),
            FileType::Symlink => self.copy_link(from, to, name, rel),
            other => Err(format!(
                "it holds {} ({}): a submission holds only files and folders",
                what(other),
                self.show(rel)
            )),
        }
    }

    fn copy_file(
        &mut self,
        from: BorrowedFd<'_>,
        to: BorrowedFd<'_>,
        name: &CStr,
        rel: &Path,
        len: u64,
    ) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(len);
        if self.bytes > self.caps.bytes {
            let mib = |b: u64| b as f64 / f64::from(1 << 20);
            return Err(format!(
                "its files come to more than {:.1} MiB (at {}, {:.1} MiB), the most --disk allows (a sparse file counts by its length)",
                mib(self.caps.bytes),
                self.show(rel),
                mib(len)
            ));
        }
        let read = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let src: OwnedFd = rustix::fs::openat(from, name, read, Mode::empty())
            .map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
        // What was opened is what was measured: a file swapped for a pipe
        // since the stat is not read.
        let now = rustix::fs::fstat(&src).map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
        if FileType::from_raw_mode(now.st_mode) != FileType::RegularFile || now.st_size.max(0) as u64 > len {
            return Err(format!("{} changed while it was taken in", self.show(rel)));
        }
        // An executable stays one, for every user the tests run as.
        let mode = if now.st_mode & 0o111 != 0 { 0o755 } else { 0o644 };
        let write = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let dst = rustix::fs::openat(to, name, write, Mode::from_raw_mode(mode)).map_err(|e| self.ours(rel, e))?;
        rustix::fs::fchmod(&dst, Mode::from_raw_mode(mode)).map_err(|e| self.ours(rel, e))?;
        // Read whole (at most --disk), copied and fingerprinted at once.
        let mut bytes = Vec::new();
        let io = |e: std::io::Error| rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::IO);
        std::fs::File::from(src)
            .take(len)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{} cannot be read: {}", self.show(rel), io(e)))?;
        std::fs::File::from(dst)
            .write_all(&bytes)
            .map_err(|e| self.ours(rel, io(e)))?;
        self.snapshot.hashes.extend(copies::file_hash(&bytes));
        Ok(())
    }

    /// A link that resolves inside the folder is kept as it is (it
    /// resolves the same way in the snapshot); any other is left out.
    fn copy_link(&mut self, from: BorrowedFd<'_>, to: BorrowedFd<'_>, name: &CStr, rel: &Path) -> Result<(), String> {
        let target = rustix::fs::readlinkat(from, name, Vec::new())
            .map_err(|e| format!("{} cannot be read: {e}", self.show(rel)))?;
        let beneath = !target.as_bytes().starts_with(b"/")
            && rustix::fs::openat2(
                self.root,
                rel,
                OFlags::PATH | OFlags::CLOEXEC,
                Mode::empty(),
                ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
            )
            .is_ok();
        if beneath {
            return rustix::fs::symlinkat(target.as_c_str(), to, name).map_err(|e| self.ours(rel, e));
        }
        self.snapshot.left_out.push(format!(
            "{} is a link to {}, outside the folder: left out (links are not followed out of a submission)",
            self.show(rel),
            shown(OsStr::from_bytes(target.as_bytes()))
        ));
        Ok(())
    }

    fn show(&self, rel: &Path) -> String {
        format!("`{}`", shown(rel.as_os_str()))
    }

    /// An error writing the snapshot: the referee's side, said so.
    fn ours(&self, rel: &Path, e: rustix::io::Errno) -> String {
        format!("the referee could not take in {}: {e}", self.show(rel))
    }
}

/// A special file's kind, in words.
fn what(t: FileType) -> &'static str {
    match t {
        FileType::Fifo => "a named pipe (FIFO)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "a file of an unknown kind",
    }
}

#[cfg(test)]
mod tests;

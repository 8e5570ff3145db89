//! Files the referee shares with an agent, handled as if the agent were
//! hostile: whatever the agent left at a name (a symbolic link to another
//! file, a directory, a FIFO, a device, a huge file) is never followed,
//! never blocks the referee and is read only up to a cap.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What was found at an agent's output file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Nothing there.
    Missing,
    /// The contents (at most the cap).
    Text(Vec<u8>),
    /// Longer than the cap (its first cap bytes are not used).
    TooLarge,
    /// Something other than a regular file: what it is, in words.
    NotAFile(&'static str),
    /// It exists but could not be read.
    Unreadable(String),
}

fn kind_name(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Reads `dir/name` without following a link or blocking on a FIFO, and
/// only if it is a regular file of at most `cap` bytes.
pub(crate) fn read_capped(dir: &Path, name: &str, cap: usize) -> Output {
    let path = dir.join(name);
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Output::Missing,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Output::NotAFile("a symbolic link"),
        Err(e) => {
            return match std::fs::symlink_metadata(&path) {
                Ok(m) if !m.is_file() => Output::NotAFile(kind_name(m.file_type())),
                _ => Output::Unreadable(e.to_string()),
            }
        }
    };
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return Output::Unreadable(e.to_string()),
    };
    if !meta.is_file() {
        return Output::NotAFile(kind_name(meta.file_type()));
    }
    if meta.len() > cap as u64 {
        return Output::TooLarge;
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    match file.take(cap as u64 + 1).read_to_end(&mut data) {
        Ok(_) if data.len() > cap => Output::TooLarge,
        Ok(_) => Output::Text(data),
        Err(e) => Output::Unreadable(e.to_string()),
    }
}

/// Removes whatever is at `dir/name` (a file, a link, a whole directory);
/// links are removed, never followed.
pub(crate) fn remove(dir: &Path, name: &str) -> std::io::Result<()> {
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        // However deep and closed the agent made it.
        Ok(m) if m.is_dir() => super::workdir::remove_all(&path),
        Ok(_) => std::fs::remove_file(&path),
    }
}

/// Creates `dir/name` afresh (whatever was there is removed first, so a
/// link the agent planted cannot redirect the write) and opens it for
/// writing; `mode` as for open(2).
pub(crate) fn create_fresh(dir: &Path, name: &str, mode: u32) -> std::io::Result<File> {
    remove(dir, name)?;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(name))
}

/// Writes `dir/name` afresh with `data` (see [`create_fresh`]).
pub(crate) fn write_fresh(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<()> {
    create_fresh(dir, name, 0o644)?.write_all(data)
}

/// Cap on a file copied into agent directories (`calibration.txt`).
pub(crate) const COPY_CAP: usize = 1 << 20;

/// Copies the regular file `src` (an agent's own output, so read as in
/// [`read_capped`]) to `dir/name`.
pub(crate) fn copy_in(src: &Path, dir: &Path, name: &str) -> Result<(), String> {
    let (from_dir, from_name) = match (src.parent(), src.file_name().and_then(|n| n.to_str())) {
        (Some(d), Some(n)) => (d, n),
        _ => return Err(format!("{} is not a file name", src.display())),
    };
    let data = match read_capped(from_dir, from_name, COPY_CAP) {
        Output::Text(d) => d,
        Output::Missing => return Err(format!("{} is missing", src.display())),
        Output::TooLarge => return Err(format!("{} is larger than {COPY_CAP} bytes", src.display())),
        Output::NotAFile(k) => return Err(format!("{} is {k}, not a regular file", src.display())),
        Output::Unreadable(e) => return Err(format!("cannot read {}: {e}", src.display())),
    };
    write_fresh(dir, name, &data).map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
}

/// Bytes of a stream's end kept in memory: enough for a few lines of a
/// verdict, and a 1 GB stream costs no more than a small one.
pub(crate) const TAIL_BYTES: usize = 4096;

/// One captured output stream of an agent: a pipe whose bytes go to a file
/// up to a cap; the rest is read and counted but not kept, so a flood costs
/// neither disk nor a blocked agent. The stream's last [`TAIL_BYTES`] are
/// also kept in memory: the referee quotes an agent's output from what came
/// through its own pipe, never by reading back a file the agent could have
/// replaced (with a link to a secret, or a FIFO that blocks).
pub(crate) struct Capture {
    pipe: Option<File>,
    file: File,
    cap: u64,
    kept: u64,
    tail: Vec<u8>,
    /// Bytes read past the cap.
    pub discarded: u64,
}

impl Capture {
    /// A pipe for the agent's end (returned) and a capture into `dir/name`.
    pub(crate) fn new(dir: &Path, name: &str, cap: u64) -> std::io::Result<(Capture, OwnedFd)> {
        let file = create_fresh(dir, name, 0o644)?;
        let (rd, wr) = std::io::pipe()?;
        let rd: OwnedFd = rd.into();
        let fl = rustix::fs::fcntl_getfl(&rd)?;
        rustix::fs::fcntl_setfl(&rd, fl | rustix::fs::OFlags::NONBLOCK)?;
        let cap = Capture {
            pipe: Some(File::from(rd)),
            file,
            cap,
            kept: 0,
            tail: Vec::with_capacity(2 * TAIL_BYTES),
            discarded: 0,
        };
        Ok((cap, wr.into()))
    }

    /// The pipe's descriptor while it is open (for poll).
    pub(crate) fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd;
        self.pipe.as_ref().map(|p| p.as_fd())
    }

    /// Reads what is available now; closes the pipe at end of file.
    pub(crate) fn drain(&mut self) {
        let mut buf = [0u8; 16384];
        while let Some(p) = self.pipe.as_mut() {
            match p.read(&mut buf) {
                Ok(0) => self.pipe = None,
                Ok(n) => {
                    let keep = (n as u64).min(self.cap - self.kept) as usize;
                    if keep > 0 && self.file.write_all(&buf[..keep]).is_ok() {
                        self.kept += keep as u64;
                    }
                    self.discarded += (n - keep) as u64;
                    self.remember(&buf[..n]);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    }

    /// Keeps the stream's last [`TAIL_BYTES`] (trimmed in blocks, so the
    /// buffer never grows past twice that).
    fn remember(&mut self, bytes: &[u8]) {
        let bytes = &bytes[bytes.len().saturating_sub(TAIL_BYTES)..];
        if self.tail.len() + bytes.len() > 2 * TAIL_BYTES {
            let drop = self.tail.len().saturating_sub(TAIL_BYTES.saturating_sub(bytes.len()));
            self.tail.drain(..drop);
        }
        self.tail.extend_from_slice(bytes);
    }

    /// The last bytes the agent wrote to this stream (at most
    /// [`TAIL_BYTES`]), as they came through the pipe.
    pub(crate) fn tail(&self) -> &[u8] {
        &self.tail[self.tail.len().saturating_sub(TAIL_BYTES)..]
    }

    /// Final read, then a note at the end of the file if bytes were dropped.
    pub(crate) fn finish(&mut self) {
        self.drain();
        self.pipe = None;
        if self.discarded > 0 {
            let _ = writeln!(
                self.file,
                "\n[referee: {} more bytes discarded past the {}-byte cap]",
                self.discarded, self.cap
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("referee-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn odd_outputs_are_named_never_followed_and_never_block() {
        let d = dir("odd");
        assert_eq!(read_capped(&d, "output.txt", 10), Output::Missing);
        std::fs::create_dir(d.join("output.txt")).unwrap();
        assert_eq!(read_capped(&d, "output.txt", 10), Output::NotAFile("a directory"));
        remove(&d, "output.txt").unwrap();
        std::fs::write(d.join("secret"), "E 1,1").unwrap();
        symlink(d.join("secret"), d.join("output.txt")).unwrap();
        assert_eq!(read_capped(&d, "output.txt", 10), Output::NotAFile("a symbolic link"));
        remove(&d, "output.txt").unwrap();
        assert!(d.join("secret").exists(), "removing a link leaves its target");
        let (fifo, mode) = (rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o644));
        rustix::fs::mknodat(rustix::fs::CWD, d.join("output.txt"), fifo, mode, 0).unwrap();
        assert_eq!(read_capped(&d, "output.txt", 10), Output::NotAFile("a FIFO"));
        remove(&d, "output.txt").unwrap();
        std::fs::write(d.join("output.txt"), "0123456789A").unwrap();
        assert_eq!(read_capped(&d, "output.txt", 10), Output::TooLarge);
        std::fs::write(d.join("output.txt"), "E 1,1").unwrap();
        assert_eq!(read_capped(&d, "output.txt", 10), Output::Text(b"E 1,1".to_vec()));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_fresh_write_replaces_a_planted_link_instead_of_following_it() {
        let d = dir("fresh");
        std::fs::write(d.join("victim"), "keep").unwrap();
        symlink(d.join("victim"), d.join("input.txt")).unwrap();
        write_fresh(&d, "input.txt", b"GAME\n").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("victim")).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(d.join("input.txt")).unwrap(), "GAME\n");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_capture_keeps_the_cap_and_counts_the_rest() {
        let d = dir("capture");
        let (mut c, wr) = Capture::new(&d, "stdout.txt", 5).unwrap();
        let mut w = File::from(wr);
        w.write_all(b"0123456789").unwrap();
        drop(w);
        c.finish();
        assert_eq!(c.discarded, 5);
        let text = std::fs::read_to_string(d.join("stdout.txt")).unwrap();
        assert!(text.starts_with("01234\n[referee: 5 more bytes discarded"), "{text}");
        assert_eq!(c.tail(), b"0123456789", "the tail counts discarded bytes too");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_capture_tail_keeps_only_the_streams_end() {
        let d = dir("tail");
        let (mut c, wr) = Capture::new(&d, "stderr.txt", 100).unwrap();
        let mut w = File::from(wr);
        let writer = std::thread::spawn(move || {
            for i in 0..5000 {
                writeln!(w, "line {i}").unwrap();
            }
        });
        while c.fd().is_some() {
            c.drain();
        }
        writer.join().unwrap();
        c.finish();
        let tail = String::from_utf8_lossy(c.tail()).into_owned();
        assert_eq!(c.tail().len(), TAIL_BYTES);
        assert!(tail.ends_with("line 4998\nline 4999\n"), "{tail}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

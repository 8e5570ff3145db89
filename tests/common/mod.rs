// Each test binary uses only part of these helpers.
#![allow(dead_code)]

//! Running the agent binary as a child process, for the process-level tests.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The agent binary under test.
pub const AGENT: &str = env!("CARGO_BIN_EXE_agent");

#[path = "../../src/scratch.rs"]
pub mod scratch_dir;
pub use scratch_dir::scratch;

/// How a run of the agent ended.
pub struct Run {
    /// Exit status (-1 when killed by a signal).
    pub code: i32,
    /// Everything it wrote on stderr.
    pub stderr: String,
    /// CPU seconds (user + system) it used.
    pub cpu: f64,
}

/// Runs the agent with `args` in `dir`; panics if it is still running after
/// `limit` of wall-clock time (a hang), killing it first.
pub fn run(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let err_path = dir.join("stderr.log");
    let child = Command::new(AGENT)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on our own child with a status and rusage we own.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        if start.elapsed() > limit {
            // SAFETY: kill our own child, then reap it.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::wait4(pid, &mut status, 0, &mut ru);
            }
            panic!("the agent was still running after {limit:?} (it hangs)");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::mem::forget(child); // already reaped by wait4
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Run {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        stderr: std::fs::read_to_string(err_path).unwrap_or_default(),
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
    }
}

/// Names of the files in `dir` that look like leftover temporary files.
pub fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let (fifo, mode) = (rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600));
    rustix::fs::mknodat(rustix::fs::CWD, path, fifo, mode, 0)
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
}

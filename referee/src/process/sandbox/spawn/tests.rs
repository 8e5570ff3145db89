//! The start's own tests: many starts in a row, a failure before exec
//! reported with its stage, and the signals an agent starts with.

use super::{spawn, Exec, Launch};
use crate::process::sandbox::pgroup::wait4;
use std::ffi::CString;
use std::os::fd::AsRawFd;

/// A launch of `exec` in `dir` without confinement,
/// its streams on /dev/null.
fn launch(dir: &str, exec: Exec, null: &std::fs::File) -> Launch<'static> {
    let fd = null.as_raw_fd();
    Launch {
        exec,
        dir: CString::new(dir).unwrap(),
        stdio: [fd, fd, fd],
        env: vec![c"PATH=/usr/bin:/bin".into()],
        limits: None,
        confine: None,
    }
}

#[test]
fn children_run_and_end_one_after_another() {
    let null = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    // Many in a row, each ended and reaped before the next.
    for i in 0..200 {
        let exit = if i % 2 == 0 { "exit 0" } else { "exit 3" };
        let l = launch("/", Exec::shell(CString::new(exit).unwrap()), &null);
        let started = spawn(&l).unwrap();
        let (_, status, _) = wait4(started.pid, 0).unwrap();
        assert!(libc::WIFEXITED(status), "start {i}: wait status {status}");
        assert_eq!(libc::WEXITSTATUS(status), if i % 2 == 0 { 0 } else { 3 }, "start {i}");
    }
}

#[test]
fn a_child_that_fails_before_exec_is_reported_with_its_stage() {
    let null = std::fs::File::open("/dev/null").unwrap();
    let l = launch("/no/such/dir/here", Exec::shell(c"exit 0".into()), &null);
    let e = spawn(&l).err().expect("a start in a missing directory must fail");
    let msg = e.to_string();
    assert!(msg.contains("entering the working directory"), "{msg}");
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{msg}");
}

#[test]
fn an_agent_starts_with_default_signal_dispositions() {
    // The referee (as every Rust program) ignores SIGPIPE; an ignored
    // signal stays ignored across exec, so the child must reset it.
    // Close-on-exec: no other test's child may hold it open (dup2 clears it
    // on the agent's stdout).
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
    let null = std::fs::File::open("/dev/null").unwrap();
    let mut l = launch("/", Exec::shell(c"grep '^Sig[IB]' /proc/self/status".into()), &null);
    l.stdio[1] = write.as_raw_fd();
    let started = spawn(&l).unwrap();
    wait4(started.pid, 0).unwrap();
    drop(write);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::fs::File::from(read), &mut text).unwrap();
    for line in text.lines() {
        let (name, mask) = line.split_once(':').unwrap();
        let mask = u64::from_str_radix(mask.trim(), 16).unwrap();
        // Signals 1 to 31: the C library keeps 32 and 33 for itself.
        assert_eq!(mask & 0x7fff_ffff, 0, "{name} in the agent is not empty: {text}");
    }
    assert_eq!(text.lines().count(), 2, "{text}");
}

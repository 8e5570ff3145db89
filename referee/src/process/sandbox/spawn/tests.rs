//! The start's own tests: many starts in a row, and a failure before
//! exec reported with its stage.

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

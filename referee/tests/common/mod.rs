//! Shared by the process-level test files: the sandbox the tests run under.
#![allow(dead_code)]

use referee::sandbox::{Choice, Limits, Sandbox};
use std::io::Write;
use std::sync::{Arc, OnceLock};

/// Set to `rlimits` or `none` on a machine without root or a writable
/// cgroup v2, to run the tests at that level; checks that need the full
/// sandbox then say they are skipped.
pub const LEVEL_VAR: &str = "REFEREE_SANDBOX";

/// The level the tests were asked to run at (`full` unless [`LEVEL_VAR`] says otherwise).
pub fn choice() -> Choice {
    match std::env::var(LEVEL_VAR).as_deref() {
        Err(_) | Ok("full") => Choice::Full,
        Ok("rlimits") => Choice::Rlimits,
        Ok("none") => Choice::None,
        Ok(other) => panic!("{LEVEL_VAR}={other:?}: expected full, rlimits or none"),
    }
}

/// True when the full sandbox is in force; otherwise prints why `what` is skipped.
pub fn full_or_skip(what: &str) -> bool {
    if choice() == Choice::Full {
        return true;
    }
    // Straight to the stream: the test harness hides eprintln! of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {what}: needs the full sandbox, and {LEVEL_VAR} asks for a weaker level"
    );
    false
}

/// The sandbox every test shares; fails (never skips silently) when the
/// full level is asked for and the machine lacks something it needs.
pub fn sandbox() -> Arc<Sandbox> {
    static SB: OnceLock<Arc<Sandbox>> = OnceLock::new();
    SB.get_or_init(|| {
        let out = std::env::temp_dir().join("referee-test-records");
        match Sandbox::new(choice(), Limits::default(), Vec::new(), vec![out]) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                panic!("{e}\nRun as root on Linux with cgroup v2, or set {LEVEL_VAR}=rlimits to test the weaker level.")
            }
        }
    })
    .clone()
}

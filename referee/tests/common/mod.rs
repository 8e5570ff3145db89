//! Shared by the process-level test files: the sandbox the tests run under.
#![allow(dead_code)]

use referee::process::sandbox::{Choice, Limits, Sandbox};
use std::io::Write;
use std::sync::{Arc, OnceLock};

/// Set to `rlimits` or `none` on a machine without root or a writable
/// cgroup v2, to run the tests at that level; checks that need the full
/// sandbox then say they are skipped.
pub const LEVEL_VAR: &str = "REFEREE_SANDBOX";

/// The level the tests run at: what [`LEVEL_VAR`] asks for, or else the
/// full sandbox where this machine allows it. Where it does not (no root, no
/// writable cgroup v2, e.g. some containers), the tests run at the rlimits
/// level and every check that needs the full sandbox prints that it is
/// skipped and why, so a reduced run is visible in the log, never silent.
pub fn choice() -> Choice {
    setup().0
}

fn setup() -> &'static (Choice, Arc<Sandbox>) {
    static SB: OnceLock<(Choice, Arc<Sandbox>)> = OnceLock::new();
    SB.get_or_init(|| {
        let out = std::env::temp_dir().join("referee-test-records");
        let make = |c: Choice| Sandbox::new(c, Limits::default(), Vec::new(), vec![out.clone()]);
        let asked = match std::env::var(LEVEL_VAR).as_deref() {
            Err(_) => None,
            Ok("full") => Some(Choice::Full),
            Ok("full-rootless") => Some(Choice::FullRootless),
            Ok("rlimits") => Some(Choice::Rlimits),
            Ok("none") => Some(Choice::None),
            Ok(other) => panic!("{LEVEL_VAR}={other:?}: expected full, full-rootless, rlimits or none"),
        };
        match asked {
            Some(c) => match make(c) {
                Ok(s) => (c, Arc::new(s)),
                Err(e) => panic!("{e}\n{LEVEL_VAR} asks for this level; unset it or choose a weaker one."),
            },
            None => match make(Choice::Full) {
                Ok(s) => (Choice::Full, Arc::new(s)),
                Err(e) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "SKIPPED the full-sandbox checks on this machine: {e}\nRunning at the rlimits level; set {LEVEL_VAR}=full to make this an error."
                    );
                    let s = make(Choice::Rlimits).unwrap_or_else(|e| panic!("even the rlimits sandbox failed: {e}"));
                    (Choice::Rlimits, Arc::new(s))
                }
            },
        }
    })
}

/// True when a full sandbox (as root or rootless) is in force; otherwise
/// prints why `what` is skipped.
pub fn full_or_skip(what: &str) -> bool {
    if matches!(choice(), Choice::Full | Choice::FullRootless) {
        return true;
    }
    // Straight to the stream: the test harness hides eprintln! of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {what}: needs the full sandbox, which is not in force here (see {LEVEL_VAR})"
    );
    false
}

/// The sandbox every test shares, at [`choice`]'s level.
pub fn sandbox() -> Arc<Sandbox> {
    setup().1.clone()
}

//! Shared by the process-level test files: the sandbox the tests run under.
#![allow(dead_code)]

use referee::process::sandbox::{LevelChoice, Sandbox, SandboxLimits};
use std::io::Write;
use std::path::Path;
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
pub fn choice() -> LevelChoice {
    setup().0
}

/// Removes this process's jail roots at exit: the shared sandbox is a
/// static, never dropped, and the suite leaves nothing in /tmp.
extern "C" fn remove_jail_roots() {
    let prefix = format!("referee-root-{}-", std::process::id());
    for e in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

fn setup() -> &'static (LevelChoice, Arc<Sandbox>) {
    static SB: OnceLock<(LevelChoice, Arc<Sandbox>)> = OnceLock::new();
    SB.get_or_init(|| {
        // SAFETY: registers a plain function with no preconditions.
        unsafe { libc::atexit(remove_jail_roots) };
        let out = std::env::temp_dir().join("referee-test-records");
        let make = |c: LevelChoice| Sandbox::new(c, SandboxLimits::default(), Vec::new(), vec![out.clone()]);
        let asked = match std::env::var(LEVEL_VAR).as_deref() {
            Err(_) => None,
            Ok("full") => Some(LevelChoice::Full),
            Ok("full-rootless") => Some(LevelChoice::FullRootless),
            Ok("rlimits") => Some(LevelChoice::Rlimits),
            Ok("none") => Some(LevelChoice::None),
            Ok(other) => panic!("{LEVEL_VAR}={other:?}: expected full, full-rootless, rlimits or none"),
        };
        match asked {
            Some(c) => match make(c) {
                Ok(s) => (c, Arc::new(s)),
                Err(e) => panic!("{e}\n{LEVEL_VAR} asks for this level; unset it or choose a weaker one."),
            },
            None => match make(LevelChoice::Full) {
                Ok(s) => (LevelChoice::Full, Arc::new(s)),
                Err(e) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "SKIPPED the full-sandbox checks on this machine: {e}\nRunning at the rlimits level; set {LEVEL_VAR}=full to make this an error."
                    );
                    let s = make(LevelChoice::Rlimits).unwrap_or_else(|e| panic!("even the rlimits sandbox failed: {e}"));
                    (LevelChoice::Rlimits, Arc::new(s))
                }
            },
        }
    })
}

/// True when a full sandbox (as root or rootless) is in force; otherwise
/// prints why `what` is skipped.
pub fn full_or_skip(what: &str) -> bool {
    if matches!(choice(), LevelChoice::Full | LevelChoice::FullRootless) {
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

/// The path of a binary under test: `var` where the unprivileged rerun
/// names a copy, else the one cargo built.
pub fn binary(var: &str, built: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| built.to_string())
}

/// Set in the unprivileged rerun, which must not start another.
const RERUN_VAR: &str = "REFEREE_TEST_UNPRIVILEGED";

/// Reruns the calling test file as the user `nobody` at `full-rootless`,
/// as students and most organisers run the referee, and fails with its
/// output unless every test passes and none is skipped. As root, it copies
/// the test binary and `binaries` (variable, path) where any user can run
/// them (the checkout may sit in root's home). Unprivileged already, it only
/// says so: the tests themselves ran without root.
pub fn rerun_unprivileged(binaries: &[(&str, &str)]) {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    if std::env::var_os(RERUN_VAR).is_some() {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let _ = writeln!(
            std::io::stderr(),
            "NOTE: not root: the tests above ran unprivileged, at {:?}",
            choice()
        );
        return;
    }
    let me = std::env::current_exe().unwrap();
    let name = me.file_name().unwrap().to_string_lossy().into_owned();
    let base = std::env::temp_dir().join(format!("referee-unprivileged-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let tmp = base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let copy = |from: &Path, to: &str| {
        let to = base.join(to);
        std::fs::copy(from, &to).unwrap();
        to
    };
    let mut cmd = std::process::Command::new(copy(&me, "tests"));
    for (var, path) in binaries {
        cmd.env(var, copy(Path::new(path), var));
    }
    let o = cmd
        .args(["--test-threads", "2"])
        .env_remove(LEVEL_VAR)
        .env("HOME", &tmp)
        .env("TMPDIR", &tmp)
        .env(RERUN_VAR, "1")
        .env(LEVEL_VAR, "full-rootless")
        .current_dir(&tmp)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&base);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(
        o.status.success() && out.contains("test result: ok"),
        "the tests failed for an unprivileged referee at full-rootless:\n{out}\n{err}"
    );
    assert!(!err.contains("SKIPPED"), "every check must run rootless:\n{err}");
}

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

/// Removes this process's jail roots, cgroups and machine lock directory
/// at exit: the shared sandbox is a static, never dropped, and the suite
/// leaves nothing in /tmp or the cgroup hierarchies (a later referee would
/// sweep the cgroups, but only one started in the same cgroup).
extern "C" fn remove_jail_roots() {
    let prefix = format!("referee-root-{}-", std::process::id());
    for e in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir(e.path());
        }
    }
    if std::env::var_os(MACHINE_LOCK_VAR).is_none() {
        let _ = std::fs::remove_dir(own_machine_lock_dir());
    }
    remove_cgroups(
        Path::new("/sys/fs/cgroup"),
        &format!("referee-{}-", std::process::id()),
        6,
    );
}

/// Removes the directories named `prefix...` below `dir` (at most `depth`
/// levels down), each after the leaves in it; the moves have ended.
fn remove_cgroups(dir: &Path, prefix: &str, depth: u32) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if e.file_name().to_string_lossy().starts_with(prefix) {
            for leaf in std::fs::read_dir(e.path()).into_iter().flatten().flatten() {
                let _ = std::fs::remove_dir(leaf.path());
            }
            let _ = std::fs::remove_dir(e.path());
        } else if depth > 0 {
            remove_cgroups(&e.path(), prefix, depth - 1);
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
    if rerun_needed() {
        rerun(binaries, None);
    }
}

/// Set in a rerun inside a cgroup delegated to its user.
pub const DELEGATED_VAR: &str = "REFEREE_TEST_DELEGATED";

/// Reruns the tests of the calling file that match `filter` as `nobody`
/// at `full-rootless`, inside a cgroup v2 delegated to `nobody` (what
/// `systemd-run --user --scope -p Delegate=yes` gives a user), with
/// [`DELEGATED_VAR`] set; fails unless they pass.
pub fn rerun_unprivileged_delegated(binaries: &[(&str, &str)], filter: &str) {
    if !rerun_needed() {
        return;
    }
    let cg = delegated_cgroup();
    rerun(binaries, Some((filter, &cg)));
    // The referees in it may leave their (empty) cgroups for the next
    // referee to sweep: none comes, so the whole tree goes here.
    for _ in 0..100 {
        if remove_cgroup_tree(&cg) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Removes a tree of cgroups without processes, deepest first.
fn remove_cgroup_tree(dir: &Path) -> bool {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            remove_cgroup_tree(&e.path());
        }
    }
    std::fs::remove_dir(dir).is_ok() || !dir.exists()
}

/// As root and not in a rerun already (else says why not, once).
fn rerun_needed() -> bool {
    if std::env::var_os(RERUN_VAR).is_some() {
        return false;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let _ = writeln!(
            std::io::stderr(),
            "NOTE: not root: the tests above ran unprivileged, at {:?}",
            choice()
        );
        return false;
    }
    true
}

/// A new cgroup v2 below this process's, owned by `nobody` as systemd
/// delegates one (the directory, `cgroup.procs`, `cgroup.subtree_control`
/// and `cgroup.threads`).
fn delegated_cgroup() -> std::path::PathBuf {
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let (root, mount) = info
        .lines()
        .find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            (right.split_whitespace().next()? == "cgroup2").then_some(())?;
            let f: Vec<&str> = left.split_whitespace().collect();
            Some((f[3].to_string(), Path::new(f[4]).to_path_buf()))
        })
        .expect("a cgroup v2 mount");
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .expect("a cgroup v2 membership");
    let rel = Path::new(path).strip_prefix(&root).unwrap_or(Path::new(path));
    let dir = mount
        .join(rel.strip_prefix("/").unwrap_or(rel))
        .join(format!("delegated-to-nobody-{}", std::process::id()));
    let _ = std::fs::remove_dir(&dir);
    std::fs::create_dir(&dir).unwrap();
    for f in ["", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"] {
        std::os::unix::fs::chown(dir.join(f), Some(65534), Some(65534)).unwrap();
    }
    dir
}

/// Runs a copy of this test binary as `nobody` at `full-rootless`: all of
/// it, or the tests matching a filter inside a delegated cgroup.
fn rerun(binaries: &[(&str, &str)], delegated: Option<(&str, &Path)>) {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let me = std::env::current_exe().unwrap();
    let name = me.file_name().unwrap().to_string_lossy().into_owned();
    let tag = if delegated.is_some() { "-delegated" } else { "" };
    let base = std::env::temp_dir().join(format!("referee-unprivileged-{}-{name}{tag}", std::process::id()));
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
    cmd.args(["--test-threads", "2"])
        .env_remove(LEVEL_VAR)
        .env("HOME", &tmp)
        .env("TMPDIR", &tmp)
        .env(RERUN_VAR, "1")
        .env(MACHINE_LOCK_VAR, machine_lock_dir())
        .env(LEVEL_VAR, "full-rootless")
        .current_dir(&tmp);
    match delegated {
        None => {
            cmd.uid(65534).gid(65534);
        }
        Some((filter, cg)) => {
            let procs = std::ffi::CString::new(cg.join("cgroup.procs").into_os_string().into_encoded_bytes()).unwrap();
            cmd.arg(filter).env(DELEGATED_VAR, "1");
            // SAFETY: only system calls on data prepared before the fork.
            // Joining needs root (write access to the common ancestor), so
            // it comes before becoming nobody.
            unsafe {
                cmd.pre_exec(move || {
                    let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    let joined = fd >= 0 && libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                    let dropped = libc::setgroups(0, std::ptr::null()) == 0
                        && libc::setgid(65534) == 0
                        && libc::setuid(65534) == 0;
                    if joined && dropped {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
    }
    let o = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&base);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(
        o.status.success() && out.contains("test result: ok") && !out.contains("running 0 tests"),
        "the tests failed for an unprivileged referee at full-rootless:\n{out}\n{err}"
    );
    assert!(!err.contains("SKIPPED"), "every check must run rootless:\n{err}");
}

/// Watches, while a run goes on, that the organiser's user can still
/// create an inotify instance and take a lock on a system file
/// (`/etc/passwd`; a shared lock, which an agent's exclusive one would
/// refuse, and which the probes of tests run side by side do not): no agent may use up the user's kernel quotas or lock
/// the host's files against the organiser's tools. Every hostile run is
/// watched so.
pub struct OrganiserProbe {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Result<u32, String>>,
}

impl OrganiserProbe {
    /// Starts checking every 50 ms.
    pub fn start() -> OrganiserProbe {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut checks = 0;
            while !flag.load(Ordering::Relaxed) {
                organiser_can_work()?;
                checks += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Ok(checks)
        });
        OrganiserProbe { stop, thread }
    }

    /// Stops checking; panics with what the organiser could not do.
    pub fn finish(self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        match self.thread.join() {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => panic!("during the run, {e}"),
            Err(_) => panic!("the organiser's probe panicked"),
        }
    }
}

/// One check of [`OrganiserProbe`].
pub fn organiser_can_work() -> Result<(), String> {
    use rustix::fs::{flock, inotify, FlockOperation};
    inotify::init(inotify::CreateFlags::CLOEXEC)
        .map_err(|e| format!("the organiser could not create an inotify instance: {e}"))?;
    let f = std::fs::File::open("/etc/passwd").map_err(|e| format!("cannot open /etc/passwd: {e}"))?;
    flock(&f, FlockOperation::NonBlockingLockShared)
        .map_err(|e| format!("the organiser could not lock /etc/passwd: {e}"))?;
    let _ = flock(&f, FlockOperation::Unlock);
    Ok(())
}

/// Runs `sh -c script` in a mount namespace of its own (as root `unshare
/// -m`, else `unshare -rm`), where the script may mount a small tmpfs, and
/// returns its standard error; fails if the namespace or a mount could
/// not be had.
pub fn in_private_mounts(script: &str) -> String {
    let ns = if rustix::process::geteuid().is_root() {
        "-m"
    } else {
        "-rm"
    };
    let o = std::process::Command::new("unshare")
        .args([ns, "sh", "-c", script])
        .output()
        .unwrap_or_else(|e| panic!("cannot run unshare (util-linux) for a private tmpfs: {e}"));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        !err.contains("unshare:") && !err.contains("mount:"),
        "this test needs a private mount namespace (root, or unprivileged user namespaces): {err}"
    );
    err
}

/// The workspace root (where `target/release` is).
pub fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A scratch directory (and the builds beside its gradings), removed
/// however the test ends.
pub struct Scratch(pub std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        for e in std::fs::read_dir(&self.0).into_iter().flatten().flatten() {
            let _ = std::fs::remove_dir_all(e.path());
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A class in `dir` for `referee grade`: one folder per `(name, arguments)`
/// whose `run` file starts our release agent with those arguments, and a
/// folder `empty` with nothing to run.
pub fn agent_class(dir: &Path, players: &[(&str, &str)], empty: &str) {
    let ours = repo().join("target/release/agent");
    assert!(
        ours.exists(),
        "{} is missing: build the workspace first",
        ours.display()
    );
    for (name, args) in players {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        let line = format!("{} {args}", ours.display());
        std::fs::write(d.join("run"), format!("{}\n", line.trim_end())).unwrap();
    }
    std::fs::create_dir_all(dir.join(empty)).unwrap();
    std::fs::write(dir.join(empty).join("notes.txt"), "").unwrap();
}

/// The Chromium program, if one is installed.
pub fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|p| {
            std::process::Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|p| p.to_string())
}

/// Without Chromium, a browser check fails where `REFEREE_BROWSER_TEST=
/// required` (as `make test` sets) and otherwise says it is skipped.
pub fn browser_missing(what: &str) {
    let required = std::env::var("REFEREE_BROWSER_TEST").is_ok_and(|v| v == "required");
    assert!(!required, "{what} needs Chromium, which is not installed");
    let _ = writeln!(std::io::stderr(), "SKIPPED {what}: no Chromium installed");
}

/// Headless Chromium on `url` with `args`, at most 60 s.
pub fn run_chromium(chrome: &str, args: &[&str], url: &str) -> std::process::Output {
    std::process::Command::new("timeout")
        .arg("60")
        .arg(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
        ])
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs")
}

/// Opens `page` in headless Chromium inside a frame `width` px wide (a
/// window cannot be narrower than 500 px) and returns the outer page's
/// DOM, whose body carries `data-fits="yes ..."` when the page did not
/// scroll sideways at that width, `"no ..."` with the widths otherwise.
pub fn dom_at_width(chrome: &str, page: &Path, width: u32) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let probe = r##"<script>window.addEventListener("load", function () { setTimeout(function () {
  var w = window.innerWidth, sw = document.documentElement.scrollWidth;
  parent.postMessage((sw <= w ? "yes " : "no ") + "viewport " + w + " page width " + sw, "*");
}, 200); });</script>"##;
    let inner = page.with_file_name(format!("measured-{width}.html"));
    std::fs::write(&inner, format!("{html}{probe}")).unwrap();
    let outer = page.with_file_name(format!("frame-{width}.html"));
    std::fs::write(
        &outer,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe src=\"file://{}\" width=\"{width}\" height=\"800\" style=\"border:0;display:block\"></iframe>\
             <script>window.addEventListener(\"message\", function (e) {{ document.body.setAttribute(\"data-fits\", e.data); }});</script></body></html>",
            inner.display()
        ),
    )
    .unwrap();
    let size = format!("--window-size={},900", width.max(480) + 20);
    let url = format!("file://{}", outer.display());
    let o = run_chromium(chrome, &["--dump-dom", &size, "--virtual-time-budget=3000"], &url);
    let _ = std::fs::remove_file(&inner);
    let _ = std::fs::remove_file(&outer);
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What [`dom_at_width`]'s probe found.
pub fn fits(dom: &str) -> String {
    dom.split("data-fits=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or("no data-fits attribute (did the probe run?)")
        .to_string()
}

/// Names the privileged run's machine lock directory to its rerun.
const MACHINE_LOCK_VAR: &str = "REFEREE_TEST_MACHINE_LOCK";

/// The directory [`machine_alone_lock`] locks: the one the privileged
/// run named for its rerun (whose temporary directory is another), else
/// one of this process's own, removed at exit.
fn machine_lock_dir() -> &'static Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(d) = std::env::var_os(MACHINE_LOCK_VAR) {
            return d.into();
        }
        use std::os::unix::fs::PermissionsExt;
        let d = own_machine_lock_dir();
        let _ = std::fs::create_dir(&d);
        // Open to `nobody`, whatever the umask.
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755));
        d
    })
}

fn own_machine_lock_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("referee-machine-lock-{}", std::process::id()))
}

/// The machine to itself (released on drop), for a test whose figure is
/// a time or the machine's free memory: no other test of the same file
/// holding [`machine_shared_lock`] runs meanwhile, here or in the
/// unprivileged rerun, which runs beside the privileged tests. Four
/// processes faulting in 2 GiB on two cores that six other processes
/// share took 2.4 s, not 0.5 s: the agent's own pace, not the referee's.
/// A directory, which root and `nobody` can both open.
pub fn machine_alone_lock() -> std::fs::File {
    machine_lock(rustix::fs::FlockOperation::LockExclusive)
}

/// Held by every other test of a file that has measuring tests: they wait
/// for each other only while one of [`machine_alone_lock`]'s runs.
pub fn machine_shared_lock() -> std::fs::File {
    machine_lock(rustix::fs::FlockOperation::LockShared)
}

fn machine_lock(how: rustix::fs::FlockOperation) -> std::fs::File {
    let dir = machine_lock_dir();
    let f = std::fs::File::open(dir).unwrap_or_else(|e| panic!("cannot open {}: {e}", dir.display()));
    rustix::fs::flock(&f, how).unwrap_or_else(|e| panic!("cannot lock {}: {e}", dir.display()));
    f
}

/// Pids of this machine's live processes (zombies left out) whose command
/// line (its arguments, each ended by a NUL) satisfies `wanted`; never
/// this test process.
pub fn live_processes(wanted: impl Fn(&[u8]) -> bool) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
        if !zombie && wanted(&cmdline) {
            found.push(pid);
        }
    }
    found
}

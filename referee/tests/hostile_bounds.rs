//! Agents that attack the bounds the kernel keeps. The disk: a tree deeper
//! than PATH_MAX, a directory filled to the brim or preallocated past
//! `--disk` with `fallocate`, a directory closed to its owner, more entries
//! than allowed. None may stop a run or void a game: each is that agent's
//! loss (or no loss at all), every game is recorded, a killed run resumes
//! past it, and nothing of it stays on disk. Memory: several processes
//! that together hold more than `--memory`, and memory held outside any
//! process (memfds, SysV shared memory), each lose or are refused. Each runs the real `referee` at the level the tests run
//! at (`full` as root), and again as the user `nobody` (`full-rootless`).

mod common;

use referee::output::record::{self, GameRecord, LossReason};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static MOCK: LazyLock<String> = LazyLock::new(|| common::binary("REFEREE_TEST_MOCK", env!("MOCK_AGENT")));
static REFEREE: LazyLock<String> =
    LazyLock::new(|| common::binary("REFEREE_TEST_REFEREE", env!("CARGO_BIN_EXE_referee")));

/// A scratch area: the agents' scripts and the referee's `--out`.
struct Arena {
    base: PathBuf,
    out: PathBuf,
}

impl Arena {
    fn new(name: &str) -> Arena {
        let base = std::env::temp_dir().join(format!("referee-hostile-disk-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        Arena {
            out: base.join("out"),
            base,
        }
    }

    /// An agent running `body` with `sh`, `$1` being the mock agent.
    fn agent(&self, name: &str, body: &str) -> String {
        let path = self.base.join(format!("{name}.sh"));
        std::fs::write(&path, body).unwrap();
        format!("sh {} {}", path.display(), *MOCK)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&*REFEREE);
        c.args(args)
            .args([
                "--out",
                &self.out.display().to_string(),
                "--game",
                "testnim",
                "--size",
                "3",
            ])
            .args(["--no-preflight", "--sandbox", level()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Runs the referee to its end, the organiser's probe watching.
    fn run(&self, args: &[&str]) -> (Output, Vec<GameRecord>) {
        let probe = common::OrganiserProbe::start();
        let o = self.command(args).output().unwrap();
        probe.finish();
        (o, self.records())
    }

    fn records(&self) -> Vec<GameRecord> {
        record::load(&self.out.join("records.jsonl"), false).unwrap_or_default()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn level() -> &'static str {
    match common::choice() {
        referee::process::sandbox::LevelChoice::FullRootless => "full-rootless",
        referee::process::sandbox::LevelChoice::Rlimits => "rlimits",
        referee::process::sandbox::LevelChoice::None => "none",
        _ => "full",
    }
}

fn assert_finished(o: &Output, recs: &[GameRecord], games: usize) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "the run must finish: {err}");
    assert!(!err.contains("is full"), "no game is void: {err}");
    assert_eq!(recs.len(), games, "every game recorded once: {err}");
}

/// KiB of disk under `dir` (`du`, which counts preallocated blocks too).
fn kib(dir: &Path) -> u64 {
    let o = Command::new("du").arg("-sk").arg(dir).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    text.split_whitespace().next().unwrap_or("0").parse().unwrap_or(0)
}

/// Plays two games of `bad` against a good agent under `--disk 4M` and
/// returns the reasons `bad` lost for; every game must be recorded and
/// nothing of the attack may stay in `--out`.
fn two_games_against(a: &Arena, bad: &str) -> Vec<(Option<LossReason>, String)> {
    let good = format!("{} play", *MOCK);
    let args = [
        "match", bad, &good, "--games", "2", "--time", "10", "--names", "bad,good",
    ];
    let (o, recs) = a.run(&[&args[..], &["--disk", "4M", "--file-size", "2M"]].concat());
    assert_finished(&o, &recs, 2);
    assert!(kib(&a.out) < 1024, "{} KiB stayed in --out", kib(&a.out));
    recs.iter()
        .filter(|r| r.winner.is_some_and(|w| r.agents[1 - w] == "bad"))
        .map(|r| (r.loss, r.reason.clone()))
        .collect()
}

#[test]
fn filling_its_directory_to_the_brim_and_crashing_is_the_agents_loss() {
    let a = Arena::new("brim");
    // Files of 1 MiB, each under --file-size, until the disk refuses one.
    let bad = a.agent(
        "brim",
        "i=0; while [ $i -lt 100 ]; do dd if=/dev/zero of=b$i bs=1M count=1 2>/dev/null || break; i=$((i+1)); done\nexit 1\n",
    );
    let lost = two_games_against(&a, &bad);
    assert_eq!(lost.len(), 2, "{lost:?}");
    for (loss, why) in lost {
        assert_eq!(loss, Some(LossReason::Disk), "{why}");
        assert!(why.contains("--disk allows 4.0 MiB"), "{why}");
    }
}

#[test]
fn preallocating_past_the_disk_limit_is_refused_or_lost() {
    let a = Arena::new("fallocate");
    // fallocate --keep-size: blocks without a file size, which a file-size
    // limit never sees.
    let bad = a.agent("fallocate", "fallocate -n -l 200M ballast\nexit 1\n");
    let lost = two_games_against(&a, &bad);
    assert_eq!(lost.len(), 2, "{lost:?}");
    for (loss, why) in lost {
        // Refused by the kernel (the agent then crashes), or caught after.
        assert!(
            matches!(loss, Some(LossReason::Crash | LossReason::Disk)),
            "{loss:?}: {why}"
        );
    }
}

#[test]
fn a_directory_closed_to_its_owner_is_counted_and_removed() {
    let a = Arena::new("closed");
    let bad = a.agent(
        "closed",
        "mkdir -p hidden && chmod 700 hidden && for i in 1 2 3; do dd if=/dev/zero of=hidden/b$i bs=512k count=3 2>/dev/null; done\nchmod 300 hidden\nexec \"$1\" play\n",
    );
    let lost = two_games_against(&a, &bad);
    assert_eq!(lost.len(), 2, "{lost:?}");
    for (loss, why) in lost {
        assert_eq!(loss, Some(LossReason::Disk), "{why}");
    }
}

#[test]
fn more_entries_than_allowed_lose() {
    let a = Arena::new("entries");
    let bad = a.agent(
        "entries",
        "mkdir -p many && cd many && i=0; while [ $i -lt 10100 ]; do : > f$i || break; i=$((i+1)); done\ncd .. && exec \"$1\" play\n",
    );
    let lost = two_games_against(&a, &bad);
    assert_eq!(lost.len(), 2, "{lost:?}");
    for (loss, why) in lost {
        assert_eq!(loss, Some(LossReason::Disk), "{why}");
        assert!(why.contains("files and directories"), "{why}");
    }
}

/// An agent that, every move, extends a chain of directories 60 levels
/// deep (12,000 bytes of path, three times PATH_MAX) by relative steps,
/// then plays.
fn deep_agent(a: &Arena) -> String {
    let name = "d".repeat(200);
    a.agent(
        "deep",
        &format!(
            "( i=0; while [ $i -lt 60 ]; do mkdir -p {name} && cd {name} || exit 0; i=$((i+1)); done; echo x > bottom )\nexec \"$1\" play\n"
        ),
    )
}

#[test]
fn a_path_deeper_than_path_max_neither_stops_a_tournament_nor_its_resume() {
    let a = Arena::new("deep");
    let deep = deep_agent(&a);
    let good = format!("{} play", *MOCK);
    let specs = [format!("deep={deep}"), format!("good={good}"), format!("other={good}")];
    let mut args = vec!["tournament", "--games", "2", "--time", "10"];
    args.extend(specs.iter().map(String::as_str));
    // Killed in the middle (SIGKILL: no clean-up at all), then resumed.
    let mut child = a.command(&args).spawn().unwrap();
    let t = Instant::now();
    while a.records().is_empty() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = a.records().len();
    assert!((1..6).contains(&before), "killed after {before} of 6 games");
    args.push("--resume");
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 6);
    for r in &recs {
        assert!(r.loss.is_none(), "no forfeit: {}", r.reason);
    }
    // Every game's directories went with the game (none was forfeited).
    let left: Vec<_> = std::fs::read_dir(a.out.join("games")).unwrap().flatten().collect();
    assert!(left.is_empty(), "left in games/: {left:?}");
}

/// Two games of `bad` against a good agent under `--memory 2G`: every game
/// recorded, and the reasons `bad` lost for.
fn two_games_under_2g(a: &Arena, bad: &str) -> Vec<(Option<LossReason>, String)> {
    let good = format!("{} play", *MOCK);
    let args = [
        "match", bad, &good, "--games", "2", "--time", "20", "--names", "bad,good", "--memory", "2G",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    let lost: Vec<_> = recs
        .iter()
        .filter(|r| r.winner.is_some_and(|w| r.agents[1 - w] == "bad"))
        .map(|r| (r.loss, r.reason.clone()))
        .collect();
    assert_eq!(lost.len(), 2, "bad loses both games: {lost:?}");
    lost
}

#[test]
fn four_processes_of_1_5_gib_under_2g_lose_for_memory() {
    // Each process keeps under the per-process limit; together 6 GiB.
    let a = Arena::new("four-hogs");
    let bad = a.agent(
        "hogs",
        "for i in 1 2 3 4; do \"$1\" hold 1536 4 & done\nwait\nexec \"$1\" play\n",
    );
    for (loss, why) in two_games_under_2g(&a, &bad) {
        assert_eq!(loss, Some(LossReason::Memory), "{why}");
        assert!(why.contains("--memory"), "{why}");
    }
}

#[test]
fn memory_held_outside_any_process_is_charged_or_refused() {
    // 3 GiB in memfds, in a detached SysV segment or in a tmpfs of a
    // nested user namespace: no process maps it,
    // so no count of processes sees it. A memory cgroup charges it to the
    // move (full); without one the calls are refused (seccomp).
    let a = Arena::new("unmapped");
    // A tmpfs of its own in a nested user namespace, filled with 200
    // files of 16 MiB (the largest --file-size allows).
    let nested = a.agent(
        "nested",
        "d=$(mktemp -d)\nunshare -Urm sh -c \"mount -t tmpfs none $d && for i in \\$(seq 200); do head -c 16777216 /dev/zero > $d/f\\$i || break; done\" || { echo 'unshare refused' >&2; exit 3; }\nexec \"$1\" play\n",
    );
    for kind in ["memfd", "shm", "nested"] {
        let bad = match kind {
            "nested" => nested.clone(),
            _ => format!("{} {kind} 3072", *MOCK),
        };
        for (loss, why) in two_games_under_2g(&a, &bad) {
            match level() {
                "full" => assert_eq!(loss, Some(LossReason::Memory), "{kind}: {why}"),
                _ => {
                    assert_eq!(loss, Some(LossReason::Crash), "{kind}: {why}");
                    assert!(why.contains("refused"), "{kind}: {why}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&a.out);
    }
}

#[test]
fn cpu_of_children_the_kernel_reaps_is_charged_or_the_run_says_it_is_not() {
    // SIGCHLD ignored: 40 children of 50 ms each, reaped by the kernel, so
    // their 2 s reach no parent's figure and each lives less than the
    // referee's scans of all processes; the clock is 1 s a game.
    let a = Arena::new("auto-reaped");
    let bad = format!("{} reaped-burn 40 50", *MOCK);
    let good = format!("{} play", *MOCK);
    let args = [
        "match", &bad, &good, "--games", "2", "--time", "1", "--names", "bad,good",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    let err = String::from_utf8_lossy(&o.stderr);
    let charged = level() == "full" || std::env::var_os(common::DELEGATED_VAR).is_some();
    if charged {
        assert!(!err.contains("not charged"), "{err}");
        for r in &recs {
            assert_eq!(r.winner.map(|w| r.agents[w].as_str()), Some("good"), "{}", r.reason);
            assert_eq!(r.loss, Some(LossReason::OverTime), "{}", r.reason);
        }
    } else {
        assert!(err.contains("CPU of auto-reaped children is not charged here"), "{err}");
    }
}

#[test]
fn an_agent_cannot_use_up_the_organisers_inotify_instances() {
    // The kernel counts inotify instances per user, a user namespace's
    // against its owner too: rootless, the agent's are the organiser's.
    let a = Arena::new("inotify");
    let bad = format!("{} inotify 1000 4", *MOCK);
    let good = format!("{} play", *MOCK);
    let child = a
        .command(&[
            "match", &bad, &good, "--games", "1", "--time", "20", "--names", "bad,good",
        ])
        .spawn()
        .unwrap();
    // Well into the first move (the agent's), which holds them 4 s.
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: plain system calls on a descriptor of our own.
    let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
    let err = std::io::Error::last_os_error();
    let o = child.wait_with_output().unwrap();
    assert!(
        fd >= 0,
        "the organiser could not create an inotify instance during the move: {err}"
    );
    // SAFETY: our own descriptor.
    unsafe { libc::close(fd) };
    assert_finished(&o, &a.records(), 1);
}

#[test]
fn an_agent_cannot_lock_the_hosts_files_against_the_organiser() {
    // Each system directory is a read-only overlay of its own inside the
    // move, so the agent's locks land on the overlay's inodes; through a
    // plain bind they reached the host's files (flock /etc/passwd failed
    // for the organiser for the whole move). At `full` every move of a
    // seat enters a copy of one prepared view with its own overlays: a
    // later move must find the locks of the earlier ones (and of the child
    // each leaves holding them) gone.
    let a = Arena::new("locks");
    let bad = format!("{} lock-etc 3", *MOCK);
    let good = format!("{} play", *MOCK);
    let args = [
        "match", &bad, &good, "--games", "2", "--time", "20", "--names", "bad,good", "-v",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    for r in &recs {
        assert_eq!(r.loss, None, "locking its own view of /etc is no fault: {}", r.reason);
    }
    let err = String::from_utf8_lossy(&o.stderr);
    if level() == "full" {
        // The moves entered prepared views (one per game and seat), which
        // mount overlays of their own: no set was made for moves to attach.
        assert!(err.contains("prepared view 1 built"), "{err}");
        assert!(!err.contains("overlay set 1 made"), "{err}");
    }
}

#[test]
fn an_unprivileged_referee_in_a_delegated_cgroup_charges_auto_reaped_children() {
    common::rerun_unprivileged_delegated(
        &[("REFEREE_TEST_MOCK", &MOCK), ("REFEREE_TEST_REFEREE", &REFEREE)],
        "cpu_of_children_the_kernel_reaps",
    );
}

#[test]
fn the_disk_attacks_fail_for_an_unprivileged_referee_too() {
    common::rerun_unprivileged(&[("REFEREE_TEST_MOCK", &MOCK), ("REFEREE_TEST_REFEREE", &REFEREE)]);
}

//! Hostile agents: each test runs the real `referee` with an agent that
//! attacks it (scripts written to a temp directory, or the `mock-agent`
//! fixture), and checks the verdict and its reason, the CPU charged, that
//! the match finished, that the opponent's files and the records are intact
//! and that no process of the agent is left.
//!
//! They run at the level `REFEREE_SANDBOX` names (full by default, which
//! fails with a message where the machine cannot provide it); attacks that
//! only the full level stops say so and are skipped at weaker levels.

mod common;

use agent::ByPlayer;
use agent::TestNim;
use referee::game::{play_game, Contestant, GameSetup, Rules, SeatKind};
use referee::output::record::{self, GameRecord, LossReason};
use referee::process::command::AgentCommand;
use referee::process::sandbox::LevelChoice;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// The binaries under test; the unprivileged rerun (see
/// [`the_attacks_fail_for_an_unprivileged_referee_too`]) runs copies.
static MOCK: LazyLock<String> = LazyLock::new(|| common::binary("REFEREE_TEST_MOCK", env!("MOCK_AGENT")));
static REFEREE: LazyLock<String> =
    LazyLock::new(|| common::binary("REFEREE_TEST_REFEREE", env!("CARGO_BIN_EXE_referee")));

/// A scratch area: `scripts/` for the agents, `out/` for the referee.
struct Arena {
    base: PathBuf,
    scripts: PathBuf,
    out: PathBuf,
    /// Shared with the other arenas, or the machine alone ([`Arena::alone`]).
    _machine: std::fs::File,
}

impl Arena {
    fn new(name: &str) -> Arena {
        Arena::with(name, common::machine_shared_lock())
    }

    /// An arena for a test that measures a time or the machine's memory,
    /// with no other arena's test running meanwhile (nor the rerun's).
    fn alone(name: &str) -> Arena {
        Arena::with(name, common::machine_alone_lock())
    }

    fn with(name: &str, machine: std::fs::File) -> Arena {
        let base = std::env::temp_dir().join(format!("referee-hostile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let scripts = base.join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        Arena {
            out: base.join("out"),
            base,
            scripts,
            _machine: machine,
        }
    }

    /// An agent command running `body` with `sh`; `$1` is the mock agent,
    /// `$2` the records directory, `$3` the script's own directory (each
    /// agent's files in a directory of their own, as the referee requires
    /// of two different programs).
    fn agent(&self, name: &str, body: &str) -> String {
        let dir = self.scripts.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.sh"));
        std::fs::write(&path, body).unwrap();
        format!(
            "sh {} {} {} {}",
            path.display(),
            *MOCK,
            self.out.display(),
            dir.display()
        )
    }

    fn spawn(&self, args: &[&str]) -> Child {
        let out = self.out.display().to_string();
        Command::new(&*REFEREE)
            .args(args)
            .args(["--out", &out, "--game", "testnim"])
            .args(if args.contains(&"--size") {
                &[][..]
            } else {
                &["--size", "3"][..]
            })
            // Hostile agents are meant to play (and lose); the pre-flight
            // move would stop the run before the first game.
            .arg("--no-preflight")
            .env(common::LEVEL_VAR, level_name())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs the referee to its end (failing after two minutes: a referee an
    /// agent managed to stop must not hang the test suite).
    fn run(&self, args: &[&str]) -> (std::process::Output, Vec<GameRecord>) {
        let probe = common::OrganiserProbe::start();
        let child = self.spawn(args);
        let o = finish(child, Duration::from_secs(120));
        probe.finish();
        let recs = record::load(&self.out.join("records.jsonl"), false).unwrap_or_default();
        (o, recs)
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn level_name() -> &'static str {
    match common::choice() {
        LevelChoice::Rlimits => "rlimits",
        LevelChoice::None => "none",
        LevelChoice::FullRootless => "full-rootless",
        _ => "full",
    }
}

fn finish(mut child: Child, limit: Duration) -> std::process::Output {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            // SAFETY: signals to our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGCONT) };
            child.kill().unwrap();
            let o = child.wait_with_output().unwrap();
            panic!(
                "the referee did not finish within {limit:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    common::live_processes(|cmdline| {
        // The referee's own processes name the agents' commands in their
        // arguments (and, not root, it forks a short-lived probe at start):
        // only agents count.
        let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
        argv0 != REFEREE.as_bytes() && String::from_utf8_lossy(cmdline).contains(marker)
    })
}

fn assert_finished(o: &std::process::Output, recs: &[GameRecord], games: usize) {
    assert!(
        o.status.success(),
        "the match must finish: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(recs.len(), games, "every game recorded once");
}

/// Checks that `good` never forfeits and returns the games `bad` lost by forfeit.
fn forfeits_of<'a>(recs: &'a [GameRecord], bad: &str) -> Vec<&'a GameRecord> {
    let mut lost = Vec::new();
    for r in recs {
        if let (Some(w), Some(_)) = (r.winner, r.loss) {
            assert_eq!(r.agents[1 - w], bad, "only the hostile agent may forfeit: {}", r.reason);
            lost.push(r);
        }
    }
    lost
}

#[test]
fn a_double_forked_session_leader_is_charged_and_ended_with_its_move() {
    if !common::full_or_skip("escape through setsid and a double fork") {
        return;
    }
    let a = Arena::new("escape");
    let marker = format!("escape-marker-{}", std::process::id());
    let cmd = format!("{} escape {marker}", *MOCK);
    let spec_a = format!("a={cmd}");
    let spec_b = format!("b={cmd}");
    let (o, recs) = a.run(&[
        "tournament",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--time",
        "30",
        &spec_a,
        &spec_b,
    ]);
    assert_finished(&o, &recs, 4);
    for r in &recs {
        assert!(r.loss.is_none(), "{}", r.reason);
        for m in &r.moves {
            // Each move waits until its detached burner has 0.2 s of CPU.
            assert!(m.cpu >= 0.19, "move {} of {} charged only {:.3} s", m.ply, r.key, m.cpu);
        }
    }
    assert_eq!(
        processes_with(&marker),
        Vec::<String>::new(),
        "burners outlived their moves"
    );
}

#[test]
fn an_agent_sees_nothing_of_its_opponent_the_records_or_the_referee() {
    if !common::full_or_skip("confinement of reads") {
        return;
    }
    let a = Arena::new("snoop");
    let bad = a.agent(
        "snoop",
        r#"me=${PWD##*/}
for f in ../*/input.txt ../*/output.txt ../*/playdata.txt "$2"/records.jsonl "$2"/games/*/*/input.txt /root/* /home/*/*; do
  case "$f" in ../"$me"/*|"$PWD"/*) continue;; esac
  [ -r "$f" ] && { echo "read $f" >&2; exit 9; }
done
# Its own PID namespace: process 1 is itself (full) or the move's init
# (rootless), whose command line is blanked: never the referee's, which
# names the opponent.
tr '\0' ' ' < /proc/1/cmdline | grep -q -e --names -e 'mock-agent play' && { echo "pid 1 shows the referee's arguments" >&2; exit 10; }
grep -q snoop.sh /proc/1/cmdline || [ "$(cat /proc/1/comm)" = init ] || { ls /proc >&2; exit 11; }
exec "$1" play
"#,
    );
    let good = format!("{} play", *MOCK);
    let (o, recs) = a.run(&[
        "match", &bad, &good, "--games", "2", "--time", "10", "--names", "bad,good",
    ]);
    assert_finished(&o, &recs, 2);
    assert!(
        forfeits_of(&recs, "bad").is_empty(),
        "the snooper saw something: {:?}",
        recs[0].reason
    );
}

#[test]
fn each_move_has_its_own_tmp_and_nothing_leads_out_of_its_view() {
    if !common::full_or_skip("a private /tmp per move") {
        return;
    }
    let a = Arena::new("view");
    // As root, every move of a seat enters a copy of one prepared view:
    // its /tmp must still be its own, the view's root read-only to it, and
    // ".." from a shown directory must stay inside (the host's tree is
    // never below it). Rootless, each move builds its own view, whose root
    // (a tmpfs of the move's own) the agent's user owns.
    let root_is_shared = if level_name() == "full" { "1" } else { "" };
    let bad = a.agent(
        "leaver",
        &r#"[ -e /tmp/left-here ] && { echo "an earlier move's /tmp" >&2; exit 9; }
: > /tmp/left-here || exit 10
[ -n "SHARED" ] && ( : > /planted ) 2>/dev/null && { echo "wrote to /" >&2; exit 11; }
[ -e "/usr/..$2/records.jsonl" ] && { echo "climbed out" >&2; exit 12; }
[ "$(ls -a /usr/..)" = "$(ls -a /)" ] || { echo "/usr/.. is not /" >&2; exit 13; }
exec "$1" play
"#
        .replace("SHARED", root_is_shared),
    );
    let good = format!("{} play", *MOCK);
    let (o, recs) = a.run(&[
        "match", &bad, &good, "--games", "2", "--time", "10", "--names", "bad,good",
    ]);
    assert_finished(&o, &recs, 2);
    let lost: Vec<&str> = forfeits_of(&recs, "bad").iter().map(|r| r.reason.as_str()).collect();
    assert!(lost.is_empty(), "the agent found a way out: {lost:?}");
    // (Take-one testnim of 3: the first mover moves twice, the second
    // time in the same view.)
    assert!(recs.iter().all(|r| r.moves.len() >= 3), "a seat moved twice");
}

#[test]
fn records_and_the_opponents_directory_cannot_be_damaged() {
    if !common::full_or_skip("confinement of writes") {
        return;
    }
    let a = Arena::new("tamper");
    let bad = a.agent(
        "tamper",
        r#"me=${PWD##*/}
true > "$2/records.jsonl"; rm -rf ../../../records.jsonl 2>/dev/null
for d in "$2"/games/*/seat-*; do [ "$d" = "$PWD" ] || rm -rf "$d"; done
for d in ../*; do [ "$d" = "../$me" ] || rm -rf "$d"; done
echo changed > "$3/tamper.sh"
exec "$1" play
"#,
    );
    let script = std::fs::read_to_string(a.scripts.join("tamper/tamper.sh")).unwrap();
    let good = format!("{} play", *MOCK);
    let (o, recs) = a.run(&[
        "match", &bad, &good, "--games", "4", "--time", "10", "--names", "bad,good",
    ]);
    assert_finished(&o, &recs, 4);
    assert!(forfeits_of(&recs, "bad").is_empty(), "{}", recs[0].reason);
    assert_eq!(
        std::fs::read_to_string(a.scripts.join("tamper/tamper.sh")).unwrap(),
        script,
        "its program is read-only"
    );
}

#[test]
fn signals_from_an_agent_reach_only_its_own_processes() {
    if !common::full_or_skip("signals to the referee") {
        return;
    }
    let a = Arena::new("signals");
    let bad = a.agent(
        "signals",
        r#"t=0; while [ ! -s "$3/referee.pid" ] && [ $t -lt 100 ]; do sleep 0.05; t=$((t+1)); done
kill -STOP "$(cat "$3/referee.pid")" 2>/dev/null
kill -KILL "$(cat "$3/referee.pid")" 2>/dev/null
kill -STOP -1 2>/dev/null; kill -KILL -1 2>/dev/null
exec "$1" play
"#,
    );
    let good = format!("{} play", *MOCK);
    let child = a.spawn(&[
        "match", &bad, &good, "--games", "2", "--time", "10", "--names", "bad,good",
    ]);
    std::fs::write(a.scripts.join("signals/referee.pid"), child.id().to_string()).unwrap();
    let o = finish(child, Duration::from_secs(120));
    let recs = record::load(&a.out.join("records.jsonl"), false).unwrap();
    assert_finished(&o, &recs, 2);
    let lost = forfeits_of(&recs, "bad");
    if common::choice() == LevelChoice::FullRootless {
        // Its main process is not its namespace's init there (the
        // referee's reaper is), so `kill -KILL -1` ends it: its own doing.
        for r in lost {
            assert!(r.reason.contains("killed by signal 9"), "{}", r.reason);
        }
    } else {
        assert!(lost.is_empty(), "{}", recs[0].reason);
    }
}

#[test]
fn moves_share_no_keyring_and_no_process_count() {
    if !common::full_or_skip("one identity per move") {
        return;
    }
    let a = Arena::new("identity");
    // Holds 200 processes for a second each move, within --max-procs 256:
    // were moves one user, the other game's agent could not fork.
    let crowd = a.agent(
        "crowd",
        r#"i=0; while [ $i -lt 200 ]; do sleep 1 & i=$((i+1)); done
exec "$1" keyring
"#,
    );
    let forker = a.agent(
        "forker",
        r#"for i in 1 2 3 4 5 6 7 8; do x=$(echo $i) || exit 7; done
exec "$1" keyring
"#,
    );
    let specs = [format!("crowd={crowd}"), format!("f1={forker}"), format!("f2={forker}")];
    let mut args = vec!["tournament", "--games", "2", "--concurrency", "2", "--time", "20"];
    args.extend(specs.iter().map(String::as_str));
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 6);
    for r in &recs {
        assert!(r.loss.is_none(), "{}", r.reason);
    }
}

#[test]
fn a_disk_hog_loses_and_its_files_do_not_stay() {
    let a = Arena::new("diskhog");
    // 6 MiB in files each under --file-size: only the total catches it.
    let bad = a.agent(
        "diskhog",
        r#"for i in 1 2 3 4 5 6; do dd if=/dev/zero of=ballast$i bs=64k count=16 2>/dev/null; done
exec "$1" play
"#,
    );
    let good = format!("{} play", *MOCK);
    let (o, recs) = a.run(&[
        "match",
        &bad,
        &good,
        "--games",
        "2",
        "--time",
        "10",
        "--names",
        "bad,good",
        "--disk",
        "4M",
        "--file-size",
        "2M",
    ]);
    assert_finished(&o, &recs, 2);
    let lost = forfeits_of(&recs, "bad");
    assert_eq!(lost.len(), 2, "the hog loses every game");
    for r in lost {
        assert_eq!(r.loss, Some(LossReason::Disk), "{}", r.reason);
        assert!(r.reason.contains("--disk allows 4.0 MiB"), "{}", r.reason);
    }
    let left = std::process::Command::new("du")
        .args(["-sk"])
        .arg(a.out.join("games"))
        .output()
        .unwrap();
    let kib: u64 = String::from_utf8_lossy(&left.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(kib < 1024, "{kib} KiB of ballast stayed in --out");
}

#[test]
fn a_move_that_keeps_filling_its_directory_is_ended_within_moments() {
    let a = Arena::new("diskflood");
    let bad = a.agent(
        "diskflood",
        r#"i=0; while :; do dd if=/dev/zero of=f$i bs=64k count=16 2>/dev/null; i=$((i+1)); done
"#,
    );
    let good = format!("{} play", *MOCK);
    let t = Instant::now();
    let (o, recs) = a.run(&[
        "match", &bad, &good, "--games", "2", "--time", "60", "--names", "bad,good", "--disk", "8M",
    ]);
    assert_finished(&o, &recs, 2);
    // Two moves of a 60 s clock: ended by the disk check, not the clock.
    assert!(t.elapsed() < Duration::from_secs(30), "took {:?}", t.elapsed());
    for r in forfeits_of(&recs, "bad") {
        assert_eq!(r.loss, Some(LossReason::Disk), "{}", r.reason);
    }
}

#[test]
fn a_memory_hog_is_refused_and_loses() {
    let a = Arena::new("hog");
    let bad = format!("{} hog 1024", *MOCK);
    let good = format!("{} play", *MOCK);
    let args = [
        "match", &bad, &good, "--games", "2", "--time", "10", "--names", "bad,good", "--memory", "256M",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    let lost = forfeits_of(&recs, "bad");
    assert_eq!(lost.len(), 2, "the hog loses every game");
    for r in lost {
        assert_eq!(r.loss, Some(LossReason::Crash));
        assert!(r.reason.contains("exit status 3"), "{}", r.reason);
    }
}

/// In a Swiss, each agent records its working directory, `HOME` and
/// environment at every move: none of it names an opponent (nor any
/// contestant), while the records keep the names.
#[test]
fn nothing_an_agent_sees_in_a_swiss_names_its_opponent() {
    let a = Arena::new("names");
    let names = ["alderaan", "bespin", "corellia", "dagobah"];
    let seen = |n: &str| a.agent(n, "{ pwd; echo \"HOME=$HOME\"; env; } >> seen.txt\nexec \"$1\" play\n");
    let agents: Vec<String> = names.iter().map(|n| format!("{n}={}", seen(n))).collect();
    let mut args = vec![
        "tournament",
        "--format",
        "swiss",
        "--rounds",
        "2",
        "--time",
        "10",
        "--keep-dirs",
    ];
    args.extend(agents.iter().map(String::as_str));
    let (o, recs) = a.run(&args);
    // Two rounds of two pairings, two games each.
    assert_finished(&o, &recs, 8);
    for r in &recs {
        for seat in 0..2 {
            let shown = std::fs::read_to_string(Path::new(&r.dirs[seat]).join("seen.txt")).unwrap();
            assert!(shown.contains("HOME="), "{shown}");
            for n in names {
                assert!(!shown.contains(n), "{} saw {n:?}:\n{shown}", r.agents[seat]);
            }
        }
        assert!(names.contains(&r.agents[0].as_str()), "the record names the agents");
    }
}

/// A forfeiting agent leaves 100 sparse files of 16 MiB (no blocks, so
/// within `--disk`) in a tournament whose `--out` is a 300 MiB file system
/// (a tmpfs in a private mount namespace): its kept directories take no
/// more than their data, and every game is recorded.
#[test]
fn sparse_files_of_a_forfeit_never_fill_the_out_disk() {
    let a = Arena::new("sparse");
    let bad = a.agent(
        "sparse",
        "for i in $(seq 100); do truncate -s 16M sparse$i; done\nexec \"$1\" garbage\n",
    );
    let good = format!("{} play", *MOCK);
    let (small, saved) = (a.base.join("small"), a.base.join("saved"));
    std::fs::create_dir_all(&small).unwrap();
    std::fs::create_dir_all(&saved).unwrap();
    let out = small.join("out");
    let q = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    // Unprivileged, the referee runs as a user of a user namespace nested
    // in the one that mounts the disk (as root there, it would refuse
    // full-rootless).
    let root = rustix::process::geteuid().is_root();
    let nested = if root {
        ""
    } else {
        "unshare --map-user=1000 --map-group=1000 "
    };
    let referee = [
        REFEREE.as_str(),
        "tournament",
        "--game",
        "testnim",
        "--size",
        "3",
        "--time",
        "10",
        "--games",
        "6",
        "--no-preflight",
        "--sandbox",
        level_name(),
    ]
    .map(String::from)
    .into_iter()
    .chain([
        format!("bad={bad}"),
        format!("good={good}"),
        "--out".into(),
        out.display().to_string(),
    ])
    .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
    .collect::<Vec<_>>()
    .join(" ");
    let inner = format!(
        "mount -t tmpfs -o size=300m none {s} && {{ {nested}{referee}; echo \"exit $?\" >&2; cp {o}/records.jsonl {saved}; }}",
        s = q(&small),
        o = q(&out),
        saved = q(&saved),
    );
    let err = common::in_private_mounts(&inner);
    assert!(err.contains("exit 0"), "the tournament must finish: {err}");
    let recs = record::load(&saved.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 6, "every game recorded: {err}");
    let lost = forfeits_of(&recs, "bad");
    assert_eq!(lost.len(), 6, "the sparse agent forfeits every game");
}

/// The machine's available memory (`MemAvailable`), in bytes.
fn available_memory() -> i64 {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        .expect("MemAvailable in /proc/meminfo");
    kib << 10
}

/// Both agents leave abstract Unix sockets alive after their death (each
/// held by its own descriptor in flight), their queues full: a move that
/// finds an earlier move's listed in its network namespace exits 9 and
/// loses. None does, and the memory they held is given back.
#[test]
fn sockets_left_by_one_move_are_never_seen_by_a_later_one_nor_keep_memory() {
    if !common::full_or_skip("a network namespace per move") {
        return;
    }
    let a = Arena::alone("sockets");
    let leak = |name: &str| a.agent(name, "exec \"$1\" sockets 16\n");
    let (one, two) = (leak("one"), leak("two"));
    let before = available_memory();
    // Two games of 40 plies: 40 moves of each agent.
    let args = [
        "match", &one, &two, "--games", "2", "--time", "20", "--names", "one,two", "--size", "40",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    for r in &recs {
        assert!(r.loss.is_none(), "a move saw an earlier move's sockets: {}", r.reason);
    }
    let moves: usize = recs.iter().map(|r| r.moves.len()).sum();
    assert!(moves >= 80, "{moves} moves");
    // What a dead move's sockets held comes back once the kernel collects
    // them: wait a little for it (other work on the machine moves the
    // figure too, either way).
    let t = Instant::now();
    let mut lost = before - available_memory();
    while lost > 20 << 20 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
        lost = lost.min(before - available_memory());
    }
    assert!(lost <= 20 << 20, "{} MiB less available after the match", lost >> 20);
}

/// Each move records its network namespace's cookie (never the same for
/// two namespaces): a seat that leaves nothing keeps one namespace for
/// its moves of a game (as root; rootless each move has its own), one
/// that leaves a socket gets a new one every move, and no namespace ever
/// serves the other seat or another game.
#[test]
fn a_seats_network_namespace_is_its_own_and_kept_only_while_empty() {
    if !common::full_or_skip("a network namespace per seat") {
        return;
    }
    let a = Arena::new("netns");
    let quiet = a.agent("quiet", "exec \"$1\" netns\n");
    let leaky = a.agent("leaky", "exec \"$1\" netns leave\n");
    let args = [
        "match",
        &quiet,
        &leaky,
        "--games",
        "2",
        "--time",
        "20",
        "--names",
        "quiet,leaky",
        "--size",
        "12",
        "--keep-dirs",
    ];
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 2);
    let mut seen: Vec<(usize, &str, Vec<String>)> = Vec::new();
    for (game, r) in recs.iter().enumerate() {
        assert!(r.loss.is_none(), "{}", r.reason);
        for seat in 0..2 {
            let text = std::fs::read_to_string(Path::new(&r.dirs[seat]).join("netns.txt")).unwrap();
            let cookies: Vec<String> = text.lines().map(str::to_string).collect();
            let moves = r.moves.iter().filter(|m| m.seat == seat).count();
            assert_eq!(cookies.len(), moves, "one cookie a move of {}", r.agents[seat]);
            seen.push((game, r.agents[seat].as_str(), cookies));
        }
    }
    let distinct = |c: &[String]| c.iter().collect::<std::collections::HashSet<_>>().len();
    for (game, name, cookies) in &seen {
        if *name == "leaky" || common::choice() == LevelChoice::FullRootless {
            assert_eq!(
                distinct(cookies),
                cookies.len(),
                "{name}, game {game}: a namespace served two moves: {cookies:?}"
            );
        } else {
            assert_eq!(
                distinct(cookies),
                1,
                "{name}, game {game}: its empty namespace was not kept: {cookies:?}"
            );
        }
        for (other_game, other, theirs) in &seen {
            if (other_game, other) != (game, name) {
                assert!(
                    cookies.iter().all(|c| !theirs.contains(c)),
                    "{name} (game {game}) and {other} (game {other_game}) shared a namespace"
                );
            }
        }
    }
}

/// Four processes of 1.5 GiB under `--memory 2G`: together past the limit
/// though each is within it. However the kernel treats them (an OOM kill,
/// or reclaim that stalls them at the limit), the move loses for memory,
/// and within moments, not at the wall-clock limit.
#[test]
fn processes_together_past_the_memory_limit_lose_for_memory_within_moments() {
    // Alone: under other tests' load the agent's own faulting is what
    // takes the time, and that is not what is measured.
    let a = Arena::alone("stall");
    let bad = a.agent(
        "stall",
        "for i in 1 2 3 4; do \"$1\" hold 1536 60 & done\nwait\nexec \"$1\" play\n",
    );
    let good = format!("{} play", *MOCK);
    let args = [
        "match", &bad, &good, "--games", "1", "--time", "10", "--names", "bad,good", "--memory", "2G",
    ];
    let t = Instant::now();
    let (o, recs) = a.run(&args);
    let took = t.elapsed();
    assert_finished(&o, &recs, 1);
    if common::choice() == LevelChoice::None {
        return;
    }
    let lost = forfeits_of(&recs, "bad");
    assert_eq!(lost.len(), 1, "the move is over the limit: {}", recs[0].reason);
    assert_eq!(lost[0].loss, Some(LossReason::Memory), "{}", lost[0].reason);
    // Touching 6 GiB takes a moment; the verdict must not wait for more:
    // the move itself ends within 2 s ("killed after S s for ...").
    let wall: f64 = lost[0]
        .reason
        .split("killed after ")
        .nth(1)
        .and_then(|r| r.split(" s ").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no time in {:?}", lost[0].reason));
    eprintln!("4 x 1.5 GiB under --memory 2G: the move ended after {wall} s, the match after {took:.1?}");
    assert!(wall < 2.0, "the move took {wall} s: {}", lost[0].reason);
    assert!(took < Duration::from_secs(6), "the match took {took:?}");
}

#[test]
fn a_stdout_flood_is_capped_and_the_move_still_counts() {
    let a = Arena::new("flood");
    let bad = a.agent(
        "flood",
        "yes | head -c 50000000; yes | head -c 50000000 >&2; exec \"$1\" play\n",
    );
    let good = format!("{} play", *MOCK);
    let args = [
        "match",
        &bad,
        &good,
        "--games",
        "2",
        "--time",
        "20",
        "--names",
        "bad,good",
        "--file-size",
        "1M",
    ];
    let (o, recs) = a.run(&[&args[..], &["--keep-dirs"]].concat());
    assert_finished(&o, &recs, 2);
    assert!(forfeits_of(&recs, "bad").is_empty(), "{}", recs[0].reason);
    let mut seen = 0;
    for r in &recs {
        let seat = r.agents.iter().position(|n| n == "bad").unwrap();
        for name in ["stdout.txt", "stderr.txt"] {
            let f = Path::new(&r.dirs[seat]).join(name);
            let len = std::fs::metadata(&f).unwrap().len();
            assert!(len <= (1 << 20) + 200, "{} holds {len} bytes", f.display());
            let tail = std::fs::read(&f).unwrap();
            assert!(String::from_utf8_lossy(&tail[tail.len().saturating_sub(120)..]).contains("bytes discarded"));
            seen += 1;
        }
        // The record notes every flooding move, with the bytes thrown away.
        let moved = r.moves.iter().filter(|m| m.seat == seat).count();
        assert_eq!(r.discarded.len(), moved, "{:?}", r.discarded);
        for d in &r.discarded {
            assert_eq!((d.seat, d.cap), (seat, 1 << 20), "{d:?}");
            assert_eq!(d.stdout, 50_000_000 - (1 << 20), "{d:?}");
            // The mover's own stderr lines come on top of the flood.
            assert!((50_000_000 - (1 << 20)..50_000_000).contains(&d.stderr), "{d:?}");
        }
    }
    assert_eq!(seen, 4);
    // And the report says so beside the verdict.
    let o = Command::new(&*REFEREE).arg("report").arg(&a.out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(a.out.join("report.html")).unwrap();
    assert!(
        html.contains("bad, ply 1: 46.7 MiB of stdout and 46.7 MiB of stderr past the 1.0 MiB capture cap discarded"),
        "no note in the report"
    );
}

#[test]
fn odd_output_files_lose_as_malformed_and_never_hang_the_referee() {
    let a = Arena::new("files");
    let kinds = [
        (
            "dir",
            "mkdir output.txt",
            "output.txt is a directory, not a regular file",
        ),
        ("fifo", "mkfifo output.txt", "output.txt is a FIFO, not a regular file"),
        (
            "stdin",
            "ln -s /proc/self/fd/0 output.txt",
            "output.txt is a symbolic link, not a regular file",
        ),
        (
            "link",
            "\"$1\" play; mv output.txt real.txt; ln -s real.txt output.txt",
            "output.txt is a symbolic link",
        ),
        (
            "huge",
            "head -c 1073741824 /dev/zero > output.txt",
            "output.txt is longer than",
        ),
    ];
    let mut specs = vec![format!("good={} play", *MOCK)];
    for (name, body, _) in &kinds {
        specs.push(format!("{name}={}", a.agent(name, &format!("{body}\nexit 0\n"))));
    }
    let mut args = vec!["tournament", "--games", "2", "--time", "10", "--concurrency", "2"];
    args.extend(specs.iter().map(String::as_str));
    let (o, recs) = a.run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(recs.len(), 30, "every pairing played twice");
    for r in &recs {
        let (Some(w), Some(loss)) = (r.winner, r.loss) else {
            panic!("{}: no forfeit: {}", r.key, r.reason)
        };
        let loser = &r.agents[1 - w];
        let (_, _, why) = kinds.iter().find(|k| k.0 == loser).unwrap();
        assert_eq!(loss, LossReason::Malformed, "{loser}: {}", r.reason);
        assert!(r.reason.contains(why), "{loser}: {}", r.reason);
    }
    // Forfeits keep their directories: no oversized output.txt stays there.
    for r in &recs {
        for d in &r.dirs {
            let f = Path::new(d).join("output.txt");
            let len = std::fs::symlink_metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(len <= 64 * 1024, "{} holds {len} bytes", f.display());
        }
    }
}

/// Agents that replace their `stderr.txt` (with a link to a secret, or a
/// FIFO) before crashing: the verdict quotes what came through the pipe.
fn stderr_replacers(a: &Arena) -> Vec<String> {
    let secret = a.scripts.join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET-LINE\n").unwrap();
    let bodies = [
        (
            "link",
            format!("rm -f stderr.txt; ln -s {} stderr.txt", secret.display()),
        ),
        ("fifo", "rm -f stderr.txt; mkfifo stderr.txt".to_string()),
        ("dir", "rm -f stderr.txt; mkdir stderr.txt".to_string()),
    ];
    bodies
        .iter()
        .map(|(name, body)| {
            let script = format!("echo 'honest last words' >&2\n{body}\nexit 1\n");
            format!("{name}={}", a.agent(name, &script))
        })
        .collect()
}

#[test]
fn a_replaced_stderr_file_is_never_read_back_in_a_game() {
    let a = Arena::new("stderr");
    let mut specs = vec![format!("good={} play", *MOCK)];
    specs.extend(stderr_replacers(&a));
    let mut args = vec!["tournament", "--games", "2", "--time", "10", "--concurrency", "2"];
    args.extend(specs.iter().map(String::as_str));
    let (o, recs) = a.run(&args);
    assert_finished(&o, &recs, 12);
    let shown = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(!shown.contains("TOP-SECRET"), "the secret reached the log: {shown}");
    for r in &recs {
        let (Some(w), Some(loss)) = (r.winner, r.loss) else {
            panic!("{}: no forfeit: {}", r.key, r.reason)
        };
        assert_ne!(r.agents[1 - w], "good", "{}", r.reason);
        assert_eq!(loss, LossReason::Crash, "{}", r.reason);
        assert!(r.reason.contains("honest last words"), "{}", r.reason);
    }
    let log = std::fs::read_to_string(a.out.join("records.jsonl")).unwrap();
    assert!(!log.contains("TOP-SECRET"));
}

#[test]
fn a_replaced_stderr_file_is_never_read_back_in_the_preflight() {
    let a = Arena::new("stderr-pre");
    for spec in stderr_replacers(&a) {
        let (_, cmd) = spec.split_once('=').unwrap();
        let good = format!("{} play", *MOCK);
        let child = Command::new(&*REFEREE)
            .args([
                "match", cmd, &good, "--names", "bad,good", "--games", "2", "--time", "5",
            ])
            .args([
                "--out",
                &a.out.display().to_string(),
                "--game",
                "testnim",
                "--size",
                "3",
            ])
            .env(common::LEVEL_VAR, level_name())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish(child, Duration::from_secs(60));
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{spec}: the pre-flight must stop the run");
        assert!(text.contains("failed its pre-flight move"), "{spec}: {text}");
        assert!(text.contains("| honest last words"), "{spec}: {text}");
        assert!(!text.contains("TOP-SECRET"), "{spec}: {text}");
        let _ = std::fs::remove_dir_all(&a.out);
    }
}

#[test]
fn an_agent_with_no_time_left_gets_no_input_and_loses_on_time() {
    let base = std::env::temp_dir().join(format!("referee-hostile-{}-notime", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let seat = |name: &str| Contestant {
        name: name.into(),
        kind: SeatKind::Agent(AgentCommand::new(format!("{} play", *MOCK))),
        calibration: None,
        calibrate: None,
        home: None,
    };
    let (a, b) = (seat("a"), seat("b"));
    let rules = Rules {
        sandbox: common::sandbox(),
        ..Rules::default()
    };
    let setup = GameSetup {
        key: "notime".into(),
        start: TestNim {
            pile: 5,
            side: agent::Player::One,
        },
        seats: ByPlayer::new(&a, &b),
        time: ByPlayer::new(0.0, 10.0),
        dirs: ByPlayer::new(base.join("a"), base.join("b")),
    };
    let rec = play_game(setup, &rules, &AtomicBool::new(false), None, &mut |_| {}).unwrap();
    assert_eq!(rec.winner, Some(1));
    assert_eq!(rec.loss, Some(LossReason::OverTime));
    assert!(rec.reason.contains("no time left"), "{}", rec.reason);
    assert!(
        !base.join("a/input.txt").exists(),
        "no input.txt for an agent that has lost"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn sigterm_stops_a_tournament_cleanly_and_leaves_no_agent_behind() {
    let a = Arena::new("sigterm");
    let marker = format!("sigterm-marker-{}", std::process::id());
    let slow = format!("{} sleep 20 {marker}", *MOCK);
    let specs = [format!("a={slow}"), format!("b={slow}"), format!("c={slow}")];
    let mut args = vec!["tournament", "--games", "2", "--time", "60", "--concurrency", "2"];
    args.extend(specs.iter().map(String::as_str));
    let child = a.spawn(&args);
    let t = Instant::now();
    while processes_with(&marker).len() < 2 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = finish(child, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() || err.contains("--resume"), "{err}");
    assert!(err.contains("--resume"), "the resume command is printed: {err}");
    // Interrupted games are not recorded; the file parses.
    let recs = record::load(&a.out.join("records.jsonl"), false).unwrap_or_default();
    assert!(recs.is_empty(), "{recs:?}");
    let t = Instant::now();
    while !processes_with(&marker).is_empty() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&marker), Vec::<String>::new());
}

#[test]
fn a_second_referee_on_the_same_out_is_refused_with_the_holders_pid() {
    let a = Arena::new("shared");
    let slow = format!("{} sleep 1", *MOCK);
    let (sa, sb) = (format!("a={slow}"), format!("b={slow}"));
    let first = a.spawn(&["tournament", "--games", "2", "--time", "30", &sa, &sb]);
    let lock = a.out.join(referee::run::outdir::LOCK_FILE);
    let t = Instant::now();
    while std::fs::read_to_string(&lock).map_or(true, |s| s.trim() != first.id().to_string()) {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the first referee never locked {}",
            lock.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = finish(
        a.spawn(&["tournament", "--games", "2", "--time", "30", &sa, &sb]),
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success());
    assert!(err.contains(&format!("another referee (pid {})", first.id())), "{err}");
    // `play` takes the same lock.
    let out = a.out.display().to_string();
    let play = Command::new(&*REFEREE)
        .args(["play", "--game", "testnim", "--size", "3", "--out", &out, &slow, &slow])
        .env(common::LEVEL_VAR, level_name())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let play = finish(play, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&play.stderr);
    assert!(!play.status.success());
    assert!(err.contains(&format!("another referee (pid {})", first.id())), "{err}");
    let o = finish(first, Duration::from_secs(120));
    let recs = record::load(&a.out.join("records.jsonl"), false).unwrap();
    assert_finished(&o, &recs, 2);
}

#[test]
fn resume_under_other_conditions_is_refused_naming_each_difference() {
    let a = Arena::new("resume");
    let play = format!("{} play", *MOCK);
    let (sa, sb) = (format!("a={play}"), format!("b={play}"));
    let (o, recs) = a.run(&["tournament", "--games", "2", "--time", "10", "--seed", "1", &sa, &sb]);
    assert_finished(&o, &recs, 2);
    let (o, _) = a.run(&[
        "tournament",
        "--games",
        "2",
        "--time",
        "20",
        "--seed",
        "2",
        "--resume",
        &sa,
        &sb,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("--time was 10,10, now 20,20") && err.contains("--seed was 1, now 2"),
        "{err}"
    );
    let (o, _) = a.run(&[
        "tournament",
        "--games",
        "2",
        "--time",
        "10",
        "--seed",
        "1",
        "--resume",
        &sa,
        &sb,
    ]);
    assert!(
        o.status.success(),
        "the same conditions resume: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn doctor_reports_what_the_machine_offers_and_what_auto_does() {
    let o = Command::new(&*REFEREE).arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for line in [
        "running as root:",
        "cgroup v2 (writable):",
        "namespaces",
        "rlimits:",
        "--sandbox auto will use:",
    ] {
        assert!(text.contains(line), "no {line:?} in {text}");
    }
    match common::choice() {
        LevelChoice::Full => assert!(text.contains("--sandbox auto will use:   full\n"), "{text}"),
        LevelChoice::FullRootless => assert!(text.contains("--sandbox auto will use:   full-rootless"), "{text}"),
        _ => {}
    }
}

/// The attacks above again, with the referee run as an ordinary user (as
/// students and most organisers run it): `full-rootless` must stop them too.
#[test]
fn the_attacks_fail_for_an_unprivileged_referee_too() {
    common::rerun_unprivileged(&[("REFEREE_TEST_MOCK", &MOCK), ("REFEREE_TEST_REFEREE", &REFEREE)]);
}

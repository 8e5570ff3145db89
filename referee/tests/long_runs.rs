//! Short versions of the long-run scripts: a soak of 200 games whose
//! referee must stay flat (memory, descriptors, cgroups, mounts, /tmp), and
//! five SIGKILLs of the referee in a tournament, resumed each time, that
//! must lose and double no game and leave nothing behind; an agent dies
//! with its killed referee at the levels without namespaces. The scripts
//! themselves (`scripts/soak.sh`, `scripts/chaos.sh`) run the long ones.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn script(args: &[&str]) {
    let o = Command::new("bash").args(args).current_dir(repo()).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{args:?} failed:\n{out}\n{err}");
}

/// One test, so that the two runs do not see each other's processes and
/// temporary directories.
#[test]
fn a_short_soak_stays_flat_and_five_kills_lose_no_game() {
    script(&["scripts/soak.sh", "300", "50"]);
    script(&["scripts/chaos.sh", "5", "300"]);
}

#[test]
fn forfeits_keep_at_most_their_cap_of_directories_and_others_none() {
    let out = std::env::temp_dir().join(format!("referee-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mock = env!("MOCK_AGENT");
    let o = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "tournament",
            "--game",
            "testnim",
            "--size",
            "3",
            "--games",
            "4",
            "--time",
            "5",
        ])
        .args(["--no-preflight", "--keep-forfeits", "2", "--out"])
        .arg(&out)
        .arg(format!("good={mock} play"))
        .arg(format!("good2={mock} play"))
        .arg(format!("bad={mock} garbage"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = std::fs::read_dir(out.join("games")).unwrap().count();
    let recs = referee::output::record::load(&out.join("records.jsonl"), false).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(recs.len(), 12);
    assert_eq!(recs.iter().filter(|r| r.loss.is_some()).count(), 8);
    assert_eq!(kept, 2, "8 forfeits, 2 directories kept");
    let clean: Vec<_> = recs.iter().filter(|r| r.loss.is_none()).collect();
    assert_eq!(clean.len(), 4);
    for r in clean {
        assert!(
            r.dirs.iter().all(String::is_empty),
            "a deleted directory is named: {:?}",
            r.dirs
        );
    }
}

/// Pids of live processes whose command line is exactly `argv` (not the
/// referee's, which names it among its arguments).
fn processes_running(argv: &[&str]) -> Vec<String> {
    let want: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    common::live_processes(|cmdline| cmdline == want)
}

/// The referee killed (SIGKILL) in the middle of a move: the agent dies
/// with it at the levels without namespaces too (at `full` the chaos run
/// above checks it), instead of running on with nobody watching.
#[test]
fn an_agent_dies_with_its_killed_referee_at_every_level() {
    let mock = env!("MOCK_AGENT");
    for level in ["none", "rlimits"] {
        let out = std::env::temp_dir().join(format!("referee-killed-{}-{level}", std::process::id()));
        // A marker no other test's agent has: a sleep of its own length.
        let sleep = format!("29.{}", std::process::id());
        let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["match", "--game", "connectsquare", "--games", "1", "--time", "100"])
            .args(["--no-preflight", "--sandbox", level, "--out"])
            .arg(&out)
            .arg(format!("{mock} sleep {sleep}"))
            .arg(format!("{mock} play"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let agent = [mock, "sleep", &sleep];
        let t = std::time::Instant::now();
        while processes_running(&agent).is_empty() {
            assert!(t.elapsed().as_secs() < 30, "{level}: the agent never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let t = std::time::Instant::now();
        while !processes_running(&agent).is_empty() && t.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let left = processes_running(&agent);
        for p in &left {
            let _ = Command::new("kill").args(["-KILL", p]).status();
        }
        let _ = std::fs::remove_dir_all(&out);
        assert!(
            left.is_empty(),
            "{level}: the agent outlived its killed referee: {left:?}"
        );
    }
}

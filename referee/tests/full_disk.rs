//! A full disk under `--out` must not decide games: the referee runs a
//! tournament on a 3 MiB tmpfs (mounted in a private mount namespace, so no
//! root is needed where unprivileged user namespaces work) whose kept
//! directories fill it; the run stops cleanly with whole records, no agent
//! blamed, and is resumed on a larger disk. (An agent filling its own
//! working directory is that agent's loss: `hostile_bounds.rs`.)

mod common;

use referee::output::record::{self, GameRecord};
use std::path::{Path, PathBuf};
use std::process::Command;

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");
const GAMES: usize = 12;

/// A scratch directory, removed however the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmp(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("referee-disk-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// The tournament's arguments, `out` being its --out directory.
fn tournament(agent: &str, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["tournament", "--game", "testnim", "--size", "3", "--time", "10"]
        .map(String::from)
        .to_vec();
    args.extend([format!("a={agent}"), format!("b={agent}")]);
    args.extend(
        [
            "--games",
            &GAMES.to_string(),
            "--keep-dirs",
            "--sandbox",
            "rlimits",
            "--no-preflight",
        ]
        .map(String::from),
    );
    args.extend(["--seed".into(), "7".into(), "--out".into(), out.display().to_string()]);
    args
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn no_forfeit(recs: &[GameRecord]) {
    for r in recs {
        assert!(r.loss.is_none(), "game {} was scored as a forfeit: {}", r.key, r.reason);
    }
}

#[test]
fn a_full_out_disk_stops_the_run_cleanly_and_resume_finishes_it() {
    let scratch = tmp("full");
    let base = &scratch.0;
    let small = base.join("small");
    std::fs::create_dir(&small).unwrap();
    // Each move leaves 448 KiB beside the agent's files; kept directories
    // fill the 3 MiB disk within a few games, in the middle of a game.
    let script = base.join("filler.sh");
    std::fs::write(
        &script,
        "dd if=/dev/zero of=ballast bs=64k count=7 2>/dev/null\nexec \"$1\" play\n",
    )
    .unwrap();
    let agent = format!("sh {} {MOCK}", script.display());
    let out = small.join("out");
    let referee = std::iter::once(REFEREE.to_string())
        .chain(tournament(&agent, &out))
        .map(|a| quote(&a))
        .collect::<Vec<_>>()
        .join(" ");
    // Inside the namespace: mount the small disk, run, then copy what the
    // referee left to the large disk (the tmpfs vanishes with the namespace).
    let saved = base.join("saved");
    let inner = format!(
        "mount -t tmpfs -o size=3m none {s} && {{ {referee}; echo \"exit $?\" >&2; cp -a {o} {saved}; }}",
        s = quote(&small.display().to_string()),
        o = quote(&out.display().to_string()),
        saved = quote(&saved.display().to_string()),
    );
    let err = common::in_private_mounts(&inner);
    assert!(
        !err.contains("exit 0"),
        "the referee should have stopped on the full disk: {err}"
    );
    assert!(err.contains("is full") && err.contains("--resume"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Every record written is whole, and none blames an agent for the disk.
    let saved_out = saved;
    let recs = record::load(&saved_out.join("records.jsonl"), false).unwrap_or_default();
    assert!(
        recs.len() < GAMES,
        "the disk filled before the end: {} records",
        recs.len()
    );
    no_forfeit(&recs);
    // On the large disk the same run resumes and finishes.
    let mut args = tournament(&agent, &saved_out);
    args.push("--resume".into());
    let o = Command::new(REFEREE).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "resume on the larger disk: {err}");
    let recs = record::load(&saved_out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), GAMES, "every game recorded once after the resume");
    let mut keys: Vec<_> = recs.iter().map(|r| r.key.clone()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), GAMES, "no game recorded twice");
    no_forfeit(&recs);
}

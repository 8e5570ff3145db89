//! A Swiss sharded a round at a time: `referee tournament --format swiss
//! --round N --shard K/M --after DIR` plays shard K of round N, paired from
//! the games of the rounds before that DIR holds; `referee merge` makes
//! the round whole, and the next round starts from the merge. The chain
//! gives the games, rounds and standings of the same Swiss run on one
//! machine; a round started from an unfinished one, shards of two rounds
//! and a shard resumed as another are refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A scratch directory, removed however the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `referee` with the Swiss's own arguments, then `extra`.
fn swiss(extra: &[&str]) -> Output {
    // Deterministic agents (fixed depth, handicaps), an odd field (byes)
    // and a final of three.
    let specs: Vec<String> = (0..7).map(|i| format!("h{i}={MOCK} handicap {} 2", i * 15)).collect();
    let mut args: Vec<String> = [
        "tournament",
        "--format",
        "swiss",
        "--game",
        "connectsquare",
        "--rows",
        "4",
        "--cols",
        "5",
        "--openings",
        "random:2",
        "--rounds",
        "3",
        "--final",
        "3",
        "--time",
        "5",
    ]
    .map(String::from)
    .to_vec();
    args.extend(specs);
    args.extend(extra.iter().map(|s| s.to_string()));
    Command::new(REFEREE).args(&args).output().unwrap()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", text(&o));
    o
}

fn refused(o: Output, says: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(says),
        "{says}: {}",
        text(&o)
    );
}

/// Every game as (key, agents, who moved first, winner), by key.
fn games(out: &Path) -> Vec<(String, [String; 2], usize, Option<usize>)> {
    let recs = referee::output::record::load(&out.join("records.jsonl"), false).unwrap();
    let mut g: Vec<_> = recs.into_iter().map(|r| (r.key, r.agents, r.first, r.winner)).collect();
    g.sort();
    g
}

/// The standings table of a run's or merge's output.
fn standings(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let from = out.find("Swiss standings").expect("a Swiss's standings");
    out[from..].to_string()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn a_swiss_sharded_round_by_round_and_merged_plays_the_unsharded_swiss() {
    let base = std::env::temp_dir().join(format!("referee-swiss-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let _scratch = Scratch(base.clone());
    let whole = base.join("whole");
    let whole_out = ok(swiss(&["--out", &s(&whole)]));

    let mut after: Option<PathBuf> = None;
    for round in 1..=3 {
        let r = round.to_string();
        let mut dirs = Vec::new();
        for k in 0..2 {
            let dir = s(&base.join(format!("r{round}-shard-{k}")));
            let shard = format!("{k}/2");
            let mut extra = vec!["--round", &r, "--shard", &shard, "--out", &dir];
            let prev = after.as_deref().map(s);
            if let Some(p) = &prev {
                extra.extend(["--after", p]);
            }
            ok(swiss(&extra));
            dirs.push(dir);
        }
        let merged = base.join(format!("r{round}"));
        let mut args = vec!["merge".to_string(), "--out".into(), s(&merged)];
        args.extend(dirs);
        let m = ok(Command::new(REFEREE).args(&args).output().unwrap());
        assert!(
            String::from_utf8_lossy(&m.stdout).contains(&format!("after {round} of 3 rounds")),
            "{}",
            text(&m)
        );
        after = Some(merged);
    }
    let last = after.unwrap();
    // The rounds as the unsharded Swiss paired them, each game as it played.
    let rounds = |d: &Path| std::fs::read_to_string(d.join("rounds.json")).unwrap();
    assert_eq!(rounds(&last), rounds(&whole));
    let swiss_games = |d: &Path| {
        let mut g = games(d);
        g.retain(|x| !x.0.starts_with("final-"));
        g
    };
    assert_eq!(swiss_games(&last), swiss_games(&whole));
    // The final: the last round's merge resumed unsharded.
    let fin = ok(swiss(&["--resume", "--out", &s(&last)]));
    assert_eq!(games(&last), games(&whole));
    assert_eq!(games(&whole).len(), 3 * 3 * 2 + 3 * 2);
    assert_eq!(standings(&fin), standings(&whole_out));
    refusals(&base);
}

fn refusals(base: &Path) {
    let dir = |name: &str| s(&base.join(name));
    refused(
        swiss(&["--round", "2", "--shard", "0/2", "--out", &dir("bad1")]),
        "give their directory (the merge of round 1's shards) as --after DIR",
    );
    refused(
        swiss(&["--shard", "0/2", "--out", &dir("bad2")]),
        "--shard without --round cannot be used with --format swiss",
    );
    // Round 3 from the merge of round 1: round 2 is missing.
    refused(
        swiss(&[
            "--round",
            "3",
            "--shard",
            "0/2",
            "--after",
            &dir("r1"),
            "--out",
            &dir("bad3"),
        ]),
        "round 2 is unfinished",
    );
    assert!(
        !base.join("bad3/records.jsonl").exists(),
        "a refused round records nothing"
    );
    let merge = |dirs: &[&str]| {
        let mut args = vec!["merge".to_string(), "--out".into(), dir("bad4")];
        args.extend(dirs.iter().map(|d| dir(d)));
        Command::new(REFEREE).args(&args).output().unwrap()
    };
    refused(merge(&["r2-shard-0", "r3-shard-1"]), "differ in: round");
    refused(merge(&["r2-shard-0"]), "shard 1/2 missing");
    refused(
        swiss(&[
            "--round",
            "2",
            "--shard",
            "1/2",
            "--resume",
            "--out",
            &dir("r2-shard-0"),
        ]),
        "holds shard 0/2 of round 2, not shard 1/2 of round 2",
    );
}

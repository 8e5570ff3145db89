//! `referee grade --shard K/N` and `referee merge`: a class graded in two
//! shards and merged gives the sheets of the same class graded whole
//! (apart from what measured CPU time decides), and a merge that lacks a
//! shard, doubles one or mixes two gradings is refused in plain words.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

/// The release agent's folder, which the class's `run` files name: shown
/// to the agents, as a course shows its tools (`--sandbox-ro`).
fn ro() -> [String; 2] {
    let dir = common::repo().join("target/release");
    ["--sandbox-ro".to_string(), dir.display().to_string()]
}

use common::Scratch;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

/// Four students whose every move is decided without a clock (fixed-depth
/// searches, a greedy player) and one folder that does not build.
fn class(dir: &Path) {
    common::agent_class(
        dir,
        &[
            ("d1", "--strategy alphabeta --depth 1"),
            ("d2", "--strategy alphabeta --depth 2"),
            ("gr", "--strategy greedy"),
        ],
        "none",
    );
}

/// A short plan: every single move is decided without a clock; a game is
/// cut at 20 plies and won on time left.
fn plan(dir: &Path) -> PathBuf {
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        "game = \"halma\"\nseed = 5\n[singles]\ncount = 3\npoints = 1\nbudget = 2.0\n\
         [games]\ncount = 1\nopened = 1\npoints = 10\nclock = [3.0, 3.0]\n\
         opponent = \"{agent} --strategy minimax --depth 1\"\nmax_plies = 20\ndraw = \"nobody\"\n",
    )
    .unwrap();
    p
}

fn referee(args: &[&str]) -> Output {
    Command::new(REFEREE).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// What no clock decides in `grades.json`: the plan, the positions and
/// clocks, and each student's build and single-move tests without the CPU
/// they measured. (A game at the move cap goes to the side with more CPU
/// time left, so the games' points are measured time.)
fn graded(out: &Path) -> serde_json::Value {
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("grades.json")).unwrap()).unwrap();
    let students: Vec<serde_json::Value> = j["students"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let tests: Vec<serde_json::Value> = s["tests"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| !t["test"].as_str().unwrap().starts_with('g'))
                .map(|t| {
                    let mut t = t.clone();
                    t.as_object_mut().unwrap().remove("cpu");
                    t
                })
                .collect();
            serde_json::json!([s["student"], s["single"], tests])
        })
        .collect();
    serde_json::json!([j["plan"], j["tests"], students])
}

/// The columns of `grades.csv` no clock decides: the student, the
/// single-move points and each single move's.
fn untimed(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            [&f[..1], &f[3..4], &f[5..8]].concat().join(",")
        })
        .collect()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The class and plan of the test, in a scratch directory.
struct Setup {
    base: PathBuf,
    class: PathBuf,
    plan: PathBuf,
}

impl Setup {
    /// `referee grade` of the class into `out`, which must succeed.
    fn grade(&self, out: &Path, extra: &[&str]) {
        let mut args = vec![
            "grade".to_string(),
            "--plan".into(),
            s(&self.plan),
            "--out".into(),
            s(out),
        ];
        args.extend(extra.iter().map(|e| e.to_string()));
        args.extend(ro());
        args.push(s(&self.class));
        let o = Command::new(REFEREE).args(&args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", text(&o));
    }

    /// `referee merge` of `dirs`, which must be refused saying `says`.
    fn refused(&self, dirs: &[&str], says: &str) {
        let out = s(&self.base.join("refused"));
        let mut args = vec!["merge", "--out", &out];
        args.extend(dirs);
        let r = referee(&args);
        assert_eq!(r.status.code(), Some(2), "{}", text(&r));
        assert!(String::from_utf8_lossy(&r.stderr).contains(says), "{}", text(&r));
        assert!(!Path::new(&out).join("grades.csv").exists());
    }
}

fn csv(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("grades.csv")).unwrap()
}

#[test]
fn two_shards_merged_give_the_whole_class_sheet_and_a_missing_shard_is_refused() {
    let base = std::env::temp_dir().join(format!("referee-grade-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let _scratch = Scratch(base.clone());
    std::fs::create_dir_all(&base).unwrap();
    let t = Setup {
        class: base.join("class"),
        plan: plan(&base),
        base,
    };
    class(&t.class);
    let whole = t.base.join("whole");
    t.grade(&whole, &[]);
    let shards: Vec<String> = (0..2).map(|k| s(&t.base.join(format!("shard-{k}")))).collect();
    for (k, dir) in shards.iter().enumerate() {
        t.grade(Path::new(dir), &["--shard", &format!("{k}/2")]);
    }
    // Each shard graded its own half of the sorted class: d1 gr | d2 none.
    let rows = |dir: &str| csv(Path::new(dir));
    assert!(rows(&shards[0]).contains("\nd1,") && !rows(&shards[0]).contains("\nd2,"));
    assert!(rows(&shards[1]).contains("\nnone,") && !rows(&shards[1]).contains("\ngr,"));

    let merged = t.base.join("merged");
    let o = referee(&["merge", "--out", &s(&merged), &shards[1], &shards[0]]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 students merged from 2 shards"));
    // The merged sheet is the shards' rows, every column as each shard
    // wrote it, and the whole class's in every column the clock does not
    // decide.
    let mut parts: Vec<String> = shards
        .iter()
        .flat_map(|d| rows(d).lines().skip(1).map(String::from).collect::<Vec<_>>())
        .collect();
    parts.sort();
    let merged_rows: Vec<String> = csv(&merged).lines().skip(1).map(String::from).collect();
    assert_eq!(merged_rows, parts);
    assert_eq!(csv(&merged).lines().next(), csv(&whole).lines().next());
    assert_eq!(untimed(&csv(&merged)), untimed(&csv(&whole)));
    assert_eq!(merged_rows.len(), 4, "{}", csv(&merged));
    assert_eq!(graded(&merged), graded(&whole));
    let games = std::fs::read_to_string(merged.join("records/games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 3, "one game of each student who built");
    assert!(merged.join("students/d2.html").is_file() && merged.join("students/d1-games.html").is_file());
    refusals(&t, &shards, &merged);
}

/// A missing shard, a doubled one, a shard of another grading, a merged
/// grading and an unfinished shard are refused; so is a shard resumed as
/// another.
fn refusals(t: &Setup, shards: &[String], merged: &Path) {
    t.refused(&[&shards[0]], "shard 1/2 missing");
    t.refused(&[&shards[0], &shards[0], &shards[1]], "are both shard 0/2");
    let other = t.base.join("other");
    t.grade(&other, &["--shard", "1/2", "--seed", "6"]);
    t.refused(&[&shards[0], &s(&other)], "differ in: plan.seed");
    t.refused(&[&s(merged)], "not run with --shard");
    let results = Path::new(&shards[1]).join("records/results.jsonl");
    let kept: Vec<String> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"s02\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&results, kept.concat()).unwrap();
    t.refused(&[&shards[0], &shards[1]], "d2 has not taken s02");
    let (plan, class) = (s(&t.plan), s(&t.class));
    let ro = ro();
    let o = referee(&[
        "grade", "--plan", &plan, "--out", &shards[1], "--resume", "--shard", "0/2", &ro[0], &ro[1], &class,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shard 1/2, not of shard 0/2"),
        "{}",
        text(&o)
    );
}

//! `referee grade --ladder`: each submission placed on the strength ladder
//! (`agent --level N`) as a line apart from the grade. A class of our
//! agent at full strength, at level 3, playing at random, and a folder
//! that does not build is graded in two shards, one killed in the middle
//! of its placements and resumed, then merged: the placements are ordered
//! as the players' strengths, the totals are those of a grading without
//! the ladder, no placement game is played twice, and the merged sheet
//! carries the placements. A game without levels is refused the ladder.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Scratch;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

/// Three players of known order and a folder with nothing to run. Level 3
/// plays by depth and seed, not by the clock, so its placement is the same
/// on any machine; it sorts first, so the kill below finds it placing.
fn class(dir: &Path) {
    common::agent_class(
        dir,
        &[
            ("a-level3", "--level 3"),
            ("b-full", ""),
            ("d-random", "--strategy random"),
        ],
        "c-none",
    );
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `referee grade` of `class` into `out`: 1 single move, 1 game against
/// the reference, every clock 1 s, and `extra`.
fn grade(class: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(REFEREE);
    c.args(["grade", "--singles", "1", "--games", "1", "--time", "1", "--out"])
        .arg(out)
        .arg("--sandbox-ro")
        .arg(common::repo().join("target/release"))
        .args(extra)
        .arg(class);
    c
}

fn run(mut c: Command) -> Output {
    let o = c.output().unwrap();
    assert!(o.status.success(), "{c:?}: {}", text(&o));
    o
}

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// Starts shard 0 of the class, kills it once its first placement game is
/// recorded, and resumes it to the end; returns the results recorded
/// before the kill.
fn killed_and_resumed(class: &Path, out: &Path) -> Vec<String> {
    let results = out.join("records/results.jsonl");
    let mut child = grade(class, out, &["--ladder", "--shard", "0/2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !lines(&results).iter().any(|l| l.contains("\"test\":\"L")) {
        assert!(t.elapsed() < Duration::from_secs(120), "no placement game in 120 s");
        assert!(child.try_wait().unwrap().is_none(), "the grading ended before the kill");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Whole lines only: a line the kill cut short is dropped by the resume.
    let text = std::fs::read_to_string(&results).unwrap();
    let before = text[..text.rfind('\n').map_or(0, |i| i + 1)]
        .lines()
        .map(String::from)
        .collect();
    run(grade(class, out, &["--ladder", "--shard", "0/2", "--resume"]));
    before
}

/// The ladder column's level for each student of a `grades.csv` (0: below
/// level 1; none: not placed).
fn placements(csv: &str) -> Vec<(String, Option<u32>)> {
    let mut rows = csv.lines();
    assert!(rows.next().unwrap().ends_with(",g01,ladder"), "{csv}");
    rows.map(|r| {
        let (student, place) = (r.split(',').next().unwrap(), r.rsplit(',').next().unwrap());
        let level = match place {
            "" => None,
            "below level 1" => Some(0),
            "level 10 or above" => Some(10),
            p => Some(p.split(' ').nth(2).unwrap().parse().unwrap()),
        };
        (student.to_string(), level)
    })
    .collect()
}

#[test]
fn a_class_placed_on_the_ladder_in_shards_keeps_its_grades_and_orders_its_players() {
    let base = std::env::temp_dir().join(format!("referee-grade-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let _scratch = Scratch(base.clone());
    let class_dir = base.join("class");
    class(&class_dir);
    let shard0 = base.join("shard-0");
    let before = killed_and_resumed(&class_dir, &shard0);
    let results = lines(&shard0.join("records/results.jsonl"));
    // What was recorded before the kill is kept as it was, and no test (a
    // placement game included) is recorded twice.
    assert_eq!(results[..before.len()], before[..]);
    let mut keys: Vec<String> = results
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{}/{}", v["student"], v["test"])
        })
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "a test was played twice: {results:#?}");
    let shard1 = base.join("shard-1");
    run(grade(&class_dir, &shard1, &["--ladder", "--shard", "1/2"]));
    let merged = base.join("merged");
    let m = Command::new(REFEREE)
        .arg("merge")
        .arg("--out")
        .arg(&merged)
        .args([&shard0, &shard1])
        .output();
    let m = m.unwrap();
    assert!(m.status.success(), "{}", text(&m));
    let csv = std::fs::read_to_string(merged.join("grades.csv")).unwrap();
    let placed = placements(&csv);
    let level = |who: &str| placed.iter().find(|p| p.0 == who).unwrap().1;
    assert_eq!(level("c-none"), None, "{csv}");
    let (weak, mid, strong) = (
        level("d-random").unwrap(),
        level("a-level3").unwrap(),
        level("b-full").unwrap(),
    );
    assert!(
        weak < mid && mid < strong,
        "random {weak}, level 3 {mid}, full {strong}:\n{csv}"
    );
    check_apart(&merged, &csv, &class_dir, &base);
    unfinished_is_refused(&shard0, &shard1, &base);
}

/// A shard whose last placement game is lost from its records is refused
/// by `referee merge`, naming the placement.
fn unfinished_is_refused(shard0: &Path, shard1: &Path, base: &Path) {
    let results = shard1.join("records/results.jsonl");
    let mut kept = lines(&results);
    let last = kept.iter().rposition(|l| l.contains("\"test\":\"L")).unwrap();
    kept.remove(last);
    std::fs::write(&results, kept.join("\n") + "\n").unwrap();
    let out = base.join("refused");
    let o = Command::new(REFEREE)
        .arg("merge")
        .arg("--out")
        .arg(&out)
        .args([shard0, shard1])
        .output();
    let o = o.unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("has not taken the ladder placement"),
        "{}",
        text(&o)
    );
}

/// The placements count in no grade: every ladder game scores 0 of 0, and
/// the sheet without its ladder column is the one graded without it.
fn check_apart(merged: &Path, csv: &str, class: &Path, base: &Path) {
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("grades.json")).unwrap()).unwrap();
    let students = j["students"].as_array().unwrap();
    let full = students.iter().find(|s| s["student"] == "b-full").unwrap();
    assert!(full["ladder"].as_str().unwrap().contains("level"), "{full}");
    let games = full["ladder_games"].as_array().unwrap();
    assert!(games.len() >= 4, "at least two levels of two games: {games:?}");
    for g in games {
        assert_eq!((g["points"].as_u64(), g["max"].as_u64()), (Some(0), Some(0)), "{g}");
    }
    assert!(full["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| !t["test"].as_str().unwrap().starts_with('L')));
    let page = std::fs::read_to_string(merged.join("students/b-full.html")).unwrap();
    assert!(
        page.contains("Strength ladder: ") && page.contains("not in the total"),
        "{page}"
    );
    let plain = base.join("plain");
    run(grade(class, &plain, &["--no-ladder"]));
    let without: Vec<String> = csv.lines().map(|l| l[..l.rfind(',').unwrap()].to_string()).collect();
    assert_eq!(
        without.join("\n") + "\n",
        std::fs::read_to_string(plain.join("grades.csv")).unwrap()
    );
}

#[test]
fn the_ladder_is_refused_for_a_game_without_levels() {
    let base = std::env::temp_dir().join(format!("referee-grade-ladder-refused-{}", std::process::id()));
    let _scratch = Scratch(base.clone());
    std::fs::create_dir_all(base.join("class/ann")).unwrap();
    std::fs::write(base.join("class/ann/run"), "agent\n").unwrap();
    let out = base.join("out");
    let o = grade(&base.join("class"), &out, &["--game", "hinger", "--ladder"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("only halma has") && e.contains("hinger has no levels"),
        "{e}"
    );
    assert!(!out.join("plan.toml").exists(), "nothing is graded");
}

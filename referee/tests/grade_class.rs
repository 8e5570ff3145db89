//! `referee grade` on a synthetic class of 31 submissions: our agent at
//! several strengths, the three language templates as `homework.*`, a C
//! wrapper, and twenty kinds of broken submission. Each folder must score
//! the points its kind earns, with the reason its kind deserves; then a
//! grading killed twice and resumed gives the same sheet, and `--only`
//! re-grades one student alone.

use std::path::{Path, PathBuf};
use std::process::Command;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Our agent, as `cargo test --workspace` builds it.
fn our_agent() -> String {
    let p = repo().join("target/release/agent");
    assert!(
        p.exists(),
        "{} is missing: build the workspace first (make test does)",
        p.display()
    );
    p.display().to_string()
}

/// A scratch directory, removed however the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        let _ = std::fs::remove_dir_all(self.0.with_extension("builds"));
        let _ = std::fs::remove_dir_all(self.0.join("out.builds"));
    }
}

/// Writes `files` (name, contents) into `class/student`; a `.sh` file is
/// made executable.
fn student(class: &Path, name: &str, files: &[(&str, String)]) {
    use std::os::unix::fs::PermissionsExt;
    let d = class.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for (f, text) in files {
        std::fs::write(d.join(f), text).unwrap();
        if f.ends_with(".sh") || *f == "homework" {
            std::fs::set_permissions(d.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

/// A `run` file running `script` (a shell script kept as `a.sh`).
fn scripted(class: &Path, name: &str, script: String) {
    student(class, name, &[("run", "sh a.sh".into()), ("a.sh", script)]);
}

/// The synthetic class, by kind; returns the folder names of the kinds the
/// test asserts on.
fn make_class(class: &Path) {
    let ours = our_agent();
    let samples = repo().join("samples/agents");
    let read = |p: &str| std::fs::read_to_string(samples.join(p)).unwrap();
    for (name, args) in [
        ("ours-full", ""),
        ("ours-depth1", " --strategy alphabeta --depth 1"),
        ("ours-depth2", " --strategy alphabeta --depth 2"),
        ("ours-greedy", " --strategy greedy"),
        ("ours-random", " --strategy random"),
        ("ours-minimax", " --strategy minimax --depth 1"),
    ] {
        student(class, name, &[("run", format!("{ours}{args}\n"))]);
    }
    student(class, "tmpl-python", &[("homework.py", read("python/halma_agent.py"))]);
    let java = read("java/HalmaAgent.java").replace("public class HalmaAgent", "public class homework");
    student(class, "tmpl-java", &[("homework.java", java)]);
    student(class, "tmpl-cpp", &[("homework.cpp", read("cpp/halma_agent.cpp"))]);
    let c = format!("#include <unistd.h>\nint main(void) {{ execl(\"{ours}\", \"agent\", (char *)0); return 1; }}\n");
    student(class, "wrap-c", &[("homework.c", c)]);
    student(
        class,
        "run-python",
        &[
            ("run", "python3 agent.py".into()),
            ("agent.py", read("python/halma_agent.py")),
        ],
    );
    broken(class, &ours);
}

/// Twenty kinds of broken submission.
fn broken(class: &Path, ours: &str) {
    student(
        class,
        "bad-compile-cpp",
        &[("homework.cpp", "int main( { return 0; }\n".into())],
    );
    student(
        class,
        "bad-compile-java",
        &[("homework.java", "public class homework { void }\n".into())],
    );
    student(class, "bad-python-syntax", &[("homework.py", "def (:\n".into())]);
    student(class, "bad-no-entry", &[("README.txt", "my agent is coming\n".into())]);
    student(class, "bad-not-executable", &[("homework.sh", String::new())]);
    std::fs::write(class.join("bad-not-executable/homework"), "#!/bin/sh\n").unwrap();
    student(class, "bad-missing-program", &[("run", "./no-such-agent\n".into())]);
    scripted(
        class,
        "bad-crash-white",
        format!("grep -q WHITE input.txt && exit 3\nexec {ours}\n"),
    );
    scripted(
        class,
        "bad-crash-black",
        format!("grep -q BLACK input.txt && exit 3\nexec {ours}\n"),
    );
    scripted(
        class,
        "bad-stdout",
        format!("d=$(mktemp -d)\ncp input.txt \"$d\"\n(cd \"$d\" && {ours})\ncat \"$d/output.txt\"\n"),
    );
    scripted(class, "bad-illegal", "echo 'E 15,0 15,1' > output.txt\n".into());
    scripted(class, "bad-malformed", "echo 'hello there' > output.txt\n".into());
    scripted(class, "bad-empty-output", ": > output.txt\n".into());
    scripted(class, "bad-output-dir", "mkdir output.txt\n".into());
    scripted(class, "bad-exit-1", "exit 1\n".into());
    scripted(class, "bad-infinite-loop", "while :; do :; done\n".into());
    scripted(
        class,
        "bad-fork-bomb",
        "i=0; while [ $i -lt 100000 ]; do (while :; do :; done) & i=$((i+1)); done\n".into(),
    );
    scripted(
        class,
        "bad-over-time",
        // 2.5 s of CPU, then a legal move: late for a 2 s budget.
        format!("python3 -c 'import time\nwhile time.process_time() < 2.5: pass'\nexec {ours}\n"),
    );
    scripted(class, "bad-disk-hog", "i=0; while [ $i -lt 100 ]; do dd if=/dev/zero of=b$i bs=1M count=1 2>/dev/null || break; i=$((i+1)); done\nexit 1\n".into());
    scripted(class, "bad-reads-stdin", format!("read x\nexec {ours}\n"));
    scripted(
        class,
        "bad-kills-parent",
        format!("kill -9 $PPID 2>/dev/null\nkill -STOP -1 2>/dev/null\nexec {ours}\n"),
    );
}

fn grade(class: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(REFEREE)
        .args([
            "grade",
            "--singles",
            "2",
            "--games",
            "1",
            "--time",
            "2",
            "--concurrency",
            "2",
            "--disk",
            "8M",
        ])
        .arg("--out")
        .arg(out)
        // The C wrapper runs our agent, which its command does not name.
        .arg("--sandbox-ro")
        .arg(repo().join("target/release"))
        .arg(class)
        .args(extra)
        .output()
        .unwrap()
}

fn json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("grades.json")).unwrap()).unwrap()
}

/// The tests of `who`: (test, points, verdict, reason).
fn tests_of(j: &serde_json::Value, who: &str) -> Vec<(String, u64, String, String)> {
    let s = j["students"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["student"] == who)
        .unwrap();
    s["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let f = |k: &str| t[k].as_str().unwrap_or_default().to_string();
            (f("test"), t["points"].as_u64().unwrap(), f("verdict"), f("reason"))
        })
        .collect()
}

fn total(j: &serde_json::Value, who: &str) -> u64 {
    tests_of(j, who).iter().map(|t| t.1).sum()
}

#[test]
fn a_class_is_graded_each_kind_with_its_points_and_reason() {
    let base = std::env::temp_dir().join(format!("referee-grade-class-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let scratch = Scratch(base.clone());
    let class = base.join("class");
    make_class(&class);
    assert!(std::fs::read_dir(&class).unwrap().count() >= 30);
    let out = base.join("out");
    let o = grade(&class, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let j = json(&out);
    check_kinds(&j);
    // The sheet: one sorted row per student, the header the plan's columns.
    let csv = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), "student,total,max,single,games,s01,s02,g01");
    let names: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 31);
    assert!(out.join("report.html").is_file() && out.join("students/ours-full.html").is_file());
    drop(scratch);
}

/// Which colour each single-move test gave the submission.
fn white_singles(j: &serde_json::Value) -> Vec<bool> {
    j["tests"]["singles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().contains("WHITE"))
        .collect()
}

fn check_kinds(j: &serde_json::Value) {
    for who in [
        "ours-full",
        "ours-depth1",
        "ours-depth2",
        "ours-greedy",
        "ours-random",
        "tmpl-python",
        "tmpl-java",
        "tmpl-cpp",
        "wrap-c",
        "run-python",
    ] {
        let t = tests_of(j, who);
        for s in t.iter().filter(|t| t.0.starts_with('s')) {
            assert_eq!((s.1, s.2.as_str()), (1, "legal"), "{who} {}: {}", s.0, s.3);
        }
    }
    assert_eq!(total(j, "ours-full"), 12, "{:?}", tests_of(j, "ours-full"));
    for (who, says) in [
        ("bad-compile-cpp", "error"),
        ("bad-compile-java", "error"),
        ("bad-no-entry", "no entry point"),
        ("bad-not-executable", "chmod +x"),
    ] {
        let t = tests_of(j, who);
        assert_eq!(t.len(), 1, "{who}: {t:?}");
        assert_eq!(t[0].2, "no build", "{who}");
        assert!(t[0].3.contains(says), "{who}: {}", t[0].3);
        assert_eq!(total(j, who), 0);
    }
    for (who, verdict, says) in [
        ("bad-python-syntax", "crash", "SyntaxError"),
        ("bad-missing-program", "crash", "127"),
        ("bad-stdout", "no output", "stdout"),
        ("bad-illegal", "illegal move", ""),
        ("bad-malformed", "malformed output", "hello"),
        ("bad-empty-output", "no output", "empty"),
        ("bad-output-dir", "malformed output", "directory"),
        ("bad-exit-1", "crash", "exit status 1"),
        ("bad-infinite-loop", "over time", ""),
        ("bad-over-time", "over time", "CPU"),
        ("bad-disk-hog", "disk use", "--disk"),
    ] {
        for s in tests_of(j, who).iter().filter(|t| t.0.starts_with('s')) {
            assert_eq!((s.1, s.2.as_str()), (0, verdict), "{who} {}: {}", s.0, s.3);
            assert!(s.3.contains(says), "{who} {}: {}", s.0, s.3);
        }
        assert_eq!(total(j, who), 0, "{who}: {:?}", tests_of(j, who));
    }
    let white = white_singles(j);
    for (who, loses_as_white) in [("bad-crash-white", true), ("bad-crash-black", false)] {
        for (i, s) in tests_of(j, who).iter().filter(|t| t.0.starts_with('s')).enumerate() {
            let lost = white[i] == loses_as_white;
            let want = if lost { (0, "crash") } else { (1, "legal") };
            assert_eq!((s.1, s.2.as_str()), want, "{who} {}: {}", s.0, s.3);
        }
    }
    // A fork bomb scores nothing and never stops the grading; an agent that
    // reads stdin (it is /dev/null) plays on. One that signals its parent
    // and every process it can see only harms itself (its verdict depends
    // on the level: its parent is its namespace's init at `full`).
    assert_eq!(total(j, "bad-fork-bomb"), 0, "{:?}", tests_of(j, "bad-fork-bomb"));
    assert!(!tests_of(j, "bad-kills-parent").is_empty());
    for who in ["bad-reads-stdin"] {
        for s in tests_of(j, who).iter().filter(|t| t.0.starts_with('s')) {
            assert_eq!((s.1, s.2.as_str()), (1, "legal"), "{who} {}: {}", s.0, s.3);
        }
    }
}

/// A plan whose every player is deterministic (depth-limited searches, no
/// clock in the choice), so two gradings give the same single moves.
fn fixed_plan(dir: &Path) -> PathBuf {
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        "game = \"halma\"\nseed = 5\n[singles]\ncount = 4\npoints = 1\nbudget = 2.0\n\
         [games]\ncount = 2\nopened = 1\npoints = 10\nclock = [3.0, 3.0]\n\
         opponent = \"{agent} --strategy minimax --depth 1\"\nmax_plies = 60\ndraw = \"nobody\"\n",
    )
    .unwrap();
    p
}

/// The sheet without what measured time decides: a game that reaches the
/// move cap is won on time left, so the games' columns (and the totals)
/// may differ between two gradings; the student and single-move columns
/// may not.
fn sheet(out: &Path) -> String {
    let text = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let keep = |l: &str| {
        let f: Vec<&str> = l.split(',').collect();
        let singles = f
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || *i == 3 || (5..9).contains(i));
        singles.map(|(_, v)| *v).collect::<Vec<_>>().join(",")
    };
    text.lines().map(keep).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_grading_killed_twice_and_resumed_gives_the_same_sheet_and_only_regrades_one() {
    let base = std::env::temp_dir().join(format!("referee-grade-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let scratch = Scratch(base.clone());
    let class = base.join("class");
    let ours = our_agent();
    for (name, args) in [
        ("d1", "--strategy alphabeta --depth 1"),
        ("d2", "--strategy alphabeta --depth 2"),
        ("gr", "--strategy greedy"),
    ] {
        student(&class, name, &[("run", format!("{ours} {args}\n"))]);
    }
    student(&class, "none", &[("notes.txt", String::new())]);
    let plan = fixed_plan(&base);
    let run = |out: &Path, extra: &[&str]| {
        Command::new(REFEREE)
            .args(["grade", "--plan"])
            .arg(&plan)
            .arg("--out")
            .arg(out)
            .arg(&class)
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let whole = base.join("whole");
    let o = run(&whole, &[]).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cut = base.join("cut");
    let results = cut.join("records/results.jsonl");
    let lines = || {
        std::fs::read_to_string(&results)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    for (k, after) in [(0, 3), (1, 9)] {
        let mut child = run(&cut, if k == 0 { &[] } else { &["--resume"] });
        let t = std::time::Instant::now();
        while lines() < after && t.elapsed() < std::time::Duration::from_secs(120) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }
    assert!(
        lines() < 4 * 6 + 1,
        "the kills came before the end: {} results",
        lines()
    );
    let o = run(&cut, &["--resume"]).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(sheet(&cut), sheet(&whole));
    // No test twice: one line per student and test.
    let text = std::fs::read_to_string(&results).unwrap();
    let mut keys: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{}/{}", v["student"], v["test"])
        })
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "a test was graded twice");
    // A second grading into the same directory is refused without --resume.
    let o = run(&cut, &[]).wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    // --only grades one student again and keeps everyone else's results.
    let o = run(&cut, &["--only", "d1"]).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(sheet(&cut), sheet(&whole));
    drop(scratch);
}

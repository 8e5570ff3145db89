//! Process-level regression tests for hostile sizes given to the referee:
//! `--rows/--cols` and `--start` boards whose size products overflow once
//! panicked or spun forever ignoring SIGTERM, and a referee that anyone
//! may hand any numbers must refuse them in words instead. They go through
//! the same checked constructors as the agent's parser. Each case runs the
//! real `referee` binary under a wall-clock timeout and checks the exit code,
//! the message, that nothing panicked and that no record was written; a
//! million-counter Hinger start is played to the move cap.

use referee::output::record::{self, Ending};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

/// Generous for a loaded 2-core machine; a spin still shows.
const WALL_LIMIT: Duration = Duration::from_secs(120);

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("referee-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the referee with `args`; (exit code or None for a signal, stderr).
/// Kills it and fails the test if it outlives [`WALL_LIMIT`].
fn referee(name: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(REFEREE)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > WALL_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{name}: the referee hung (killed after {WALL_LIMIT:?})");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), reader.join().unwrap())
}

/// Files under `dir`, recursively (directories themselves not listed).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// `referee match` with `extra` arguments is refused: non-zero exit, a
/// message containing every needle, no panic, and nothing under --out but
/// the run's manifest (`match.json`, kept for `--resume`) and its lock file:
/// no game record, no agent working directory.
fn assert_refused(name: &str, extra: &[&str], needles: &[&str]) {
    let dir = tmp(name);
    let out = dir.join("out");
    let out_s = out.to_str().unwrap().to_string();
    let agent = format!("{MOCK} play");
    let mut args = vec!["match", "--games", "2", "--time", "5", "--out", &out_s];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[&agent, &agent]);
    let (code, stderr) = referee(name, &args);
    assert!(matches!(code, Some(c) if c != 0), "{name}: exit {code:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{name}: {stderr} should say {n:?}");
    }
    if out.exists() {
        let left: Vec<PathBuf> = files_under(&out)
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n != "match.json" && n != "referee.lock"))
            .collect();
        assert!(left.is_empty(), "{name}: left {left:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn generated_boards_with_wrapping_sizes_are_refused() {
    assert_refused(
        "hinger-cols",
        &["--game", "hinger", "--rows", "1", "--cols", "18446744073709551615"],
        &["too large"],
    );
    assert_refused(
        "hinger-rows",
        &["--game", "hinger", "--rows", "18446744073709551615", "--cols", "1"],
        &["too large"],
    );
    assert_refused(
        "cs-rows",
        &[
            "--game",
            "connectsquare",
            "--rows",
            "18446744073709551615",
            "--cols",
            "4",
        ],
        &["too large"],
    );
    assert_refused(
        "cs-cols",
        &[
            "--game",
            "connectsquare",
            "--rows",
            "4",
            "--cols",
            "18446744073709551615",
        ],
        &["too large"],
    );
    assert_refused(
        "hashi-size",
        &["--game", "hashi", "--size", "18446744073709551615"],
        &["between 3 and"],
    );
}

#[test]
fn start_files_with_wrapping_sizes_are_refused_with_their_line() {
    let dir = tmp("starts");
    let cases = [
        ("hinger", "HINGER\nGAME\n1\n10\n1 18446744073709551615\n", "too large"),
        ("hinger", "HINGER\nGAME\n1\n10\n1 1\n16777217\n", "maximum of 16777216"),
        (
            "connectsquare",
            "CONNECTSQUARE\nGAME\nR\n10\n18446744073709551615 4\n",
            "too large",
        ),
    ];
    for (i, (game, text, needle)) in cases.into_iter().enumerate() {
        let start = dir.join(format!("start{i}.txt"));
        std::fs::write(&start, text).unwrap();
        let line = if needle.starts_with("maximum") {
            "line 6"
        } else {
            "line 5"
        };
        assert_refused(
            &format!("start-{i}"),
            &["--game", game, "--start", start.to_str().unwrap()],
            &[line, needle],
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_million_counter_hinger_start_is_played_to_the_move_cap() {
    let dir = tmp("million");
    let start = dir.join("start.txt");
    std::fs::write(&start, "HINGER\nGAME\n1\n10\n3 3\n0 0 0\n0 1000000 0\n0 0 0\n").unwrap();
    let out = dir.join("out");
    let agent = format!("{MOCK} play");
    let (code, stderr) = referee(
        "million",
        &[
            "match",
            "--game",
            "hinger",
            "--start",
            start.to_str().unwrap(),
            "--games",
            "2",
            "--time",
            "10",
            "--max-plies",
            "6",
            "--out",
            out.to_str().unwrap(),
            &agent,
            &agent,
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r.ending, Ending::MoveCap, "{}", r.reason);
        assert_eq!(r.moves.len(), 6);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Makes a FIFO at `path` (no writer ever opens it: a blocking read hangs).
fn mkfifo(path: &Path) {
    let (fifo, mode) = (rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600));
    rustix::fs::mknodat(rustix::fs::CWD, path, fifo, mode, 0)
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
}

#[test]
fn special_files_as_start_openings_or_records_are_refused_at_once() {
    // A FIFO with no writer blocked the referee forever and /dev/zero read
    // until memory ran out; now they are refused as not regular files.
    let dir = tmp("special");
    let fifo = dir.join("fifo.txt");
    mkfifo(&fifo);
    let fifo_s = fifo.to_str().unwrap();
    for path in [fifo_s, "/dev/zero"] {
        assert_refused(
            &format!("start-{}", path.len()),
            &["--game", "hinger", "--start", path],
            &["cannot read --start", path, "not a regular file"],
        );
        assert_refused(
            &format!("openings-{}", path.len()),
            &["--game", "hinger", "--openings", path],
            &["cannot read opening", path, "not a regular file"],
        );
        let (code, stderr) = referee(
            "report",
            &["report", path, "--output", dir.join("r.html").to_str().unwrap()],
        );
        assert_eq!(code, Some(2), "report {path}: {stderr}");
        assert!(stderr.contains("not a regular file"), "report {path}: {stderr}");
        assert!(!dir.join("r.html").exists());
    }
    // A FIFO inside a directory of openings is refused by name, not skipped:
    // the organiser should learn that the suite is not what they think.
    let suite = dir.join("suite");
    std::fs::create_dir(&suite).unwrap();
    mkfifo(&suite.join("a.txt"));
    assert_refused(
        "openings-dir",
        &["--game", "hinger", "--openings", suite.to_str().unwrap()],
        &["a.txt is not a regular file", "holds only position files"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

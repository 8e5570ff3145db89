//! Process-level tests of the `agent` binary on Halma: legal output for every
//! sample, CPU time within the budget (measured on the child's rusage), a
//! legal move left behind after an early SIGKILL, and clear errors for
//! malformed inputs.

mod common;

use agent::Halma;
use agent::Notation;
use agent::View;
use common::scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const AGENT: &str = env!("CARGO_BIN_EXE_agent");

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    assert!(v.len() >= 12, "expected a dozen samples or more");
    v
}

/// The sample's text with the mode and time lines replaced.
fn with_budget(text: &str, mode: &str, seconds: f64) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let t = format!("{seconds}");
    lines[0] = mode;
    lines[2] = &t;
    lines.join("\n") + "\n"
}

/// Runs the agent in `dir`; returns (exit code, stderr, CPU seconds of the child).
fn run(dir: &Path, args: &[&str]) -> (i32, String, f64) {
    let err_path = dir.join("stderr.txt");
    let child = Command::new(AGENT)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for our own child.
    let (r, ru) = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, 0, &mut ru), ru)
    };
    assert_eq!(r, pid);
    let cpu = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    std::mem::forget(child); // already reaped by wait4
    (
        code,
        std::fs::read_to_string(err_path).unwrap_or_default(),
        cpu(ru.ru_utime) + cpu(ru.ru_stime),
    )
}

fn assert_legal_output(dir: &Path, input: &str) {
    let pos = Halma::parse_input(input).unwrap().state;
    let out = std::fs::read_to_string(dir.join("output.txt")).expect("output.txt written");
    assert!(out.ends_with('\n') && !out.contains('\r'), "{out:?}");
    if let Err(e) = pos.parse_move(&out) {
        panic!("illegal output {out:?}: {e}\n{}", pos.render());
    }
}

#[test]
fn legal_move_for_every_sample_within_small_budgets() {
    for s in samples() {
        let text = std::fs::read_to_string(&s).unwrap();
        for (mode, budget) in [("SINGLE", 0.01), ("GAME", 0.01), ("SINGLE", 0.1), ("GAME", 0.1)] {
            let dir = scratch("small");
            let input = with_budget(&text, mode, budget);
            std::fs::write(dir.join("input.txt"), &input).unwrap();
            let (code, err, cpu) = run(&dir, &[]);
            assert_eq!(code, 0, "{} {mode} {budget}: {err}", s.display());
            assert_legal_output(&dir, &input);
            assert!(cpu < budget, "{} {mode} {budget}: used {cpu:.4} CPU s", s.display());
        }
    }
}

#[test]
fn one_second_budgets_are_kept() {
    for name in [
        "start_white.txt",
        "midgame_1.txt",
        "trap_forced_out.txt",
        "endgame_white.txt",
    ] {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma").join(name)).unwrap();
        for mode in ["SINGLE", "GAME"] {
            let dir = scratch("one");
            let input = with_budget(&text, mode, 1.0);
            std::fs::write(dir.join("input.txt"), &input).unwrap();
            let (code, err, cpu) = run(&dir, &[]);
            assert_eq!(code, 0, "{name} {mode}: {err}");
            assert_legal_output(&dir, &input);
            assert!(cpu < 1.0, "{name} {mode}: used {cpu:.3} CPU s");
        }
    }
}

/// The last `info` line of a move's stderr.
fn last_info(err: &str) -> &str {
    err.lines().rev().find(|l| l.starts_with("info ")).unwrap_or("")
}

#[test]
fn a_game_clock_short_of_the_floor_of_the_moves_left_plays_at_once() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma/start_black.txt")).unwrap();
    // A quarter of a second for a whole game from the start: about 100
    // moves at the default 5 ms floor take more than the clock.
    let dir = scratch("fast");
    let input = with_budget(&text, "GAME", 0.25);
    std::fs::write(dir.join("input.txt"), &input).unwrap();
    let (code, err, cpu) = run(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    assert_legal_output(&dir, &input);
    assert!(last_info(&err).starts_with("info depth 0 "), "no search: {err}");
    assert!(cpu < 0.05, "used {cpu:.4} CPU s");
    // The next move measures the floor from the clock's drop and stays
    // fast while the clock is short; a long clock searches.
    for (seconds, fast) in [(0.24, true), (50.0, false)] {
        let input = with_budget(&text, "GAME", seconds);
        std::fs::write(dir.join("input.txt"), &input).unwrap();
        let (code, err, _) = run(&dir, &[]);
        assert_eq!(code, 0, "{err}");
        assert_legal_output(&dir, &input);
        let info = last_info(&err);
        assert_eq!(info.starts_with("info depth 0 "), fast, "{seconds} s: {err}");
        let playdata = std::fs::read_to_string(dir.join("playdata.txt")).unwrap();
        assert!(playdata.contains(&format!("clock {seconds} ")), "{playdata}");
    }
}

#[test]
fn sigkill_soon_after_start_leaves_a_legal_move() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma/midgame_1.txt")).unwrap();
    let dir = scratch("kill");
    let input = with_budget(&text, "SINGLE", 30.0);
    std::fs::write(dir.join("input.txt"), &input).unwrap();
    let mut child = Command::new(AGENT)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_legal_output(&dir, &input);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(leftovers.len() <= 3, "{leftovers:?}");
}

#[test]
fn malformed_inputs_fail_with_the_line_named() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma/start_white.txt")).unwrap();
    let cases: Vec<(String, &str)> = vec![
        (text.replace("WHITE", "RED"), "line 2"),
        (text.replace("30.0", "0.0"), "line 3"),
        (text.replace("30.0", "-1"), "line 3"),
        (text.replacen("BBBBB.....", "BBBBB....?", 1), "line 4"),
        (text.replacen("BBB.............", "BBB..", 1), "line 7"),
        (text.lines().take(12).collect::<Vec<_>>().join("\n"), "line 13"),
        (text.replacen("BB..............", "................", 1), "line 4"),
        ("HELLO\n".to_string(), "line 1"),
    ];
    for (input, want) in cases {
        let dir = scratch("bad");
        std::fs::write(dir.join("input.txt"), &input).unwrap();
        let (code, err, _) = run(&dir, &[]);
        assert_ne!(code, 0, "accepted {input:?}");
        assert!(err.contains(want), "message {err:?} does not name {want}");
        assert!(!dir.join("output.txt").exists());
    }
    let dir = scratch("missing");
    let (code, err, _) = run(&dir, &[]);
    assert_ne!(code, 0);
    assert!(err.contains("input.txt"), "{err}");
}

#[test]
fn perft_command_counts_the_start() {
    let s = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma/start_black.txt");
    let out = Command::new(AGENT)
        .args(["halma", "perft", s.to_str().unwrap(), "3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().next(), Some("62240"));
    let out = Command::new(AGENT)
        .args(["halma", "simple-perft", s.to_str().unwrap(), "2"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().next(), Some("1600"));
}

//! Command-line regression tests: every bad argument is refused by the real
//! `referee` binary with exit status 2 and a message naming the option and
//! what it expects, never a panic, a hang or a huge allocation.

use referee::output::record;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("referee-args-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn referee(args: &[&str]) -> Output {
    Command::new(REFEREE).args(args).stdin(Stdio::null()).output().unwrap()
}

/// Asserts a clean refusal: exit status 2, `expected` in the message, no panic.
fn refused(args: &[&str], expected: &str) {
    let o = referee(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expected), "{args:?}: expected {expected:?} in {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// A match of the test game between two mock agents with `extra` options.
fn nim_match(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["match", "--game", "testnim", "--size", "4"].map(String::from).to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn times_must_be_positive_finite_and_bounded() {
    let a = format!("{MOCK} play");
    for (opt, val, msg) in [
        ("--time", "-1", "--time must be a positive number of seconds"),
        (
            "--time",
            "1e308",
            "--time must be a positive number of seconds up to 1000000",
        ),
        ("--time", "inf", "--time must be"),
        ("--time", "NaN", "--time must be"),
        ("--time-a", "-1", "--time-a must be"),
        ("--time-b", "2e6", "--time-b must be"),
        ("--move-time", "-0.5", "--move-time must be"),
        ("--grace", "1e308", "--grace must be between 0 and 3600"),
        ("--grace", "-1", "--grace must be between 0 and 3600"),
        ("--wall-factor", "1e9", "--wall-factor must be between 1 and 100"),
    ] {
        // Negative numbers work as separate words (`--time -1`), not only as `--time=-1`.
        let args = nim_match(&[opt, val, &a, &a]);
        refused(&strs(&args), msg);
    }
}

#[test]
fn games_and_concurrency_are_checked() {
    let a = format!("{MOCK} play");
    refused(
        &strs(&nim_match(&["--games", "0", &a, &a])),
        "--games must be at least 1",
    );
    refused(
        &strs(&nim_match(&["--games", "-3", &a, &a])),
        "invalid value '-3' for '--games",
    );
    refused(
        &strs(&nim_match(&["--concurrency", "0", &a, &a])),
        "--concurrency must be between 1 and 256",
    );
    refused(
        &strs(&nim_match(&["--concurrency", "18446744073709551615", &a, &a])),
        "--concurrency must be between 1 and 256",
    );
    let specs: Vec<String> = (0..7).map(|i| format!("p{i}={MOCK} play")).collect();
    let mut args = vec!["tournament", "--game", "testnim", "--games", "18446744073709551615"];
    args.extend(specs.iter().map(String::as_str));
    refused(&args, "more games than can be counted");
}

#[test]
fn swiss_options_are_checked() {
    let specs: Vec<String> = (0..5).map(|i| format!("p{i}={MOCK} play")).collect();
    let with = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = ["tournament", "--game", "testnim"].map(String::from).to_vec();
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend(specs.iter().cloned());
        v
    };
    refused(
        &strs(&with(&["--rounds", "3"])),
        "--rounds, --final, --round and --after belong to a Swiss: add --format swiss",
    );
    refused(&strs(&with(&["--round", "1"])), "belong to a Swiss: add --format swiss");
    refused(&strs(&with(&["--format", "swiss"])), "--format swiss needs --rounds R");
    refused(
        &strs(&with(&["--format", "swiss", "--rounds", "6"])),
        "--rounds must be between 1 and 5 for 5 agents",
    );
    refused(
        &strs(&with(&["--format", "swiss", "--rounds", "0"])),
        "--rounds must be between 1 and 5",
    );
    refused(
        &strs(&with(&["--format", "swiss", "--rounds", "3", "--final", "6"])),
        "--final must be between 2 and the number of agents (5)",
    );
    refused(
        &strs(&with(&["--format", "swiss", "--rounds", "3", "--gauntlet"])),
        "--gauntlet cannot be used with --format swiss",
    );
    refused(
        &strs(&with(&["--format", "swiss", "--rounds", "3", "--shard", "0/2"])),
        "--shard without --round cannot be used with --format swiss",
    );
    swiss_round_options_are_checked(&with);

    refused(
        &strs(&with(&["--format", "knockout"])),
        "invalid value 'knockout' for '--format",
    );
    refused(
        &strs(&with(&["--anchor", "nobody"])),
        "--anchor \"nobody\" names no agent of this tournament",
    );
}

/// `--round N` is one of the rounds, `--after` goes with a later round.
fn swiss_round_options_are_checked(with: &dyn Fn(&[&'static str]) -> Vec<String>) {
    let swiss = |extra: &[&'static str]| {
        let mut v = vec!["--format", "swiss", "--rounds", "3"];
        v.extend(extra);
        with(&v)
    };
    refused(
        &strs(&swiss(&["--round", "4"])),
        "--round must be between 1 and --rounds (3), found 4",
    );
    refused(
        &strs(&swiss(&["--round", "0"])),
        "--round must be between 1 and --rounds (3)",
    );
    refused(
        &strs(&swiss(&["--round", "1", "--after", "x"])),
        "--round 1 is paired from nothing: drop --after",
    );
    refused(&strs(&swiss(&["--after", "x"])), "--after belongs to --round N");
    refused(
        &strs(&swiss(&["--round", "3"])),
        "--round 3 is paired from the games of rounds 1 to 2: give their directory",
    );
}

#[test]
fn sprt_with_fewer_than_two_games_is_refused() {
    let (a, b) = (format!("{MOCK} play"), format!("{MOCK} play"));
    let args = nim_match(&["--games", "1", "--sprt", "0,100", &a, &b]);
    let o = referee(&strs(&args));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--sprt needs game pairs"), "{err}");
}

#[test]
fn a_huge_game_count_is_scheduled_lazily() {
    // 10^18 games: nothing is allocated per game up front; the SPRT ends the
    // run after a few games (the second agent always fails).
    let out = tmp("huge");
    let out_s = out.display().to_string();
    let (a, b) = (format!("{MOCK} play"), format!("{MOCK} fail-after 1"));
    let args = nim_match(&[
        "--games",
        "1000000000000000000",
        // Pairs that differ: deterministic agents from one start would
        // repeat a pair, which the SPRT refuses.
        "--openings",
        "random:2",
        "--sprt",
        "0,100",
        "--concurrency",
        "2",
        "--out",
        &out_s,
        &a,
        &b,
    ]);
    // A pile of 12: room for random two-ply openings.
    let mut args = args;
    args[4] = "12".into();
    let o = referee(&strs(&args));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("of 1000000000000000000 games recorded"), "{text}");
    let n = record::load(&out.join("records.jsonl"), false).unwrap().len();
    assert!((2..100).contains(&n), "{n} games");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn concurrency_is_capped_at_the_games_and_warned_above_the_cores() {
    let out = tmp("conc");
    let out_s = out.display().to_string();
    let a = format!("{MOCK} play");
    // Two games asked to run 256 at once: two threads, and a warning only
    // when two games are more than this machine's cores.
    let args = nim_match(&["--games", "2", "--concurrency", "256", "--out", &out_s, &a, &a]);
    let o = referee(&strs(&args));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(err.contains("warning: 2 games at once"), cores < 2, "{err}");
    assert!(!err.contains("256 games"), "{err}");
    assert_eq!(record::load(&out.join("records.jsonl"), false).unwrap().len(), 2);
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn empty_agent_commands_are_refused() {
    let a = format!("{MOCK} play");
    refused(&strs(&nim_match(&["", &a])), "the first agent's command is empty");
    refused(&strs(&nim_match(&[&a, "  "])), "the second agent's command is empty");
    refused(
        &["play", "--game", "testnim", "--first", "1", &a, ""],
        "the second seat's command is empty",
    );
    refused(
        &["tournament", "--game", "testnim", "x=", "y=z"],
        "both parts non-empty",
    );
}

#[test]
fn a_start_position_already_over_is_refused() {
    let dir = tmp("over");
    let start = dir.join("over.txt");
    std::fs::write(&start, "TESTNIM\nGAME\n1\n10.0\n0\n").unwrap();
    let start_s = start.display().to_string();
    let a = format!("{MOCK} play");
    let args = nim_match(&[
        "--start",
        &start_s,
        "--out",
        &dir.join("out").display().to_string(),
        &a,
        &a,
    ]);
    refused(
        &strs(&args),
        "the --start position is already over: player 2 has already won",
    );
    assert!(!dir.join("out").exists(), "nothing is created for a refused run");
    refused(
        &["play", "--game", "testnim", "--start", &start_s, &a, &a],
        "already over",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn board_options_a_game_does_not_take_are_refused() {
    let a = format!("{MOCK} play");
    refused(
        &["match", "--game", "fifteen", "--rows", "5", &a, &a],
        "--rows does not apply to fifteen; it takes --size (board size, 4 or 6",
    );
    refused(
        &["match", "--game", "halma", "--size", "5", &a, &a],
        "halma has no board options",
    );
    refused(&["match", "--game", "fifteen", "--size", "5", &a, &a], "4 or 6");
}

#[test]
fn an_unknown_game_gets_the_closest_name() {
    refused(&["match", "--game", "fiften", "a", "b"], "did you mean fifteen?");
    refused(&["match", "--game", "chess", "a", "b"], "the games are halma, hinger");
}

#[test]
fn replaying_a_missing_file_says_so() {
    refused(
        &["replay", "/nonexistent/missing.jsonl"],
        "no such file: /nonexistent/missing.jsonl",
    );
    let dir = tmp("replay-dir");
    refused(&["replay", &dir.display().to_string()], "is not a file of game records");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    refused(&["replay", &empty.display().to_string()], "holds no game records");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn resume_of_a_match_needs_its_directory() {
    let a = format!("{MOCK} play");
    refused(
        &strs(&nim_match(&["--resume", &a, &a])),
        "--resume needs the --out directory",
    );
    refused(
        &strs(&nim_match(&["--names", "A,", &a, &a])),
        "--names expects two different names",
    );
}

#[test]
fn limits_no_agent_can_run_under_and_revealing_read_only_dirs_are_refused() {
    let out = tmp("bounds");
    let out_s = out.display().to_string();
    let a = format!("{MOCK} play");
    for (opts, msg) in [
        (vec!["--memory", "1"], "--memory 0 MiB is too little"),
        (vec!["--memory", "4M"], "give at least 32 MiB"),
        (vec!["--disk", "64K"], "--disk 64 KiB leaves no room"),
        (vec!["--max-procs", "0"], "--max-procs 0 leaves no room"),
        (vec!["--max-procs", "1"], "give at least 8"),
        (
            vec!["--sandbox-ro", "/"],
            "--sandbox-ro / would show agents the whole file system",
        ),
        (
            vec!["--sandbox-ro", out_s.as_str()],
            "would show agents the run's records",
        ),
    ] {
        let mut args = nim_match(&["--out", &out_s, &a, &a]);
        args.extend(opts.iter().map(|s| s.to_string()));
        refused(&strs(&args), msg);
    }
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn two_programs_started_from_one_directory_are_refused_naming_dir() {
    // Two different scripts in one directory, no dir=: each agent's moves
    // would be shown the other's code there.
    let d = tmp("shared-start");
    for f in ["mine.sh", "theirs.sh"] {
        std::fs::write(d.join(f), "exit 0\n").unwrap();
    }
    let (a, b) = (
        format!("sh {}", d.join("mine.sh").display()),
        format!("sh {}", d.join("theirs.sh").display()),
    );
    let out = d.join("out").display().to_string();
    refused(&strs(&nim_match(&["--out", &out, &a, &b])), "both run files from");
    refused(&strs(&nim_match(&["--out", &out, &a, &b])), "dir=");
    std::fs::remove_dir_all(&d).unwrap();
}

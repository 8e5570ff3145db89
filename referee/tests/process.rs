//! Process-level tests: real child processes (the `mock-agent` fixture and
//! the `referee` binary) through the runner, the game loop and the CLI.
//! CPU-time assertions are robust to a loaded machine (CPU time does not
//! stretch with load; only wall-clock limits are given generous margins).

mod common;

use agent::ByPlayer;
use agent::TestNim;
use referee::game::{play_game, Contestant, GameSetup, Rules, SeatKind};
use referee::output::record::{self, Ending, LossReason};
use referee::process::agent_files::Output;
use referee::process::command::AgentCommand;
use referee::process::runner::{self, Exit, Killed, RunSpec};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// The binaries under test (copies in the unprivileged rerun).
static MOCK: LazyLock<String> = LazyLock::new(|| common::binary("REFEREE_TEST_MOCK", env!("MOCK_AGENT")));
static REFEREE: LazyLock<String> =
    LazyLock::new(|| common::binary("REFEREE_TEST_REFEREE", env!("CARGO_BIN_EXE_referee")));

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("referee-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the mock agent once on a TESTNIM position in a fresh directory.
fn run_mock(name: &str, behaviour: &str, cpu_kill: f64, wall_kill: f64) -> (runner::RunResult, PathBuf) {
    let dir = tmp(name);
    std::fs::write(dir.join("input.txt"), "TESTNIM\nGAME\n1\n10.0\n5\n").unwrap();
    let cmd = format!("{} {behaviour}", *MOCK);
    let spec = RunSpec {
        cmd: &cmd,
        extra_arg: None,
        dir: &dir,
        cpu_kill,
        wall_kill,
        output_cap: runner::OUTPUT_CAP,
        sandbox: &common::sandbox(),
        homes: runner::Homes::default(),
    };
    let r = runner::run(&spec, &AtomicBool::new(false)).unwrap();
    (r, dir)
}

#[test]
fn one_second_burned_is_charged_one_second() {
    let (r, dir) = run_mock("burn", "burn 1.0", 30.0, 300.0);
    assert!((r.cpu - 1.0).abs() <= 0.1, "charged {}", r.cpu);
    assert_eq!(r.exit, Exit::Code(0));
    assert_eq!(r.output, Output::Text(b"1\n".to_vec()));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cpu_burned_in_a_child_process_is_charged() {
    let (r, dir) = run_mock("burn-child", "burn-child 1.0", 30.0, 300.0);
    assert!((r.cpu - 1.0).abs() <= 0.1, "charged {}", r.cpu);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn two_threads_are_charged_twice() {
    let (r, dir) = run_mock("threads", "burn-threads 1.0", 30.0, 300.0);
    assert!((r.cpu - 2.0).abs() <= 0.2, "charged {}", r.cpu);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cpu_limit_kills_the_group() {
    let (r, dir) = run_mock("cpukill", "burn 30", 0.3, 300.0);
    assert_eq!(r.killed, Some(Killed::Cpu));
    assert!(r.cpu >= 0.3 && r.cpu < 1.0, "charged {}", r.cpu);
    assert!(matches!(r.exit, Exit::Signal(9)), "{:?}", r.exit);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_agent_that_forks_and_exits_leaves_nothing_behind() {
    // An odd burn length marks the orphan's command line (its pid as the
    // agent saw it may be from a PID namespace of its own).
    let (r, dir) = run_mock("orphan", "orphan 29.25", 60.0, 300.0);
    assert_eq!(r.exit, Exit::Code(0));
    assert!(dir.join("orphan.pid").exists());
    // Killed and reaped by the referee: no process, not even a zombie.
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(
            !text.contains("burn-only 29.25"),
            "orphan {:?} still exists",
            e.file_name()
        );
    }
    // The parent waited until the orphan had burned 0.2 s: that is charged.
    assert!(r.cpu >= 0.2, "charged {}", r.cpu);
    std::fs::remove_dir_all(dir).unwrap();
}

fn contestant(name: &str, behaviour: &str) -> Contestant {
    Contestant {
        name: name.into(),
        kind: SeatKind::Agent(AgentCommand::new(format!("{} {behaviour}", *MOCK))),
        calibration: None,
        calibrate: None,
        home: None,
    }
}

fn one_game(name: &str, a: &str, b: &str, time: f64, rules: &Rules, pile: u32) -> record::GameRecord {
    let dir = tmp(name);
    let (ca, cb) = (contestant("a", a), contestant("b", b));
    let setup = GameSetup {
        key: name.into(),
        start: TestNim {
            pile,
            side: agent::Player::One,
        },
        seats: ByPlayer::new(&ca, &cb),
        time: ByPlayer::new(time, time),
        dirs: ByPlayer::new(dir.join("a"), dir.join("b")),
    };
    let rec = play_game(setup, rules, &AtomicBool::new(false), None, &mut |_| {}).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    rec
}

#[test]
fn a_sleeping_agent_is_killed_at_the_wall_limit_and_loses_on_time() {
    let rules = Rules {
        grace: 0.2,
        wall_factor: 1.0,
        wall_extra: 1.0,
        sandbox: common::sandbox(),
        ..Rules::default()
    };
    let t = Instant::now();
    let rec = one_game("sleeper", "sleep 600", "play", 1.0, &rules, 5);
    // Killed at (1.0 + 0.2) x 1 + 1 = 2.2 s wall, not after 600 s.
    assert!(t.elapsed() < Duration::from_secs(60));
    assert_eq!(rec.winner, Some(1));
    assert_eq!(rec.loss, Some(LossReason::OverTime));
    assert!(rec.reason.contains("wall-clock"), "{}", rec.reason);
}

#[test]
fn a_move_over_the_remaining_time_loses_even_under_the_grace() {
    let rules = Rules {
        grace: 10.0,
        sandbox: common::sandbox(),
        ..Rules::default()
    };
    let rec = one_game("slow", "burn 0.2", "play", 0.1, &rules, 5);
    assert_eq!(rec.winner, Some(1));
    assert_eq!(rec.loss, Some(LossReason::OverTime));
    assert!(rec.reason.contains("more than"), "{}", rec.reason);
}

#[test]
fn move_cap_is_decided_by_remaining_time() {
    let rules = Rules {
        max_plies: 6,
        sandbox: common::sandbox(),
        ..Rules::default()
    };
    // b burns 0.05 s a move, a almost nothing: a has more time left.
    let rec = one_game("cap", "play", "burn 0.05", 10.0, &rules, 1000);
    assert_eq!(rec.moves.len(), 6);
    assert_eq!(rec.ending, Ending::MoveCap);
    assert_eq!(rec.winner, Some(0));
    let left: f64 = rec.moves.iter().filter(|m| m.seat == 1).map(|m| m.cpu).sum();
    assert!((rec.clocks[1] - (10.0 - left)).abs() < 1e-9);
}

fn referee(args: &[&str]) -> std::process::Output {
    Command::new(&*REFEREE)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn faulty_agents_each_lose_with_their_own_reason_and_play_goes_on() {
    let out = tmp("faults");
    let agents = [
        ("good", "play", None),
        ("crash", "crash", Some(LossReason::Crash)),
        ("exit3", "exit 3", Some(LossReason::Crash)),
        ("silent", "silent", Some(LossReason::NoOutput)),
        ("empty", "empty", Some(LossReason::NoOutput)),
        ("garbage", "garbage", Some(LossReason::Malformed)),
        ("illegal", "illegal", Some(LossReason::IllegalMove)),
    ];
    let specs: Vec<String> = agents.iter().map(|(n, b, _)| format!("{n}={} {b}", *MOCK)).collect();
    let mut args = vec![
        "tournament",
        "--game",
        "testnim",
        "--size",
        "3",
        "--games",
        "1",
        "--time",
        "5",
        "--concurrency",
        "2",
        // These agents are broken on purpose; the pre-flight would stop the run.
        "--no-preflight",
    ];
    let out_s = out.display().to_string();
    args.extend(["--out", &out_s]);
    args.extend(specs.iter().map(String::as_str));
    let o = referee(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 21, "every pairing played");
    for rec in &recs {
        // Whoever moved first and was faulty lost with its reason; a faulty
        // second mover may be reached too. The good agent never forfeits.
        if let (Some(w), Some(reason)) = (rec.winner, rec.loss) {
            let loser = &rec.agents[1 - w];
            let expected = agents.iter().find(|a| a.0 == loser).unwrap().2;
            assert_eq!(Some(reason), expected, "{loser}: {}", rec.reason);
            if reason == LossReason::Crash {
                // The verdict quotes the end of the agent's stderr (or says it was empty).
                assert!(rec.reason.contains("stderr"), "{}", rec.reason);
            }
        } else {
            panic!("every game has a faulty agent and must end by forfeit: {rec:?}");
        }
    }
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("illegal move: "), "{table}");
    std::fs::remove_dir_all(out).unwrap();
}

/// The names a match gives two agents run by the mock agent: its file
/// name, then the same with `-2` (the unprivileged rerun runs a copy).
fn mock_names() -> (String, String) {
    let stem = Path::new(&*MOCK).file_stem().unwrap().to_string_lossy().into_owned();
    (stem.clone(), format!("{stem}-2"))
}

#[test]
fn match_alternates_first_move_writes_results_and_sprt_without_games_plays_to_a_decision() {
    let out = tmp("match");
    let res = out.join("results.json");
    let (out_s, res_s) = (out.display().to_string(), res.display().to_string());
    let (a, b) = (format!("{} play", *MOCK), format!("{} fail-after 1", *MOCK));
    let o = referee(&[
        "match",
        "--game",
        "testnim",
        "--size",
        "12",
        "--time",
        "5",
        // Pairs from random openings: without them, two deterministic
        // agents repeat one pair and the SPRT refuses to go on (below).
        "--openings",
        "random:2",
        "--sprt",
        "0,100",
        "--out",
        &out_s,
        "--results",
        &res_s,
        &a,
        &b,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert!(
        recs.len() < 100 && recs.len().is_multiple_of(2),
        "without --games the SPRT plays until it decides, in whole pairs: {}",
        recs.len()
    );
    for (i, r) in recs.iter().enumerate() {
        // Game i: the first agent (named after its program) moves first in
        // even games, the second (the same program: `-2`) in odd ones; the
        // first mover sits in seat 1.
        let (one, two) = mock_names();
        assert_eq!(&r.agents[r.first], if i % 2 == 0 { &one } else { &two });
        assert_eq!(r.winner_name(), Some(one.as_str()));
        assert_eq!(r.loss, Some(LossReason::Malformed));
    }
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&res).unwrap()).unwrap();
    assert_eq!(j["agents"][0]["wins"], recs.len());
    assert_eq!(j["agents"][1]["loss_reasons"]["malformed output"], recs.len());
    assert_eq!(j["sprt"]["decision"], "H1");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn an_sprt_of_deterministic_agents_without_openings_refuses_to_measure_one_pair() {
    let out = tmp("sprt-same");
    let (a, b) = (format!("{} play", *MOCK), format!("{} fail-after 1", *MOCK));
    let out_s = out.display().to_string();
    let o = referee(&[
        "match", "--game", "testnim", "--size", "8", "--time", "5", "--sprt", "0,100", "--out", &out_s, &a, &b,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("repeat each other") && err.contains("--openings"), "{err}");
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 4, "it stops after the first two pairs");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn an_interrupted_tournament_resumes_and_counts_every_game_once() {
    let out = tmp("resume");
    let out_s = out.display().to_string();
    let specs: Vec<String> = ["x", "y", "z"]
        .iter()
        .map(|n| format!("{n}={} sleep 0.05", *MOCK))
        .collect();
    let mut args = vec![
        "tournament",
        "--game",
        "testnim",
        "--size",
        "6",
        "--games",
        "2",
        "--time",
        "30",
        "--out",
        &out_s,
    ];
    args.extend(specs.iter().map(String::as_str));
    let mut child = Command::new(&*REFEREE)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let records = out.join("records.jsonl");
    let t = Instant::now();
    // Interrupt once two games are recorded (a third is then in progress).
    while record::load(&records, false).map(|r| r.len()).unwrap_or(0) < 2 {
        assert!(t.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("--resume"), "{err}");
    let before = record::load(&records, false).unwrap().len();
    assert!(before < 6, "interrupted before the end");
    // Without --resume the directory is refused (no double counting).
    assert!(!referee(&args).status.success());
    args.push("--resume");
    let o = referee(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = record::load(&records, false).unwrap();
    let mut keys: Vec<&str> = recs.iter().map(|r| r.key.as_str()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(recs.len(), 6);
    assert_eq!(keys.len(), 6, "each game recorded once");
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("6 of 6 games recorded"), "{table}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_match_writes_its_manifest_and_resumes_like_a_tournament() {
    let out = tmp("match-resume");
    let out_s = out.display().to_string();
    let a = format!("{} play", *MOCK);
    let mut args = vec![
        "match", "--game", "testnim", "--size", "5", "--games", "2", "--time", "5", "--out", &out_s, &a, &a,
    ];
    let o = referee(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("match.json").exists());
    let keys: Vec<String> = record::load(&out.join("records.jsonl"), false)
        .unwrap()
        .into_iter()
        .map(|r| r.key)
        .collect();
    let (one, two) = mock_names();
    assert_eq!(keys, [format!("{one}-vs-{two}-g0000"), format!("{one}-vs-{two}-g0001")]);
    // The same directory again without --resume is refused; with it, nothing is left to play.
    let o = referee(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("add --resume"));
    args.push("--resume");
    let o = referee(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 of 2 games recorded (0 this run"));
    // A different number of games does not mix into the same table.
    let o = referee(&[
        "match", "--game", "testnim", "--size", "5", "--games", "4", "--time", "5", "--out", &out_s, "--resume", &a, &a,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("different game, agents or --games"));
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn play_with_a_scripted_human_reaches_the_end_and_replays() {
    let out = tmp("play");
    let out_s = out.display().to_string();
    let agent = format!("{} play", *MOCK);
    let mut child = Command::new(&*REFEREE)
        .args([
            "play", "--game", "testnim", "--size", "5", "--time", "10", "--out", &out_s, "human", &agent,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Who moves first: 3 (refused), then 1. Pile 5: take 1 (after "x", "4"
    // and "?"), the agent takes 1, then take the last 3.
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"3\n1\nx\n4\n?\n1\n3\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("Please answer one of: 1, 2"), "{text}");
    assert!(text.contains("Not a move"), "{text}");
    assert!(text.contains("Illegal"), "{text}");
    assert!(text.contains("3 legal moves"), "{text}");
    assert!(text.contains("Result: player 1 (human) wins"), "{text}");
    // One board per turn: the start, after each of the 3 plies but the
    // last, and the end; the prompt does not draw it again.
    let boards = text.lines().filter(|l| l.trim_end() == "   0").count();
    assert_eq!(boards, 4, "{text}");
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 1);
    let texts: Vec<&str> = recs[0].moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["1", "1", "3"]);
    assert_eq!(recs[0].moves[0].cpu, 0.0, "a person's time is not charged");
    let rp = out.join("records.jsonl").display().to_string();
    let o = referee(&["replay", &rp, "--game", "1"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("1 human vs 2 "), "{text}");
    assert!(text.contains("ply 3: player 1 plays 3"), "{text}");
    assert!(text.contains("0 counters"), "{text}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn bad_command_lines_are_refused_with_a_message() {
    let o = referee(&["match", "--game", "chess", "a", "b"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown game"));
    let o = referee(&["match", "--game", "testnim", "--time=0", "a", "b"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--time"));
    let o = referee(&["tournament", "--game", "testnim", "justone=x"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least two"));
    let o = referee(&["replay", "/nonexistent/records.jsonl"]);
    assert!(!o.status.success());
}

#[test]
fn halma_games_run_to_the_move_cap_and_replay() {
    let out = tmp("halma");
    let out_s = out.display().to_string();
    let a = format!("{} play", *MOCK);
    let o = referee(&[
        "match",
        "--game",
        "halma",
        "--games",
        "2",
        "--time",
        "5",
        "--mode",
        "single",
        "--max-plies",
        "12",
        "--keep-dirs",
        "--out",
        &out_s,
        &a,
        &a,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r.moves.len(), 12);
        assert_eq!(r.ending, Ending::MoveCap);
        assert_eq!(r.seat_names, ["BLACK", "WHITE"]);
        // Every recorded move replays legally from the recorded start.
        let states = referee::game::replay_states::<agent::Halma>(r).unwrap();
        assert_eq!(states.len(), 13);
        let input = std::fs::read_to_string(Path::new(&r.dirs[0]).join("input.txt")).unwrap();
        assert!(input.starts_with("SINGLE\n"), "{input}");
    }
    let (one, two) = mock_names();
    assert_eq!(recs[0].agents, [one.clone(), two.clone()]);
    assert_eq!(recs[1].agents, [two, one]);
    let rp = out.join("records.jsonl").display().to_string();
    let o = referee(&["replay", &rp]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("2 games in") && text.contains("ply 12: WHITE"), "{text}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn calibrate_runs_once_per_agent_and_the_file_reaches_every_game() {
    let out = tmp("calib");
    let out_s = out.display().to_string();
    let a = format!("{} check-calibration", *MOCK);
    let o = referee(&[
        "match",
        "--game",
        "testnim",
        "--size",
        "4",
        "--games",
        "2",
        "--time",
        "5",
        "--calibrate",
        "--out",
        &out_s,
        &a,
        &a,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out
        .join("calibration")
        .join(mock_names().0)
        .join("calibration.txt")
        .exists());
    let recs = record::load(&out.join("records.jsonl"), false).unwrap();
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| r.loss.is_none() && r.moves.len() == 4), "{recs:?}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn resume_replays_every_record_and_refuses_another_games_or_an_illegal_one() {
    let out = tmp("resume-check");
    let out_s = out.display().to_string();
    let a = format!("{} play", *MOCK);
    let args = |games: &str| -> Vec<String> {
        [
            "match", "--game", "testnim", "--size", "6", "--time", "5", "--out", &out_s, &a, &a, "--games", games,
        ]
        .map(String::from)
        .to_vec()
    };
    let first = args("2");
    let o = referee(&first.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = out.join("records.jsonl");
    let good = std::fs::read_to_string(&path).unwrap();
    // The whole run is recorded: a resume only checks the records.
    let mut again = args("2");
    again.push("--resume".into());
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    // A move changed to one the rules refuse (take 9 from a pile of 6).
    let first_line = good.lines().next().unwrap();
    let v: serde_json::Value = serde_json::from_str(first_line).unwrap();
    let text = v["moves"][0]["text"].as_str().unwrap().to_string();
    let tampered = first_line.replacen(&format!("\"text\":\"{text}\""), "\"text\":\"9\"", 1);
    assert_ne!(tampered, first_line);
    std::fs::write(&path, good.replacen(first_line, &tampered, 1)).unwrap();
    let o = referee(&again);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("do not replay by the rules"), "{err}");
    // A record of another game.
    std::fs::write(&path, good.replace("\"game\":\"testnim\"", "\"game\":\"halma\"")).unwrap();
    let o = referee(&again);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("of halma, not of testnim"), "{err}");
    // The untouched records resume.
    std::fs::write(&path, &good).unwrap();
    let o = referee(&again);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(record::load(&path, false).unwrap().len(), 2);
    std::fs::remove_dir_all(out).unwrap();
}

/// Runs `env` as an agent under `sandbox` and returns the variables it saw.
fn agent_environment(name: &str, sandbox: &referee::process::sandbox::Sandbox) -> (Vec<(String, String)>, PathBuf) {
    let dir = tmp(name);
    let spec = RunSpec {
        cmd: "env > output.txt",
        extra_arg: None,
        dir: &dir,
        cpu_kill: 5.0,
        wall_kill: 60.0,
        output_cap: runner::OUTPUT_CAP,
        sandbox,
        homes: runner::Homes::default(),
    };
    let r = runner::run(&spec, &AtomicBool::new(false)).unwrap();
    let Output::Text(text) = r.output else {
        panic!("env wrote no output.txt: {:?}", r.output)
    };
    let vars = String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    (vars, dir.canonicalize().unwrap())
}

#[test]
fn agents_see_a_clean_environment_and_what_env_adds() {
    // The test process has CARGO_* and whatever the caller exported: none
    // of it may reach an agent.
    assert!(std::env::vars().any(|(k, _)| k.starts_with("CARGO")));
    let (vars, dir) = agent_environment("env-clean", &common::sandbox());
    // PWD (and SHLVL, `_`) are set by the shell itself.
    let names: Vec<&str> = vars
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !matches!(*k, "PWD" | "SHLVL" | "_" | "OLDPWD"))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["HOME", "LANG", "PATH", "TMPDIR"], "{vars:?}");
    let home = &vars.iter().find(|(k, _)| k == "HOME").unwrap().1;
    assert_eq!(Path::new(home), dir, "HOME is the agent's working directory");
    std::fs::remove_dir_all(&dir).unwrap();

    let opts = referee::process::sandbox::SandboxOpts {
        sandbox: common::choice(),
        memory: 2 << 30,
        file_size: 16 << 20,
        max_procs: 256,
        disk: 64 << 20,
        allow: Vec::new(),
        read_only: Vec::new(),
        env: vec!["JAVA_TOOL_OPTIONS=-Xmx64m".into(), "LANG=en_GB.UTF-8".into()],
    };
    let out = tmp("env-out");
    let sb = opts.build(&out).unwrap();
    let (vars, dir) = agent_environment("env-added", &sb);
    let get = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("JAVA_TOOL_OPTIONS"), Some("-Xmx64m"));
    assert_eq!(get("LANG"), Some("en_GB.UTF-8"), "--env replaces a default");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

/// The tests above again with an unprivileged referee at `full-rootless`.
#[test]
fn processes_are_charged_and_ended_for_an_unprivileged_referee_too() {
    common::rerun_unprivileged(&[("REFEREE_TEST_MOCK", &MOCK), ("REFEREE_TEST_REFEREE", &REFEREE)]);
}

#[test]
fn a_jail_root_swept_from_the_temp_directory_is_made_again() {
    use referee::process::sandbox::{Sandbox, SandboxLimits};
    let sb = Sandbox::new(common::choice(), SandboxLimits::default(), Vec::new(), Vec::new()).unwrap();
    let Some(jail) = &sb.jail else {
        eprintln!("SKIPPED the jail-root check: no full sandbox at {:?}", common::choice());
        return;
    };
    // A cleaner of /tmp took the empty mount point during the run.
    std::fs::remove_dir(&jail.root).unwrap();
    let dir = tmp("swept-root");
    std::fs::write(dir.join("input.txt"), "TESTNIM\nGAME\n1\n10.0\n5\n").unwrap();
    let cmd = format!("{} play", *MOCK);
    let spec = RunSpec {
        cmd: &cmd,
        extra_arg: None,
        dir: &dir,
        cpu_kill: 5.0,
        wall_kill: 60.0,
        output_cap: runner::OUTPUT_CAP,
        sandbox: &sb,
        homes: runner::Homes::default(),
    };
    let r = runner::run(&spec, &AtomicBool::new(false)).unwrap();
    assert_eq!(r.exit, Exit::Code(0));
    assert!(matches!(r.output, Output::Text(_)), "{:?}", r.output);
    std::fs::remove_dir_all(dir).unwrap();
}

//! SIGKILL at any moment leaves a legal `output.txt`, for every game: the
//! agent writes a quick legal move at once and replaces it atomically with
//! every improvement. For Hinger, Connect Square and Fifteen (whose default
//! player goes through the game's own solver path) the file one CPU second
//! into a 30 s SINGLE move must already hold a move the search reported,
//! not only the quick one: the `-v` log names every reported move
//! ("improved move: ..."), and the file must hold one of them.

mod common;

use agent::Game;
use agent::Notation;
use agent::Setup;
use agent::{ConnectSquare, Fifteen, Halma, Hashi, Hinger};
use agent::{FileGame, GenOptions, Mode};
use common::scratch;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const AGENT: &str = env!("CARGO_BIN_EXE_agent");
/// CPU milliseconds into the move at which the agent is killed.
const DELAYS_MS: [u64; 3] = [50, 200, 1000];
/// The delay at which the search (not only the quick move) must be on disk.
const SEARCH_BY_MS: u64 = 1000;

fn sample(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// CPU seconds (user + system) the process `pid` has used, from /proc.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Some(ticks as f64 / hz)
}

/// Runs the agent on `input` (as a 30 s SINGLE move) and SIGKILLs it once it
/// has used `delay_ms` of CPU; returns the output.txt text (if any), the
/// `-v` log and whether the agent had already finished on its own.
fn run_and_kill(dir: &Path, input: &str, delay_ms: u64) -> (Option<String>, String, bool) {
    std::fs::write(dir.join("input.txt"), input).unwrap();
    let log = std::fs::File::create(dir.join("stderr.log")).unwrap();
    let mut child = Command::new(AGENT)
        .arg("-v")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("agent starts");
    let started = Instant::now();
    let mut finished = false;
    loop {
        if child.try_wait().unwrap().is_some() {
            finished = true;
            break;
        }
        let cpu = cpu_seconds(child.id()).unwrap_or(0.0);
        if cpu * 1000.0 >= delay_ms as f64 {
            break;
        }
        // Wall-clock guard: a loaded machine may starve the agent, but not forever.
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "agent never reached {delay_ms} ms of CPU"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    if !finished {
        child.kill().unwrap(); // SIGKILL
    }
    child.wait().unwrap();
    let out = std::fs::read_to_string(dir.join("output.txt")).ok();
    (out, std::fs::read_to_string(dir.join("stderr.log")).unwrap(), finished)
}

/// The moves the agent's `-v` log says it reported while thinking.
fn reported_moves(log: &str) -> Vec<&str> {
    log.lines()
        .filter_map(|l| l.split_once("improved move: ").map(|(_, m)| m.trim()))
        .collect()
}

fn kill_at_every_delay<G: FileGame>(name: &str, sample_text: &str, search_by_one_second: bool) {
    let state = G::parse_input(sample_text).expect("the sample parses").state;
    assert!(
        state.result().is_none(),
        "{name}: the sample must be a game in progress"
    );
    let input = state.write_input(Mode::Single, 30.0);
    for delay in DELAYS_MS {
        let dir = scratch(&format!("{name}-{delay}"));
        let (out, log, finished) = run_and_kill(&dir, &input, delay);
        let out = out.unwrap_or_else(|| panic!("{name} killed at {delay} ms: no output.txt\nlog:\n{log}"));
        let mv = state
            .parse_move(&out)
            .unwrap_or_else(|e| panic!("{name} killed at {delay} ms: {out:?} is not legal: {e}"));
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{name}: temp files left: {leftovers:?}");
        if search_by_one_second && delay == SEARCH_BY_MS {
            let reported = reported_moves(&log);
            let shown = state.describe_move(mv);
            assert!(
                !reported.is_empty(),
                "{name}: one CPU second into the move (finished: {finished}) no search move was reported\nlog:\n{log}"
            );
            assert!(
                reported.contains(&shown.as_str()),
                "{name}: output.txt holds {shown:?}, which the search never reported ({reported:?})"
            );
        }
    }
}

#[test]
fn halma_survives_sigkill() {
    kill_at_every_delay::<Halma>("halma", &sample("halma/midgame_1.txt"), false);
}

#[test]
fn hashi_survives_sigkill() {
    kill_at_every_delay::<Hashi>("hashi", &sample("hashi/midgame-6x6.txt"), false);
}

#[test]
fn hinger_survives_sigkill_and_has_searched_by_one_second() {
    // A generated 10x10 board starts without a hinger (the sample boards
    // with one are solved in a node): the solver has real work to do.
    let gen = GenOptions {
        rows: Some(10),
        cols: Some(10),
        seed: 5,
        ..Default::default()
    };
    let text = Hinger::generate(&gen).unwrap().write_input(Mode::Single, 30.0);
    kill_at_every_delay::<Hinger>("hinger", &text, true);
}

#[test]
fn connectsquare_survives_sigkill_and_has_searched_by_one_second() {
    // 30 empty cells: the exact solver path (with its alpha-beta probe).
    let mut g = ConnectSquare::generate(&Default::default()).unwrap();
    for col in [3, 3, 2, 4, 4, 2, 1, 5, 0, 6, 3, 3] {
        g.play(col);
    }
    let text = g.write_input(Mode::Single, 30.0);
    kill_at_every_delay::<ConnectSquare>("connectsquare", &text, true);
    // An empty board: plain alpha-beta.
    kill_at_every_delay::<ConnectSquare>("connectsquare-empty", &sample("connectsquare/empty-6x7.txt"), true);
}

#[test]
fn fifteen_survives_sigkill_and_has_searched_by_one_second() {
    kill_at_every_delay::<Fifteen>("fifteen", &sample("fifteen/start6.txt"), true);
}

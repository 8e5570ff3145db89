//! Swiss tournaments through the real binary and real agent processes: a
//! field of 32 agents of known strength ranked by six rounds of Connect
//! Square 4x5, an odd field's byes and first moves with single games, and a
//! Swiss killed three times that resumes game for game.
//!
//! Strengths: on a 4x5 board our agent's fixed-depth alpha-beta draws
//! itself at every depth from 1 up (measured: 40 of 40 games drawn between
//! depths 1 and 2, 2 and 3, ..., 6 and 8), so depths do not make a ladder.
//! The ladder is our agent (default strategy) playing a random legal move
//! on a share of positions: the mock agent's `handicap PCT`, whose measured
//! fitted ratings fall with PCT (0: +171, 15: +79, 30: +55, 45: +7,
//! 60: -52, 80: -96 in a round robin of 8 games a pairing), with our
//! agent's own greedy (measured between PCT 30 and 45) and random (below
//! PCT 80) strategies at the bottom.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Our agent's binary, built by `make test` (`cargo build --release`).
fn agent() -> String {
    let bin = repo().join("target/release/agent");
    assert!(
        bin.exists(),
        "{} is missing: build the workspace first (make test does)",
        bin.display()
    );
    bin.display().to_string()
}

/// A fresh `--out`, removed with everything in it when dropped; open to
/// all, as a directory made with the default umask would be.
fn tmp(name: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::Builder::new()
        .prefix(&format!("referee-swiss-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The arguments of a Connect Square 4x5 Swiss of `agents` (NAME=CMD).
fn swiss_args(agents: &[String], extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
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
        "--concurrency",
        "2",
    ]
    .map(String::from)
    .to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v.extend(agents.iter().cloned());
    v
}

/// One game as the comparisons see it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Game {
    key: String,
    agents: [String; 2],
    first: usize,
    winner: Option<usize>,
}

fn games(out: &Path) -> Vec<Game> {
    let recs = referee::output::record::load(&out.join("records.jsonl"), false).unwrap();
    let mut g: Vec<Game> = recs
        .into_iter()
        .map(|r| Game {
            key: r.key,
            agents: r.agents,
            first: r.first,
            winner: r.winner,
        })
        .collect();
    g.sort();
    g
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// No pair meets twice in the rounds (by `rounds.json` and by the game
/// keys), and every agent's first moves are within one of its second moves.
fn check_pairings_and_colours(out: &Path, games: &[Game]) {
    let rounds = json(&out.join("rounds.json"));
    let mut met = HashSet::new();
    for r in rounds.as_array().unwrap() {
        for b in r["boards"].as_array().unwrap() {
            let (x, y) = (b[0].as_str().unwrap(), b[1].as_str().unwrap());
            assert!(
                met.insert((x.min(y).to_string(), x.max(y).to_string())),
                "{x} and {y} met twice"
            );
        }
        assert_eq!(r["colours_relaxed"], false, "{r}");
    }
    let mut pairings: HashMap<(String, String), HashSet<String>> = HashMap::new();
    let mut balance: HashMap<&str, i32> = HashMap::new();
    for g in games.iter().filter(|g| g.key.starts_with('r')) {
        let round = g.key.split('-').next().unwrap().to_string();
        let mut pair = g.agents.clone();
        pair.sort();
        pairings
            .entry((pair[0].clone(), pair[1].clone()))
            .or_default()
            .insert(round);
        *balance.entry(&g.agents[g.first]).or_default() += 1;
        *balance.entry(&g.agents[1 - g.first]).or_default() -= 1;
    }
    assert!(
        pairings.values().all(|r| r.len() == 1),
        "a pair met in two rounds: {pairings:?}"
    );
    assert!(balance.values().all(|b| b.abs() <= 1), "first moves: {balance:?}");
}

/// Spearman's rank correlation of two orders of the same names (no ties
/// in `got`; ties in `want`'s values get their mean rank).
fn spearman(got: &[String], strength: &HashMap<String, f64>) -> f64 {
    let n = got.len();
    let mut by: Vec<&String> = got.iter().collect();
    by.sort_by(|a, b| strength[*b].total_cmp(&strength[*a]));
    let mut want_rank: HashMap<&String, f64> = HashMap::new();
    let mut i = 0;
    while i < n {
        let j = (i..n).take_while(|&k| strength[by[k]] == strength[by[i]]).count() + i;
        for name in &by[i..j] {
            want_rank.insert(name, (i + j - 1) as f64 / 2.0);
        }
        i = j;
    }
    let x: Vec<f64> = (0..n).map(|k| k as f64).collect();
    let y: Vec<f64> = got.iter().map(|g| want_rank[g]).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n as f64;
    let (mx, my) = (mean(&x), mean(&y));
    let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sd = |v: &[f64], m: f64| v.iter().map(|a| (a - m).powi(2)).sum::<f64>().sqrt();
    cov / (sd(&x, mx) * sd(&y, my))
}

#[test]
fn a_swiss_of_32_ranks_the_field_by_strength() {
    let agent = agent();
    // Strength: 0 for our agent, -PCT for a handicap, greedy and random
    // where they were measured.
    let mut field: Vec<(String, String, f64)> = vec![
        ("ours".into(), agent.clone(), 0.0),
        ("greedy".into(), format!("{agent} --strategy greedy"), -36.0),
        ("random".into(), format!("{agent} --strategy random"), -100.0),
    ];
    for pct in (3..=87).step_by(3) {
        field.push((format!("h{pct:02}"), format!("{MOCK} handicap {pct}"), -f64::from(pct)));
    }
    assert_eq!(field.len(), 32);
    // Pairing numbers (command-line order) must tell nothing of strength.
    field.sort_by_key(|(n, _, _)| {
        n.bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)) % 1_000_003)
    });
    let specs: Vec<String> = field.iter().map(|(n, c, _)| format!("{n}={c}")).collect();
    let out_dir = tmp("32");
    let out = out_dir.path();
    let results = out.join("results.json");
    let args = swiss_args(
        &specs,
        &[
            "--rounds",
            "6",
            "--time",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    );
    let started = std::time::Instant::now();
    let o = Command::new(REFEREE).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let g = games(out);
    assert_eq!(g.len(), 6 * 16 * 2, "six rounds of 16 game pairs");
    check_pairings_and_colours(out, &g);
    let res = json(&results);
    let standings: Vec<String> = res["swiss"]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    let strength: HashMap<String, f64> = field.iter().map(|(n, _, s)| (n.clone(), *s)).collect();
    let rho = spearman(&standings, &strength);
    let _ = writeln!(
        std::io::stderr(),
        "swiss of 32: Spearman {rho:.3} in {:.0} s; standings {}",
        started.elapsed().as_secs_f64(),
        standings.join(" ")
    );
    assert!(
        rho >= 0.8,
        "Spearman {rho:.3} between the standings and the strengths:\n{}",
        text(&o)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("points, then Buchholz"), "{stdout}");
}

#[test]
fn an_odd_field_of_single_games_gives_each_bye_once_and_keeps_first_moves_even() {
    let specs: Vec<String> = (0..9).map(|i| format!("p{i}={MOCK} handicap {} 2", i * 10)).collect();
    let out_dir = tmp("odd");
    let out = out_dir.path();
    let results = out.join("results.json");
    let args = swiss_args(
        &specs,
        &[
            "--rounds",
            "5",
            "--games",
            "1",
            "--time",
            "5",
            "--out",
            out.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    );
    let o = Command::new(REFEREE).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let g = games(out);
    assert_eq!(g.len(), 5 * 4, "five rounds of four single games");
    check_pairings_and_colours(out, &g);
    let rounds = json(&out.join("rounds.json"));
    let byes: Vec<&str> = rounds
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bye"].as_str().unwrap())
        .collect();
    let distinct: HashSet<&&str> = byes.iter().collect();
    assert_eq!(distinct.len(), 5, "a bye per round, each to another agent: {byes:?}");
    // A bye is worth a won game: the points are the games' and the byes'.
    let res = json(&results);
    let rows = res["swiss"]["standings"].as_array().unwrap();
    let points: f64 = rows.iter().map(|r| r["points"].as_f64().unwrap()).sum();
    assert_eq!(points, 20.0 + 5.0, "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r["rating"]["elo"].as_f64().is_some_and(f64::is_finite)));
    // The report shows every round's pairings, results and bye.
    let html = report(out);
    for (i, bye) in byes.iter().enumerate() {
        assert!(html.contains(&format!("<h3>Round {}</h3>", i + 1)), "round {}", i + 1);
        assert!(html.contains(&format!("<p>Bye: {bye} (1 point)</p>")), "bye {bye}");
    }
}

/// `referee report OUT`'s page.
fn report(out: &Path) -> String {
    let o = Command::new(REFEREE).arg("report").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    std::fs::read_to_string(out.join("report.html")).unwrap()
}

/// Runs the Swiss of `args` and kills it (SIGKILL) once `records.jsonl`
/// holds at least `after` games.
fn run_and_kill(args: &[String], out: &Path, after: usize) {
    let mut child = Command::new(REFEREE)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let records = out.join("records.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let n = std::fs::read_to_string(&records)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= after {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run ended before game {after}");
        assert!(std::time::Instant::now() < deadline, "no game {after} in 300 s");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before it could be killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_swiss_killed_three_times_resumes_game_for_game() {
    // Deterministic agents (fixed depth), an odd field (byes) and a final.
    let specs: Vec<String> = (0..7).map(|i| format!("h{i}={MOCK} handicap {} 2", i * 15)).collect();
    let run = |out: &Path, resume: bool| {
        let mut extra = vec![
            "--rounds",
            "4",
            "--final",
            "3",
            "--time",
            "5",
            "--out",
            out.to_str().unwrap(),
        ];
        if resume {
            extra.push("--resume");
        }
        swiss_args(&specs, &extra)
    };
    let whole_dir = tmp("whole");
    let whole = whole_dir.path();
    let o = Command::new(REFEREE).args(run(whole, false)).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let reference = games(whole);
    assert_eq!(
        reference.len(),
        4 * 3 * 2 + 3 * 2,
        "four rounds of three pairs, a final of three"
    );
    // Killed in round 1, in round 3 and in the final; resumed each time.
    let cut_dir = tmp("cut");
    let cut = cut_dir.path();
    run_and_kill(&run(cut, false), cut, 5);
    run_and_kill(&run(cut, true), cut, 14);
    run_and_kill(&run(cut, true), cut, 26);
    let o = Command::new(REFEREE).args(run(cut, true)).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("resuming: "),
        "{}",
        text(&o)
    );
    assert_eq!(
        games(cut),
        reference,
        "the resumed run's games differ from the uninterrupted run's"
    );
    assert_eq!(json(&cut.join("rounds.json")), json(&whole.join("rounds.json")));
    // From the standings on: the lines above count this invocation's games.
    let table = |o: &Output| {
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        out[out.find("Swiss standings").unwrap_or(0)..].to_string()
    };
    let again = Command::new(REFEREE).args(run(whole, true)).output().unwrap();
    assert_eq!(table(&o), table(&again), "the same standings and final");
    // The report: standings with tie-breaks and intervals, the rounds with
    // results linked to their games, the final's crosstable.
    let html = report(cut);
    for part in [
        "then Buchholz",
        "<th>Buchholz</th><th>Elo (95 %)</th>",
        "<h3>Round 4</h3>",
        "Final: a round robin of the top 3",
        "class=\"head-to-head\"",
        "href=\"#g30/p0\"",
    ] {
        assert!(html.contains(part), "{part:?} is missing from the report");
    }
    assert_eq!(
        html.matches("<tr><td>1</td><td>").count(),
        4,
        "a first board in each round"
    );
}

//! The referee as a match runner, through the real binary and real agent
//! processes: sample agents in Python, Java and C++ plugged in by their
//! natural commands, pre-flight, opening suites in pairs, gauntlets and
//! head-to-head tables, the per-game log, sharding + merge, and the GNU
//! parallel recipe. Java, C++ and GNU parallel must be installed (`.ci/run`
//! installs them); a missing tool fails the test with its name.

mod common;

use referee::output::record::{self, GameRecord};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("referee-mr-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the referee from `cwd` with stdout and stderr captured (not terminals).
fn referee_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(REFEREE)
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run the referee")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn need(tool: &str) {
    let ok = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(ok, "{tool} is not installed; this test needs it (.ci/run installs it)");
}

/// A 2-game Connect Square match between `agent` and `opponent` (the mock
/// agent's random mover when `None`) at sandbox level `sandbox`; neither may
/// lose a game by forfeit.
fn sample_match(cwd: &Path, agent: &str, opponent: Option<&str>, name: &str, sandbox: &str) {
    let out = tmp(&format!("sample-{name}"));
    let res = out.join("results.json");
    let mock = format!("name=mock,cmd={MOCK} play");
    let o = referee_in(
        cwd,
        &[
            "match",
            "--game",
            "connectsquare",
            "--rows",
            "4",
            "--cols",
            "5",
            "--games",
            "2",
            "--time",
            "20",
            "--agent",
            agent,
            "--agent",
            opponent.unwrap_or(&mock),
            "--out",
            out.join("run").to_str().unwrap(),
            "--results",
            res.to_str().unwrap(),
            "--sandbox",
            sandbox,
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&res).unwrap()).unwrap();
    for a in 0..2 {
        assert_eq!(j["agents"][a]["games"], 2, "{j}");
        assert_eq!(j["agents"][a]["loss_reasons"], serde_json::json!({}), "{j}");
    }
    std::fs::remove_dir_all(out).unwrap();
}

/// Compiles the Java sample into `dir`.
fn build_java(dir: &Path) {
    let st = Command::new("javac")
        .args(["-d", dir.to_str().unwrap()])
        .arg(repo().join("samples/agents/java/ConnectSquareRandom.java"))
        .status()
        .unwrap();
    assert!(st.success(), "javac failed");
}

#[test]
fn python_sample_plays_by_its_natural_command() {
    need("python3");
    let dir = repo().join("samples/agents/python");
    // From the directory holding connectsquare_random.py, as a student would type it.
    sample_match(
        &dir,
        "name=py,cmd=python3 connectsquare_random.py",
        None,
        "python-cwd",
        "auto",
    );
    // From elsewhere, with the agent's home given.
    sample_match(
        &repo(),
        "name=py,cmd=python3 connectsquare_random.py,dir=samples/agents/python",
        None,
        "python-dir",
        "auto",
    );
}

#[test]
fn java_and_cpp_samples_play() {
    need("javac");
    need("g++");
    let build = tmp("build");
    build_java(&build);
    let st = Command::new("g++")
        .args(["-O2", "-o"])
        .arg(build.join("connectsquare_random"))
        .arg(repo().join("samples/agents/cpp/connectsquare_random.cpp"))
        .status()
        .unwrap();
    assert!(st.success(), "g++ failed");
    let home = format!("dir={}", build.display());
    let java = format!("name=java,cmd=java -cp . ConnectSquareRandom,{home}");
    sample_match(&repo(), &java, None, "java", "auto");
    sample_match(
        &repo(),
        &format!("name=cpp,cmd=./connectsquare_random,{home}"),
        None,
        "cpp",
        "auto",
    );
    std::fs::remove_dir_all(build).unwrap();
}

/// `dir=` homes under the full sandbox: the Java and Python samples play from
/// their homes; an agent can neither write into its home nor see the files of
/// an opponent whose home lies inside its own (covered in its view).
#[test]
fn agent_homes_are_read_only_and_private_under_the_full_sandbox() {
    if !common::full_or_skip("agent homes under the full sandbox") {
        return;
    }
    need("javac");
    need("python3");
    let base = tmp("homes");
    let java_home = base.join("java");
    build_java(&java_home);
    let java = format!(
        "name=java,cmd=java -cp . ConnectSquareRandom,dir={}",
        java_home.display()
    );
    let py = "name=py,cmd=python3 connectsquare_random.py,dir=samples/agents/python";
    sample_match(&repo(), &java, Some(py), "homes-java-py", "full");

    // A snooping agent whose home holds its opponent's: it forfeits (exit
    // 3 or 4, which the match would show) if it can write into its home or
    // see the opponent's program, and otherwise plays the Python sample.
    let snoop = base.join("snoop");
    let nested = snoop.join("java");
    build_java(&nested);
    std::fs::copy(
        repo().join("samples/agents/python/connectsquare_random.py"),
        snoop.join("connectsquare_random.py"),
    )
    .unwrap();
    let script = format!(
        "if touch {s}/written 2>/dev/null; then echo 'wrote into its home' >&2; exit 3; fi\n\
         if [ -e {n}/ConnectSquareRandom.class ]; then echo \"saw the opponent's home\" >&2; exit 4; fi\n\
         exec python3 {s}/connectsquare_random.py\n",
        s = snoop.display(),
        n = nested.display()
    );
    std::fs::write(snoop.join("snoop.sh"), script).unwrap();
    let snooper = format!("name=snoop,cmd=sh snoop.sh,dir={}", snoop.display());
    let java = format!("name=java,cmd=java -cp . ConnectSquareRandom,dir={}", nested.display());
    sample_match(&repo(), &snooper, Some(&java), "homes-snoop", "full");
    assert!(!snoop.join("written").exists(), "the agent wrote into its home");

    // The same agent unconfined is caught by its pre-flight move: the
    // checks above can fail.
    let out = base.join("unconfined");
    let o = referee_in(
        &repo(),
        &[
            "match",
            "--game",
            "connectsquare",
            "--rows",
            "4",
            "--cols",
            "5",
            "--agent",
            &snooper,
            "--agent",
            &java,
            "--out",
            out.to_str().unwrap(),
            "--sandbox",
            "none",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("wrote into its home"), "{}", text(&o));
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn preflight_stops_a_broken_agent_with_its_stderr() {
    need("python3");
    let home = tmp("broken");
    std::fs::write(
        home.join("broken.py"),
        "import sys\nprint('loading weights from model.bin', file=sys.stderr)\nraise SystemExit('model.bin: no such file')\n",
    )
    .unwrap();
    let out = home.join("out");
    let o = referee_in(
        &home,
        &[
            "match",
            "--game",
            "testnim",
            "--games",
            "4",
            "--agent",
            "name=broken,cmd=python3 broken.py",
            "--agent",
            &format!("name=mock,cmd={MOCK} play"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("agent broken failed its pre-flight move"), "{err}");
    assert!(err.contains("exited with status 1"), "{err}");
    assert!(err.contains("broken.py"), "the command as run: {err}");
    assert!(err.contains("model.bin: no such file"), "stderr tail: {err}");
    let recs = record::load(&out.join("records.jsonl"), false).unwrap_or_default();
    assert!(recs.is_empty(), "no game is played after a failed pre-flight");
    std::fs::remove_dir_all(home).unwrap();
}

/// A pre-flight run of the Halma template wrapped in `wrapper` (a shell
/// line; `$T` is the template's command) against the plain template.
fn halma_preflight(name: &str, wrapper: &str) -> Output {
    need("python3");
    let home = tmp(name);
    // Each program in a directory of its own (the referee refuses two
    // different programs started from one); the wrapper's copy of the
    // template sits beside it, where the sandbox shows it.
    let sample = repo().join("samples/agents/python/halma_agent.py");
    let (wrapped, plain) = (home.join("wrapped"), home.join("plain"));
    for d in [&wrapped, &plain] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::copy(&sample, d.join("halma_agent.py")).unwrap();
    }
    let inner = format!("python3 {}", wrapped.join("halma_agent.py").display());
    let t = format!("python3 {}", plain.join("halma_agent.py").display());
    std::fs::write(wrapped.join("agent.sh"), format!("T=\"{inner}\"\n{wrapper}\n")).unwrap();
    let out = home.join("out");
    let o = referee_in(
        &home,
        &[
            "match",
            "--game",
            "halma",
            "--games",
            "2",
            "--time",
            "5",
            "--agent",
            &format!("name={name},cmd=sh {}", wrapped.join("agent.sh").display()),
            "--agent",
            &format!("name=template,cmd={t}"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    std::fs::remove_dir_all(home).unwrap();
    o
}

/// The pre-flight's clock check: a Python agent's start-up (about 15-30
/// ms of CPU a move) over a 110-move Halma game takes more than a third of
/// a 1 s clock, and the pre-flight says so with the figure and the cure;
/// at 100 s it does not. The games are cut to a few plies: only the
/// pre-flight matters here.
#[test]
fn preflight_warns_when_a_python_agents_start_up_would_eat_its_clock() {
    need("python3");
    let home = tmp("startup");
    std::fs::copy(
        repo().join("samples/agents/python/halma_agent.py"),
        home.join("my_agent.py"),
    )
    .unwrap();
    let run = |time: &str| {
        let out = home.join(format!("out-{time}"));
        let o = referee_in(
            &home,
            &[
                "match",
                "--game",
                "halma",
                "--games",
                "2",
                "--max-plies",
                "4",
                "--time",
                time,
                "--out",
                out.to_str().unwrap(),
                "python3 my_agent.py",
                &format!("{MOCK} play"),
            ],
        );
        assert!(o.status.success(), "{}", text(&o));
        // Wrapped at 80 columns: compared with its words on one line.
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        err.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let short = run("1");
    assert!(
        short.contains("warning: agent my_agent used") && short.contains("of CPU on a move with 0.01 s left"),
        "{short}"
    );
    assert!(short.contains("halma game of 110 moves a side"), "{short}");
    assert!(short.contains("time=") && short.contains("--time"), "the cure: {short}");
    let long = run("100");
    assert!(!long.contains("warning: agent my_agent"), "{long}");
    assert!(long.contains("pre-flight: agent my_agent plays"), "{long}");
    std::fs::remove_dir_all(home).unwrap();
}

#[test]
fn preflight_catches_an_agent_that_fails_only_as_white() {
    let o = halma_preflight(
        "whitecrash",
        "if [ \"$(sed -n 2p input.txt)\" = WHITE ]; then echo 'IndexError: camp mirrored wrong' >&2; exit 1; fi\nexec $T",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains("agent whitecrash failed its pre-flight move as WHITE after BLACK's first move"),
        "{err}"
    );
    assert!(err.contains("IndexError: camp mirrored wrong"), "{err}");
}

#[test]
fn an_agent_failing_only_with_a_tiny_clock_is_warned_about_and_plays() {
    // Exits 1 when its clock (line 3) is under 0.1 s, as the pre-flight's
    // start-up move gives it; plays the template otherwise.
    let o = halma_preflight(
        "tinyclock",
        "awk 'NR == 3 && $1 < 0.1 { bad = 1 } END { exit bad }' input.txt || { echo 'ValueError: sleep length must be non-negative' >&2; exit 1; }\nexec $T",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let flat = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(o.status.code(), Some(0), "the games go ahead: {}", text(&o));
    assert!(
        flat.contains("warning: agent tinyclock failed its pre-flight move as BLACK on the start position with 0.01 s on its clock: it exited with status 1."),
        "{err}"
    );
    assert!(flat.contains("it will lose the same way; the games go ahead"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).matches("Finished game").count(),
        2,
        "{}",
        text(&o)
    );
}

#[test]
fn preflight_names_a_move_printed_on_stdout() {
    let o = halma_preflight("stdout", "$T && cat output.txt && rm output.txt");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains("it exited without writing output.txt; its stdout held the move `"),
        "{err}"
    );
    assert!(err.contains("write the move to output.txt, not to stdout"), "{err}");
}

#[test]
fn preflight_says_when_only_the_sandbox_stops_the_agent() {
    if !common::full_or_skip("a file hidden by the sandbox") {
        return;
    }
    // Data beside nothing the command names: hidden inside the sandbox.
    let data = tmp("hidden-data");
    let weights = data.join("weights.txt");
    std::fs::write(&weights, "1 2 3\n").unwrap();
    let o = halma_preflight(
        "needsdata",
        &format!("cat {} >/dev/null || exit 3\nexec $T", weights.display()),
    );
    std::fs::remove_dir_all(&data).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(err.contains("Without the sandbox the same move works"), "{err}");
    assert!(err.contains(&format!("it names {}", weights.display())), "{err}");
    assert!(err.contains("--sandbox-ro DIR"), "{err}");
}

fn records(out: &Path) -> Vec<GameRecord> {
    record::load(&out.join("records.jsonl"), false).unwrap()
}

fn tournament(cwd: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "tournament",
        "--game",
        "testnim",
        "--size",
        "30",
        "--time",
        "5",
        "--games",
        "4",
        "--seed",
        "5",
        "--openings",
        "random:3",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    referee_in(cwd, &args)
}

fn three_agents() -> Vec<String> {
    // The agents differ in nothing but name; testnim results then follow
    // from the opening and the first mover alone, so runs are reproducible.
    ["a", "b", "c"]
        .iter()
        .map(|n| format!("name={n},cmd={MOCK} play"))
        .collect()
}

fn agent_args(agents: &[String]) -> Vec<&str> {
    agents.iter().flat_map(|a| ["--agent", a.as_str()]).collect()
}

#[test]
fn openings_are_played_in_pairs_and_never_repeat_and_each_game_is_logged() {
    let out = tmp("openings");
    let agents = three_agents();
    let o = tournament(&out, &out.join("run"), &agent_args(&agents));
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&out.join("run"));
    assert_eq!(recs.len(), 12);
    let mut by_pair: std::collections::BTreeMap<(String, u64), Vec<&GameRecord>> = Default::default();
    for r in &recs {
        let (pairing, n) = r.key.rsplit_once("-g").unwrap();
        by_pair
            .entry((pairing.to_string(), n.parse::<u64>().unwrap() / 2))
            .or_default()
            .push(r);
    }
    let mut openings = HashSet::new();
    for (k, games) in &by_pair {
        assert_eq!(games.len(), 2, "{k:?}");
        let (g0, g1) = (games[0], games[1]);
        let id = g0.run.opening.clone().expect("opening id recorded");
        assert_eq!(
            g1.run.opening.as_deref(),
            Some(id.as_str()),
            "both games of a pair share the opening"
        );
        assert_eq!(g0.start, g1.start, "same start position");
        assert_ne!(
            g0.agents[g0.first], g1.agents[g1.first],
            "colours swapped within the pair"
        );
        assert!(openings.insert(id.clone()), "opening {id} repeats");
        assert!(g0.run.date.is_some() && g0.run.referee.is_some() && g0.run.seed == Some(5));
    }
    assert_eq!(openings.len(), 6);
    // One log line per game, on stdout redirected to a pipe.
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("Finished game ")).collect();
    assert_eq!(lines.len(), 12, "{stdout}");
    assert!(
        lines[0].contains(", opening random:3#") && lines[0].contains('{'),
        "{}",
        lines[0]
    );
    // Pentanomial counts per pairing in the results file.
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn the_gauntlet_centre_is_the_first_agent_on_the_command_line_however_given() {
    let out = tmp("gauntlet-order");
    let centre = format!("name=centre,cmd={MOCK} play");
    let p1 = format!("p1={MOCK} play");
    let p2 = format!("p2={MOCK} play");
    // An --agent entry before two positional NAME=CMD agents.
    let o = tournament(&out, &out.join("run"), &["--gauntlet", "--agent", &centre, &p1, &p2]);
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("gauntlet: centre plays each of p1, p2"), "{err}");
    let recs = records(&out.join("run"));
    assert_eq!(recs.len(), 8);
    assert!(recs.iter().all(|r| r.agents.contains(&"centre".to_string())));
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn gauntlet_plays_only_the_first_agent_and_prints_its_standings() {
    let out = tmp("gauntlet");
    let agents = three_agents();
    let mut extra = agent_args(&agents);
    extra.push("--gauntlet");
    let o = tournament(&out, &out.join("run"), &extra);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&out.join("run"));
    assert_eq!(recs.len(), 8, "two pairings of 4 games");
    assert!(recs.iter().all(|r| r.agents.contains(&"a".to_string())));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("a vs "), "gauntlet standings: {stdout}");
    // A round robin of three prints the head-to-head matrix.
    let rr = tournament(&out, &out.join("rr"), &agent_args(&agents));
    assert!(rr.status.success(), "{}", text(&rr));
    let stdout = String::from_utf8_lossy(&rr.stdout);
    assert!(stdout.contains("W-L-D"), "head-to-head matrix: {stdout}");
    std::fs::remove_dir_all(out).unwrap();
}

/// The table lines of a run's output (from the header to the first blank line).
fn table_of(stdout: &str) -> String {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("agent "))
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn merged_shards_give_the_unsharded_table_and_mismatched_shards_are_refused() {
    let out = tmp("shards");
    let agents = three_agents();
    let whole = tournament(&out, &out.join("whole"), &agent_args(&agents));
    assert!(whole.status.success(), "{}", text(&whole));
    let mut dirs = Vec::new();
    for k in 0..3 {
        let dir = out.join(format!("shard-{k}"));
        let shard = format!("{k}/3");
        let mut extra = agent_args(&agents);
        extra.extend(["--shard", shard.as_str()]);
        let o = tournament(&out, &dir, &extra);
        assert!(o.status.success(), "{}", text(&o));
        dirs.push(dir.display().to_string());
    }
    let merged = out.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(dirs.iter().map(String::as_str));
    let m = referee_in(&out, &args);
    assert!(m.status.success(), "{}", text(&m));
    let whole_table = table_of(&String::from_utf8_lossy(&whole.stdout));
    assert!(!whole_table.is_empty());
    assert_eq!(table_of(&String::from_utf8_lossy(&m.stdout)), whole_table);
    let mut a: Vec<String> = records(&out.join("whole")).iter().map(|r| r.key.clone()).collect();
    let mut b: Vec<String> = records(&merged).iter().map(|r| r.key.clone()).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b, "every game exactly once");
    // A shard of another run (agent c's command differs) is refused, as is a missing shard.
    let other = out.join("other");
    let mut others = agents.clone();
    others[2] = format!("name=c,cmd={MOCK} sleep 0");
    let mut extra = agent_args(&others);
    extra.extend(["--shard", "2/3"]);
    assert!(tournament(&out, &other, &extra).status.success());
    let bad = referee_in(
        &out,
        &[
            "merge",
            "--out",
            out.join("bad").to_str().unwrap(),
            &dirs[0],
            &dirs[1],
            other.to_str().unwrap(),
        ],
    );
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("different runs"),
        "{}",
        text(&bad)
    );
    let missing = referee_in(
        &out,
        &["merge", "--out", out.join("bad2").to_str().unwrap(), &dirs[0], &dirs[1]],
    );
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("shard 2/3 missing"),
        "{}",
        text(&missing)
    );
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn gnu_parallel_recipe_runs_shards_on_local_hosts_and_merges() {
    need("parallel");
    let out = tmp("parallel");
    let script = repo().join("scripts/referee-shards-parallel.sh");
    let agents = three_agents();
    let mut cmd = Command::new("bash");
    cmd.current_dir(&out)
        .arg(&script)
        .args(["3", "runs", "--"])
        .args([
            "--game", "testnim", "--size", "30", "--time", "5", "--games", "4", "--seed", "5",
        ])
        .args(["--openings", "random:3"])
        .args(agent_args(&agents))
        // Two local "hosts": `:` is this machine, each with one job slot.
        .env("SSHLOGIN", "1/:,1/:")
        .env("REFEREE", REFEREE);
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let whole = tournament(&out, &out.join("whole"), &agent_args(&agents));
    assert_eq!(
        table_of(&stdout),
        table_of(&String::from_utf8_lossy(&whole.stdout)),
        "{stdout}"
    );
    assert_eq!(records(&out.join("runs/merged")).len(), 12);
    std::fs::remove_dir_all(out).unwrap();
}

/// The Slurm recipes on a real one-node Slurm (scripts/slurm-check.sh
/// starts and stops the daemons): the merged table equals the unsharded
/// one, and so do a class's merged grades.csv and a Swiss's standings
/// played round by round.
#[test]
fn slurm_recipe_runs_as_an_array_job_on_a_one_node_slurm() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED the real-Slurm check: starting slurmctld and slurmd needs root (CI runs it as root)");
        return;
    }
    for tool in ["sbatch", "slurmctld", "slurmd", "munged"] {
        need(tool);
    }
    let o = Command::new("bash")
        .arg(repo().join("scripts/slurm-check.sh"))
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    for says in [
        "the same table as unsharded",
        "the same grades.csv as unsharded",
        "the same standings as unsharded",
    ] {
        assert!(String::from_utf8_lossy(&o.stdout).contains(says), "{}", text(&o));
    }
}

#[test]
fn slurm_scripts_are_valid_bash_and_refuse_to_run_outside_slurm() {
    for name in ["referee-shards.slurm", "grade-shards.slurm"] {
        let script = repo().join("scripts").join(name);
        let st = Command::new("bash").arg("-n").arg(&script).status().unwrap();
        assert!(st.success(), "{name}");
        let body = std::fs::read_to_string(&script).unwrap();
        assert!(body.contains("#SBATCH --array="), "{name}");
        let o = Command::new("bash")
            .arg(&script)
            .args(["out", "--game", "testnim"])
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .unwrap();
        assert!(!o.status.success(), "{name}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("SLURM_ARRAY_TASK_ID"),
            "{name}: {}",
            text(&o)
        );
    }
    // The Swiss chain submits nothing without the Swiss's --rounds.
    let chain = repo().join("scripts/swiss-shards-slurm.sh");
    assert!(Command::new("bash").arg("-n").arg(&chain).status().unwrap().success());
    let o = Command::new("bash")
        .arg(&chain)
        .args(["2", "out", "--format", "swiss"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--rounds R"),
        "{}",
        text(&o)
    );
}

#[test]
fn version_names_the_git_commit() {
    let o = Command::new(REFEREE).arg("--version").output().unwrap();
    let v = String::from_utf8_lossy(&o.stdout);
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    assert!(v.contains(&format!("(git {head})")), "{v} (HEAD {head})");
}

/// `referee report` on a 5-game, 3-agent Connect Square tournament: one
/// self-contained page (no network reference) with the standings and the
/// head-to-head table of the three agents, every game's replay data, and
/// each move's depth and score where the agent reported them (here a Python
/// mover that ends its stderr with an `info` line).
#[test]
// A test: the run and every check of its report read best as one story.
#[allow(clippy::too_many_lines)]
fn report_of_a_three_agent_tournament_opens_offline_with_depth_and_score() {
    need("python3");
    let base = tmp("report");
    // Its home holds the script and the sample it wraps (the sandbox shows it the home only).
    std::fs::copy(
        repo().join("samples/agents/python/connectsquare_random.py"),
        base.join("connectsquare_random.py"),
    )
    .unwrap();
    std::fs::write(
        base.join("reporting.sh"),
        format!(
            "python3 {}/connectsquare_random.py && echo 'info depth 3 score -12 nodes 99' >&2\n",
            base.display()
        ),
    )
    .unwrap();
    let out = base.join("out");
    let reporting = format!("name=reporting,cmd=sh reporting.sh,dir={}", base.display());
    let o = referee_in(
        &repo(),
        &[
            "tournament",
            "--game",
            "connectsquare",
            "--rows",
            "4",
            "--cols",
            "5",
            "--games",
            "5",
            "--time",
            "20",
            &format!("mock={MOCK} play"),
            "--agent",
            "name=py,cmd=python3 connectsquare_random.py,dir=samples/agents/python",
            "--agent",
            &reporting,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&out);
    assert_eq!(recs.len(), 15, "5 games for each of the 3 pairings");
    let o = referee_in(&repo(), &["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("report.html"),
        "{}",
        text(&o)
    );
    // The SVG namespace is a name, not a fetch; nothing else may point at the network.
    let rest = html.replace("\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !rest.contains("http://") && !rest.contains("https://"),
        "the page must open offline"
    );
    for id in ["id=\"standings\"", "id=\"head-to-head\"", "id=\"games\""] {
        assert!(html.contains(id), "no {id} in the page");
    }
    for name in ["mock", "py", "reporting"] {
        assert!(
            html.contains(&format!("<td>{name}</td>")),
            "{name} is missing from the tables"
        );
    }
    let data = html
        .split("id=\"report-data\"")
        .nth(1)
        .and_then(|s| s.split_once('>'))
        .and_then(|(_, s)| s.split_once("</script>"))
        .map(|(json, _)| json)
        .expect("the page embeds its data");
    let data: serde_json::Value = serde_json::from_str(data).unwrap();
    let games = data["games"].as_array().unwrap();
    assert_eq!(games.len(), 15);
    let mut reported = 0;
    for (g, rec) in games.iter().zip(&recs) {
        for (m, mr) in g["moves"].as_array().unwrap().iter().zip(&rec.moves) {
            if rec.agents[mr.seat] == "reporting" {
                assert_eq!(
                    (&m["depth"], &m["score"]),
                    (&serde_json::json!(3), &serde_json::json!(-12))
                );
                reported += 1;
            } else {
                assert!(m["depth"].is_null() && m["score"].is_null(), "{m}");
            }
        }
    }
    assert!(reported > 0, "the reporting agent moved");
    std::fs::remove_dir_all(base).unwrap();
}

/// Our agent, as `cargo test --workspace` builds it.
fn our_agent() -> PathBuf {
    let p = repo().join("target/release/agent");
    assert!(
        p.exists(),
        "{} is missing: build the workspace first (make test does)",
        p.display()
    );
    p
}

#[test]
fn the_halma_templates_play_whole_games_against_our_agent_by_the_rules() {
    need("python3");
    need("javac");
    need("g++");
    let build = tmp("halma-templates");
    // A home each: two programs in one home are refused.
    let (java_home, cpp_home) = (build.join("java"), build.join("cpp"));
    std::fs::create_dir_all(&java_home).unwrap();
    std::fs::create_dir_all(&cpp_home).unwrap();
    let st = Command::new("g++")
        .args(["-O2", "-o"])
        .arg(cpp_home.join("halma_agent"))
        .arg(repo().join("samples/agents/cpp/halma_agent.cpp"))
        .status()
        .unwrap();
    assert!(st.success(), "g++ failed");
    let st = Command::new("javac")
        .args(["-d", java_home.to_str().unwrap()])
        .arg(repo().join("samples/agents/java/HalmaAgent.java"))
        .status()
        .unwrap();
    assert!(st.success(), "javac failed");
    let ours = format!("name=ours,cmd={}", our_agent().display());
    // The templates get a longer clock: a JVM spends ~0.05-0.1 s of CPU
    // starting on every move, which a 3 s game does not cover.
    let templates = [
        "name=python,cmd=python3 samples/agents/python/halma_agent.py,time=30".to_string(),
        format!(
            "name=java,cmd=java -cp . HalmaAgent,dir={},time=30",
            java_home.display()
        ),
        format!("name=cpp,cmd=./halma_agent,dir={},time=30", cpp_home.display()),
    ];
    let out = build.join("run");
    let mut args = vec![
        "tournament",
        "--game",
        "halma",
        "--gauntlet",
        "--games",
        "2",
        "--time",
        "3",
    ];
    args.extend(["--concurrency", "2", "--out", out.to_str().unwrap(), "--agent", &ours]);
    for t in &templates {
        args.extend(["--agent", t.as_str()]);
    }
    let o = referee_in(&repo(), &args);
    assert!(o.status.success(), "{}", text(&o));
    let recs = records(&out);
    assert_eq!(recs.len(), 6, "{}", text(&o));
    for r in &recs {
        assert!(r.loss.is_none(), "{}: a forfeit: {}", r.key, r.reason);
        assert!(r.moves.len() > 20, "{}: only {} plies", r.key, r.moves.len());
    }
    std::fs::remove_dir_all(build).unwrap();
}

#[test]
fn a_python_agent_run_through_a_venv_interpreter_plays_under_the_default_sandbox() {
    need("python3");
    let base = tmp("venv");
    let venv = base.join("venv");
    let st = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(
        st.success(),
        "python3 -m venv failed (Debian: apt-get install python3-venv)"
    );
    let home = base.join("agent");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::copy(
        repo().join("samples/agents/python/halma_agent.py"),
        home.join("halma_agent.py"),
    )
    .unwrap();
    // The agent refuses to play unless it really runs inside its venv.
    std::fs::write(
        home.join("in_venv.py"),
        "import runpy, sys\nif sys.prefix == sys.base_prefix:\n    sys.exit('not in the venv: ' + sys.prefix)\nrunpy.run_path('halma_agent.py', run_name='__main__')\n",
    )
    .unwrap();
    let venv_python = venv.join("bin/python");
    // in_venv.py runs halma_agent.py from the working directory: give it the path.
    let script = std::fs::read_to_string(home.join("in_venv.py")).unwrap().replace(
        "'halma_agent.py'",
        &format!("{:?}", home.join("halma_agent.py").display().to_string()),
    );
    std::fs::write(home.join("in_venv.py"), script).unwrap();
    let cmd = format!(
        "name=venv,cmd={} in_venv.py,dir={},time=30",
        venv_python.display(),
        home.display()
    );
    let ours = format!("name=ours,cmd={}", our_agent().display());
    let out = base.join("run");
    let o = referee_in(
        &repo(),
        &[
            "match",
            "--game",
            "halma",
            "--games",
            "2",
            "--time",
            "3",
            "--agent",
            &cmd,
            "--agent",
            &ours,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    for r in records(&out) {
        assert!(r.loss.is_none(), "{}: {}", r.key, r.reason);
    }
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn two_programs_in_one_home_are_refused_but_one_program_twice_is_not() {
    let home = tmp("shared-home");
    std::fs::write(home.join("a.sh"), "exec \"$@\"\n").unwrap();
    std::fs::write(home.join("b.sh"), "exec \"$@\"\n").unwrap();
    let run = |a: &str, b: &str| {
        let out = home.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let dir = home.display().to_string();
        referee_in(
            &home,
            &[
                "match",
                "--game",
                "testnim",
                "--size",
                "3",
                "--games",
                "2",
                "--time",
                "5",
                "--out",
                out.to_str().unwrap(),
                "--agent",
                &format!("name=a,cmd={a},dir={dir}"),
                "--agent",
                &format!("name=b,cmd={b},dir={dir}"),
            ],
        )
    };
    let o = run(&format!("sh a.sh {MOCK} play"), &format!("sh b.sh {MOCK} play"));
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("agents a and b share the home"), "{}", text(&o));
    let o = run(&format!("sh a.sh {MOCK} play"), &format!("sh a.sh {MOCK} sleep 0"));
    assert!(o.status.success(), "one program under two commands: {}", text(&o));
    std::fs::remove_dir_all(home).unwrap();
}

#[test]
fn calibrate_works_with_the_shipped_agent() {
    let out = tmp("calibrate-shipped");
    let ours = repo().join("target/release/agent").display().to_string();
    let o = referee_in(
        &out,
        &[
            "match",
            "--game",
            "connectsquare",
            "--games",
            "2",
            "--time",
            "2",
            "--calibrate",
            "--out",
            out.join("run").to_str().unwrap(),
            &ours,
            &format!("{ours} --strategy greedy"),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("referee: calibrated agent") && err.contains("referee: calibrated agent-2"),
        "{err}"
    );
    let cal = std::fs::read_to_string(out.join("run/calibration/agent/calibration.txt")).unwrap();
    assert!(cal.starts_with("nodes_per_second "), "{cal}");
    std::fs::remove_dir_all(out).unwrap();
}

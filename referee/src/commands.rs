//! The `referee` subcommands: `match`, `tournament`, `play`, `replay`.

use crate::for_game;
use crate::game_loop::{play_game, Contestant, GameSetup, MoveEvent, Rules, SeatKind};
use crate::human::HumanIo;
use crate::progress::Progress;
use crate::rating::Sprt;
use crate::record::{self, GameRecord};
use crate::schedule::{self, Job, RunConfig, Starts};
use crate::signals;
use crate::summary::{self, AgentSummary, SprtReport};
use agent::protocol::{format_time, FileGame, GenOptions, Mode, Player};
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

/// Which game and which start position.
#[derive(Args, Clone, Debug)]
pub struct GameOpts {
    /// Game: halma, hinger, connectsquare, fifteen, hashi (testnim: test fixture).
    #[arg(long, default_value = "halma")]
    pub game: String,
    /// Seed for generated start positions (advanced once per pair of games).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start every game from this input.txt instead of a generated position.
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Board rows (Hinger, Connect Square).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Board columns (Hinger, Connect Square).
    #[arg(long)]
    pub cols: Option<usize>,
    /// Square board size (Fifteen 4 or 6, Hashi n).
    #[arg(long)]
    pub size: Option<usize>,
    /// Fill density 0..1 (Hinger).
    #[arg(long)]
    pub density: Option<f64>,
}

impl GameOpts {
    fn starts(&self) -> Result<Starts, String> {
        let text = match &self.start {
            Some(p) => {
                Some(std::fs::read_to_string(p).map_err(|e| format!("cannot read --start {}: {e}", p.display()))?)
            }
            None => None,
        };
        if let Some(d) = self.density {
            if !(0.0..=1.0).contains(&d) {
                return Err(format!("--density must be between 0 and 1, found {d}"));
            }
        }
        Ok(Starts {
            text,
            gen: GenOptions {
                rows: self.rows,
                cols: self.cols,
                size: self.size,
                density: self.density,
                seed: self.seed,
                first: Player::One,
            },
        })
    }
}

/// `--mode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Line 1 `GAME`: budget the remaining time over the game.
    Game,
    /// Line 1 `SINGLE`: use the given time for this move.
    Single,
}

/// Time control and judging.
#[derive(Args, Clone, Debug)]
pub struct TimeOpts {
    /// CPU seconds per agent per game.
    #[arg(long, default_value_t = 100.0)]
    pub time: f64,
    /// CPU seconds past the remaining time before an agent is killed.
    #[arg(long, default_value_t = 10.0)]
    pub grace: f64,
    /// Plies after which a game ends and the player with more time left wins.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: usize,
    /// Line 1 of input.txt for the agents.
    #[arg(long, value_enum, default_value_t = ModeArg::Game)]
    pub mode: ModeArg,
    /// Per-move CPU cap: agents get min(remaining, this) and lose on exceeding it.
    #[arg(long)]
    pub move_time: Option<f64>,
    /// Wall-clock kill at (allowed CPU + grace) × this + 5 s.
    #[arg(long, default_value_t = 3.0)]
    pub wall_factor: f64,
}

impl TimeOpts {
    fn rules(&self) -> Result<Rules, String> {
        let pos = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{what} must be a positive number of seconds, found {v}"))
            }
        };
        pos(self.time, "--time")?;
        if !(self.grace.is_finite() && self.grace >= 0.0) {
            return Err(format!("--grace must be zero or more seconds, found {}", self.grace));
        }
        if let Some(m) = self.move_time {
            pos(m, "--move-time")?;
        }
        if !(self.wall_factor.is_finite() && self.wall_factor >= 1.0) {
            return Err(format!("--wall-factor must be at least 1, found {}", self.wall_factor));
        }
        if self.max_plies == 0 {
            return Err("--max-plies must be at least 1".into());
        }
        Ok(Rules {
            mode: if self.mode == ModeArg::Game {
                Mode::Game
            } else {
                Mode::Single
            },
            grace: self.grace,
            max_plies: self.max_plies,
            move_time: self.move_time,
            wall_factor: self.wall_factor,
            wall_extra: 5.0,
            output_cap: crate::runner::OUTPUT_CAP,
        })
    }
}

/// `referee match`.
#[derive(Args, Clone, Debug)]
pub struct MatchArgs {
    /// First agent's shell command (run in its own working directory).
    pub cmd_a: String,
    /// Second agent's shell command.
    pub cmd_b: String,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    /// Number of games (odd: the first agent gets the extra first move).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// CPU seconds per game for the first agent (default --time).
    #[arg(long)]
    pub time_a: Option<f64>,
    /// CPU seconds per game for the second agent (default --time).
    #[arg(long)]
    pub time_b: Option<f64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Directory for records.jsonl and working directories (default: a new temp dir).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the JSON results summary here.
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Run `CMD calibrate` once per agent before the first game.
    #[arg(long)]
    pub calibrate: bool,
    /// Stop early: ELO0,ELO1[,ALPHA,BETA] for the first agent against the second.
    #[arg(long)]
    pub sprt: Option<String>,
    /// Names of the two agents in tables and records.
    #[arg(long, default_value = "A,B")]
    pub names: String,
    /// Keep every game's working directories (by default only forfeits' are kept).
    #[arg(long)]
    pub keep_dirs: bool,
}

/// The JSON results of a match.
#[derive(Serialize)]
struct MatchResults<'a> {
    game: &'a str,
    games_planned: usize,
    games_played: usize,
    interrupted: bool,
    time: [f64; 2],
    agents: Vec<AgentSummary>,
    sprt: Option<SprtReport>,
    records: String,
}

fn default_out(kind: &str) -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("referee-{kind}-{stamp}-{}", std::process::id()))
}

fn game_number(key: &str) -> Option<usize> {
    key.rsplit_once('g').and_then(|(_, n)| n.parse().ok())
}

/// `referee match`: returns the process exit code.
pub fn run_match(a: &MatchArgs) -> Result<i32, String> {
    signals::install();
    let rules = a.time.rules()?;
    let starts = a.game.starts()?;
    if a.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if a.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    let names: Vec<&str> = a.names.split(',').map(|s| s.trim()).collect();
    if names.len() != 2 || names[0].is_empty() || names[0] == names[1] {
        return Err(format!(
            "--names expects two different names separated by a comma, found {:?}",
            a.names
        ));
    }
    let sprt = a.sprt.as_deref().map(Sprt::parse).transpose()?;
    let times = [a.time_a.unwrap_or(a.time.time), a.time_b.unwrap_or(a.time.time)];
    for t in times {
        if !(t.is_finite() && t > 0.0) {
            return Err(format!("--time-a/--time-b must be positive seconds, found {t}"));
        }
    }
    let out = a.out.clone().unwrap_or_else(|| default_out("match"));
    let mut contestants = vec![
        Contestant {
            name: names[0].to_string(),
            kind: SeatKind::parse(&a.cmd_a),
            calibration: None,
        },
        Contestant {
            name: names[1].to_string(),
            kind: SeatKind::parse(&a.cmd_b),
            calibration: None,
        },
    ];
    if contestants.iter().any(|c| c.kind == SeatKind::Human) {
        return Err("a person plays through `referee play ... human CMD`, not `match`".into());
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    if a.calibrate {
        schedule::calibrate(&mut contestants, &out, &signals::STOP)?;
    }
    let jobs: Vec<Job> = (0..a.games)
        .map(|n| Job {
            key: format!("g{n:04}"),
            a: 0,
            b: 1,
            number: n,
        })
        .collect();
    let cfg = RunConfig {
        contestants: &contestants,
        time: times.to_vec(),
        rules,
        starts,
        out: out.clone(),
        concurrency: a.concurrency,
        keep_dirs: a.keep_dirs,
    };
    let id: Vec<(String, String)> = contestants
        .iter()
        .map(|c| (c.name.clone(), c.kind.command().to_string()))
        .collect();
    let mut recs: Vec<GameRecord> = Vec::new();
    let mut progress = Progress::new();
    let mut sprt_state = None;
    let total = a.games;
    let game = a.game.game.clone();
    let played = for_game!(&game, |G| schedule::run_jobs::<G>(
        &cfg,
        jobs,
        &signals::STOP,
        &mut |rec| {
            recs.push(rec.clone());
            let s = summary::summarize(&id, &recs);
            progress.update(&format!(
                "games {}/{total}  {} {} - {} {}  draws {}",
                recs.len(),
                s[0].name,
                s[0].wins,
                s[1].wins,
                s[1].name,
                s[0].draws
            ));
            if let Some(t) = &sprt {
                let penta =
                    summary::pentanomial(&s[0].name, &recs, |r| game_number(&r.key).map(|n| (String::new(), n)));
                let rep = summary::sprt_report(t, penta);
                let decided = rep.decision != "continue";
                sprt_state = Some(rep);
                return decided;
            }
            false
        }
    ))?;
    progress.finish();
    let rows = summary::summarize(&id, &recs);
    let interrupted = signals::stopped();
    println!(
        "{} match, {} of {} games played (records: {})",
        game,
        played,
        total,
        cfg.records_path().display()
    );
    print!("{}", summary::table(&rows));
    if let Some(r) = &sprt_state {
        println!(
            "SPRT [{}, {}] ({} pairs {:?}): LLR {:.3} in [{:.3}, {:.3}]: {}",
            r.elo0, r.elo1, r.model, r.pairs, r.llr, r.lower, r.upper, r.decision
        );
    }
    if let Some(path) = &a.results {
        let res = MatchResults {
            game: &game,
            games_planned: total,
            games_played: played,
            interrupted,
            time: times,
            agents: rows,
            sprt: sprt_state,
            records: cfg.records_path().display().to_string(),
        };
        let text = serde_json::to_string_pretty(&res).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if interrupted {
        eprintln!("referee: interrupted; games in progress were discarded");
        return Ok(130);
    }
    Ok(0)
}

/// `referee tournament`.
#[derive(Args, Clone, Debug)]
pub struct TournamentArgs {
    /// Agents as NAME=CMD (at least two).
    #[arg(required = true)]
    pub agents: Vec<String>,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    /// Games per pairing (colours and first move alternate).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Directory for records.jsonl, the manifest and working directories.
    #[arg(long, default_value = "tournament-out")]
    pub out: PathBuf,
    /// Continue an interrupted tournament from the records in --out.
    #[arg(long)]
    pub resume: bool,
    /// Run `CMD calibrate` once per agent before the first game.
    #[arg(long)]
    pub calibrate: bool,
    /// Two agents only: stop early, ELO0,ELO1[,ALPHA,BETA] for the first against the second.
    #[arg(long)]
    pub sprt: Option<String>,
    /// Write the JSON results summary here.
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Keep every game's working directories (by default only forfeits' are kept).
    #[arg(long)]
    pub keep_dirs: bool,
}

/// What a tournament directory was started with; `--resume` must match it.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Manifest {
    game: String,
    agents: Vec<(String, String)>,
    games: usize,
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `referee tournament`: returns the process exit code.
pub fn run_tournament(a: &TournamentArgs) -> Result<i32, String> {
    signals::install();
    let rules = a.time.rules()?;
    let starts = a.game.starts()?;
    if a.games == 0 || a.concurrency == 0 {
        return Err("--games and --concurrency must be at least 1".into());
    }
    let mut contestants = Vec::new();
    for spec in &a.agents {
        let Some((name, cmd)) = spec.split_once('=') else {
            return Err(format!("agents are given as NAME=CMD, found {spec:?}"));
        };
        let name = name.trim();
        if name.is_empty() || cmd.trim().is_empty() {
            return Err(format!(
                "agents are given as NAME=CMD with both parts non-empty, found {spec:?}"
            ));
        }
        if contestants.iter().any(|c: &Contestant| c.name == name) {
            return Err(format!("agent name {name:?} is used twice"));
        }
        contestants.push(Contestant {
            name: name.to_string(),
            kind: SeatKind::Agent(crate::game_loop::resolve_command(cmd)),
            calibration: None,
        });
    }
    if contestants.len() < 2 {
        return Err("a tournament needs at least two agents".into());
    }
    let sprt = a.sprt.as_deref().map(Sprt::parse).transpose()?;
    if sprt.is_some() && contestants.len() != 2 {
        return Err("--sprt needs exactly two agents".into());
    }
    let manifest = Manifest {
        game: a.game.game.to_ascii_lowercase(),
        agents: contestants
            .iter()
            .map(|c| (c.name.clone(), c.kind.command().to_string()))
            .collect(),
        games: a.games,
    };
    let manifest_path = a.out.join("tournament.json");
    let records_path = a.out.join("records.jsonl");
    std::fs::create_dir_all(&a.out).map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let mut recs = if a.resume {
        let text = std::fs::read_to_string(&manifest_path)
            .map_err(|e| format!("--resume: cannot read {}: {e}", manifest_path.display()))?;
        let old: Manifest = serde_json::from_str(&text).map_err(|e| {
            format!(
                "--resume: {} is not a tournament manifest: {e}",
                manifest_path.display()
            )
        })?;
        if old != manifest {
            return Err(format!(
                "--resume: {} was started with a different game, agents or --games ({:?}); rerun with the original arguments",
                a.out.display(),
                old
            ));
        }
        record::load(&records_path, true)?
    } else {
        if records_path.exists() && std::fs::metadata(&records_path).map(|m| m.len() > 0).unwrap_or(false) {
            return Err(format!(
                "{} already holds game records: add --resume to continue that tournament, or choose another --out",
                a.out.display()
            ));
        }
        let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
        std::fs::write(&manifest_path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
        Vec::new()
    };
    let mut all_jobs = Vec::new();
    for i in 0..contestants.len() {
        for j in i + 1..contestants.len() {
            for n in 0..a.games {
                all_jobs.push(Job {
                    key: format!("{}-vs-{}-g{n:04}", contestants[i].name, contestants[j].name),
                    a: i,
                    b: j,
                    number: n,
                });
            }
        }
    }
    let wanted: HashSet<&str> = all_jobs.iter().map(|j| j.key.as_str()).collect();
    let mut seen = HashSet::new();
    for r in &recs {
        if !wanted.contains(r.key.as_str()) {
            return Err(format!(
                "{} holds a game {:?} that is not part of this tournament",
                records_path.display(),
                r.key
            ));
        }
        if !seen.insert(r.key.clone()) {
            return Err(format!("{} holds game {:?} twice", records_path.display(), r.key));
        }
    }
    let jobs: Vec<Job> = all_jobs.iter().filter(|j| !seen.contains(&j.key)).cloned().collect();
    let total = all_jobs.len();
    if a.resume {
        eprintln!("referee: resuming: {} of {} games already played", recs.len(), total);
    }
    if a.calibrate && !jobs.is_empty() {
        schedule::calibrate(&mut contestants, &a.out, &signals::STOP)?;
    }
    let cfg = RunConfig {
        contestants: &contestants,
        time: vec![a.time.time; contestants.len()],
        rules,
        starts,
        out: a.out.clone(),
        concurrency: a.concurrency,
        keep_dirs: a.keep_dirs,
    };
    let id: Vec<(String, String)> = manifest.agents.clone();
    let pair_of = |r: &GameRecord| {
        let (pairing, n) = r.key.rsplit_once("-g")?;
        Some((pairing.to_string(), n.parse::<usize>().ok()?))
    };
    let mut progress = Progress::new();
    let mut sprt_state = None;
    let game = a.game.game.clone();
    let played = for_game!(&game, |G| schedule::run_jobs::<G>(
        &cfg,
        jobs,
        &signals::STOP,
        &mut |rec| {
            recs.push(rec.clone());
            let s = summary::summarize(&id, &recs);
            let lead = s
                .iter()
                .max_by(|x, y| x.score_pct.total_cmp(&y.score_pct))
                .map(|x| x.name.clone())
                .unwrap_or_default();
            progress.update(&format!("games {}/{total}  leader {lead}", recs.len()));
            if let Some(t) = &sprt {
                let penta = summary::pentanomial(&s[0].name, &recs, pair_of);
                let rep = summary::sprt_report(t, penta);
                let decided = rep.decision != "continue";
                sprt_state = Some(rep);
                return decided;
            }
            false
        }
    ))?;
    progress.finish();
    let rows = summary::summarize(&id, &recs);
    println!(
        "{} tournament: {} of {} games recorded ({} this run; records: {})",
        game,
        recs.len(),
        total,
        played,
        records_path.display()
    );
    print!("{}", summary::table(&rows));
    if let Some(r) = &sprt_state {
        println!(
            "SPRT [{}, {}] ({}): LLR {:.3} in [{:.3}, {:.3}]: {}",
            r.elo0, r.elo1, r.model, r.llr, r.lower, r.upper, r.decision
        );
    }
    if let Some(path) = &a.results {
        let res = MatchResults {
            game: &game,
            games_planned: total,
            games_played: recs.len(),
            interrupted: signals::stopped(),
            time: [a.time.time; 2],
            agents: rows,
            sprt: sprt_state,
            records: records_path.display().to_string(),
        };
        let text = serde_json::to_string_pretty(&res).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if signals::stopped() {
        let mut args: Vec<String> = std::env::args().collect();
        if !args.iter().any(|x| x == "--resume") {
            args.push("--resume".into());
        }
        if !args.iter().any(|x| x == "--out" || x.starts_with("--out=")) {
            args.push("--out".into());
            args.push(a.out.display().to_string());
        }
        let cmd: Vec<String> = args.iter().map(|s| shell_quote(s)).collect();
        eprintln!(
            "referee: interrupted; games in progress were discarded. To resume:\n  {}",
            cmd.join(" ")
        );
        return Ok(130);
    }
    Ok(0)
}

/// `referee play`.
#[derive(Args, Clone, Debug)]
pub struct PlayArgs {
    /// Seat 1 (Halma BLACK, Connect Square R, player 1): `human` or an agent command.
    pub seat1: String,
    /// Seat 2: `human` or an agent command.
    pub seat2: String,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    /// Seat that moves first (asked when a human plays and this is not given).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub first: Option<u8>,
    /// Directory for the record and the agents' working directories.
    #[arg(long, default_value = "play-out")]
    pub out: PathBuf,
}

/// `referee play`: one game, the board drawn after each move.
pub fn run_play(a: &PlayArgs, io: HumanIo) -> Result<i32, String> {
    signals::install();
    let game = a.game.game.clone();
    for_game!(&game, |G| play_one::<G>(a, io))
}

fn play_one<G: FileGame>(a: &PlayArgs, mut io: HumanIo) -> Result<i32, String> {
    let mut rules = a.time.rules()?;
    let seats = [SeatKind::parse(&a.seat1), SeatKind::parse(&a.seat2)];
    let any_human = seats.contains(&SeatKind::Human);
    let names = G::player_names();
    let mut game_opts = a.game.clone();
    if any_human && game_opts.size.is_none() && game_opts.start.is_none() {
        match G::NAME {
            "fifteen" => {
                let s = io
                    .choose("Board size, 4 or 6? ", &["4", "6"])
                    .ok_or("the input ended before the board size was given")?;
                game_opts.size = Some(s.parse().expect("4 or 6"));
            }
            "hashi" => loop {
                let s = io
                    .ask("Board size (e.g. 7)? ")
                    .ok_or("the input ended before the board size was given")?;
                let Ok(n) = s.parse::<usize>() else {
                    let _ = writeln!(io.output, "Please type a whole number such as 7.");
                    continue;
                };
                // Let the game say which sizes it can generate.
                let probe = GenOptions {
                    size: Some(n),
                    seed: a.game.seed,
                    ..Default::default()
                };
                match G::generate(&probe) {
                    Ok(_) => {
                        game_opts.size = Some(n);
                        break;
                    }
                    Err(e) => {
                        let _ = writeln!(io.output, "{e}. Please choose another size.");
                    }
                }
            },
            _ => {}
        }
    }
    if any_human && G::NAME == "fifteen" && rules.move_time.is_none() {
        // The Fifteen brief's interactive flow allows 30 s per move.
        rules.move_time = Some(30.0);
    }
    let first = match a.first {
        Some(f) => f,
        None if any_human && game_opts.start.is_none() => {
            let desc = |i: usize| {
                format!(
                    "{} = {} ({})",
                    i + 1,
                    crate::human::seat_label(names[i]),
                    seats[i].command()
                )
            };
            let q = format!("Who moves first? {}, {}: ", desc(0), desc(1));
            io.choose(&q, &["1", "2"])
                .ok_or("the input ended before the first player was chosen")?
                .parse()
                .expect("1 or 2")
        }
        None => 1,
    };
    let mut starts = game_opts.starts()?;
    starts.gen.first = if first == 1 { Player::One } else { Player::Two };
    let start: G = match &starts.text {
        Some(t) => G::parse_input(t).map_err(|e| format!("--start: {e}"))?.state,
        None => G::generate(&starts.gen)?,
    };
    let contestants: Vec<Contestant> = (0..2)
        .map(|i| Contestant {
            name: match &seats[i] {
                SeatKind::Human => format!("human{}", i + 1),
                SeatKind::Agent(cmd) => short_name(cmd),
            },
            kind: seats[i].clone(),
            calibration: None,
        })
        .collect();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let key = format!("play-{stamp}");
    let base = a.out.join("games").join(&key);
    let dirs = [0, 1].map(|i| base.join(format!("seat{}-{}", i + 1, names[i])));
    std::fs::create_dir_all(&a.out).map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let setup = GameSetup {
        key,
        start: start.clone(),
        seats: [&contestants[0], &contestants[1]],
        time: [a.time.time; 2],
        dirs,
    };
    let _ = writeln!(
        io.output,
        "{} game: {} {} vs {} {}",
        G::NAME,
        names[0],
        seats[0].command(),
        names[1],
        seats[1].command()
    );
    if seats[start.to_move().index()] != SeatKind::Human {
        // A person to move sees the board with the prompt.
        let _ = writeln!(io.output, "{}", start.render());
    }
    let human_seat = seats.iter().map(|s| *s == SeatKind::Human).collect::<Vec<_>>();
    let out_writer = std::sync::Mutex::new(std::io::stdout());
    let mut draw = |ev: &MoveEvent<'_, G>| {
        let mut o = out_writer.lock().expect("stdout lock");
        let m = ev.record;
        let by = if human_seat[m.seat] {
            "human".to_string()
        } else {
            format!("agent, {:.2} s CPU", m.cpu)
        };
        let _ = writeln!(o, "\nply {}: {} plays {}   ({by})", m.ply, names[m.seat], ev.described);
        let _ = writeln!(o, "{}", ev.state.render());
        let _ = writeln!(
            o,
            "clocks: {} {} s, {} {} s",
            names[0],
            format_time(ev.clocks[0].max(0.0)),
            names[1],
            format_time(ev.clocks[1].max(0.0))
        );
    };
    let rec = play_game(setup, &rules, &signals::STOP, Some(&mut io), &mut draw).map_err(|e| e.to_string())?;
    let path = a.out.join("records.jsonl");
    record::append(&path, &rec).map_err(|e| format!("cannot append to {}: {e}", path.display()))?;
    let _ = writeln!(io.output, "\n{}", result_line(&rec));
    let _ = writeln!(
        io.output,
        "clocks: {} {} s, {} {} s; {} plies; record: {} (referee replay {} --game {})",
        names[0],
        format_time(rec.clocks[0].max(0.0)),
        names[1],
        format_time(rec.clocks[1].max(0.0)),
        rec.moves.len(),
        path.display(),
        path.display(),
        rec.key
    );
    let _ = io.output.flush();
    Ok(0)
}

/// A command shown by its program's file name and its arguments.
fn short_name(cmd: &str) -> String {
    let mut parts = cmd.split_whitespace();
    let prog = parts.next().unwrap_or("agent");
    let base = prog.rsplit('/').next().unwrap_or(prog);
    std::iter::once(base).chain(parts).collect::<Vec<_>>().join(" ")
}

/// "Result: ..." for a finished game.
pub fn result_line(rec: &GameRecord) -> String {
    match rec.winner {
        Some(w) => format!(
            "Result: {} ({}) wins: {}",
            crate::human::seat_label(&rec.seat_names[w]),
            rec.agents[w],
            rec.reason
        ),
        None => format!("Result: draw: {}", rec.reason),
    }
}

/// `referee replay`.
#[derive(Args, Clone, Debug)]
pub struct ReplayArgs {
    /// A records.jsonl file.
    pub file: PathBuf,
    /// Which game: its 1-based number in the file or its key (default: the last).
    #[arg(long)]
    pub game: Option<String>,
    /// Wait for Enter after each move (q to stop).
    #[arg(long)]
    pub step: bool,
}

/// `referee replay`.
pub fn run_replay(a: &ReplayArgs, mut io: HumanIo) -> Result<i32, String> {
    let recs = record::load(&a.file, false)?;
    if recs.is_empty() {
        return Err(format!("{} holds no game records", a.file.display()));
    }
    let rec = match &a.game {
        Some(k) => match k.parse::<usize>() {
            Ok(n) if n >= 1 && n <= recs.len() => &recs[n - 1],
            _ => recs.iter().find(|r| &r.key == k).ok_or_else(|| {
                format!(
                    "{} has no game {k:?} (games 1 to {}, or keys like {:?})",
                    a.file.display(),
                    recs.len(),
                    recs[0].key
                )
            })?,
        },
        None => {
            if recs.len() > 1 {
                let _ = writeln!(
                    io.output,
                    "{} games in {}; showing the last (choose with --game N or KEY):",
                    recs.len(),
                    a.file.display()
                );
                for (i, r) in recs.iter().enumerate() {
                    let _ = writeln!(
                        io.output,
                        "  {:>3}  {}  {}  {}",
                        i + 1,
                        r.key,
                        crate::game_loop::seat_line(r),
                        result_line(r)
                    );
                }
            }
            recs.last().expect("non-empty")
        }
    };
    let game = rec.game.clone();
    for_game!(&game, |G| replay_one::<G>(rec, a.step, &mut io))
}

fn replay_one<G: FileGame>(rec: &GameRecord, step: bool, io: &mut HumanIo) -> Result<i32, String> {
    let states = crate::game_loop::replay_states::<G>(rec)?;
    let n = &rec.seat_names;
    let _ = writeln!(
        io.output,
        "game {} ({}): {}",
        rec.key,
        rec.game,
        crate::game_loop::seat_line(rec)
    );
    let _ = writeln!(io.output, "{}", states[0].render());
    let mut clocks = rec.time;
    for (i, m) in rec.moves.iter().enumerate() {
        if step {
            match io.ask("[Enter: next move, q: quit] ") {
                Some(s) if s == "q" => return Ok(0),
                None => return Ok(0),
                _ => {}
            }
        }
        clocks[m.seat] = m.left;
        let described = {
            let s = &states[i];
            s.parse_move(&m.text)
                .map(|mv| s.describe_move(mv))
                .unwrap_or_else(|_| m.text.clone())
        };
        let _ = writeln!(
            io.output,
            "\nply {}: {} ({}) plays {}   ({:.2} s CPU)",
            m.ply, n[m.seat], rec.agents[m.seat], described, m.cpu
        );
        let _ = writeln!(io.output, "{}", states[i + 1].render());
        let _ = writeln!(
            io.output,
            "clocks: {} {} s, {} {} s",
            n[0],
            format_time(clocks[0].max(0.0)),
            n[1],
            format_time(clocks[1].max(0.0))
        );
    }
    let _ = writeln!(io.output, "\n{}", result_line(rec));
    let _ = io.output.flush();
    Ok(0)
}

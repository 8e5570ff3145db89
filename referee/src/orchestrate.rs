//! `referee match` and `referee tournament`: both are round robins (a match
//! is the round robin of two agents), run by one code path: the manifest
//! and `--resume`, the lazy schedule, progress, the SPRT stop, the table
//! and the JSON results.

use crate::for_game;
use crate::game_loop::{Contestant, Rules};
use crate::live::Live;
use crate::openings;
use crate::preflight;
use crate::progress::Progress;
use crate::record::{self, GameRecord};
use crate::results::RunView;
use crate::roundrobin::RoundRobin;
use crate::schedule::{self, Job, RunConfig};
use crate::shard::Shard;
use crate::signals;
use crate::sprt::Sprt;
use crate::starts::{Openings, Starts};
use agent::protocol::FileGame;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Which subcommand a run came from (names its manifest and messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// `referee match`: two agents.
    Match,
    /// `referee tournament`: two or more agents.
    Tournament,
}

impl RunKind {
    /// `match` or `tournament`.
    pub fn label(self) -> &'static str {
        match self {
            RunKind::Match => "match",
            RunKind::Tournament => "tournament",
        }
    }
}

/// A validated match or tournament, ready to run (built by `crate::args::check`).
pub struct RunPlan {
    /// Which subcommand.
    pub kind: RunKind,
    /// Game name (lower case).
    pub game: String,
    /// The agents, in the order given.
    pub contestants: Vec<Contestant>,
    /// CPU seconds per game, by contestant.
    pub time: Vec<f64>,
    /// Games per pairing.
    pub games: u64,
    /// Judging rules.
    pub rules: Rules,
    /// Start positions.
    pub starts: Starts,
    /// Directory for records, the manifest and working directories.
    pub out: PathBuf,
    /// Continue from the records in `out`.
    pub resume: bool,
    /// Run `CMD calibrate` once per agent first.
    pub calibrate: bool,
    /// Stop early when the SPRT decides (two agents).
    pub sprt: Option<Sprt>,
    /// Where to write the JSON results.
    pub results: Option<PathBuf>,
    /// Keep every game's working directories.
    pub keep_dirs: bool,
    /// Games played at once (as asked; capped at the games left to play).
    pub concurrency: usize,
    /// How agents are confined (built once `out` exists).
    pub sandbox: crate::sandbox::SandboxOpts,
    /// `--openings` as given (recorded in the manifest).
    pub openings: Option<String>,
    /// Play only this shard of the schedule.
    pub shard: Option<Shard>,
    /// The first agent plays each other agent (and they do not meet).
    pub gauntlet: bool,
    /// Each agent makes one move before the first game.
    pub preflight: bool,
}

/// What a run directory was started with; `--resume` must match it, and
/// `referee merge` merges only shards whose manifests agree apart from `shard`.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Manifest {
    game: String,
    agents: Vec<(String, String)>,
    games: u64,
    /// Time control, mode and board parameters (absent in older manifests).
    #[serde(default)]
    conditions: crate::outdir::Conditions,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    time: Vec<f64>,
    #[serde(default)]
    openings: Option<String>,
    #[serde(default)]
    gauntlet: bool,
    #[serde(default)]
    shard: Option<Shard>,
}

impl RunPlan {
    fn manifest(&self) -> Manifest {
        Manifest {
            game: self.game.clone(),
            agents: self.ids(),
            games: self.games,
            conditions: self.conditions(),
            seed: self.starts.gen.seed,
            time: self.time.clone(),
            openings: self.openings.clone(),
            gauntlet: self.gauntlet,
            shard: self.shard,
        }
    }

    /// Everything else that decides the games, for `--resume` to compare.
    fn conditions(&self) -> crate::outdir::Conditions {
        let r = &self.rules;
        let g = &self.starts.gen;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "(not set)".into());
        let times: Vec<String> = self.time.iter().map(f64::to_string).collect();
        let start = self.starts.text.as_ref().map(|t| {
            // FNV-1a: a start file changed in place is noticed without storing it.
            let h = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
            format!("{} bytes, hash {h:016x}", t.len())
        });
        [
            ("--mode", r.mode.token().to_string()),
            ("--time", times.join(",")),
            ("--grace", r.grace.to_string()),
            ("--move-time", opt(r.move_time.map(|m| m.to_string()))),
            ("--max-plies", r.max_plies.to_string()),
            ("--wall-factor", r.wall_factor.to_string()),
            ("--seed", g.seed.to_string()),
            ("--rows", opt(g.rows.map(|v| v.to_string()))),
            ("--cols", opt(g.cols.map(|v| v.to_string()))),
            ("--size", opt(g.size.map(|v| v.to_string()))),
            ("--density", opt(g.density.map(|v| v.to_string()))),
            ("--start", opt(start)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// `(name, command)` of every contestant.
    fn ids(&self) -> Vec<(String, String)> {
        self.contestants
            .iter()
            .map(|c| (c.name.clone(), c.kind.command().to_string()))
            .collect()
    }

    fn manifest_path(&self) -> PathBuf {
        self.out.join(format!("{}.json", self.kind.label()))
    }

    fn records_path(&self) -> PathBuf {
        self.out.join("records.jsonl")
    }

    /// The schedule: a round robin, or a gauntlet of the first agent.
    fn schedule(&self) -> RoundRobin {
        let names: Vec<&str> = self.contestants.iter().map(|c| c.name.as_str()).collect();
        if self.gauntlet {
            RoundRobin::gauntlet(&names, self.games)
        } else {
            RoundRobin::new(&names, self.games)
        }
    }

    fn view<'a>(&'a self, ids: &'a [(String, String)]) -> RunView<'a> {
        RunView {
            kind: self.kind.label(),
            game: &self.game,
            ids,
            gauntlet: self.gauntlet,
        }
    }
}

/// Runs a match or tournament; returns the process exit code (130 when interrupted).
pub fn run(mut plan: RunPlan) -> Result<i32, String> {
    signals::install();
    let rr = plan.schedule();
    let total = rr.total_in(plan.shard).ok_or_else(|| {
        format!(
            "--games {} with {} agents is more games than can be counted; choose fewer",
            plan.games,
            plan.contestants.len()
        )
    })?;
    for_game!(&plan.game, |G| plan.starts.check::<G>())?;
    // Held until the run ends: a second referee on this --out is refused.
    let _lock = crate::outdir::lock(&plan.out)?;
    let recs = open_out(&plan)?;
    let seen = check_records(&rr, &recs, &plan.records_path())?;
    let left = total.saturating_sub(recs.len() as u64);
    if plan.resume {
        eprintln!("referee: resuming: {} of {total} games already played", recs.len());
    }
    plan.rules.sandbox = crate::sandbox::install(&plan.sandbox, &plan.out)?;
    let shard = plan.shard;
    let mut jobs = rr
        .jobs()
        .filter(move |j| shard.is_none_or(|s| s.has_pair(j.pair as usize)))
        .filter(|j| !seen.contains(&j.key))
        .peekable();
    if plan.calibrate && left > 0 {
        schedule::calibrate(&mut plan.contestants, &plan.out, &plan.rules.sandbox, &signals::STOP)?;
    }
    if let Some(first) = jobs.peek().cloned() {
        for_game!(&plan.game, |G| check_before_games::<G>(&plan, &first))?;
    }
    let cfg = RunConfig {
        contestants: &plan.contestants,
        time: plan.time.clone(),
        rules: plan.rules.clone(),
        starts: plan.starts.clone(),
        out: plan.out.clone(),
        concurrency: concurrency(plan.concurrency, left),
        keep_dirs: plan.keep_dirs,
    };
    let id = plan.ids();
    let mut live = Live {
        progress: Progress::new(total, recs.len() as u64),
        view: plan.view(&id),
        rr: &rr,
        total,
        recs,
        played: 0,
        sprt_test: plan.sprt,
        sprt: None,
        results: plan.results.clone(),
        time: &plan.time,
        records: plan.records_path(),
        results_error: None,
    };
    let outcome = for_game!(&plan.game, |G| schedule::run_jobs::<G>(
        &cfg,
        &mut jobs,
        &signals::STOP,
        &mut |rec| live.on_game(rec)
    ));
    live.progress.finish();
    outcome?;
    let shard = plan.shard.map(|s| format!(", shard {s}")).unwrap_or_default();
    live.report(&shard)?;
    if signals::stopped() {
        eprintln!(
            "referee: interrupted; games in progress were discarded. To resume:\n  {}",
            resume_command(&plan.out)
        );
        return Ok(130);
    }
    Ok(0)
}

/// Before the first game: the opening suite fits the game, and each agent
/// makes one legal move from the first start position (pre-flight), so a
/// broken agent or suite stops the run at once.
fn check_before_games<G: FileGame>(plan: &RunPlan, first: &Job) -> Result<(), String> {
    if let Some(o) = &plan.starts.openings {
        if let Openings::Files(list) = &**o {
            openings::check::<G>(list)?;
        }
    }
    if !plan.preflight {
        return Ok(());
    }
    let (start, _) = plan.starts.position::<G>(first)?;
    preflight::check_all(
        &plan.contestants,
        &plan.time,
        &start,
        &plan.rules,
        &plan.out.join("preflight"),
    )
}

/// Creates `out` and returns the games already recorded there: none for a
/// new run (a directory holding records is refused), those of the
/// interrupted run for `--resume` (whose manifest must match).
fn open_out(plan: &RunPlan) -> Result<Vec<GameRecord>, String> {
    let out = &plan.out;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let manifest = plan.manifest();
    let manifest_path = plan.manifest_path();
    let records_path = plan.records_path();
    if plan.resume {
        let text = std::fs::read_to_string(&manifest_path)
            .map_err(|e| format!("--resume: cannot read {}: {e}", manifest_path.display()))?;
        let old: Manifest = serde_json::from_str(&text).map_err(|e| {
            format!(
                "--resume: {} is not a {} manifest: {e}",
                manifest_path.display(),
                plan.kind.label()
            )
        })?;
        let changed = crate::outdir::differences(&old.conditions, &manifest.conditions);
        if !old.conditions.is_empty() && !changed.is_empty() {
            return Err(format!(
                "--resume: {} was started under other conditions: {}; rerun with the original options",
                out.display(),
                changed.join("; ")
            ));
        }
        if (&old.game, &old.agents, old.games) != (&manifest.game, &manifest.agents, manifest.games) {
            return Err(format!(
                "--resume: {} was started with a different game, agents or --games (game {}, {} games per pairing, agents {}); rerun with the original arguments",
                out.display(),
                old.game,
                old.games,
                old.agents.iter().map(|(n, c)| format!("{n}={c}")).collect::<Vec<_>>().join(", ")
            ));
        }
        return record::load(&records_path, true);
    }
    if std::fs::metadata(&records_path).map(|m| m.len() > 0).unwrap_or(false) {
        return Err(format!(
            "{} already holds game records: add --resume to continue that {}, or choose another --out",
            out.display(),
            plan.kind.label()
        ));
    }
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest_path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    Ok(Vec::new())
}

/// Every recorded game belongs to the schedule, once; returns their keys.
fn check_records(rr: &RoundRobin, recs: &[GameRecord], path: &Path) -> Result<HashSet<String>, String> {
    let mut seen = HashSet::new();
    for r in recs {
        if rr.job_of(&r.key).is_none() {
            return Err(format!(
                "{} holds a game {:?} that is not part of this run",
                path.display(),
                r.key
            ));
        }
        if !seen.insert(r.key.clone()) {
            return Err(format!("{} holds game {:?} twice", path.display(), r.key));
        }
    }
    Ok(seen)
}

/// Games at once: never more than the games left (no idle threads), with a
/// warning when agents will compete for the machine's cores.
fn concurrency(asked: usize, left: u64) -> usize {
    let n = asked.min(usize::try_from(left).unwrap_or(usize::MAX)).max(1);
    if let Ok(cores) = std::thread::available_parallelism() {
        if n > cores.get() {
            eprintln!(
                "referee: warning: {n} games at once on {} cores; agents share the cores (CPU time is still charged exactly, but wall-clock limits come sooner)",
                cores.get()
            );
        }
    }
    n
}

/// This process's command line with `--resume` (and `--out`) added.
fn resume_command(out: &Path) -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|x| x == "--resume") {
        args.push("--resume".into());
    }
    if !args.iter().any(|x| x == "--out" || x.starts_with("--out=")) {
        args.push("--out".into());
        args.push(out.display().to_string());
    }
    args.iter().map(|s| shell_quote(s)).collect::<Vec<_>>().join(" ")
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_commands_quote_what_the_shell_would_split() {
        assert_eq!(shell_quote("--out"), "--out");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn concurrency_never_exceeds_the_games_left() {
        assert_eq!(concurrency(8, 3), 3);
        assert_eq!(concurrency(1, u64::MAX), 1);
        assert_eq!(concurrency(usize::MAX, 2), 2);
    }
}

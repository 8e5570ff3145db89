//! `referee tournament --format swiss`: round by round, each paired from
//! the games of the rounds before ([`crate::schedule::swiss`]) and played
//! `--concurrency` at a time, then the final round robin of the top agents.
//!
//! Resuming recomputes every round's pairing from the records of the
//! rounds before it, so it comes out as the interrupted run paired it; the
//! run directory's `rounds.json` (written as each round is paired) must
//! agree, and a record that is not a game of its round is refused. The
//! first round still short of games is finished first, game for game.
//!
//! `--round N` (with `--shard K/M`: its shard of the round) ends the run
//! with round N; the rounds before come from `--after` (a merge of round
//! N-1's shards), copied in when the run starts, and must be whole.

use super::manifest::{check_records_by, not_of_this_run, open_out, read_after};
use super::{announce, concurrency, config, finish, prepare, RunPlan};
use crate::cli::plan::SwissPlan;
use crate::output::record::{self, GameRecord};
use crate::report::results::RunView;
use crate::report::swiss::{self as view, RoundView, SwissView};
use crate::run::live::Live;
use crate::run::progress::Progress;
use crate::schedule::shard::Shard;
use crate::schedule::swiss::{Round, Stage, Swiss};
use crate::schedule::{self, Job, RunConfig};
use crate::signals;
use agent::FileGame;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Runs the Swiss `sw` of `plan`; returns the exit code (130 when stopped).
pub(super) fn run<G: FileGame>(mut plan: RunPlan, sw: SwissPlan) -> Result<i32, String> {
    let shape = Swiss {
        names: plan.contestants.iter().map(|c| c.name.clone()).collect(),
        games: plan.games,
        rounds: sw.rounds,
        finalists: sw.finalists,
    };
    let total = shape
        .total()
        .ok_or_else(|| format!("--games {} is more games than can be counted; choose fewer", plan.games))?;
    // Held until the run ends: a second referee on this --out is refused.
    let _lock = crate::run::outdir::lock(&plan.out)?;
    let recs = open_swiss(&plan, &sw, &shape)?;
    // `--round N` plays up to round N, and N's games of its shard only.
    let only = sw.round.map(|n| (n, plan.shard));
    let total = match only {
        Some((n, shard)) => round_total(&shape, n, shard, &recs)?,
        None => total,
    };
    let last = sw.round.unwrap_or(shape.rounds);
    let belongs = |key: &str| match Stage::of(key) {
        Some(Stage::Round(r)) => (1..=last).contains(&r),
        Some(Stage::Final) => shape.finalists > 0 && only.is_none(),
        None => false,
    };
    let seen = check_records_by(belongs, &recs, &plan.records_path(), &plan.game)?;
    let stored = if plan.resume {
        view::load_rounds(&rounds_path(&plan.out))?
    } else {
        Vec::new()
    };
    announce(&plan, recs.len(), total);
    // Round 1 is paired from nothing: its first game's start serves the
    // calibration and the pre-flight.
    let round1 = shape.pair(1, &shape.entrants(&[], &[]))?;
    let first = (seen.len() < total as usize)
        .then(|| shape.jobs(&round1).into_iter().next())
        .flatten();
    prepare::<G>(&mut plan, first.as_ref())?;
    let left = total.saturating_sub(recs.len() as u64);
    let mut cfg = config(&plan, concurrency(plan.concurrency, left));
    let ids = plan.ids();
    let mut live = Live {
        progress: Progress::new(total, recs.len() as u64),
        view: RunView {
            swiss: Some(SwissView {
                rounds_planned: shape.rounds,
                bye_points: plan.games as f64,
                ..SwissView::default()
            }),
            ..plan.view(&ids)
        },
        rr: None,
        total,
        recs: recs.into(),
        played: 0,
        sprt_test: None,
        sprt: None,
        results: plan.results.clone(),
        time: &plan.time,
        records: plan.records_path(),
        results_error: None,
        // No SPRT in a Swiss: the repeat check never applies.
        varied_starts: true,
        refused: None,
        results_due: None,
    };
    let mut rounds = Rounds {
        shape: &shape,
        plan: &plan,
        stored,
        paired: Vec::new(),
        only,
    };
    let outcome = rounds.play::<G>(&mut cfg, &mut live);
    let note = match only {
        Some((n, Some(s))) => format!(", round {n}, shard {s}"),
        Some((n, None)) => format!(", round {n}"),
        None => String::new(),
    };
    finish(&mut live, outcome, &note, &plan.out)
}

/// The games already recorded in the run directory; a `--round N` run
/// started afresh records first the rounds before, from where they were
/// played (`--after`), once it is sure they are whole: a refused start
/// leaves nothing behind.
fn open_swiss(plan: &RunPlan, sw: &SwissPlan, shape: &Swiss) -> Result<Vec<GameRecord>, String> {
    let (Some(n), Some(prev), false) = (sw.round, &sw.after, plan.resume) else {
        return open_out(plan);
    };
    let before = read_after(plan, prev, n)?;
    if let Some(r) = unfinished_round(shape, n, &before)? {
        return Err(format!(
            "round {r} is unfinished in {}: --round {n} pairs from every game of the rounds before it; merge all of round {r}'s shards (referee merge) and give that directory as --after",
            prev.display()
        ));
    }
    open_out(plan)?;
    let path = plan.records_path();
    for r in &before {
        record::append(&path, r).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(before)
}

/// The first of rounds 1 to n-1 of which `recs` lack a game, if any.
fn unfinished_round(shape: &Swiss, n: u32, recs: &[GameRecord]) -> Result<Option<u32>, String> {
    let keys: HashSet<&str> = recs.iter().map(|r| r.key.as_str()).collect();
    let mut paired = Vec::new();
    for number in 1..n {
        let round = shape.pair(number, &shape.entrants(&paired, recs))?;
        if shape.jobs(&round).iter().any(|j| !keys.contains(j.key.as_str())) {
            return Ok(Some(number));
        }
        paired.push(round);
    }
    Ok(None)
}

/// The games a `--round n` run (of `shard`) records: every game of the
/// rounds before, and its part of round n.
fn round_total(shape: &Swiss, n: u32, shard: Option<Shard>, recs: &[GameRecord]) -> Result<u64, String> {
    let mut paired = Vec::new();
    let mut total = 0;
    for number in 1..=n {
        let round = shape.pair(number, &shape.entrants(&paired, recs))?;
        let jobs = shape.jobs(&round);
        total += jobs
            .iter()
            .filter(|j| number < n || shard.is_none_or(|s| s.has_pair(j.pair as usize)))
            .count() as u64;
        paired.push(round);
    }
    Ok(total)
}

/// Where the rounds are written as they are paired.
fn rounds_path(out: &Path) -> PathBuf {
    out.join("rounds.json")
}

/// The rounds of a run as they are paired and played.
struct Rounds<'a> {
    shape: &'a Swiss,
    plan: &'a RunPlan,
    /// The rounds `rounds.json` held when the run resumed.
    stored: Vec<RoundView>,
    /// The rounds paired so far.
    paired: Vec<Round>,
    /// `--round N` (and `--shard`): the run ends with its part of round N.
    only: Option<(u32, Option<Shard>)>,
}

impl Rounds<'_> {
    /// Pairs and plays every round, then the final; stops early (`Ok`)
    /// when the run is interrupted.
    fn play<G: FileGame>(&mut self, cfg: &mut RunConfig<'_>, live: &mut Live<'_>) -> Result<(), String> {
        for number in 1..=self.shape.rounds {
            let records = live.recs.records();
            let round = self.shape.pair(number, &self.shape.entrants(&self.paired, &records))?;
            self.record_round(&round, live)?;
            let jobs = self.shape.jobs(&round);
            let mut left = self.left(&jobs, &records, Stage::Round(number))?;
            self.paired.push(round);
            if let Some((_, shard)) = self.only.filter(|&(n, _)| number >= n) {
                left.retain(|j| shard.is_none_or(|s| s.has_pair(j.pair as usize)));
                return play_batch::<G>(cfg, live, left, self.plan.concurrency).map(|_| ());
            }
            if self.only.is_some() && !left.is_empty() {
                return Err(format!(
                    "round {number} is unfinished in {}: --round pairs from every game of the rounds before it; merge all of round {number}'s shards (referee merge) and give that directory as --after",
                    self.plan.records_path().display()
                ));
            }
            if !play_batch::<G>(cfg, live, left, self.plan.concurrency)? {
                return Ok(());
            }
        }
        if self.shape.finalists == 0 {
            return Ok(());
        }
        let records = live.recs.records();
        let sw = live.view.swiss.as_mut().ok_or("a Swiss run reports as a Swiss")?;
        // Chosen from the rounds' games only, so a resumed final (some of
        // its games recorded) has the same agents.
        let (rows, _) = view::standings(sw, live.view.ids, &records, self.plan.anchor.as_deref());
        let top: Vec<usize> = rows.iter().take(self.shape.finalists).map(|r| r.seed - 1).collect();
        sw.finalist_names = top.iter().map(|&i| self.shape.names[i].clone()).collect();
        let rr = self.shape.final_schedule(&top);
        let jobs: Vec<Job> = rr.jobs().collect();
        let left = self.left(&jobs, &records, Stage::Final)?;
        play_batch::<G>(cfg, live, left, self.plan.concurrency).map(|_| ())
    }

    /// Checks a round just paired against `rounds.json` of the run being
    /// resumed, warns when it could not keep first moves balanced, and
    /// writes it to `rounds.json`.
    fn record_round(&self, round: &Round, live: &mut Live<'_>) -> Result<(), String> {
        let names = &self.shape.names;
        let shown = RoundView {
            round: round.number,
            boards: round
                .boards
                .iter()
                .map(|&(a, b)| [names[a].clone(), names[b].clone()])
                .collect(),
            bye: round.bye.map(|b| names[b].clone()),
            colours_relaxed: round.colours_relaxed,
        };
        let path = rounds_path(&self.plan.out);
        if let Some(old) = self.stored.get(round.number as usize - 1) {
            if *old != shown {
                return Err(format!(
                    "--resume: round {} pairs differently from {} ({:?} then, {:?} now): the records in {} are not those the rounds were paired from; start a new --out",
                    round.number,
                    path.display(),
                    old.boards,
                    shown.boards,
                    self.plan.records_path().display()
                ));
            }
        }
        if round.colours_relaxed {
            eprintln!(
                "referee: warning: round {}: no pairing without a rematch keeps every agent's first moves within one of its second moves; this round lets that go",
                round.number
            );
        }
        let sw = live.view.swiss.as_mut().ok_or("a Swiss run reports as a Swiss")?;
        sw.rounds.push(shown);
        view::write_rounds(&path, &sw.rounds)
    }

    /// The games of `jobs` (those of `stage`) not yet recorded. Refused: a
    /// recorded game of `stage` that is not among them, or a game of a
    /// later stage while this one is unfinished.
    fn left(&self, jobs: &[Job], records: &[GameRecord], stage: Stage) -> Result<Vec<Job>, String> {
        let path = self.plan.records_path();
        let keys: HashSet<&str> = jobs.iter().map(|j| j.key.as_str()).collect();
        let mut done = HashSet::new();
        for r in records {
            match Stage::of(&r.key) {
                Some(s) if s == stage && !keys.contains(r.key.as_str()) => return Err(not_of_this_run(&path, &r.key)),
                Some(s) if s == stage => {
                    done.insert(r.key.as_str());
                }
                _ => {}
            }
        }
        let left: Vec<Job> = jobs
            .iter()
            .filter(|j| !done.contains(j.key.as_str()))
            .cloned()
            .collect();
        if let Some(later) = records.iter().find(|r| Stage::of(&r.key) > Some(stage)) {
            if !left.is_empty() {
                let what = match stage {
                    Stage::Round(r) => format!("round {r}"),
                    Stage::Final => "the final".to_string(),
                };
                return Err(format!(
                    "{} holds game {:?}, played after {what}, which is unfinished: the rounds were not paired from these records; start a new --out",
                    path.display(),
                    later.key
                ));
            }
        }
        Ok(left)
    }
}

/// Plays `jobs` (at most `asked` at once); false when the run was stopped.
fn play_batch<G: FileGame>(
    cfg: &mut RunConfig<'_>,
    live: &mut Live<'_>,
    jobs: Vec<Job>,
    asked: usize,
) -> Result<bool, String> {
    if !jobs.is_empty() {
        cfg.concurrency = asked.min(jobs.len()).max(1);
        schedule::run_jobs::<G>(cfg, jobs.into_iter(), &signals::STOP, &mut |rec| live.on_game(rec))?;
    }
    Ok(!signals::stopped())
}

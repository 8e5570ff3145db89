//! `referee match` and `referee tournament`: both are round robins (a match
//! is the round robin of two agents), run by one code path: the manifest
//! and `--resume`, the lazy schedule, progress, the SPRT stop, the table
//! and the JSON results. The run directory's manifest and `--resume` are in
//! `manifest`.

mod manifest;
mod swiss;

pub(crate) use crate::cli::plan::RunPlan;
use crate::for_game;
use crate::game::Rules;
use crate::report::results::RunView;
use crate::run::live::Live;
use crate::run::preflight;
use crate::run::progress::Progress;
use crate::schedule::openings;
use crate::schedule::roundrobin::RoundRobin;
use crate::schedule::starts::Openings;
use crate::schedule::{self, Job, Kept, RunConfig};
use crate::signals;
use agent::FileGame;
use manifest::{check_records, open_out, resume_command};
use std::path::PathBuf;

impl RunPlan {
    /// `(name, command)` of every contestant.
    fn ids(&self) -> Vec<(String, String)> {
        self.contestants
            .iter()
            .map(|c| (c.name.clone(), c.kind.command().to_string()))
            .collect()
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
            anchor: self.anchor.as_deref(),
            swiss: None,
        }
    }
}

/// `--calibrate`: each agent's calibration, given the first game's start.
fn calibrate<G: FileGame>(plan: &mut RunPlan, first: &Job) -> Result<(), String> {
    let (start, _) = plan.starts.position::<G>(first.pair, first.number)?;
    let input = start.write_input(plan.rules.mode, plan.time[first.a]);
    schedule::calibrate(
        &mut plan.contestants,
        &plan.out,
        &input,
        &plan.rules.sandbox,
        &signals::STOP,
    )
}

/// The run's first line: the game, the agents in order (a gauntlet's
/// centre named), the games per pairing and every agent's clock, so time
/// odds show before the first game.
fn headline(plan: &RunPlan) -> String {
    let names: Vec<&str> = plan.contestants.iter().map(|c| c.name.as_str()).collect();
    let who = if plan.gauntlet {
        format!("gauntlet: {} plays each of {}", names[0], names[1..].join(", "))
    } else if let Some(sw) = &plan.swiss {
        let fin = match sw.finalists {
            0 => String::new(),
            k => format!(", then a round robin of the top {k}"),
        };
        format!("a Swiss of {} agents over {} rounds{fin}", names.len(), sw.rounds)
    } else {
        names.join(" vs ")
    };
    let clocks: Vec<f64> = plan.time.clone();
    let clock = if clocks.iter().all(|t| *t == clocks[0]) {
        format!("{} s each", clocks[0])
    } else {
        let each: Vec<String> = names.iter().zip(&clocks).map(|(n, t)| format!("{n} {t} s")).collect();
        format!("time odds: {}", each.join(", "))
    };
    let games = match plan.sprt {
        Some(_) => format!("until the SPRT decides (at most {} games)", plan.games),
        None => format!("{} games per pairing", plan.games),
    };
    format!(
        "{} {}: {who}; {games}; {clock} of CPU per game",
        plan.game,
        plan.kind.label()
    )
}

/// Runs a match or tournament; returns the process exit code (130 when
/// interrupted). The one place the game's name becomes its type: all below
/// is generic over the game.
pub(crate) fn run(plan: RunPlan) -> Result<i32, String> {
    let game = plan.game.clone();
    for_game!(&game, |G| run_game::<G>(plan))
}

/// [`run`] for the game `G`.
fn run_game<G: FileGame>(mut plan: RunPlan) -> Result<i32, String> {
    signals::install();
    plan.starts.check::<G>()?;
    if let Some(sw) = plan.swiss.clone() {
        return swiss::run::<G>(plan, sw);
    }
    let rr = plan.schedule();
    let total = rr.total_in(plan.shard).ok_or_else(|| {
        format!(
            "--games {} with {} agents is more games than can be counted; choose fewer",
            plan.games,
            plan.contestants.len()
        )
    })?;
    // Held until the run ends: a second referee on this --out is refused.
    let _lock = crate::run::outdir::lock(&plan.out)?;
    let recs = open_out(&plan)?;
    let seen = check_records(&rr, &recs, &plan.records_path(), &plan.game)?;
    let left = total.saturating_sub(recs.len() as u64);
    announce(&plan, recs.len(), total);
    let shard = plan.shard;
    let mut jobs = rr
        .jobs()
        .filter(move |j| shard.is_none_or(|s| s.has_pair(j.pair as usize)))
        .filter(|j| !seen.contains(&j.key))
        .peekable();
    let first = jobs.peek().cloned();
    prepare::<G>(&mut plan, first.as_ref())?;
    let cfg = config(&plan, concurrency(plan.concurrency, left));
    let id = plan.ids();
    let mut live = Live {
        progress: Progress::new(total, recs.len() as u64),
        view: plan.view(&id),
        rr: Some(&rr),
        total,
        recs: recs.into(),
        played: 0,
        sprt_test: plan.sprt,
        sprt: None,
        results: plan.results.clone(),
        time: &plan.time,
        records: plan.records_path(),
        results_error: None,
        varied_starts: plan.starts.openings.is_some() || plan.starts.varies::<G>(),
        refused: None,
        results_due: None,
    };
    let outcome = schedule::run_jobs::<G>(&cfg, &mut jobs, &signals::STOP, &mut |rec| live.on_game(rec));
    let shard = plan.shard.map(|s| format!(", shard {s}")).unwrap_or_default();
    finish(&mut live, outcome.map(|_| ()), &shard, &plan.out)
}

/// The lines before the first game: how far a resumed run is, and the
/// headline.
fn announce(plan: &RunPlan, recorded: usize, total: u64) {
    if plan.resume {
        eprintln!("referee: resuming: {recorded} of {total} games already played");
    }
    eprintln!("referee: {}", headline(plan));
}

/// Before the first game: the sandbox, and when a game is left to play
/// (`first`), the calibration and the pre-flight from its start.
fn prepare<G: FileGame>(plan: &mut RunPlan, first: Option<&Job>) -> Result<(), String> {
    plan.rules.sandbox = crate::process::sandbox::install(&plan.sandbox, &plan.out)?;
    let Some(first) = first else { return Ok(()) };
    if plan.calibrate {
        calibrate::<G>(plan, first)?;
    }
    check_before_games::<G>(plan, first)
}

/// The settings every game of the run shares, `concurrency` at once.
fn config(plan: &RunPlan, concurrency: usize) -> RunConfig<'_> {
    RunConfig {
        contestants: &plan.contestants,
        time: plan.time.clone(),
        rules: Rules {
            keep_dirs: plan.keep_dirs,
            ..plan.rules.clone()
        },
        starts: plan.starts.clone(),
        out: plan.out.clone(),
        concurrency,
        keep_dirs: plan.keep_dirs,
        kept: Kept::new(&plan.out.join("games"), plan.keep_forfeits),
    }
}

/// After the last game (or a stop): the tables and results, and the
/// command that resumes an interrupted run (exit code 130).
fn finish(live: &mut Live<'_>, outcome: Result<(), String>, note: &str, out: &std::path::Path) -> Result<i32, String> {
    live.progress.finish();
    outcome?;
    if let Some(why) = live.refused.take() {
        return Err(why);
    }
    live.report(note)?;
    if signals::stopped() {
        eprintln!(
            "referee: interrupted; games in progress were discarded. To resume:\n  {}",
            resume_command(out)
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
    let (start, _) = plan.starts.position::<G>(first.pair, first.number)?;
    preflight::check_all(
        &plan.contestants,
        &plan.time,
        &start,
        &plan.rules,
        &plan.out.join("preflight"),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_never_exceeds_the_games_left() {
        assert_eq!(concurrency(8, 3), 3);
        assert_eq!(concurrency(1, u64::MAX), 1);
        assert_eq!(concurrency(usize::MAX, 2), 2);
    }
}

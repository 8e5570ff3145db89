//! A run while it plays: each finished game is logged, counted into the
//! SPRT and the results file; at the end, the tables.

use crate::output::record::GameRecord;
use crate::process::signals;
use crate::run::progress::{self, Progress};
use crate::run::roundrobin::RoundRobin;
use crate::stats::results::{self, RunView};
use crate::stats::sprt::Sprt;
use crate::stats::summary::{self, AgentSummary, SprtReport};
use std::path::PathBuf;

/// A run in progress: what each finished game updates.
pub struct Live<'a> {
    /// The run's kind, game and agents.
    pub view: RunView<'a>,
    /// Its schedule (numbers the games in the log).
    pub rr: &'a RoundRobin,
    /// Games planned (this shard's).
    pub total: u64,
    /// Games recorded, those of a resumed run first.
    pub recs: Vec<GameRecord>,
    /// Games recorded by this invocation.
    pub played: usize,
    /// The SPRT asked for, if any.
    pub sprt_test: Option<Sprt>,
    /// Its state after the last game.
    pub sprt: Option<SprtReport>,
    /// The JSON results file, if asked for.
    pub results: Option<PathBuf>,
    /// CPU seconds per game by agent.
    pub time: &'a [f64],
    /// The records file.
    pub records: PathBuf,
    /// The log and the progress bar.
    pub progress: Progress,
    /// The first failure to write the results file (reported at the end).
    pub results_error: Option<String>,
}

impl Live<'_> {
    /// Logs a finished game, updates the SPRT and the results file; true
    /// when the SPRT has decided (no new game starts).
    pub fn on_game(&mut self, rec: &GameRecord) -> bool {
        self.recs.push(rec.clone());
        self.played += 1;
        let s = summary::summarize(self.view.ids, &self.recs);
        // Games are numbered from 1 in schedule order.
        let number = self
            .rr
            .job_of(&rec.key)
            .map(|j| j.pair * 2 + j.number % 2 + 1)
            .unwrap_or(0);
        self.progress.game_finished(
            &progress::finished_line(number, rec, rec.run.opening.as_deref()),
            &status(&s),
        );
        let decided = self.sprt_test.as_ref().is_some_and(|t| {
            let rep = summary::sprt_report(t, summary::pentanomial(&s[0].name, &self.recs, results::pair_of));
            let d = rep.decision != "continue";
            self.sprt = Some(rep);
            d
        });
        if let Some(path) = &self.results {
            let res = self.results_now();
            if let Err(e) = results::write(path, &res) {
                self.results_error.get_or_insert(e);
            }
        }
        decided
    }

    fn results_now(&self) -> results::Results<'_> {
        results::results(
            &self.view,
            &self.recs,
            self.total,
            self.played,
            self.time,
            self.sprt.clone(),
            &self.records,
        )
    }

    /// Prints the tables (and SPRT) and writes the final JSON results;
    /// `shard` is appended to the heading.
    pub fn report(&self, shard: &str) -> Result<(), String> {
        if let Some(e) = &self.results_error {
            eprintln!("referee: warning: {e}");
        }
        println!(
            "{} {}: {} of {} games recorded ({} this run{shard}; records: {})",
            self.view.game,
            self.view.kind,
            self.recs.len(),
            self.total,
            self.played,
            self.records.display()
        );
        print!("{}", results::tables(&self.view, &self.recs));
        if let Some(r) = &self.sprt {
            println!("{}", results::sprt_line(r));
        }
        let Some(path) = &self.results else {
            return Ok(());
        };
        let mut res = self.results_now();
        res.interrupted = signals::stopped();
        res.finished = !res.interrupted;
        results::write(path, &res)
    }
}

/// The progress bar's status: the score for two agents, else the leader.
fn status(s: &[AgentSummary]) -> String {
    if let [a, b] = s {
        return format!("{} {} - {} {}  draws {}", a.name, a.wins, b.wins, b.name, a.draws);
    }
    let lead = s
        .iter()
        .max_by(|x, y| x.score_pct.total_cmp(&y.score_pct))
        .map(|x| x.name.as_str())
        .unwrap_or_default();
    format!("leader {lead}")
}

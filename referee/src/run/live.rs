//! A run while it plays: each finished game is logged, counted into the
//! SPRT and the results file; at the end, the tables.

use crate::output::record::{Ending, GameRecord, LossReason};
use crate::report::results::{self, RunView};
use crate::run::progress::{self, Progress};
use crate::schedule::roundrobin::RoundRobin;
use crate::signals;
use crate::stats::sprt::Sprt;
use crate::stats::summary::{self, SprtReport};
use std::path::PathBuf;

/// A run in progress: what each finished game updates.
pub(crate) struct Live<'a> {
    /// The run's kind, game and agents.
    pub view: RunView<'a>,
    /// Its schedule, which numbers the games in the log (a Swiss's are
    /// numbered as they finish).
    pub rr: Option<&'a RoundRobin>,
    /// Games planned (this shard's).
    pub total: u64,
    /// Games recorded, those of a resumed run first.
    pub recs: Played,
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
    /// The start positions vary between pairs (`--openings`, or a game
    /// whose boards are drawn per pair): else an SPRT checks that the
    /// pairs do not all repeat the first.
    pub varied_starts: bool,
    /// Why the run was stopped before its end, if it was refused.
    pub refused: Option<String>,
    /// When the results file is next rewritten (`None`: after the next game).
    pub results_due: Option<std::time::Instant>,
}

impl Live<'_> {
    /// Logs a finished game, updates the SPRT and the results file; true
    /// when the SPRT has decided (no new game starts).
    pub(crate) fn on_game(&mut self, rec: &GameRecord) -> bool {
        self.recs.push(rec);
        self.played += 1;
        // Whole summaries only where asked for (SPRT, results file): each
        // builds every game's record for a moment.
        let wanted = self.sprt_test.is_some() || self.results.is_some();
        let recs = if wanted { self.recs.records() } else { Vec::new() };
        // Games are numbered from 1 in schedule order.
        let number = match self.rr {
            Some(rr) => rr.job_of(&rec.key).map(|j| j.pair * 2 + j.number % 2 + 1).unwrap_or(0),
            None => self.recs.len() as u64,
        };
        self.progress.game_finished(
            &progress::finished_line(number, rec, rec.run.opening.as_deref()),
            &self.recs.status(self.view.ids),
        );
        if self.sprt_test.is_some() && !self.varied_starts && recs.len() == 4 && repeats(&recs) {
            self.refused = Some(
                "the SPRT stopped after two game pairs that repeat each other move for move: both agents play the same moves from the same start every time, so more pairs would measure nothing new. Give --openings random:8 (or a file of starts) so that pairs differ".into(),
            );
            return true;
        }
        let decided = self.sprt_test.as_ref().is_some_and(|t| {
            let rep = summary::sprt_report(t, summary::pentanomial(&self.view.ids[0].0, &recs, results::pair_of));
            let d = rep.decision != "continue";
            self.sprt = Some(rep);
            d
        });
        let now = std::time::Instant::now();
        if let (Some(path), true) = (&self.results, self.results_due.is_none_or(|due| now >= due)) {
            let res = self.results_now(&recs);
            if let Err(e) = results::write(path, &res) {
                self.results_error.get_or_insert(e);
            }
            // Fitting the ratings of a field of hundreds takes a while: the
            // file is then rewritten at most once per ten times that, so
            // the games keep at least nine tenths of the referee's time.
            self.results_due = Some(now + now.elapsed() * 9);
        }
        decided
    }

    fn results_now<'r>(&'r self, recs: &'r [GameRecord]) -> results::Results<'r> {
        results::results(
            &self.view,
            recs,
            self.total,
            self.played,
            self.time,
            self.sprt.clone(),
            &self.records,
        )
    }

    /// Prints the tables (and SPRT) and writes the final JSON results;
    /// `shard` is appended to the heading.
    pub(crate) fn report(&self, shard: &str) -> Result<(), String> {
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
        let recs = self.recs.records();
        print!("{}", results::tables(&self.view, &recs));
        if let Some(r) = &self.sprt {
            let name = |i: usize| self.view.ids.get(i).map_or("", |n| n.0.as_str());
            println!("{}", results::sprt_line(r, name(0), name(1)));
        }
        let Some(path) = &self.results else {
            return Ok(());
        };
        let mut res = self.results_now(&recs);
        res.interrupted = signals::stopped();
        res.finished = !res.interrupted;
        results::write(path, &res)
    }
}

/// The games of a run as the tables, the SPRT and the results file need
/// them: who played, who won and how, a few dozen bytes a game. Whole
/// records (moves, commands, directories) are in the records file; kept
/// here they would grow a long run's memory by kilobytes a game.
#[derive(Default)]
pub(crate) struct Played {
    names: Vec<String>,
    games: Vec<Outcome>,
}

struct Outcome {
    key: Box<str>,
    agents: [u32; 2],
    first: usize,
    time: [f64; 2],
    clocks: [f64; 2],
    winner: Option<usize>,
    ending: Ending,
    loss: Option<LossReason>,
}

impl From<Vec<GameRecord>> for Played {
    fn from(recs: Vec<GameRecord>) -> Played {
        let mut p = Played::default();
        for r in &recs {
            p.push(r);
        }
        p
    }
}

impl Played {
    /// Adds a finished game.
    pub(crate) fn push(&mut self, r: &GameRecord) {
        let agents = [0, 1].map(|i| self.name_index(&r.agents[i]));
        self.games.push(Outcome {
            key: r.key.as_str().into(),
            agents,
            first: r.first,
            time: r.time,
            clocks: r.clocks,
            winner: r.winner,
            ending: r.ending,
            loss: r.loss,
        });
    }

    fn name_index(&mut self, name: &str) -> u32 {
        let i = self.names.iter().position(|n| n == name).unwrap_or_else(|| {
            self.names.push(name.to_string());
            self.names.len() - 1
        });
        i as u32
    }

    /// The progress bar's status: the score for two agents (in the order
    /// of `ids`), else the leader.
    fn status(&self, ids: &[(String, String)]) -> String {
        // (wins, draws, games) by name index.
        let mut tally = vec![(0u64, 0u64, 0u64); self.names.len()];
        for g in &self.games {
            for (seat, &a) in g.agents.iter().enumerate() {
                let t = &mut tally[a as usize];
                t.2 += 1;
                match g.winner {
                    None => t.1 += 1,
                    Some(w) if w == seat => t.0 += 1,
                    Some(_) => {}
                }
            }
        }
        let of = |name: &str| {
            self.names
                .iter()
                .position(|n| n == name)
                .map_or((0, 0, 0), |i| tally[i])
        };
        if let [(a, _), (b, _)] = ids {
            let (ta, tb) = (of(a), of(b));
            return format!("{a} {} - {} {b}  draws {}", ta.0, tb.0, ta.1);
        }
        let score = |t: (u64, u64, u64)| (2 * t.0 + t.1) as f64 / t.2.max(1) as f64;
        let lead = ids
            .iter()
            .max_by(|x, y| score(of(&x.0)).total_cmp(&score(of(&y.0))))
            .map(|x| x.0.as_str())
            .unwrap_or_default();
        format!("leader {lead}")
    }

    /// Games so far.
    pub(crate) fn len(&self) -> usize {
        self.games.len()
    }

    /// The games as records holding only those fields (for the moment of
    /// a summary: dropped right after).
    pub(crate) fn records(&self) -> Vec<GameRecord> {
        self.games
            .iter()
            .map(|g| GameRecord {
                key: g.key.to_string(),
                game: String::new(),
                agents: g.agents.map(|i| self.names[i as usize].clone()),
                commands: Default::default(),
                seat_names: Default::default(),
                first: g.first,
                mode: String::new(),
                time: g.time,
                start: String::new(),
                moves: Vec::new(),
                winner: g.winner,
                ending: g.ending,
                loss: g.loss,
                reason: String::new(),
                clocks: g.clocks,
                dirs: Default::default(),
                discarded: Vec::new(),
                run: Default::default(),
            })
            .collect()
    }
}

/// True when the games hold no more than two different games (a start,
/// a first mover and every move): every pair repeats the first.
fn repeats(recs: &[GameRecord]) -> bool {
    let mut seen: Vec<(&str, usize, Vec<&str>)> = Vec::new();
    for r in recs {
        let sig = (
            r.start.as_str(),
            r.first,
            r.moves.iter().map(|m| m.text.as_str()).collect(),
        );
        if !seen.contains(&sig) {
            seen.push(sig);
        }
    }
    seen.len() <= 2
}

//! A Swiss in a run's report: its rounds as paired (also the run
//! directory's `rounds.json`, which `--resume` checks and `referee report`
//! draws), the standings with their tie-breaks, and the final's table and
//! crosstable.

use crate::output::record::GameRecord;
use crate::report::tables::{self, rating_cell};
use crate::schedule::swiss::Stage;
use crate::stats::fit::Ratings;
use crate::stats::summary::{self, AgentSummary};
use crate::stats::swiss::{self, SwissRow};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One round as paired, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RoundView {
    /// 1-based.
    pub round: u32,
    /// `[first-named, second-named]` by board, top board first (the
    /// first-named moves first in the pairing's even games).
    pub boards: Vec<[String; 2]>,
    /// The agent with the bye.
    pub bye: Option<String>,
    /// First moves could not be kept within one per agent this round.
    #[serde(default)]
    pub colours_relaxed: bool,
}

/// A Swiss as its report needs it.
#[derive(Clone, Debug, Default)]
pub(crate) struct SwissView {
    /// Rounds the run plays.
    pub rounds_planned: u32,
    /// What a bye is worth: a win of every game of a pairing.
    pub bye_points: f64,
    /// The rounds paired so far.
    pub rounds: Vec<RoundView>,
    /// The final's agents, once chosen.
    pub finalist_names: Vec<String>,
}

/// The Swiss part of the JSON results.
#[derive(Serialize)]
pub(crate) struct SwissResults {
    /// Rounds the run plays.
    pub rounds_planned: u32,
    /// The rounds paired so far.
    pub rounds: Vec<RoundView>,
    /// Standings after the Swiss rounds' games so far, best first.
    pub standings: Vec<SwissRow>,
    /// The final's agents (best first) and results, once chosen.
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_round: Option<FinalResults>,
}

/// The final round robin in the JSON results.
#[derive(Serialize)]
pub(crate) struct FinalResults {
    /// Its agents, in their Swiss order.
    pub agents: Vec<String>,
    /// Their results in the final (ratings fitted to the final's games).
    pub standings: Vec<AgentSummary>,
}

/// The Swiss rounds' records and the final's, apart.
pub(crate) fn split(recs: &[GameRecord]) -> (Vec<GameRecord>, Vec<GameRecord>) {
    recs.iter()
        .filter(|r| Stage::of(&r.key).is_some())
        .cloned()
        .partition(|r| Stage::of(&r.key) != Some(Stage::Final))
}

/// The standings after the rounds' games in `recs` (the final's left
/// out, so they are those the final was chosen from), and the ratings
/// fitted to those games, 0 at the agent `anchor` (else the mean).
pub(crate) fn standings(
    view: &SwissView,
    ids: &[(String, String)],
    recs: &[GameRecord],
    anchor: Option<&str>,
) -> (Vec<SwissRow>, Ratings) {
    let (rounds, _) = split(recs);
    let byes: Vec<usize> = view
        .rounds
        .iter()
        .filter_map(|r| r.bye.as_ref())
        .filter_map(|b| ids.iter().position(|(n, _)| n == b))
        .collect();
    let ratings = summary::ratings(ids, &rounds, anchor);
    let rows = swiss::standings(ids, &rounds, &byes, view.bye_points, &ratings);
    (rows, ratings)
}

/// The final's agents as `(name, command)`, its records, and its rows.
fn final_rows(view: &SwissView, ids: &[(String, String)], recs: &[GameRecord]) -> Option<FinalResults> {
    if view.finalist_names.is_empty() {
        return None;
    }
    let fids = final_ids(view, ids);
    let (_, fin) = split(recs);
    let ratings = summary::ratings(&fids, &fin, None);
    Some(FinalResults {
        agents: view.finalist_names.clone(),
        standings: summary::standings(&fids, &fin, &ratings),
    })
}

fn final_ids(view: &SwissView, ids: &[(String, String)]) -> Vec<(String, String)> {
    view.finalist_names
        .iter()
        .filter_map(|n| ids.iter().find(|(m, _)| m == n).cloned())
        .collect()
}

/// The Swiss part of the results.
pub(crate) fn results(
    view: &SwissView,
    ids: &[(String, String)],
    recs: &[GameRecord],
    anchor: Option<&str>,
) -> SwissResults {
    SwissResults {
        rounds_planned: view.rounds_planned,
        rounds: view.rounds.clone(),
        standings: standings(view, ids, recs, anchor).0,
        final_round: final_rows(view, ids, recs),
    }
}

/// The terminal tables of a Swiss: the standings with their tie-breaks,
/// the line on the ratings, and the final's table and crosstable.
pub(crate) fn tables(view: &SwissView, ids: &[(String, String)], recs: &[GameRecord], anchor: Option<&str>) -> String {
    let (rows, ratings) = standings(view, ids, recs, anchor);
    let w = rows
        .iter()
        .map(|r| r.name.chars().count())
        .chain([5])
        .max()
        .unwrap_or(5);
    let mut s = format!(
        "Swiss standings after {} of {} rounds: points, then Buchholz (opponents' points), then the rating fitted to the rounds' games\n{:>5} {:<w$} {:>6} {:>8} {:>14} {:>5} {:>4} {:>4} {:>4} {:>4} {:>5}\n",
        view.rounds.len(),
        view.rounds_planned,
        "place",
        "agent",
        "points",
        "Buchholz",
        "Elo (95%)",
        "games",
        "W",
        "L",
        "D",
        "byes",
        "first"
    );
    for r in &rows {
        s.push_str(&format!(
            "{:>5} {:<w$} {:>6} {:>8} {:>14} {:>5} {:>4} {:>4} {:>4} {:>4} {:>5}\n",
            r.place,
            r.name,
            r.points,
            r.buchholz,
            if r.games == 0 {
                "-".to_string()
            } else {
                rating_cell(&r.rating)
            },
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.byes,
            r.moved_first
        ));
    }
    s.push_str(&tables::rating_note(&ratings, ids));
    if let Some(f) = final_rows(view, ids, recs) {
        s.push_str(&format!("\nFinal: a round robin of the top {}\n", f.agents.len()));
        s.push_str(&tables::table(&f.standings));
        let (_, fin) = split(recs);
        s.push_str(&tables::head_to_head(&final_ids(view, ids), &fin));
    }
    s
}

/// The rounds recorded in `path` (none when the file does not exist).
pub(crate) fn load_rounds(path: &Path) -> Result<Vec<RoundView>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not a list of Swiss rounds ({e}); move it aside to pair the rounds again from the records",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Writes the rounds to `path` whole (a temporary file, then a rename).
pub(crate) fn write_rounds(path: &Path, rounds: &[RoundView]) -> Result<(), String> {
    let text = serde_json::to_string_pretty(rounds).map_err(|e| e.to_string())? + "\n";
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

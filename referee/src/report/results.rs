//! A run's results: the tables printed at the end (standings, gauntlet or
//! head-to-head, SPRT) and the JSON results file, written after every game
//! so an unattended run can be read while it plays. Shared by match,
//! tournament and `merge`.

use crate::output::record::GameRecord;
use crate::report::swiss::{self, SwissResults, SwissView};
use crate::report::tables;
use crate::stats::fit::Ratings;
use crate::stats::summary::{self, AgentSummary, SprtReport};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// What a run is, for its report.
pub(crate) struct RunView<'a> {
    /// `match` or `tournament`.
    pub kind: &'a str,
    /// Game name.
    pub game: &'a str,
    /// `(name, command)` of every agent, in order.
    pub ids: &'a [(String, String)],
    /// The first agent plays each other one (standings per opponent).
    pub gauntlet: bool,
    /// The agent whose rating is 0 (else the field's mean), for fitted ratings.
    pub anchor: Option<&'a str>,
    /// A Swiss: its rounds so far (the tables are its standings).
    pub swiss: Option<SwissView>,
}

impl RunView<'_> {
    /// Whether the standings show ratings fitted to every game: a
    /// tournament's do; a two-agent match keeps its own figures (Elo over
    /// the opponent from the score, LOS, the pentanomial SPRT).
    pub(crate) fn fitted(&self) -> bool {
        self.kind != "match"
    }

    /// The fitted ratings of `recs`, when the standings show them.
    pub(crate) fn ratings(&self, recs: &[GameRecord]) -> Option<Ratings> {
        self.fitted().then(|| summary::ratings(self.ids, recs, self.anchor))
    }
}

/// Game-pair counts of one pairing (pentanomial: pairs in which the first
/// agent scored 0, 0.5, 1, 1.5, 2 points).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct PairCounts {
    /// `A-vs-B`.
    pub pairing: String,
    /// The agent whose points are counted (A).
    pub agent: String,
    /// Pairs scoring 0, 0.5, 1, 1.5, 2 points for `agent`.
    pub counts: [u32; 5],
}

/// The JSON results of a run.
#[derive(Serialize)]
pub(crate) struct Results<'a> {
    /// `match` or `tournament`.
    pub kind: &'a str,
    /// Game name.
    pub game: &'a str,
    /// Games in the schedule (this shard's, when sharded).
    pub games_planned: u64,
    /// Games recorded.
    pub games_played: usize,
    /// Games recorded by this invocation (the rest came from `--resume`).
    pub games_this_run: usize,
    /// True while the run is still playing or after it was interrupted.
    pub finished: bool,
    /// True after SIGINT/SIGTERM.
    pub interrupted: bool,
    /// CPU seconds per game by agent.
    pub time: &'a [f64],
    /// How the ratings in `agents` were fitted and what 0 is (tournaments).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<String>,
    /// Standings.
    pub agents: Vec<AgentSummary>,
    /// Gauntlet: the first agent's results against each opponent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gauntlet: Option<Vec<AgentSummary>>,
    /// Pentanomial counts per pairing (complete pairs only).
    pub pentanomial: Vec<PairCounts>,
    /// A Swiss: its rounds, standings and final.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swiss: Option<SwissResults>,
    /// The SPRT, if one was asked for.
    pub sprt: Option<SprtReport>,
    /// The records file.
    pub records: String,
}

/// The pairing and game number of a record (`A-vs-B-g0007`).
pub(crate) fn pair_of(r: &GameRecord) -> Option<(String, usize)> {
    let (pairing, n) = r.key.rsplit_once("-g")?;
    Some((pairing.to_string(), n.parse::<usize>().ok()?))
}

/// Pentanomial counts of every pairing that has records: a round robin's
/// in agent order, a Swiss's in key order, each for the agent who moves
/// first in the pairing's even games.
pub(crate) fn pentanomial(view: &RunView<'_>, recs: &[GameRecord]) -> Vec<PairCounts> {
    // Records by pairing, in one pass: a field of hundreds has many pairings.
    let mut by: BTreeMap<String, Vec<GameRecord>> = BTreeMap::new();
    for r in recs {
        if let Some((p, _)) = pair_of(r) {
            by.entry(p).or_default().push(r.clone());
        }
    }
    let counts = |pairing: String, agent: &str, mine: &[GameRecord]| PairCounts {
        counts: summary::pentanomial(agent, mine, pair_of),
        pairing,
        agent: agent.to_string(),
    };
    if view.swiss.is_some() {
        return by
            .iter()
            .filter_map(|(pairing, mine)| {
                let even = mine.iter().find(|r| pair_of(r).is_some_and(|(_, n)| n % 2 == 0))?;
                Some(counts(pairing.clone(), &even.agents[even.first.min(1)], mine))
            })
            .collect();
    }
    let mut out = Vec::new();
    for (i, (a, _)) in view.ids.iter().enumerate() {
        for (b, _) in view.ids.iter().skip(i + 1) {
            if view.gauntlet && i > 0 {
                continue;
            }
            let pairing = format!("{a}-vs-{b}");
            if let Some(mine) = by.get(&pairing) {
                out.push(counts(pairing, a, mine));
            }
        }
    }
    out
}

/// The tables of a run: standings; with a gauntlet, the first agent's
/// results per opponent; with three or more agents in a round robin, the
/// head-to-head matrix.
pub(crate) fn tables(view: &RunView<'_>, recs: &[GameRecord]) -> String {
    if let Some(sw) = &view.swiss {
        return swiss::tables(sw, view.ids, recs, view.anchor);
    }
    let ratings = view.ratings(recs);
    let mut s = match &ratings {
        Some(r) => tables::table(&summary::standings(view.ids, recs, r)) + &tables::rating_note(r, view.ids),
        None => tables::table(&summary::summarize(view.ids, recs)),
    };
    if view.gauntlet {
        let base = &view.ids[0].0;
        s.push('\n');
        let rows = summary::gauntlet(base, view.ids, recs, ratings.as_ref());
        s.push_str(&tables::gauntlet_table(base, &rows));
    } else if view.ids.len() > 2 {
        s.push('\n');
        s.push_str(&tables::head_to_head(view.ids, recs));
    }
    s
}

/// The SPRT line under the tables.
pub(crate) fn sprt_line(r: &SprtReport, a: &str, b: &str) -> String {
    let pairs = r.pairs.map(|c| c.to_string()).join("/");
    let meaning = match r.decision.as_str() {
        "H1" => format!(
            "H1 accepted: {a} is stronger than {b} by about {} Elo rather than {} (a pass)",
            r.elo1, r.elo0
        ),
        "H0" => format!(
            "H0 accepted: {a} is stronger than {b} by about {} Elo at most, not {} (a fail)",
            r.elo0, r.elo1
        ),
        _ => "undecided: more games are needed".to_string(),
    };
    format!(
        "SPRT [{}, {}] ({}): pairs scoring 0/0.5/1/1.5/2: {pairs}, LLR {:.3} in [{:.3}, {:.3}]\n{meaning}",
        r.elo0, r.elo1, r.model, r.llr, r.lower, r.upper
    )
}

/// The results of `recs` so far (`finished` once the run has ended).
pub(crate) fn results<'a>(
    view: &RunView<'a>,
    recs: &[GameRecord],
    planned: u64,
    this_run: usize,
    time: &'a [f64],
    sprt: Option<SprtReport>,
    records: &Path,
) -> Results<'a> {
    let ratings = view.ratings(recs);
    Results {
        kind: view.kind,
        game: view.game,
        games_planned: planned,
        games_played: recs.len(),
        games_this_run: this_run,
        finished: false,
        interrupted: false,
        time,
        ratings: ratings
            .as_ref()
            .map(|r| tables::rating_note(r, view.ids).trim_end().to_string()),
        agents: match &ratings {
            Some(r) => summary::standings(view.ids, recs, r),
            None => summary::summarize(view.ids, recs),
        },
        gauntlet: view
            .gauntlet
            .then(|| summary::gauntlet(&view.ids[0].0, view.ids, recs, ratings.as_ref())),
        pentanomial: pentanomial(view, recs),
        swiss: view
            .swiss
            .as_ref()
            .map(|sw| swiss::results(sw, view.ids, recs, view.anchor)),
        sprt,
        records: records.display().to_string(),
    }
}

/// Writes the results file whole (through a temporary file and a rename,
/// so a reader never sees half of it).
pub(crate) fn write(path: &Path, res: &Results<'_>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(res).map_err(|e| e.to_string())? + "\n";
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(key: &str, agents: [&str; 2], winner: Option<usize>) -> GameRecord {
        GameRecord::for_test(key, agents, winner, None)
    }

    #[test]
    fn pentanomial_per_pairing_and_tables_by_kind() {
        let ids: Vec<(String, String)> = ["x", "y", "z"].iter().map(|n| (n.to_string(), String::new())).collect();
        let recs = vec![
            game("x-vs-y-g0000", ["x", "y"], Some(0)),
            game("x-vs-y-g0001", ["y", "x"], Some(1)),
            game("x-vs-z-g0000", ["x", "z"], None),
            game("x-vs-z-g0001", ["z", "x"], Some(0)),
            game("y-vs-z-g0000", ["y", "z"], Some(0)),
        ];
        let rr = RunView {
            kind: "tournament",
            game: "testnim",
            ids: &ids,
            gauntlet: false,
            anchor: None,
            swiss: None,
        };
        let p = pentanomial(&rr, &recs);
        assert_eq!(p.len(), 3);
        assert_eq!((p[0].pairing.as_str(), p[0].counts), ("x-vs-y", [0, 0, 0, 0, 1]));
        assert_eq!((p[1].pairing.as_str(), p[1].counts), ("x-vs-z", [0, 1, 0, 0, 0]));
        // y-vs-z has one game: no complete pair yet.
        assert_eq!(p[2].counts, [0; 5]);
        assert!(tables(&rr, &recs).contains("W-L-D"));
        let g = RunView { gauntlet: true, ..rr };
        assert_eq!(pentanomial(&g, &recs).len(), 2);
        let t = tables(&g, &recs);
        assert!(t.contains("x vs") && !t.contains("W-L-D"), "{t}");
        let two = RunView {
            ids: &ids[..2],
            gauntlet: false,
            ..g
        };
        assert!(!tables(&two, &recs).contains("W-L-D"));
    }

    #[test]
    fn tournaments_show_fitted_ratings_and_an_unbeaten_agent_as_a_bound() {
        let ids: Vec<(String, String)> = ["x", "y", "z"].iter().map(|n| (n.to_string(), String::new())).collect();
        // x wins every game; y and z split theirs.
        let recs = vec![
            game("x-vs-y-g0000", ["x", "y"], Some(0)),
            game("x-vs-y-g0001", ["y", "x"], Some(1)),
            game("x-vs-z-g0000", ["x", "z"], Some(0)),
            game("x-vs-z-g0001", ["z", "x"], Some(1)),
            game("y-vs-z-g0000", ["y", "z"], Some(0)),
            game("y-vs-z-g0001", ["z", "y"], Some(0)),
        ];
        let view = RunView {
            kind: "tournament",
            game: "testnim",
            ids: &ids,
            gauntlet: false,
            anchor: None,
            swiss: None,
        };
        let t = tables(&view, &recs);
        let x_row = t.lines().find(|l| l.starts_with("x ")).unwrap();
        assert!(x_row.contains(" > "), "{t}");
        assert!(
            !t.contains("inf") && !t.contains("NaN") && t.contains("one side only"),
            "{t}"
        );
        let res = results(&view, &recs, 6, 6, &[1.0; 3], None, Path::new("r"));
        let json = serde_json::to_value(&res).unwrap();
        let x = &json["agents"][0];
        assert!(x.get("elo").is_none(), "{x}");
        assert!(x["rating"]["elo"].as_f64().unwrap().is_finite(), "{x}");
        let (elo, low) = (
            x["rating"]["elo"].as_f64().unwrap(),
            x["rating"]["low"].as_f64().unwrap(),
        );
        assert!(low < elo && elo > 0.0 && x["rating"]["high"].is_null(), "{x}");
        assert!(json["ratings"].as_str().unwrap().contains("0 = "), "{json}");
        // A match keeps its Elo over the opponent from the score.
        let two = RunView {
            kind: "match",
            ids: &ids[1..],
            ..view
        };
        let json = serde_json::to_value(results(&two, &recs[4..], 2, 2, &[1.0; 2], None, Path::new("r"))).unwrap();
        assert!(
            json["agents"][0]["elo"].is_number() && json["agents"][0].get("rating").is_none(),
            "{json}"
        );
        assert!(json.get("ratings").is_none());
    }
}

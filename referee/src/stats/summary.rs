//! Standings computed from game records: per agent, per gauntlet opponent,
//! and the game-pair counts of the SPRT (their tables: [`crate::report::tables`]).

use crate::output::record::GameRecord;
use crate::stats::fit::{self, Anchor, Rating, Ratings};
use crate::stats::rating::{self, Wdl};
use crate::stats::sprt::{Sprt, SprtDecision};
use serde::Serialize;
use std::collections::BTreeMap;

/// One agent's results.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct AgentSummary {
    /// Name.
    pub name: String,
    /// Command line.
    pub command: String,
    /// Games played.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Losses.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
    /// Score in percent.
    pub score_pct: f64,
    /// Draws in percent of games (0 with no games).
    pub draw_pct: f64,
    /// How strong: from the score (a match) or fitted (a tournament).
    #[serde(flatten)]
    pub strength: Strength,
    /// Likelihood of superiority over the field.
    pub los: f64,
    /// Losses by forfeit, by reason.
    pub loss_reasons: BTreeMap<String, u32>,
    /// Wins by the opponent's forfeit, by reason.
    pub wins_by_forfeit: BTreeMap<String, u32>,
    /// Games this agent moved first in.
    pub moved_first: u32,
}

/// An agent's strength as a run reports it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Strength {
    /// A two-agent match: Elo over the opponent from the score, and the
    /// 95 % half-width (`elo` null when the score is 0 % or 100 %, where
    /// the estimate is unbounded; `elo_error` null when undetermined).
    Score {
        /// Elo over the opponent.
        elo: Option<f64>,
        /// 95 % half-width.
        elo_error: Option<f64>,
    },
    /// A tournament: the rating fitted to every game of the run
    /// ([`crate::stats::fit`]), with its 95 % interval.
    Fitted {
        /// Elo from the anchor and its interval.
        rating: Rating,
    },
}

impl Default for Strength {
    fn default() -> Strength {
        Strength::Score {
            elo: None,
            elo_error: None,
        }
    }
}

impl AgentSummary {
    /// W/D/L.
    pub(crate) fn wdl(&self) -> Wdl {
        Wdl {
            w: self.wins,
            d: self.draws,
            l: self.losses,
        }
    }
}

/// The games of `records` between agents of `names` for the rating fit.
pub(crate) fn fit_games<'a>(
    names: &'a [(String, String)],
    records: &'a [GameRecord],
) -> impl Iterator<Item = fit::Game> + 'a {
    let index = |n: &str| names.iter().position(|(m, _)| m == n);
    records.iter().filter_map(move |r| {
        let half_a = match r.winner {
            None => 1,
            Some(0) => 2,
            Some(_) => 0,
        };
        Some(fit::Game {
            a: index(&r.agents[0])?,
            b: index(&r.agents[1])?,
            half_a,
        })
    })
}

/// The ratings of `names` fitted to `records`, anchored to the agent
/// named `anchor` (else the field's mean).
pub(crate) fn ratings(names: &[(String, String)], records: &[GameRecord], anchor: Option<&str>) -> Ratings {
    let anchor = anchor
        .and_then(|a| names.iter().position(|(n, _)| n == a))
        .map_or(Anchor::Mean, Anchor::Agent);
    fit::fit(names.len(), fit_games(names, records), anchor)
}

/// Tournament standings: per-agent summaries (in the order of `names`)
/// whose strength is the rating in `ratings`.
pub(crate) fn standings(names: &[(String, String)], records: &[GameRecord], ratings: &Ratings) -> Vec<AgentSummary> {
    let mut rows = summarize(names, records);
    for (i, row) in rows.iter_mut().enumerate() {
        row.strength = Strength::Fitted {
            rating: ratings.rating(i),
        };
    }
    rows
}

/// Per-agent summaries, in the order of `names`.
pub(crate) fn summarize(names: &[(String, String)], records: &[GameRecord]) -> Vec<AgentSummary> {
    names.iter().map(|(n, c)| summarize_one(n, c, records.iter())).collect()
}

/// Gauntlet standings: one row per opponent of `base` (in the order of
/// `names`, `base` itself left out), holding `base`'s results against that
/// opponent, so each row's LOS is `base`'s over it, and its rating how much
/// stronger `base` is (from `ratings`, when given; else from the score).
pub(crate) fn gauntlet(
    base: &str,
    names: &[(String, String)],
    records: &[GameRecord],
    ratings: Option<&Ratings>,
) -> Vec<AgentSummary> {
    let base_ix = names.iter().position(|(n, _)| n == base);
    let base_cmd = names
        .iter()
        .find(|(n, _)| n == base)
        .map(|(_, c)| c.as_str())
        .unwrap_or("");
    names
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| n != base)
        .map(|(k, (opp, _))| {
            let games = records
                .iter()
                .filter(|r| r.score_of(base).is_some() && r.score_of(opp).is_some());
            let mut row = AgentSummary {
                name: opp.clone(),
                ..summarize_one(base, base_cmd, games)
            };
            if let (Some(r), Some(b)) = (ratings, base_ix) {
                row.strength = Strength::Fitted {
                    rating: r.difference(b, k),
                };
            }
            row
        })
        .collect()
}

/// One agent's results over `records` (games it did not play are skipped).
pub(crate) fn summarize_one<'a>(
    name: &str,
    command: &str,
    records: impl Iterator<Item = &'a GameRecord>,
) -> AgentSummary {
    let mut s = AgentSummary {
        name: name.to_string(),
        command: command.to_string(),
        ..Default::default()
    };
    for rec in records {
        let Some(seat) = rec.agents.iter().position(|a| a == name) else {
            continue;
        };
        s.games += 1;
        if rec.first == seat {
            s.moved_first += 1;
        }
        match rec.winner {
            None => s.draws += 1,
            Some(w) if w == seat => {
                s.wins += 1;
                if let Some(r) = rec.loss {
                    *s.wins_by_forfeit.entry(r.label().to_string()).or_default() += 1;
                }
            }
            Some(_) => {
                s.losses += 1;
                if let Some(r) = rec.loss {
                    *s.loss_reasons.entry(r.label().to_string()).or_default() += 1;
                }
            }
        }
    }
    let wdl = s.wdl();
    s.score_pct = 100.0 * wdl.score();
    s.draw_pct = if s.games == 0 {
        0.0
    } else {
        100.0 * s.draws as f64 / s.games as f64
    };
    let e = rating::elo(wdl);
    let sc = wdl.score();
    s.strength = Strength::Score {
        elo: (wdl.n() > 0 && sc > 0.0 && sc < 1.0).then_some(e.elo),
        elo_error: e.error.is_finite().then_some(e.error),
    };
    s.los = rating::los(wdl);
    s
}

/// Game-pair counts for the pentanomial SPRT: records with keys ending in
/// game numbers 2k and 2k+1 of the same pairing form a pair; `agent`'s
/// points in the pair (0..=2, in halves) index the result.
pub(crate) fn pentanomial(
    agent: &str,
    records: &[GameRecord],
    pair_of: impl Fn(&GameRecord) -> Option<(String, usize)>,
) -> [u32; 5] {
    let mut by_pair: BTreeMap<(String, usize), Vec<f64>> = BTreeMap::new();
    for r in records {
        if let (Some((pairing, n)), Some(sc)) = (pair_of(r), r.score_of(agent)) {
            by_pair.entry((pairing, n / 2)).or_default().push(sc);
        }
    }
    let mut counts = [0u32; 5];
    for v in by_pair.values() {
        if v.len() == 2 {
            counts[((v[0] + v[1]) * 2.0).round() as usize] += 1;
        }
    }
    counts
}

/// SPRT state for the JSON summary.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SprtReport {
    /// Hypotheses and error rates as given.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// alpha.
    pub alpha: f64,
    /// beta.
    pub beta: f64,
    /// Current log-likelihood ratio.
    pub llr: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// `H0`, `H1` or `continue`.
    pub decision: String,
    /// Always `pentanomial GSPRT, logistic Elo` (over game pairs).
    pub model: String,
    /// Pairs scoring 0, 0.5, 1, 1.5, 2 points for the first agent.
    pub pairs: [u32; 5],
}

/// Evaluates an SPRT from complete game pairs (pentanomial): the two games
/// of a pair share a start with the agents swapped, so pairs cancel the
/// first-move advantage. An unpaired last game waits for its partner.
pub(crate) fn sprt_report(t: &Sprt, penta: [u32; 5]) -> SprtReport {
    let llr = t.llr_pentanomial(penta);
    let (lower, upper) = t.bounds();
    let decision = match t.decide(llr) {
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::Continue => "continue",
    };
    SprtReport {
        elo0: t.elo0,
        elo1: t.elo1,
        alpha: t.alpha,
        beta: t.beta,
        llr,
        lower,
        upper,
        decision: decision.into(),
        model: "pentanomial GSPRT, logistic Elo".into(),
        pairs: penta,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::record::{GameRecord, LossReason};
    use crate::report::tables::table;

    #[test]
    fn counts_results_reasons_and_pairs() {
        let recs = vec![
            GameRecord::for_test("g0000", ["A", "B"], Some(0), None),
            GameRecord::for_test("g0001", ["B", "A"], Some(0), Some(LossReason::OverTime)),
            GameRecord::for_test("g0002", ["A", "B"], None, None),
            GameRecord::for_test("g0003", ["B", "A"], Some(1), None),
            GameRecord::for_test("g0004", ["A", "B"], Some(0), Some(LossReason::Crash)),
        ];
        let ids = vec![("A".to_string(), "a".to_string()), ("B".to_string(), "b".to_string())];
        let s = summarize(&ids, &recs);
        assert_eq!((s[0].wins, s[0].losses, s[0].draws, s[0].games), (3, 1, 1, 5));
        assert_eq!(s[0].loss_reasons.get("over time"), Some(&1));
        assert_eq!(s[1].loss_reasons.get("crash"), Some(&1));
        assert_eq!(s[0].wins_by_forfeit.get("crash"), Some(&1));
        assert_eq!(s[0].moved_first, 3);
        assert!((s[0].score_pct - 70.0).abs() < 1e-9);
        // Pairs (0,1): A scored 1 + 0 = 1 point -> index 2; (2,3): 0.5 + 1
        // = 1.5 -> index 3; game 4 has no partner yet.
        let key_no = |r: &GameRecord| r.key[1..].parse::<usize>().ok().map(|n| (String::new(), n));
        assert_eq!(pentanomial("A", &recs, key_no), [0, 0, 1, 1, 0]);
        let t = table(&s);
        assert!(t.contains("over time: 1") && t.contains("70.0%"), "{t}");
        let empty = summarize(&ids, &[]);
        assert!(
            table(&empty).lines().nth(1).unwrap().contains(" - "),
            "{}",
            table(&empty)
        );
    }
}

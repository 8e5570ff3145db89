//! Results tables and the JSON summary, computed from game records.

use crate::rating::{self, Sprt, SprtDecision, Wdl};
use crate::record::{GameRecord, LossReason};
use serde::Serialize;
use std::collections::BTreeMap;

/// One agent's results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AgentSummary {
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
    /// Elo difference against the field (the opponent in a match); null
    /// when the score is 0 % or 100 % (the estimate is unbounded).
    pub elo: Option<f64>,
    /// 95% half-width of `elo` (null when undetermined).
    pub elo_error: Option<f64>,
    /// Likelihood of superiority over the field.
    pub los: f64,
    /// Losses by forfeit, by reason.
    pub loss_reasons: BTreeMap<String, u32>,
    /// Wins by the opponent's forfeit, by reason.
    pub wins_by_forfeit: BTreeMap<String, u32>,
    /// Games this agent moved first in.
    pub moved_first: u32,
}

impl AgentSummary {
    /// W/D/L.
    pub fn wdl(&self) -> Wdl {
        Wdl {
            w: self.wins,
            d: self.draws,
            l: self.losses,
        }
    }
}

/// Per-agent summaries, in the order of `names`.
pub fn summarize(names: &[(String, String)], records: &[GameRecord]) -> Vec<AgentSummary> {
    let mut out: Vec<AgentSummary> = names
        .iter()
        .map(|(n, c)| AgentSummary {
            name: n.clone(),
            command: c.clone(),
            ..Default::default()
        })
        .collect();
    for rec in records {
        for (seat, agent) in rec.agents.iter().enumerate() {
            let Some(s) = out.iter_mut().find(|s| &s.name == agent) else {
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
    }
    for s in &mut out {
        let wdl = s.wdl();
        s.score_pct = 100.0 * wdl.score();
        let e = rating::elo(wdl);
        let sc = wdl.score();
        s.elo = (wdl.n() > 0 && sc > 0.0 && sc < 1.0).then_some(e.elo);
        s.elo_error = e.error.is_finite().then_some(e.error);
        s.los = rating::los(wdl);
    }
    out
}

/// Game-pair counts for the pentanomial SPRT: records with keys ending in
/// game numbers 2k and 2k+1 of the same pairing form a pair; `agent`'s
/// points in the pair (0..=2, in halves) index the result.
pub fn pentanomial(
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
pub struct SprtReport {
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
    /// Always `pentanomial` (over game pairs).
    pub model: String,
    /// Pairs scoring 0, 0.5, 1, 1.5, 2 points for the first agent.
    pub pairs: [u32; 5],
}

/// Evaluates an SPRT from complete game pairs (pentanomial): the two games
/// of a pair share a start with the agents swapped, so pairs cancel the
/// first-move advantage. An unpaired last game waits for its partner.
pub fn sprt_report(t: &Sprt, penta: [u32; 5]) -> SprtReport {
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
        model: "pentanomial".into(),
        pairs: penta,
    }
}

/// A text table of summaries.
pub fn table(rows: &[AgentSummary]) -> String {
    let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(5);
    let mut s = format!(
        "{:<w$} {:>5} {:>5} {:>5} {:>5} {:>7} {:>16} {:>6}  losses by forfeit\n",
        "agent", "games", "W", "L", "D", "score", "Elo (95%)", "LOS"
    );
    for r in rows {
        let elo = match r.elo_error {
            Some(e) => format!("{:+.0} ± {:.0}", r.elo.unwrap_or(0.0), e),
            None => match r.elo {
                Some(v) => format!("{v:+.0} ± inf"),
                None if r.games == 0 => "-".to_string(),
                None if r.score_pct >= 50.0 => "+inf".to_string(),
                None => "-inf".to_string(),
            },
        };
        let reasons = if r.loss_reasons.is_empty() {
            "-".to_string()
        } else {
            r.loss_reasons
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        s.push_str(&format!(
            "{:<w$} {:>5} {:>5} {:>5} {:>5} {:>6.1}% {:>16} {:>5.1}%  {}\n",
            r.name,
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.score_pct,
            elo,
            100.0 * r.los,
            reasons
        ));
    }
    s
}

/// Loss reasons are also counted under their enum names in records; this
/// keeps the label list in one place for documentation.
pub fn all_loss_labels() -> Vec<&'static str> {
    [
        LossReason::IllegalMove,
        LossReason::Malformed,
        LossReason::NoOutput,
        LossReason::Crash,
        LossReason::OverTime,
        LossReason::Resigned,
    ]
    .iter()
    .map(|r| r.label())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Ending, GameRecord};

    fn game(key: &str, agents: [&str; 2], winner: Option<usize>, loss: Option<LossReason>) -> GameRecord {
        GameRecord {
            key: key.into(),
            game: "testnim".into(),
            agents: [agents[0].into(), agents[1].into()],
            commands: ["a".into(), "b".into()],
            seat_names: ["1".into(), "2".into()],
            first: 0,
            mode: "GAME".into(),
            time: [1.0, 1.0],
            start: String::new(),
            moves: Vec::new(),
            winner,
            ending: if loss.is_some() { Ending::Forfeit } else { Ending::Rules },
            loss,
            reason: String::new(),
            clocks: [1.0, 1.0],
            dirs: [String::new(), String::new()],
        }
    }

    #[test]
    fn counts_results_reasons_and_pairs() {
        let recs = vec![
            game("g0000", ["A", "B"], Some(0), None),
            game("g0001", ["B", "A"], Some(0), Some(LossReason::OverTime)),
            game("g0002", ["A", "B"], None, None),
            game("g0003", ["B", "A"], Some(1), None),
            game("g0004", ["A", "B"], Some(0), Some(LossReason::Crash)),
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

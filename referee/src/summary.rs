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
    /// Draws in percent of games (0 with no games).
    pub draw_pct: f64,
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
    names.iter().map(|(n, c)| summarize_one(n, c, records.iter())).collect()
}

/// Gauntlet standings: one row per opponent of `base` (in the order of
/// `names`, `base` itself left out), holding `base`'s results against that
/// opponent, so each row's Elo and LOS are `base`'s over it.
pub fn gauntlet(base: &str, names: &[(String, String)], records: &[GameRecord]) -> Vec<AgentSummary> {
    let base_cmd = names
        .iter()
        .find(|(n, _)| n == base)
        .map(|(_, c)| c.as_str())
        .unwrap_or("");
    names
        .iter()
        .filter(|(n, _)| n != base)
        .map(|(opp, _)| {
            let games = records
                .iter()
                .filter(|r| r.score_of(base).is_some() && r.score_of(opp).is_some());
            AgentSummary {
                name: opp.clone(),
                ..summarize_one(base, base_cmd, games)
            }
        })
        .collect()
}

/// One agent's results over `records` (games it did not play are skipped).
fn summarize_one<'a>(name: &str, command: &str, records: impl Iterator<Item = &'a GameRecord>) -> AgentSummary {
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
    s.elo = (wdl.n() > 0 && sc > 0.0 && sc < 1.0).then_some(e.elo);
    s.elo_error = e.error.is_finite().then_some(e.error);
    s.los = rating::los(wdl);
    s
}

/// Head-to-head matrix: row agent's wins-losses-draws against the column
/// agent (`.` on the diagonal, `-` for a pairing with no games).
pub fn head_to_head(names: &[(String, String)], records: &[GameRecord]) -> String {
    let cells: Vec<Vec<String>> = names
        .iter()
        .map(|(row, _)| {
            names
                .iter()
                .map(|(col, _)| {
                    if row == col {
                        return ".".to_string();
                    }
                    let games = records
                        .iter()
                        .filter(|r| r.score_of(row).is_some() && r.score_of(col).is_some());
                    let s = summarize_one(row, "", games);
                    if s.games == 0 {
                        "-".to_string()
                    } else {
                        format!("{}-{}-{}", s.wins, s.losses, s.draws)
                    }
                })
                .collect()
        })
        .collect();
    let first = names
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0)
        .max("W-L-D".len());
    let widths: Vec<usize> = (0..names.len())
        .map(|j| {
            cells
                .iter()
                .map(|r| r[j].len())
                .chain([names[j].0.chars().count()])
                .max()
                .unwrap_or(1)
        })
        .collect();
    let mut out = format!("{:<first$}", "W-L-D");
    for (j, (n, _)) in names.iter().enumerate() {
        out.push_str(&format!("  {:>w$}", n, w = widths[j]));
    }
    out.push('\n');
    for (i, (n, _)) in names.iter().enumerate() {
        out.push_str(&format!("{n:<first$}"));
        for (j, c) in cells[i].iter().enumerate() {
            out.push_str(&format!("  {:>w$}", c, w = widths[j]));
        }
        out.push('\n');
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
    /// Always `pentanomial GSPRT, logistic Elo` (over game pairs).
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
        model: "pentanomial GSPRT, logistic Elo".into(),
        pairs: penta,
    }
}

/// A text table of summaries, one row per agent.
pub fn table(rows: &[AgentSummary]) -> String {
    table_headed("agent", rows)
}

/// Gauntlet standings as a text table: each row is the base agent's result
/// against the opponent named in it (see [`gauntlet`]).
pub fn gauntlet_table(base: &str, rows: &[AgentSummary]) -> String {
    table_headed(&format!("{base} vs"), rows)
}

fn table_headed(first: &str, rows: &[AgentSummary]) -> String {
    let w = rows
        .iter()
        .map(|r| r.name.chars().count())
        .chain([first.chars().count(), 5])
        .max()
        .unwrap_or(5);
    let mut s = format!(
        "{:<w$} {:>5} {:>5} {:>5} {:>5} {:>7} {:>6} {:>14} {:>6}  losses by forfeit\n",
        first, "games", "W", "L", "D", "score", "draws", "Elo (95%)", "LOS"
    );
    for r in rows {
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
            "{:<w$} {:>5} {:>5} {:>5} {:>5} {:>6.1}% {:>5.1}% {:>14} {:>5.1}%  {}\n",
            r.name,
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.score_pct,
            r.draw_pct,
            elo_cell(r),
            100.0 * r.los,
            reasons
        ));
    }
    s
}

/// The Elo column: `+35 ± 34`; without an interval (a one-sided record of
/// any length) the estimate is unbounded, so the cell says what happened
/// instead of printing infinities.
fn elo_cell(r: &AgentSummary) -> String {
    match (r.elo, r.elo_error) {
        _ if r.games == 0 => "-".to_string(),
        (Some(e), Some(err)) => format!("{} ± {}", signed(e), err.round()),
        (Some(e), None) => format!("{} ± ?", signed(e)),
        (None, _) if r.wins == r.games => "won all".to_string(),
        (None, _) => "lost all".to_string(),
    }
}

/// A whole number with its sign, never `-0` or `+0`.
fn signed(v: f64) -> String {
    let r = v.round();
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r:+}")
    }
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

    #[test]
    fn tables_never_print_infinities_or_negative_zero() {
        let ids = vec![("A".to_string(), "a".to_string()), ("B".to_string(), "b".to_string())];
        // All wins for A, then all draws, then a short mixed record.
        let all_won = vec![
            game("g0000", ["A", "B"], Some(0), None),
            game("g0001", ["B", "A"], Some(1), None),
        ];
        let all_drawn = vec![
            game("g0000", ["A", "B"], None, None),
            game("g0001", ["B", "A"], None, None),
        ];
        let short = vec![
            game("g0000", ["A", "B"], Some(0), None),
            game("g0001", ["B", "A"], None, None),
        ];
        for recs in [all_won, all_drawn, short, Vec::new()] {
            let t = table(&summarize(&ids, &recs));
            assert!(!t.contains("inf") && !t.contains("-0 ") && !t.contains("+0 "), "{t}");
        }
        let t = table(&summarize(
            &ids,
            &[
                game("g0000", ["A", "B"], Some(0), None),
                game("g0001", ["B", "A"], Some(1), None),
            ],
        ));
        assert!(t.contains("won all") && t.contains("lost all"), "{t}");
        let t = table(&summarize(&ids, &[game("g0000", ["A", "B"], None, None)]));
        assert!(
            t.contains("100.0%") && t.contains("0 ± 0"),
            "draw ratio and a zero Elo: {t}"
        );
    }

    #[test]
    fn gauntlet_standings_and_head_to_head_matrix() {
        let ids: Vec<(String, String)> = ["base", "x", "y"]
            .iter()
            .map(|n| (n.to_string(), format!("./{n}")))
            .collect();
        let recs = vec![
            game("x/g0000", ["base", "x"], Some(0), None),
            game("x/g0001", ["x", "base"], None, None),
            game("y/g0000", ["base", "y"], Some(1), Some(LossReason::Crash)),
            game("y/g0001", ["y", "base"], Some(0), None),
            game("y/g0002", ["base", "y"], Some(0), None),
        ];
        let rows = gauntlet("base", &ids, &recs);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].name.as_str(), rows[0].wins, rows[0].losses, rows[0].draws),
            ("x", 1, 0, 1)
        );
        assert_eq!(
            (rows[1].name.as_str(), rows[1].wins, rows[1].losses, rows[1].draws),
            ("y", 1, 2, 0)
        );
        assert_eq!(rows[1].loss_reasons.get("crash"), Some(&1));
        assert!((rows[0].draw_pct - 50.0).abs() < 1e-9);
        assert!(rows[0].los > 0.5 && rows[1].los < 0.5);
        let t = gauntlet_table("base", &rows);
        assert!(t.starts_with("base vs") && t.lines().count() == 3, "{t}");
        let m = head_to_head(&ids, &recs);
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(lines.len(), 4, "{m}");
        let cells = |l: &str| l.split_whitespace().skip(1).map(String::from).collect::<Vec<_>>();
        assert_eq!(cells(lines[0]), ["base", "x", "y"]);
        assert_eq!(cells(lines[1]), [".", "1-0-1", "1-2-0"]);
        assert_eq!(cells(lines[2]), ["0-1-1", ".", "-"]);
        assert_eq!(cells(lines[3]), ["2-1-0", "-", "."]);
    }
}

//! Text tables of standings: no infinities or negative zeros, a draw
//! ratio, gauntlet standings and the head-to-head matrix.

use crate::output::record::GameRecord;
use crate::stats::fit::{Anchor, Open, Rating, Ratings};
use crate::stats::summary::{summarize_one, AgentSummary, Strength};

/// A text table of summaries, one row per agent.
pub(crate) fn table(rows: &[AgentSummary]) -> String {
    table_headed("agent", rows)
}

/// Gauntlet standings as a text table: each row is the base agent's result
/// against the opponent named in it (see [`crate::stats::summary::gauntlet`]).
pub(crate) fn gauntlet_table(base: &str, rows: &[AgentSummary]) -> String {
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

/// The Elo column. From the score (a match): `+35 ± 34`; `-191 ± n/a`
/// when the score's 95 % interval reaches 0 % or 100 % (too few games: it
/// has no width in Elo); without an estimate (a one-sided record of any
/// length) the cell says what happened instead of printing infinities.
/// Fitted (a tournament): see [`rating_cell`].
fn elo_cell(r: &AgentSummary) -> String {
    match r.strength {
        _ if r.games == 0 => "-".to_string(),
        Strength::Fitted { rating } => rating_cell(&rating),
        Strength::Score {
            elo: Some(e),
            elo_error: Some(err),
        } => format!("{} ± {}", signed(e), err.round()),
        Strength::Score { elo: Some(e), .. } => format!("{} ± {UNDEFINED_INTERVAL}", signed(e)),
        Strength::Score { elo: None, .. } if r.wins == r.games => "won all".to_string(),
        Strength::Score { elo: None, .. } => "lost all".to_string(),
    }
}

/// A fitted rating as a cell: `+35 ± 34` (the interval is symmetric);
/// with a side the games leave open, the bound on the other side: `>
/// +612` (won every game against the rest), `< -540`; `unbounded` when
/// neither side is bounded.
pub(crate) fn rating_cell(r: &Rating) -> String {
    match (r.open(), r.low, r.high) {
        (Open::None, _, Some(high)) => format!("{} ± {}", signed(r.elo), (high - r.elo).round()),
        (Open::Above, Some(low), _) => format!("> {}", signed(low)),
        (Open::Below, _, Some(high)) => format!("< {}", signed(high)),
        _ => "unbounded".to_string(),
    }
}

/// The line under a table of fitted ratings: the model, the anchor, and
/// what an open interval means when there is one.
pub(crate) fn rating_note(ratings: &Ratings, names: &[(String, String)]) -> String {
    let zero = match ratings.anchor {
        Anchor::Agent(a) => names[a].0.clone(),
        Anchor::Mean if ratings.prior => "the mean of the largest group the games pin together".to_string(),
        Anchor::Mean => "the field's mean".to_string(),
    };
    let mut s = format!(
        "Elo: one Bradley-Terry fit to all these games (draws half a win each way), 95 % intervals; 0 = {zero}."
    );
    if ratings.prior {
        s.push_str(
            " Some results are one-sided (an agent or group won, or lost, every game against the rest), so one virtual draw per agent keeps the fit finite; `> X` / `< X`: the games bound that rating on one side only.",
        );
    }
    s + "\n"
}

/// What stands for the half-width of an Elo interval that is not defined.
pub(crate) const UNDEFINED_INTERVAL: &str = "n/a";

/// A whole number with its sign, never `-0` or `+0`.
pub(crate) fn signed(v: f64) -> String {
    let r = v.round();
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r:+}")
    }
}

/// Head-to-head matrix: row agent's wins-losses-draws against the column
/// agent (`.` on the diagonal, `-` for a pairing with no games).
pub(crate) fn head_to_head(names: &[(String, String)], records: &[GameRecord]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::record::{GameRecord, LossReason};
    use crate::stats::summary::{gauntlet, summarize};

    #[test]
    fn tables_never_print_infinities_or_negative_zero() {
        let ids = vec![("A".to_string(), "a".to_string()), ("B".to_string(), "b".to_string())];
        // All wins for A, then all draws, then a short mixed record.
        let all_won = vec![
            GameRecord::for_test("g0000", ["A", "B"], Some(0), None),
            GameRecord::for_test("g0001", ["B", "A"], Some(1), None),
        ];
        let all_drawn = vec![
            GameRecord::for_test("g0000", ["A", "B"], None, None),
            GameRecord::for_test("g0001", ["B", "A"], None, None),
        ];
        let short = vec![
            GameRecord::for_test("g0000", ["A", "B"], Some(0), None),
            GameRecord::for_test("g0001", ["B", "A"], None, None),
        ];
        for recs in [all_won, all_drawn, short, Vec::new()] {
            let t = table(&summarize(&ids, &recs));
            assert!(!t.contains("inf") && !t.contains("-0 ") && !t.contains("+0 "), "{t}");
        }
        let t = table(&summarize(
            &ids,
            &[
                GameRecord::for_test("g0000", ["A", "B"], Some(0), None),
                GameRecord::for_test("g0001", ["B", "A"], Some(1), None),
            ],
        ));
        assert!(t.contains("won all") && t.contains("lost all"), "{t}");
        let t = table(&summarize(
            &ids,
            &[GameRecord::for_test("g0000", ["A", "B"], None, None)],
        ));
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
            GameRecord::for_test("x/g0000", ["base", "x"], Some(0), None),
            GameRecord::for_test("x/g0001", ["x", "base"], None, None),
            GameRecord::for_test("y/g0000", ["base", "y"], Some(1), Some(LossReason::Crash)),
            GameRecord::for_test("y/g0001", ["y", "base"], Some(0), None),
            GameRecord::for_test("y/g0002", ["base", "y"], Some(0), None),
        ];
        let rows = gauntlet("base", &ids, &recs, None);
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

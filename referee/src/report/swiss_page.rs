//! A Swiss in the HTML report: the standings with their tie-breaks and
//! rating intervals, every round's pairings with their results (each
//! linked to its games' replays) and byes, and the final's crosstable. A
//! run directory is a Swiss when it holds `rounds.json` (written as each
//! round is paired) beside its manifest.

use super::page::{esc, head_to_head};
use crate::output::record::GameRecord;
use crate::report::swiss::{self, RoundView, SwissView};
use crate::report::tables::{rating_cell, rating_note};
use crate::schedule::swiss::Stage;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// What the page needs to know of a Swiss besides its records.
pub(crate) struct SwissPage {
    /// The rounds as paired, what a bye is worth, the rounds planned.
    view: SwissView,
    /// `(name, command)` by pairing number.
    ids: Vec<(String, String)>,
    /// `--anchor`, if the run had one.
    anchor: Option<String>,
}

/// The Swiss of run directory `dir`, if it is one.
pub(crate) fn load(dir: &Path) -> Result<Option<SwissPage>, String> {
    let rounds = swiss::load_rounds(&dir.join("rounds.json"))?;
    if rounds.is_empty() {
        return Ok(None);
    }
    let path = dir.join("tournament.json");
    let manifest: serde_json::Value = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| {
            format!(
                "{} holds a Swiss's rounds.json but its manifest {} cannot be read ({e})",
                dir.display(),
                path.display()
            )
        })?;
    let ids: Vec<(String, String)> = serde_json::from_value(manifest["agents"].clone())
        .map_err(|e| format!("{} lists no agents: {e}", path.display()))?;
    Ok(Some(SwissPage {
        view: SwissView {
            rounds_planned: manifest["rounds"].as_u64().unwrap_or(rounds.len() as u64) as u32,
            bye_points: manifest["games"].as_f64().unwrap_or(1.0),
            rounds,
            finalist_names: Vec::new(),
        },
        ids,
        anchor: manifest["anchor"].as_str().map(String::from),
    }))
}

/// Per pairing key (`rNN-A-vs-B`): its games and their numbers in the
/// report (1-based).
type BoardGames<'a> = HashMap<&'a str, Vec<(usize, &'a GameRecord)>>;

fn board_games(recs: &[GameRecord]) -> BoardGames<'_> {
    let mut out: BoardGames<'_> = HashMap::new();
    for (i, r) in recs.iter().enumerate() {
        if let Some((pairing, _)) = r.key.rsplit_once("-g") {
            out.entry(pairing).or_default().push((i + 1, r));
        }
    }
    out
}

/// Points as a person writes them: `1½`, `½`, `0`.
fn points(p: f64) -> String {
    let whole = p.trunc();
    match (whole as u64, p - whole >= 0.5) {
        (0, true) => "½".into(),
        (w, true) => format!("{w}½"),
        (w, false) => w.to_string(),
    }
}

/// One round: each board's agents, result (the first-named's points
/// first) and links to its games, then the bye.
fn round_table(r: &RoundView, games: &BoardGames<'_>, bye_points: f64) -> String {
    let mut s = format!(
        "<h3>Round {}</h3>\n<table class=\"swiss-round\"><tr><th>Board</th><th>First-named (moves first in even games)</th><th>Result</th><th>Second-named</th><th>Games</th></tr>\n",
        r.round
    );
    for (b, [x, y]) in r.boards.iter().enumerate() {
        let key = format!("r{:02}-{x}-vs-{y}", r.round);
        let (result, links) = match games.get(key.as_str()) {
            Some(list) => {
                let mine: f64 = list.iter().filter_map(|(_, g)| g.score_of(x)).sum();
                let links: Vec<String> = list
                    .iter()
                    .map(|(n, _)| format!("<a class=\"game-link\" data-game=\"{n}\" href=\"#g{n}/p0\">{n}</a>"))
                    .collect();
                let theirs = list.len() as f64 - mine;
                (format!("{} – {}", points(mine), points(theirs)), links.join(" "))
            }
            None => ("not played".to_string(), String::new()),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{result}</td><td>{}</td><td>{links}</td></tr>",
            b + 1,
            esc(x),
            esc(y)
        );
    }
    s.push_str("</table>\n");
    if let Some(bye) = &r.bye {
        let unit = if bye_points == 1.0 { "point" } else { "points" };
        let _ = writeln!(s, "<p>Bye: {} ({} {unit})</p>", esc(bye), points(bye_points));
    }
    if r.colours_relaxed {
        s.push_str("<p>No pairing without a rematch kept every agent's first moves within one this round.</p>\n");
    }
    s
}

/// The Swiss section of the page.
pub(crate) fn section(p: &SwissPage, recs: &[GameRecord]) -> String {
    let (rows, ratings) = swiss::standings(&p.view, &p.ids, recs, p.anchor.as_deref());
    let mut s = format!(
        "<h2 id=\"standings\">Swiss standings after {} of {} rounds</h2>\n<p>Ranked by points (a win 1, a draw ½, a bye {}), then Buchholz (the sum of the points of every opponent met), then the rating fitted to the rounds' games.</p>\n\
         <table class=\"standings swiss-standings\"><tr><th>Place</th><th>Agent</th><th>Points</th><th>Buchholz</th><th>Elo (95 %)</th><th>Games</th><th>W</th><th>L</th><th>D</th><th>Byes</th><th>First moves</th></tr>\n",
        p.view.rounds.len(),
        p.view.rounds_planned,
        points(p.view.bye_points)
    );
    for r in &rows {
        let elo = if r.games == 0 {
            "-".to_string()
        } else {
            rating_cell(&r.rating)
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td title=\"pairing number {}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.place,
            r.seed,
            esc(&r.name),
            points(r.points),
            points(r.buchholz),
            esc(&elo),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.byes,
            r.moved_first
        );
    }
    s.push_str("</table>\n");
    let _ = writeln!(
        s,
        "<p class=\"note\">{}</p>",
        esc(rating_note(&ratings, &p.ids).trim_end())
    );
    let finals: Vec<&GameRecord> = recs
        .iter()
        .filter(|r| Stage::of(&r.key) == Some(Stage::Final))
        .collect();
    if !finals.is_empty() {
        let names: Vec<(String, String)> = rows
            .iter()
            .filter(|r| finals.iter().any(|g| g.agents.contains(&r.name)))
            .map(|r| (r.name.clone(), String::new()))
            .collect();
        let fin: Vec<GameRecord> = finals.into_iter().cloned().collect();
        let _ = writeln!(
            s,
            "<h2 id=\"final\">Final: a round robin of the top {}</h2>",
            names.len()
        );
        s.push_str(&head_to_head(&fin, &names));
    }
    s.push_str("<h2 id=\"rounds\">Rounds</h2>\n");
    let games = board_games(recs);
    for r in &p.view.rounds {
        s.push_str(&round_table(r, &games, p.view.bye_points));
    }
    s
}

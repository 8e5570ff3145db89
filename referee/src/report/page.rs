//! The HTML page: standings, head-to-head, Elo and its history as inline
//! SVG written here, and the replay viewer drawn by the embedded script from
//! the games' JSON data.

use super::data::GameData;
use crate::output::record::GameRecord;
use crate::report::tables::{rating_cell, rating_note};
use crate::stats::fit::Open;
use crate::stats::rating::Wdl;
use crate::stats::summary::{self, AgentSummary, Strength};
use std::fmt::Write as _;

const SCRIPT: &str = include_str!("report.js");
const STYLE: &str = include_str!("report.css");

/// Escapes text for HTML element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Agents in the order they first appear in the records.
fn agent_names(recs: &[GameRecord]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for r in recs {
        for s in 0..2 {
            if !out.iter().any(|(n, _)| n == &r.agents[s]) {
                out.push((r.agents[s].clone(), r.commands[s].clone()));
            }
        }
    }
    out
}

/// The ladder level an agent command plays (`agent --level N`, also
/// `--level=N`), so the standings can say it: a student sparring against
/// `agent --level 4` sees "level 4" even when the agent is named `agent`.
fn ladder_level(command: &str) -> Option<u32> {
    let mut words = command.split_whitespace();
    while let Some(w) = words.next() {
        let value = match w.strip_prefix("--level") {
            Some("") => words.next(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        if let Some(n) = value.and_then(|v| v.parse().ok()).filter(|n| (1..=10).contains(n)) {
            return Some(n);
        }
    }
    None
}

/// An agent's name for the standings, with its ladder level when it has one.
fn name_cell(name: &str, command: &str) -> String {
    match ladder_level(command) {
        Some(n) if !name.contains(&format!("level {n}")) => format!("{} (level {n})", esc(name)),
        _ => esc(name),
    }
}

/// Adds one game's score (1, 0.5, 0; `None`: not played) to a tally.
fn count(wdl: &mut Wdl, score: Option<f64>) {
    match score {
        Some(x) if x >= 1.0 => wdl.w += 1,
        Some(x) if x <= 0.0 => wdl.l += 1,
        Some(_) => wdl.d += 1,
        None => {}
    }
}

fn elo_text(s: &AgentSummary) -> String {
    match &s.strength {
        _ if s.games == 0 => "-".into(),
        Strength::Fitted { rating } => rating_cell(rating),
        Strength::Score { .. } => "-".into(),
    }
}

/// The standings table, best score first, with each agent's rating fitted
/// to every game of the section and the line that says what 0 is.
fn standings(recs: &[GameRecord], names: &[(String, String)]) -> String {
    let ratings = summary::ratings(names, recs, None);
    let mut rows = summary::standings(names, recs, &ratings);
    rows.sort_by(|a, b| b.score_pct.total_cmp(&a.score_pct));
    let mut s = String::from(
        "<table class=\"standings\"><tr><th>Agent</th><th>Games</th><th>Wins</th><th>Losses</th>\
         <th>Draws</th><th>Score</th><th>Elo (95 %)</th><th>LOS</th><th>Forfeits</th></tr>\n",
    );
    for r in &rows {
        let forfeits: u32 = r.loss_reasons.values().sum();
        let _ = writeln!(
            s,
            "<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} %</td><td>{}</td><td>{:.1} %</td><td>{}</td></tr>",
            esc(&r.command),
            name_cell(&r.name, &r.command),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.score_pct,
            esc(&elo_text(r)),
            100.0 * r.los,
            forfeits
        );
    }
    s.push_str("</table>\n");
    let _ = writeln!(
        s,
        "<p class=\"note\">{}</p>",
        esc(rating_note(&ratings, names).trim_end())
    );
    s
}

/// The head-to-head table of `names` over `recs`.
pub(super) fn head_to_head(recs: &[GameRecord], names: &[(String, String)]) -> String {
    let mut s = String::from(
        "<p>Head to head: the row agent's wins-losses-draws and score against the column agent.</p>\n\
         <table class=\"head-to-head\"><tr><th></th>",
    );
    for (n, _) in names {
        let _ = write!(s, "<th>{}</th>", esc(n));
    }
    s.push_str("</tr>\n");
    for (a, _) in names {
        let _ = write!(s, "<tr><td>{}</td>", esc(a));
        for (b, _) in names {
            if a == b {
                s.push_str("<td>-</td>");
                continue;
            }
            let mut wdl = Wdl { w: 0, d: 0, l: 0 };
            for r in recs.iter().filter(|r| r.agents.contains(a) && r.agents.contains(b)) {
                count(&mut wdl, r.score_of(a));
            }
            if wdl.n() == 0 {
                s.push_str("<td></td>");
            } else {
                let _ = write!(
                    s,
                    "<td>{}-{}-{} ({:.1})</td>",
                    wdl.w,
                    wdl.l,
                    wdl.d,
                    wdl.w as f64 + 0.5 * wdl.d as f64
                );
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// A line chart as inline SVG: one polyline per series (points missing
/// where a value is undetermined), x from 1 to the longest series.
fn line_chart(id: &str, title: &str, series: &[(String, Vec<Option<f64>>)], lo: f64, hi: f64) -> String {
    let (w, h, l, b, t, r) = (520.0, 180.0, 44.0, 20.0, 10.0, 110.0);
    let n = series.iter().map(|s| s.1.len()).max().unwrap_or(0).max(1);
    let x = |i: usize| l + (w - l - r) * if n > 1 { i as f64 / (n - 1) as f64 } else { 0.5 };
    let y = |v: f64| h - b - (h - b - t) * ((v.clamp(lo, hi) - lo) / (hi - lo));
    let mut s = format!(
        "<figure><figcaption>{}</figcaption><svg id=\"{id}\" class=\"history\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\">\
         <line class=\"axis\" x1=\"{l}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{}\"/>\
         <text class=\"tick end\" x=\"{}\" y=\"{}\">{hi}</text><text class=\"tick end\" x=\"{}\" y=\"{}\">{lo}</text>\
         <text class=\"tick end\" x=\"{}\" y=\"{}\">game {n}</text>",
        esc(title),
        h - b,
        w - r,
        h - b,
        h - b,
        l - 4.0,
        t + 8.0,
        l - 4.0,
        h - b,
        w - r,
        h - 6.0
    );
    for (k, (name, vals)) in series.iter().enumerate() {
        let pts: Vec<String> = vals
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| format!("{:.1},{:.1}", x(i), y(v))))
            .collect();
        let _ = write!(
            s,
            "<polyline class=\"series s{}\" points=\"{}\"/><text class=\"tick series-name s{}\" x=\"{}\" y=\"{}\">{}</text>",
            k % 6,
            pts.join(" "),
            k % 6,
            w - r + 6.0,
            t + 12.0 + 14.0 * k as f64,
            esc(name)
        );
    }
    s.push_str("</svg></figure>\n");
    s
}

/// Fits of the Elo history: at most this many, evenly spaced over the games.
const HISTORY_FITS: usize = 40;

/// Each agent's score (percent) after every game, and its fitted rating
/// after every few games (up to [`HISTORY_FITS`] fits).
fn history(recs: &[GameRecord], names: &[(String, String)]) -> String {
    let mut score: Vec<(String, Vec<Option<f64>>)> = names.iter().map(|(n, _)| (n.clone(), Vec::new())).collect();
    let mut elo = score.clone();
    let mut wdl = vec![Wdl { w: 0, d: 0, l: 0 }; names.len()];
    let every = recs.len().div_ceil(HISTORY_FITS).max(1);
    for (i, r) in recs.iter().enumerate() {
        for (k, (n, _)) in names.iter().enumerate() {
            count(&mut wdl[k], r.score_of(n));
            score[k].1.push((wdl[k].n() > 0).then_some(100.0 * wdl[k].score()));
            elo[k].1.push(None);
        }
        if (i + 1) % every == 0 || i + 1 == recs.len() {
            let fit = summary::ratings(names, &recs[..=i], None);
            for (k, series) in elo.iter_mut().enumerate() {
                let x = fit.rating(k);
                series.1[i] = (x.open() == Open::None).then_some(x.elo);
            }
        }
    }
    let mut s = String::from("<div class=\"charts history-charts\">");
    s.push_str(&line_chart(
        "score-history",
        "Score (%) after each game",
        &score,
        0.0,
        100.0,
    ));
    s.push_str(&line_chart(
        "elo-history",
        "Elo fitted to the games so far (0 = the field's mean; missing while the games leave it open; clipped to ±600)",
        &elo,
        -600.0,
        600.0,
    ));
    s.push_str("</div>\n");
    s
}

fn game_list(recs: &[GameRecord]) -> String {
    let mut s = String::from("<h2>Games</h2>\n<table id=\"games\"><tr><th>#</th><th>Key</th><th>Game</th><th>Seats</th><th>Result</th><th>Plies</th></tr>\n");
    for (i, r) in recs.iter().enumerate() {
        let result = crate::output::board_text::result_line(r);
        let _ = writeln!(
            s,
            "<tr><td><a class=\"game-link\" data-game=\"{n}\" href=\"#g{n}/p0\">{n}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.key),
            esc(&r.game),
            esc(&crate::game::seat_line(r)),
            esc(result.trim_start_matches("Result: ")),
            r.moves.len(),
            n = i + 1
        );
    }
    s.push_str("</table>\n");
    s
}

/// JSON made safe to embed in a `<script>` element: `<`, `>` and `&` only
/// occur inside JSON strings, where `\u003c` (and so on) mean the same, so
/// agent text such as `<!--<script>` or `</script>` can neither end the
/// element nor put the HTML parser into a state where it does not end.
pub(crate) fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Standings, head to head and history, one section per game: records of
/// different games never share a table.
fn sections(recs: &[GameRecord]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for r in recs {
        if !kinds.contains(&r.game.as_str()) {
            kinds.push(&r.game);
        }
    }
    let mut s = String::new();
    for (i, kind) in kinds.iter().enumerate() {
        let of: Vec<GameRecord> = recs.iter().filter(|r| r.game == *kind).cloned().collect();
        let names = agent_names(&of);
        let id = if i == 0 { " id=\"standings\"" } else { "" };
        let _ = writeln!(s, "<h2{id}>Standings: {} ({} games)</h2>", esc(kind), of.len());
        s.push_str(&standings(&of, &names));
        if names.len() > 2 {
            let p = if i == 0 { "<p id=\"head-to-head\">" } else { "<p>" };
            s.push_str(&head_to_head(&of, &names).replacen("<p>", p, 1));
        }
        // A chart of more agents than it has colours is unreadable.
        if names.len() <= 12 {
            s.push_str(&history(&of, &names));
        }
    }
    s
}

/// The whole report page for `recs` (in file order), whose replay data is
/// `games`; `swiss`: the section of a Swiss, shown instead of the round
/// robin's standings.
pub(crate) fn page(
    title: &str,
    source: &str,
    recs: &[GameRecord],
    games: &[GameData],
    swiss: Option<&str>,
) -> Result<String, String> {
    #[derive(serde::Serialize)]
    struct Data<'a> {
        games: &'a [GameData],
    }
    let json =
        script_safe(&serde_json::to_string(&Data { games }).map_err(|e| format!("cannot encode the games: {e}"))?);
    let names = agent_names(recs);
    let mut s = String::with_capacity(json.len() + 20_000);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{t}</title>\n<style>\n{STYLE}</style></head>\n<body>\n\
         <h1>{t}</h1>\n<p>From {src}: {n} game(s) between {a} agent(s). Keys: ← → step, Home/End, Space play, PageUp/PageDown game. \
         Link any position as <code>#gGAME/pPLY</code>.</p>\n",
        t = esc(title),
        src = esc(source),
        n = recs.len(),
        a = names.len()
    );
    // A tournament opens on its standings and rounds, as a crosstable
    // comes first in cutechess or lichess; the replays follow. A match
    // opens on its games.
    let standings = match swiss {
        Some(section) => section.to_string(),
        None if recs.len() > 1 => sections(recs),
        None => String::new(),
    };
    let tournament = swiss.is_some() || names.len() > 2;
    if tournament {
        s.push_str(&standings);
        s.push_str("<h2 id=\"replays\">Replays</h2>\n");
    }
    s.push_str(
        "<h2 id=\"game-title\"></h2>\n<div id=\"verdict\"></div>\n<div id=\"notes\"></div>\n<div class=\"controls\">game <select id=\"game-select\"></select> <button id=\"first\" title=\"Home\">|&lt;</button><button id=\"prev\" title=\"Left arrow\">&lt;</button>\
         <button id=\"play\" title=\"Space\">Play</button><button id=\"next\" title=\"Right arrow\">&gt;</button>\
         <button id=\"last\" title=\"End\">&gt;|</button> ply <input id=\"ply-input\" type=\"number\" min=\"0\" style=\"width:4em\"> \
         <span id=\"ply-of\"></span> <input id=\"ply-range\" type=\"range\" min=\"0\" value=\"0\" style=\"width:220px; max-width:100%\"> speed \
         <select id=\"speed\"><option value=\"1000\">1/s</option><option value=\"400\" selected>2.5/s</option><option value=\"100\">10/s</option></select></div>\n\
         <div id=\"status\"></div>\n<div class=\"viewer\">\n<div><svg id=\"board\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n<div id=\"facts\"></div><div id=\"legend\"></div></div>\n\
         <div class=\"charts\"><div id=\"chart-legend\"></div><div>Time left (s) against ply</div><svg id=\"clock-chart\"></svg><div>CPU seconds per move</div><svg id=\"cpu-chart\"></svg>\
         <div id=\"moves-box\"><table><thead><tr><th>Ply</th><th>Seat</th><th>Move</th><th>CPU s</th><th>Left s</th><th title=\"the agent's own report: info depth D score S\">Depth</th><th title=\"the agent's own report, from its view, in its units; a forced result in plies\">Score</th></tr></thead>\
         <tbody id=\"moves-body\"></tbody></table></div></div>\n</div>\n",
    );
    if !tournament {
        s.push_str(&standings);
    }
    s.push_str(&game_list(recs));
    let _ = write!(
        s,
        "<script type=\"application/json\" id=\"report-data\">{json}</script>\n<script>\n{SCRIPT}</script>\n</body></html>\n"
    );
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_text_cannot_end_or_hide_the_embedded_data() {
        let json = serde_json::to_string(&["<!--<script>", "</script><b>&amp;"]).unwrap();
        let safe = script_safe(&json);
        assert!(
            !safe.contains('<') && !safe.contains('>') && !safe.contains('&'),
            "{safe}"
        );
        let back: Vec<String> = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, ["<!--<script>", "</script><b>&amp;"]);
    }

    #[test]
    fn a_ladder_agent_is_named_with_its_level() {
        assert_eq!(ladder_level("agent --level 4"), Some(4));
        assert_eq!(ladder_level("/x/agent --seed 2 --level=10"), Some(10));
        assert_eq!(ladder_level("agent --strategy minimax"), None);
        assert_eq!(ladder_level("agent --level 11"), None);
        assert_eq!(ladder_level("agent --level"), None);
        assert_eq!(name_cell("agent-2", "agent --level 3"), "agent-2 (level 3)");
        assert_eq!(name_cell("<me>", "python3 me.py"), "&lt;me&gt;");
    }
}

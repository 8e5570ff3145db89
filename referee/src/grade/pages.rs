//! The grading's pages: the class at a glance (totals, the reasons points
//! were lost, a set-up problem many students share, the copies found, a
//! sortable row per student with its main reason) and one page per student
//! giving the reason of every lost point.

use super::copies::Cluster;
use super::exam::TestResult;
use super::intake::GAMES_PAGE;
use super::plan::GradePlan;
use super::rows::{Row, Tests};
use crate::report::board_svg::board_svg;
use agent::{BoardView, Notation, View};
use std::fmt::Write as _;

/// Each single-move position drawn as the replay draws a board (empty
/// where a position cannot be read back).
pub(super) fn boards(game: &str, singles: &[String]) -> Vec<String> {
    views(game, singles)
        .iter()
        .map(|v| v.as_ref().map_or_else(String::new, board_svg))
        .collect()
}

/// Each single-move position's view (none where it cannot be read back).
pub(super) fn views(game: &str, singles: &[String]) -> Vec<Option<BoardView>> {
    crate::for_game!(game, |G| Ok::<_, String>(
        singles
            .iter()
            .map(|text| G::parse_input(text).ok().map(|i| i.state.board_view()))
            .collect()
    ))
    .unwrap_or_else(|_| vec![None; singles.len()])
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:auto;padding:1rem}\
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}\
.bar{background:#4a7;height:1rem;display:inline-block}pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}.lost{color:#a33}\
.why{overflow-wrap:anywhere;white-space:pre-wrap}.note{background:#fff4d6;padding:.5rem;overflow-wrap:anywhere}\
th{cursor:default}";

/// The class at a glance: the distribution of totals, the commonest
/// reasons for lost points (and a set-up problem many share), the copies
/// found, and a row per student with their main reason; columns sort on a
/// click.
pub(super) fn class_page(plan: &GradePlan, rows: &[Row<'_>], copies: &[Cluster]) -> String {
    let max = plan.max_points().max(1);
    let mut h = format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\"><title>grades</title><style>{STYLE}</style><h1>{} grades: {} students</h1>",
        esc(&plan.game),
        rows.len()
    );
    h += &setup_note(rows);
    h += "<h2>Totals</h2><table>";
    for b in 0..10u32 {
        let (lo, hi) = (max * b / 10, if b == 9 { max } else { max * (b + 1) / 10 - 1 });
        let n = rows.iter().filter(|r| r.total >= lo && r.total <= hi).count();
        let _ = write!(
            h,
            "<tr><td>{lo}-{hi}</td><td><span class=bar style=\"width:{}rem\"></span> {n}</td></tr>",
            n.min(20)
        );
    }
    h += "</table><h2>Why points were lost</h2><table>";
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for t in rows
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| t.points < t.max || t.test == "build")
    {
        match reasons.iter_mut().find(|(v, _)| *v == t.verdict) {
            Some((_, n)) => *n += 1,
            None => reasons.push((t.verdict.clone(), 1)),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (v, n) in reasons {
        let _ = write!(h, "<tr><td>{}</td><td>{n}</td></tr>", esc(&v));
    }
    h += "</table>";
    h += &copies_part(copies);
    h += &students_table(plan, rows);
    h + SORT_SCRIPT
}

/// The row per student, with each one's main reason.
fn students_table(plan: &GradePlan, rows: &[Row<'_>]) -> String {
    let mut h = String::from(
        "<h2>Students</h2><p>Click a heading to sort.<table class=sort><thead><tr><th>student<th>total<th>single moves<th>games<th>main reason",
    );
    if plan.ladder.is_some() {
        h += "<th>ladder (not graded)";
    }
    h += "</thead><tbody>";
    for r in rows {
        let why = main_reason(r).map_or_else(String::new, |(v, w)| {
            format!(
                "<span class=lost>{}</span> <span class=why>{}</span>",
                esc(v),
                esc(&short(w, 120))
            )
        });
        let _ = write!(
            h,
            "<tr><td><a href=\"students/{0}.html\">{0}</a><td data-v={1}>{1}/{2}<td>{3}<td>{4}<td>{why}",
            esc(r.student),
            r.total,
            r.max,
            r.single,
            r.games
        );
        if plan.ladder.is_some() {
            let _ = write!(h, "<td>{}", esc(r.ladder.as_deref().unwrap_or("")));
        }
    }
    h + "</tbody></table>"
}

/// The verdict and reason that cost a student most points: the build's,
/// else the lost tests' commonest.
fn main_reason<'a>(r: &'a Row<'_>) -> Option<(&'a str, &'a str)> {
    if let Some(b) = r.tests.iter().find(|t| t.test == "build") {
        return Some((&b.verdict, &b.reason));
    }
    let mut lost: Vec<(&str, &str, u32)> = Vec::new();
    for t in r.tests.iter().filter(|t| t.points < t.max) {
        match lost.iter_mut().find(|(v, _, _)| *v == t.verdict) {
            Some(l) => l.2 += t.max - t.points,
            None => lost.push((&t.verdict, &t.reason, t.max - t.points)),
        }
    }
    lost.into_iter().max_by_key(|l| l.2).map(|(v, w, _)| (v, w))
}

/// `s` cut to about `n` characters.
fn short(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// A note when many students lost points to one reason (the same words,
/// once each student's own id and paths are set aside): more often the
/// grading's set-up (a missing interpreter, module or `--sandbox-ro`)
/// than so many students' mistake.
fn setup_note(rows: &[Row<'_>]) -> String {
    let mut by: Vec<(String, Vec<&str>)> = Vec::new();
    for r in rows {
        let Some((v, w)) = main_reason(r) else { continue };
        let key = format!("{v}: {}", short(&w.replace(r.student, "STUDENT"), 80));
        match by.iter_mut().find(|(k, _)| *k == key) {
            Some((_, who)) => who.push(r.student),
            None => by.push((key, vec![r.student])),
        }
    }
    let many = (rows.len() / 5).max(3);
    let mut h = String::new();
    for (key, who) in by.into_iter().filter(|(_, who)| who.len() >= many) {
        let _ = write!(
            h,
            "<p class=note><b>{} students lost points to the same reason</b>: <span class=why>{}</span>. \
             When many students fail alike, look at the grading's set-up first (an interpreter or module \
             the plan's [languages] should give, a directory --sandbox-ro should show).",
            who.len(),
            esc(&key)
        );
    }
    h
}

/// The clusters of submissions that look like one program.
fn copies_part(copies: &[Cluster]) -> String {
    if copies.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h2>The same program?</h2><p>Submissions that share their code or their play. This changes no grade; it says where to look.<ul>",
    );
    for c in copies {
        let names: Vec<String> = c
            .students
            .iter()
            .map(|s| format!("<a href=\"students/{0}.html\">{0}</a>", esc(s)))
            .collect();
        let _ = write!(h, "<li>{}: {}", names.join(", "), esc(&c.evidence.join("; ")));
    }
    h + "</ul>"
}

/// Sorts a `table.sort` by the clicked column (numbers as numbers).
const SORT_SCRIPT: &str = "<script>document.querySelectorAll('table.sort th').forEach(function(th,i){th.style.cursor='pointer';\
th.onclick=function(){var b=th.closest('table').tBodies[0],rs=Array.from(b.rows),up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';\
var v=function(r){var c=r.cells[i];var t=c.dataset.v!==undefined?c.dataset.v:c.textContent;var n=parseFloat(t);return isNaN(n)?t.toLowerCase():n;};\
rs.sort(function(x,y){var a=v(x),c=v(y);return (a<c?-1:a>c?1:0)*(up?1:-1);});rs.forEach(function(r){b.appendChild(r);});};});</script>";

/// One student's page: every test, then each lost point with its reason
/// (a lost single move with its board, drawn as the replay draws it, and
/// its `input.txt`), and the games' replay.
pub(super) fn student_page(tests: &Tests, boards: &[String], r: &Row<'_>) -> String {
    let mut h = format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\"><title>{0}</title><style>{STYLE}</style><h1>{0}: {1}/{2}</h1><p><a href=\"../report.html\">the class</a>",
        esc(r.student),
        r.total,
        r.max
    );
    if let Some(b) = r.tests.iter().find(|t| t.test == "build") {
        let _ = write!(h, "<p class=lost>Not built: {}", esc(&b.reason));
        return h;
    }
    if let Some(n) = r.tests.iter().find(|t| t.test == super::INTAKE && !t.reason.is_empty()) {
        let _ = write!(h, "<p>Left out when the folder was taken in: {}", esc(&n.reason));
    }
    if r.tests.iter().any(|t| t.test.starts_with('g')) || !r.ladder_games.is_empty() {
        let _ = write!(
            h,
            "<p><a href=\"{}{GAMES_PAGE}.html\">replay the games</a>",
            esc(r.student)
        );
    }
    h += "<table><tr><th>test<th>points<th>verdict<th>CPU s<th>of";
    for t in r.tests.iter().filter(|t| t.max > 0) {
        let _ = write!(
            h,
            "<tr><td>{}<td>{}/{}<td class={}>{}<td>{:.3}<td>{:.1}",
            esc(&t.test),
            t.points,
            t.max,
            if t.points < t.max { "lost" } else { "won" },
            esc(&t.verdict),
            // Never -0.000: a forfeit before its first move used nothing.
            if t.cpu > 0.0 { t.cpu } else { 0.0 },
            t.time
        );
    }
    h += "</table>";
    h += &ladder_part(r);
    h += &lost_part(tests, boards, r);
    h
}

/// Every test that lost points, with why: a single move with its board.
fn lost_part(tests: &Tests, boards: &[String], r: &Row<'_>) -> String {
    let lost: Vec<&&TestResult> = r.tests.iter().filter(|t| t.points < t.max).collect();
    if lost.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Where points were lost</h2>");
    for t in lost {
        let why = if t.reason.is_empty() {
            t.verdict.as_str()
        } else {
            t.reason.as_str()
        };
        let _ = write!(
            h,
            "<h3>{}: {}</h3><p class=why>{}",
            esc(&t.test),
            esc(&t.verdict),
            esc(why)
        );
        if !t.test.starts_with('s') {
            continue;
        }
        let n: usize = t.test[1..].parse().unwrap_or(0);
        if let Some(board) = boards.get(n.wrapping_sub(1)).filter(|b| !b.is_empty()) {
            h += board;
        }
        if let Some(input) = tests.singles.get(n.wrapping_sub(1)) {
            let _ = write!(
                h,
                "<details><summary>input.txt</summary><pre>{}</pre></details>",
                esc(input)
            );
        }
    }
    h
}

/// A student's placement on the strength ladder and its games, apart from
/// the graded tests.
fn ladder_part(r: &Row<'_>) -> String {
    let Some(p) = &r.ladder else {
        return String::new();
    };
    let mut h = format!(
        "<h2>Strength ladder: {}</h2><p>Informative only: these games score no points and are not in the total. \
         Each is against <code>agent --level N</code> (game <code>LN-K</code>), the levels tried by bisection.\
         <table><tr><th>game<th>result<th>CPU s<th>of",
        esc(p)
    );
    for t in &r.ladder_games {
        let _ = write!(
            h,
            "<tr><td>{}<td>{}<td>{:.3}<td>{:.1}",
            esc(&t.test),
            esc(&t.verdict),
            t.cpu,
            t.time
        );
    }
    h + "</table>"
}

//! The grades, from the grading's results: `grades.csv` (one row per
//! student, sorted, for a spreadsheet or a course platform's gradebook),
//! `grades.json` (the plan, the positions, the clocks and every test's
//! verdict) and `report.html` (the class at a glance, one page per student
//! with each lost single move and a replay of the games). A plan with a
//! `[ladder]` adds each student's placement on the strength ladder, apart
//! from the points: a last `ladder` column, a `ladder` field and the
//! `ladder_games`, a line on each page.

use super::exam::TestResult;
use super::intake::GAMES_PAGE;
use super::ladder;
use super::plan::GradePlan;
use crate::output::record::GameRecord;
use crate::process::agentinfo::printable;
use crate::report::board_svg::board_svg;
use agent::protocol::{Notation, View};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The tests as every student faced them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Tests {
    /// Each single-move test's `input.txt`.
    pub singles: Vec<String>,
    /// Each game's clock (CPU seconds a side) and whether the submission
    /// moved first.
    pub games: Vec<(f64, bool)>,
}

/// One student's line of the sheet.
#[derive(Clone, Debug, Serialize)]
struct Row<'a> {
    student: &'a str,
    total: u32,
    max: u32,
    single: u32,
    games: u32,
    tests: Vec<&'a TestResult>,
    /// The placement on the strength ladder (plans with a `[ladder]`,
    /// once placed).
    #[serde(skip_serializing_if = "Option::is_none")]
    ladder: Option<String>,
    /// The ladder's games, which score nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ladder_games: Vec<&'a TestResult>,
}

/// Where a test comes in a student's row: the build, the single moves,
/// then the games, each kind by number (`s100` after `s99`).
fn sheet_order(test: &str) -> (u8, u32) {
    let kind = match test.as_bytes().first() {
        Some(b'b') => 0,
        Some(b's') => 1,
        Some(b'g') => 2,
        _ => 3,
    };
    (kind, test.get(1..).and_then(|n| n.parse().ok()).unwrap_or(u32::MAX))
}

fn rows<'a>(plan: &GradePlan, students: &'a [String], results: &'a [TestResult]) -> Vec<Row<'a>> {
    students
        .iter()
        .map(|s| {
            let (ladder_games, mut tests): (Vec<&TestResult>, Vec<&TestResult>) = results
                .iter()
                .filter(|r| &r.student == s)
                .partition(|r| ladder::is_ladder(&r.test));
            // In the sheet's order, whatever order the workers finished them in.
            tests.sort_by_key(|t| sheet_order(&t.test));
            let sum = |p: char| {
                tests
                    .iter()
                    .filter(|r| r.test.starts_with(p))
                    .map(|r| r.points)
                    .sum::<u32>()
            };
            let (single, games) = (sum('s'), sum('g'));
            Row {
                student: s,
                total: single + games,
                max: plan.max_points(),
                single,
                games,
                tests,
                ladder: ladder::placement(plan, &ladder_games).map(|p| p.to_string()),
                ladder_games,
            }
        })
        .collect()
}

/// Writes the three files into `out`, then each student's pages; returns
/// the CSV's path. A page that cannot be written is that student's loss
/// (said on stderr), never the sheet's.
pub(crate) fn write(
    out: &Path,
    plan: &GradePlan,
    tests: &Tests,
    students: &[String],
    results: &[TestResult],
    games: &[GameRecord],
) -> Result<PathBuf, String> {
    let rows = rows(plan, students, results);
    let put = |name: &str, text: String| {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    put("grades.csv", csv(plan, &rows)?)?;
    let json = serde_json::json!({ "plan": plan, "tests": tests, "students": rows });
    put(
        "grades.json",
        serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?,
    )?;
    put("report.html", class_page(plan, &rows))?;
    let dir = out.join("students");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let boards = boards(&plan.game, &tests.singles);
    for r in &rows {
        if let Err(e) = pages(&dir, tests, &boards, r, games) {
            eprintln!(
                "referee: grade: the pages of {} were not written: {}",
                r.student,
                printable(&e)
            );
        }
    }
    Ok(out.join("grades.csv"))
}

/// One student's page and, if they played, their games' replay.
fn pages(dir: &Path, tests: &Tests, boards: &[String], r: &Row<'_>, games: &[GameRecord]) -> Result<(), String> {
    std::fs::write(dir.join(format!("{}.html", r.student)), student_page(tests, boards, r))
        .map_err(|e| format!("cannot write the page of {}: {e}", r.student))?;
    let mine: Vec<GameRecord> = games
        .iter()
        .filter(|g| g.key.starts_with(&format!("{}/", r.student)))
        .cloned()
        .collect();
    if mine.is_empty() {
        return Ok(());
    }
    let p = dir.join(format!("{}{GAMES_PAGE}.html", r.student));
    crate::report::write_report_of(&mine, &format!("games of {}", r.student), &p)
}

/// Each single-move position drawn as the replay draws a board (empty
/// where a position cannot be read back).
fn boards(game: &str, singles: &[String]) -> Vec<String> {
    crate::for_game!(game, |G| Ok::<_, String>(
        singles
            .iter()
            .map(|text| G::parse_input(text).map_or_else(|_| String::new(), |i| board_svg(&i.state.board_view())))
            .collect()
    ))
    .unwrap_or_default()
}

/// A cell a spreadsheet reads as text, never as a formula (the OWASP rule:
/// a leading `=`, `+`, `-`, `@`, tab or CR gets a `'` before it).
fn cell(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

fn csv(plan: &GradePlan, rows: &[Row<'_>]) -> Result<String, String> {
    let names: Vec<String> = (1..=plan.singles.count)
        .map(|i| format!("s{i:02}"))
        .chain((1..=plan.games.count).map(|i| format!("g{i:02}")))
        .collect();
    let placed = plan.ladder.is_some();
    let mut w = csv::Writer::from_writer(Vec::new());
    let head = ["student", "total", "max", "single", "games"]
        .into_iter()
        .map(String::from)
        .chain(names.iter().cloned())
        .chain(placed.then(|| "ladder".to_string()));
    let fail = |e: csv::Error| format!("cannot write grades.csv: {e}");
    w.write_record(head.collect::<Vec<_>>()).map_err(fail)?;
    for r in rows {
        let points = names.iter().map(|n| match r.tests.iter().find(|t| &t.test == n) {
            Some(t) => t.points.to_string(),
            // Not built: every test scores nothing.
            None if r.tests.iter().any(|t| t.test == "build") => "0".into(),
            None => String::new(),
        });
        let cells: Vec<String> = [r.student.to_string(), r.total.to_string(), r.max.to_string()]
            .into_iter()
            .chain([r.single.to_string(), r.games.to_string()])
            .chain(points)
            .chain(placed.then(|| r.ladder.clone().unwrap_or_default()))
            .map(|c| cell(&c))
            .collect();
        w.write_record(&cells).map_err(fail)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("cannot write grades.csv: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("cannot write grades.csv: {e}"))
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
.why{overflow-wrap:anywhere;white-space:pre-wrap}";

/// The class at a glance: the distribution of totals, the commonest
/// reasons for lost points, and a row per student.
fn class_page(plan: &GradePlan, rows: &[Row<'_>]) -> String {
    let max = plan.max_points().max(1);
    let mut h = format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\"><title>grades</title><style>{STYLE}</style><h1>{} grades: {} students</h1>",
        esc(&plan.game),
        rows.len()
    );
    h += "<h2>Totals</h2><table>";
    for b in 0..10u32 {
        let (lo, hi) = (max * b / 10, if b == 9 { max } else { max * (b + 1) / 10 - 1 });
        let n = rows.iter().filter(|r| r.total >= lo && r.total <= hi).count();
        let _ = write!(
            h,
            "<tr><td>{lo}-{hi}</td><td><span class=bar style=\"width:{}rem\"></span> {n}</td></tr>",
            n.min(40)
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
    h += "</table><h2>Students</h2><table><tr><th>student<th>total<th>single moves<th>games";
    if plan.ladder.is_some() {
        h += "<th>ladder (not graded)";
    }
    for r in rows {
        let _ = write!(
            h,
            "<tr><td><a href=\"students/{0}.html\">{0}</a><td>{1}/{2}<td>{3}<td>{4}",
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
    h + "</table>"
}

/// One student's page: every test, then each lost point with its reason
/// (a lost single move with its board, drawn as the replay draws it, and
/// its `input.txt`), and the games' replay.
fn student_page(tests: &Tests, boards: &[String], r: &Row<'_>) -> String {
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
    if let Some(n) = r.tests.iter().find(|t| t.test == super::INTAKE) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_lists_the_build_then_singles_then_games_by_number() {
        let mut names = vec!["g02", "s100", "g01", "s02", "s99", "build", "s01"];
        names.sort_by_key(|t| sheet_order(t));
        assert_eq!(names, vec!["build", "s01", "s02", "s99", "s100", "g01", "g02"]);
    }
}

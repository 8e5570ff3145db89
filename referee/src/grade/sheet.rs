//! The grades, from the grading's results: `grades.csv` (one row per
//! student, sorted, for a spreadsheet or a course platform's gradebook),
//! `grades.json` (the plan, the positions, the clocks and every test's
//! verdict) and `report.html` (the class at a glance, one page per student
//! with each lost single move and a replay of the games). A plan with a
//! `[ladder]` adds each student's placement on the strength ladder, apart
//! from the points: a last `ladder` column, a `ladder` field and the
//! `ladder_games`, a line on each page.

use super::exam::TestResult;
use super::ladder;
use super::plan::GradePlan;
use crate::output::record::GameRecord;
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

/// Writes the three files into `out`; returns the CSV's path.
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
    put("grades.csv", csv(plan, &rows))?;
    let json = serde_json::json!({ "plan": plan, "tests": tests, "students": rows });
    put(
        "grades.json",
        serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?,
    )?;
    put("report.html", class_page(plan, &rows))?;
    let dir = out.join("students");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for r in &rows {
        std::fs::write(dir.join(format!("{}.html", r.student)), student_page(tests, r))
            .map_err(|e| format!("cannot write the page of {}: {e}", r.student))?;
        let mine: Vec<GameRecord> = games
            .iter()
            .filter(|g| g.key.starts_with(&format!("{}/", r.student)))
            .cloned()
            .collect();
        if !mine.is_empty() {
            let p = dir.join(format!("{}-games.html", r.student));
            crate::report::write_report_of(&mine, &format!("games of {}", r.student), &p)?;
        }
    }
    Ok(out.join("grades.csv"))
}

/// A CSV field, quoted where it must be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(plan: &GradePlan, rows: &[Row<'_>]) -> String {
    let names: Vec<String> = (1..=plan.singles.count)
        .map(|i| format!("s{i:02}"))
        .chain((1..=plan.games.count).map(|i| format!("g{i:02}")))
        .collect();
    let placed = plan.ladder.is_some();
    let mut s = format!(
        "student,total,max,single,games,{}{}\n",
        names.join(","),
        if placed { ",ladder" } else { "" }
    );
    for r in rows {
        let cells: Vec<String> = names
            .iter()
            .map(|n| match r.tests.iter().find(|t| &t.test == n) {
                Some(t) => t.points.to_string(),
                // Not built: every test scores nothing.
                None if r.tests.iter().any(|t| t.test == "build") => "0".into(),
                None => String::new(),
            })
            .chain(placed.then(|| field(r.ladder.as_deref().unwrap_or(""))))
            .collect();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{}",
            field(r.student),
            r.total,
            r.max,
            r.single,
            r.games,
            cells.join(",")
        );
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:auto;padding:1rem}\
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}\
.bar{background:#4a7;height:1rem;display:inline-block}pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}.lost{color:#a33}";

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

/// One student's page: every test, each lost single move with its board,
/// the move played and why it failed, and the games' replay.
fn student_page(tests: &Tests, r: &Row<'_>) -> String {
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
    if r.tests.iter().any(|t| t.test.starts_with('g')) || !r.ladder_games.is_empty() {
        let _ = write!(h, "<p><a href=\"{}-games.html\">replay the games</a>", esc(r.student));
    }
    h += "<table><tr><th>test<th>points<th>verdict<th>CPU s<th>of";
    for t in &r.tests {
        let _ = write!(
            h,
            "<tr><td>{}<td>{}/{}<td class={}>{}<td>{:.3}<td>{:.1}",
            t.test,
            t.points,
            t.max,
            if t.points < t.max { "lost" } else { "won" },
            esc(&t.verdict),
            t.cpu,
            t.time
        );
    }
    h += "</table>";
    h += &ladder_part(r);
    for t in r.tests.iter().filter(|t| t.test.starts_with('s') && t.points < t.max) {
        let n: usize = t.test[1..].parse().unwrap_or(0);
        let board = tests.singles.get(n.wrapping_sub(1)).map(String::as_str).unwrap_or("");
        let _ = write!(
            h,
            "<h3>{}: {}</h3><p>{}<pre>{}</pre>",
            t.test,
            esc(&t.verdict),
            esc(&t.reason),
            esc(board)
        );
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

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
use super::plan::GradePlan;
use super::{copies, ladder, pages};
use crate::output::record::GameRecord;
use crate::process::agentinfo::printable;
use serde::{Deserialize, Serialize};
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
pub(super) struct Row<'a> {
    pub student: &'a str,
    pub total: u32,
    pub max: u32,
    pub single: u32,
    pub games: u32,
    pub tests: Vec<&'a TestResult>,
    /// The placement on the strength ladder (plans with a `[ladder]`,
    /// once placed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ladder: Option<String>,
    /// The ladder's games, which score nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ladder_games: Vec<&'a TestResult>,
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
    let copies = copies::clusters(students, results, games);
    let json = serde_json::json!({ "plan": plan, "tests": tests, "students": rows, "copies": copies });
    put(
        "grades.json",
        serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?,
    )?;
    put("report.html", pages::class_page(plan, &rows, &copies))?;
    let dir = out.join("students");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let boards = pages::boards(&plan.game, &tests.singles);
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
    std::fs::write(
        dir.join(format!("{}.html", r.student)),
        pages::student_page(tests, boards, r),
    )
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

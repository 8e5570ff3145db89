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
use super::rows::{rows, Row, Tests};
use super::{copies, pages};
use crate::output::record::GameRecord;
use crate::process::agentinfo::printable;
use std::path::{Path, PathBuf};

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

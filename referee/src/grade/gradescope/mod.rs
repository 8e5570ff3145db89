//! Gradescope's `results.json` for one graded submission (`referee grade
//! --gradescope FILE`): the total, one test per single move and game with
//! its points and the reason as its output (a lost single move with its
//! board and `input.txt`), each kind's visibility from the plan's
//! `[gradescope]` table, and the strength ladder's placement as a
//! leaderboard entry when the plan places.

pub(crate) mod config;

use super::exam::TestResult;
use super::ladder;
use super::plan::GradePlan;
use super::rows::Tests;
use config::Visibility;
use serde::Serialize;
use std::path::Path;

/// One test as Gradescope reads it.
#[derive(Debug, Serialize)]
struct GsTest {
    name: String,
    score: f64,
    max_score: f64,
    output: String,
    visibility: Visibility,
}

/// A leaderboard entry.
#[derive(Debug, Serialize)]
struct GsEntry {
    name: String,
    value: f64,
}

/// The file Gradescope reads.
#[derive(Debug, Serialize)]
struct GsResults {
    score: f64,
    output: String,
    tests: Vec<GsTest>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    leaderboard: Vec<GsEntry>,
}

/// Writes `file` for `student`, whose results are `mine`; `boards` are the
/// single-move positions drawn as text.
pub(crate) fn write(
    file: &Path,
    plan: &GradePlan,
    tests: &Tests,
    boards: &[String],
    student: &str,
    mine: &[TestResult],
) -> Result<(), String> {
    let g = plan.gradescope.clone();
    let total: u32 = mine
        .iter()
        .filter(|r| !ladder::is_ladder(&r.test))
        .map(|r| r.points)
        .sum();
    let mut out = GsResults {
        score: f64::from(total),
        output: format!("{student}: {total}/{} points", plan.max_points()),
        tests: Vec::new(),
        leaderboard: Vec::new(),
    };
    if let Some(b) = mine.iter().find(|r| r.test == "build") {
        out.output = format!("Not built, so no test could run: {}", b.reason);
        out.tests.push(GsTest {
            name: "build".into(),
            score: 0.0,
            max_score: f64::from(plan.max_points()),
            output: b.reason.clone(),
            visibility: Visibility::Visible,
        });
    }
    let mut graded: Vec<&TestResult> = mine.iter().filter(|r| r.max > 0).collect();
    graded.sort_by(|a, b| a.test.cmp(&b.test));
    for r in graded {
        let single = r.test.starts_with('s');
        out.tests.push(GsTest {
            name: format!("{} {}", if single { "single move" } else { "game" }, &r.test[1..]),
            score: f64::from(r.points),
            max_score: f64::from(r.max),
            output: output(r, tests, boards),
            visibility: if single { g.singles } else { g.games },
        });
    }
    let placed: Vec<&TestResult> = mine.iter().collect();
    if let Some(p) = ladder::placement(plan, &placed).filter(|_| g.leaderboard) {
        out.leaderboard.push(GsEntry {
            name: "Strength ladder level".into(),
            value: f64::from(p.0),
        });
        out.output += &format!(" (strength ladder: {p})");
    }
    let text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?;
    std::fs::write(file, text + "\n").map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// A test's output: its verdict and reason; a lost single move's board
/// and `input.txt` too.
fn output(r: &TestResult, tests: &Tests, boards: &[String]) -> String {
    let mut o = r.verdict.clone();
    if !r.reason.is_empty() {
        o = format!("{o}: {}", r.reason);
    }
    if let Some(m) = &r.moved {
        o += &format!("\nplayed {m}");
    }
    if r.test.starts_with('s') && r.points < r.max {
        let n: usize = r.test[1..].parse().unwrap_or(0);
        if let Some(b) = boards.get(n.wrapping_sub(1)).filter(|b| !b.is_empty()) {
            o += &format!("\n\nThe position:\n{b}");
        }
        if let Some(input) = tests.singles.get(n.wrapping_sub(1)) {
            o += &format!("\ninput.txt:\n{input}");
        }
    }
    o
}

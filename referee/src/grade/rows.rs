//! A student's line of the sheets: their tests in the sheet's order, the
//! totals, and their ladder placement; and the tests as every student
//! faced them.

use super::exam::TestResult;
use super::ladder;
use super::plan::GradePlan;
use serde::{Deserialize, Serialize};

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
pub(super) fn sheet_order(test: &str) -> (u8, u32) {
    let kind = match test.as_bytes().first() {
        Some(b'b') => 0,
        Some(b's') => 1,
        Some(b'g') => 2,
        _ => 3,
    };
    (kind, test.get(1..).and_then(|n| n.parse().ok()).unwrap_or(u32::MAX))
}

pub(super) fn rows<'a>(plan: &GradePlan, students: &'a [String], results: &'a [TestResult]) -> Vec<Row<'a>> {
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

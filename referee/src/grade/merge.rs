//! `referee merge` of a sharded grading (`referee grade --shard K/N`): the
//! shards' results, checked (every shard of one grading, each student
//! graded by their own shard and to the end), written into one `--out` as
//! an unsharded grading would have left it, and the sheets written from
//! them by the grader's own writer ([`super::sheet`]).

use super::exam::TestResult;
use super::manifest::{self, Grading};
use super::results::Results;
use crate::cli::MergeArgs;
use crate::output::record::{self, GameRecord};
use crate::run::merge::{check_heads, ShardHead};
use std::path::Path;

/// Merges the grading shards `heads` into `a.out`.
pub(crate) fn run(heads: &[ShardHead], a: &MergeArgs) -> Result<i32, String> {
    if a.results.is_some() {
        return Err("--results summarises a match or tournament; a merged grading's summary is its grades.json".into());
    }
    let n = check_heads(heads)?;
    let g: Grading = serde_json::from_value(heads[0].run.clone())
        .map_err(|e| format!("{}: not a grading manifest ({e})", heads[0].dir.display()))?;
    let mut results = Vec::new();
    let mut games = Vec::new();
    for h in heads {
        let (mut r, mut gs) = shard_results(&g, h)?;
        results.append(&mut r);
        games.append(&mut gs);
    }
    // The class's order, each student's tests in the order they ran.
    results.sort_by_key(|r| g.students.iter().position(|s| *s == r.student));
    if a.out.join("plan.toml").exists() {
        return Err(format!(
            "{} already holds a grading; choose another --out for the merged one",
            a.out.display()
        ));
    }
    let _lock = crate::run::outdir::lock(&a.out)?;
    let merged = Results::open(&a.out, &g.plan, false)?;
    merged.add_all(&results)?;
    let recs = a.out.join("records/games.jsonl");
    for rec in &games {
        record::append(&recs, rec).map_err(|e| format!("cannot write {}: {e}", recs.display()))?;
    }
    manifest::write(
        &a.out,
        &Grading {
            shard: None,
            ..g.clone()
        },
    )?;
    let sheet = super::sheet::write(&a.out, &g.plan, &g.tests, &g.students, &results, &games)?;
    println!(
        "{} grading: {} students merged from {n} shards (grades: {})",
        g.plan.game,
        g.students.len(),
        sheet.display()
    );
    Ok(0)
}

/// One shard's results and game records, refused unless they are exactly
/// the finished tests of that shard's students.
fn shard_results(g: &Grading, h: &ShardHead) -> Result<(Vec<TestResult>, Vec<GameRecord>), String> {
    let stored = Results::existing(&h.dir);
    let results = stored.all()?;
    for r in &results {
        let i = g.students.iter().position(|s| *s == r.student);
        if !i.is_some_and(|i| manifest::in_shard(Some(h.shard), i)) {
            return Err(format!(
                "{} holds results of {}, who is not a student of shard {}: was it graded into this directory by another run?",
                h.dir.display(),
                r.student,
                h.shard
            ));
        }
    }
    let tests: Vec<String> = (1..=g.plan.singles.count)
        .map(|i| format!("s{i:02}"))
        .chain((1..=g.plan.games.count).map(|i| format!("g{i:02}")))
        .collect();
    let mine = g
        .students
        .iter()
        .enumerate()
        .filter(|(i, _)| manifest::in_shard(Some(h.shard), *i));
    for (_, s) in mine {
        let taken: Vec<&str> = results
            .iter()
            .filter(|r| r.student == *s)
            .map(|r| r.test.as_str())
            .collect();
        let mut left: Vec<&str> = tests
            .iter()
            .map(String::as_str)
            .filter(|t| !taken.contains(t))
            .collect();
        let theirs: Vec<&TestResult> = results.iter().filter(|r| r.student == *s).collect();
        if g.plan.ladder.is_some() && super::ladder::placement(&g.plan, &theirs).is_none() {
            left.push("the ladder placement");
        }
        if !taken.contains(&"build") && !left.is_empty() {
            return Err(unfinished(h, s, &left));
        }
    }
    Ok((results, stored.game_records()?))
}

fn unfinished(h: &ShardHead, student: &str, left: &[&str]) -> String {
    let dir: &Path = &h.dir;
    format!(
        "shard {} in {} did not finish: {student} has not taken {}. Continue it with the same `referee grade` command and --resume, then merge again",
        h.shard,
        dir.display(),
        left.join(", ")
    )
}

//! `OUT/grading.json`: what a grading was started on (the plan, the tests
//! as every student faces them, the whole class) and which shard of the
//! class it grades. `referee merge` merges only shards whose manifests are
//! equal apart from `shard`; a resumed grading must be the same shard.

use super::plan::GradePlan;
use super::rows::Tests;
use crate::schedule::shard::Shard;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The manifest's file name in a grading's `--out`.
const FILE: &str = "grading.json";

/// A grading's manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Grading {
    /// The plan graded on (with its seed and overrides).
    pub plan: GradePlan,
    /// The positions and clocks of the tests.
    pub tests: Tests,
    /// Every student of the class, sorted (not only this shard's).
    pub students: Vec<String>,
    /// The shard of the class this directory grades (none: all of it).
    pub shard: Option<Shard>,
}

/// Whether `student` (the `i`-th of the sorted class) is graded by `shard`.
pub(crate) fn in_shard(shard: Option<Shard>, i: usize) -> bool {
    shard.is_none_or(|s| s.has_pair(i))
}

/// Refuses to resume `out` as another shard than it was started as.
pub(crate) fn check_resume(out: &Path, shard: Option<Shard>) -> Result<(), String> {
    let Ok(text) = std::fs::read_to_string(out.join(FILE)) else {
        // Nothing graded yet, or a grading too old to say: Results::open
        // still checks the plan.
        return Ok(());
    };
    let Ok(old) = serde_json::from_str::<Grading>(&text) else {
        return Err(format!(
            "{} is not a grading manifest: give another --out",
            out.join(FILE).display()
        ));
    };
    if old.shard == shard {
        return Ok(());
    }
    let name = |s: Option<Shard>| s.map_or_else(|| "the whole class".to_string(), |s| format!("shard {s}"));
    Err(format!(
        "{} holds a grading of {}, not of {}: continue it with the same --shard, or give another --out",
        out.display(),
        name(old.shard),
        name(shard)
    ))
}

/// Writes the manifest into `out`.
pub(crate) fn write(out: &Path, g: &Grading) -> Result<(), String> {
    let p = out.join(FILE);
    let text = serde_json::to_string_pretty(g).map_err(|e| e.to_string())?;
    std::fs::write(&p, text + "\n").map_err(|e| format!("cannot write {}: {e}", p.display()))
}

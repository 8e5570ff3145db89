//! `referee merge OUT...`: the shard directories of one sharded run
//! (`--shard K/N`) combined into one directory and one table, equal to the
//! table of the same run played unsharded. Shards of a grading (`referee
//! grade --shard`) are read and checked here the same way, then merged by
//! the grader (the subcommand sends them there).

use crate::cli::MergeArgs;
use crate::output::record::{self, GameRecord};
use crate::report::results::{self, RunView};
use crate::report::swiss::{self as swiss_view, RoundView, SwissView};
use crate::schedule::shard::Shard;
use crate::schedule::swiss::Stage;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// What every kind of shard directory holds: its manifest, read.
pub(crate) struct ShardHead {
    /// The directory.
    pub dir: PathBuf,
    /// `match`, `tournament` or `grading` (the manifest's file name).
    pub kind: String,
    /// The manifest without its `shard` entry: equal for shards of one run.
    pub run: Value,
    /// Which shard the directory is.
    pub shard: Shard,
}

/// The manifests a shard directory may hold, one per kind of run.
const KINDS: [&str; 3] = ["match", "tournament", "grading"];

/// The manifests of the directories `referee merge` was given.
pub(crate) fn read_heads(dirs: &[PathBuf]) -> Result<Vec<ShardHead>, String> {
    if dirs.is_empty() {
        return Err("referee merge needs the shard directories to merge".into());
    }
    dirs.iter().map(|d| read_head(d)).collect()
}

fn read_head(dir: &Path) -> Result<ShardHead, String> {
    let found: Vec<&str> = KINDS
        .into_iter()
        .filter(|k| dir.join(format!("{k}.json")).is_file())
        .collect();
    let kind = match found[..] {
        [k] => k.to_string(),
        [] => {
            return Err(format!(
                "{} holds no match.json, tournament.json or grading.json: not the --out directory of a referee run or grading",
                dir.display()
            ))
        }
        _ => return Err(format!("{} holds the manifests of several runs ({})", dir.display(), found.join(", "))),
    };
    let path = dir.join(format!("{kind}.json"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut run: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not a run manifest: {e}", path.display()))?;
    let shard = run
        .as_object_mut()
        .and_then(|m| m.remove("shard"))
        .filter(|s| !s.is_null())
        .ok_or_else(|| format!("{} was not run with --shard K/N; only shards are merged", dir.display()))?;
    let shard: Shard =
        serde_json::from_value(shard).map_err(|e| format!("{}: unreadable shard entry: {e}", path.display()))?;
    Ok(ShardHead {
        dir: dir.to_path_buf(),
        kind,
        run,
        shard,
    })
}

/// The settings in which two manifests differ, by name (`plan.seed` for
/// an entry inside another).
pub(crate) fn differences(a: &Value, b: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return vec!["the whole manifest".into()];
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => {
                out.extend(differences(x, y).into_iter().map(|d| format!("{k}.{d}")));
            }
            _ => out.push(k.clone()),
        }
    }
    out
}

/// Checks that `heads` are every shard of one run, each once: one kind,
/// equal manifests apart from the shard, every K of N present. Returns N.
pub(crate) fn check_heads(heads: &[ShardHead]) -> Result<usize, String> {
    let Some(first) = heads.first() else {
        return Err("referee merge needs the shard directories to merge".into());
    };
    for s in &heads[1..] {
        if s.kind != first.kind {
            return Err(format!(
                "{} is a {} and {} a {}: not shards of one run",
                first.dir.display(),
                first.kind,
                s.dir.display(),
                s.kind
            ));
        }
        let diff = differences(&first.run, &s.run);
        if !diff.is_empty() {
            return Err(format!(
                "{} and {} are shards of different runs (they differ in: {}); merge only shards started with the same arguments",
                first.dir.display(),
                s.dir.display(),
                diff.join(", ")
            ));
        }
    }
    let n = first.shard.count;
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for s in heads {
        if s.shard.count != n {
            return Err(format!(
                "{} is shard {} but {} is shard {}: different shard counts",
                first.dir.display(),
                first.shard,
                s.dir.display(),
                s.shard
            ));
        }
        if let Some(other) = by_index.insert(s.shard.index, &s.dir) {
            return Err(format!(
                "{} and {} are both shard {}",
                other.display(),
                s.dir.display(),
                s.shard
            ));
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard {} missing: the merged {}; give every shard's directory",
            missing.join(", "),
            if first.kind == "grading" {
                "grades would not be the whole class's"
            } else {
                "table would not be the run's"
            }
        ));
    }
    Ok(n)
}

/// A merged run: its manifest (without a shard), kind and records.
pub(crate) struct Merged {
    /// `match` or `tournament`.
    pub kind: String,
    /// The shards' common manifest.
    pub manifest: Value,
    /// Every shard's records, by game key.
    pub records: Vec<GameRecord>,
    /// Shards merged.
    pub shards: usize,
}

/// Reads and checks the shard directories of a match or tournament: one
/// run, every shard K/N present once, no game recorded twice. The shards
/// of a Swiss's round N (`--round N`) each hold the games of the rounds
/// before, copied from where they were played: those are taken once, and
/// must be the same in every shard.
fn collect(heads: &[ShardHead]) -> Result<Merged, String> {
    let n = check_heads(heads)?;
    let round = swiss_round(&heads[0].run);
    let before = |key: &str| round.is_some_and(|n| matches!(Stage::of(key), Some(Stage::Round(k)) if k < n));
    let mut seen = HashSet::new();
    let mut records = Vec::new();
    let mut earlier: Option<(&Path, Vec<Value>)> = None;
    for s in heads {
        let (mut old, new): (Vec<GameRecord>, Vec<GameRecord>) = record::load(&s.dir.join("records.jsonl"), false)?
            .into_iter()
            .partition(|r| before(&r.key));
        old.sort_by(|a, b| a.key.cmp(&b.key));
        let shown: Vec<Value> = old
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or_default())
            .collect();
        match &earlier {
            None => {
                records.extend(old);
                earlier = Some((&s.dir, shown));
            }
            Some((first, theirs)) if *theirs != shown => {
                return Err(format!(
                    "{} and {} hold different games of the rounds before round {}: they were not started from the same --after directory",
                    first.display(),
                    s.dir.display(),
                    round.unwrap_or(0)
                ))
            }
            Some(_) => {}
        }
        for r in new {
            if !seen.insert(r.key.clone()) {
                return Err(format!("game {:?} is recorded in more than one shard", r.key));
            }
            records.push(r);
        }
    }
    records.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(Merged {
        kind: heads[0].kind.clone(),
        manifest: heads[0].run.clone(),
        records,
        shards: n,
    })
}

/// The round a Swiss's shards played (`--round N`), if they did.
fn swiss_round(manifest: &Value) -> Option<u32> {
    manifest
        .get("round")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// A Swiss round's shards: their rounds as paired (equal in every shard,
/// as each paired them from the same games), written into `out` for the
/// next round and the report, and the view its tables take.
fn swiss_rounds(heads: &[ShardHead], manifest: &Value, out: &Path) -> Result<Option<SwissView>, String> {
    if swiss_round(manifest).is_none() {
        return Ok(None);
    }
    let mut rounds: Option<Vec<RoundView>> = None;
    for h in heads {
        let mine = swiss_view::load_rounds(&h.dir.join("rounds.json"))?;
        match &rounds {
            Some(r) if *r != mine => {
                return Err(format!(
                    "{} and {} paired the rounds differently (rounds.json): not shards of one Swiss round",
                    heads[0].dir.display(),
                    h.dir.display()
                ))
            }
            Some(_) => {}
            None => rounds = Some(mine),
        }
    }
    let rounds = rounds.unwrap_or_default();
    swiss_view::write_rounds(&out.join("rounds.json"), &rounds)?;
    let number = |k: &str| manifest.get(k).and_then(Value::as_u64).unwrap_or(0);
    Ok(Some(SwissView {
        rounds_planned: number("rounds") as u32,
        bye_points: number("games") as f64,
        rounds,
        finalist_names: Vec::new(),
    }))
}

/// Writes a merged run into `out` (refusing a directory that holds
/// records): its manifest and `records.jsonl`.
pub(crate) fn write(m: &Merged, out: &Path) -> Result<(), String> {
    let records = out.join("records.jsonl");
    if std::fs::metadata(&records).map(|m| m.len() > 0).unwrap_or(false) {
        return Err(format!(
            "{} already holds game records; choose another --out",
            out.display()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let manifest = out.join(format!("{}.json", m.kind));
    let text = serde_json::to_string_pretty(&m.manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest, text + "\n").map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    for r in &m.records {
        record::append(&records, r).map_err(|e| format!("cannot write {}: {e}", records.display()))?;
    }
    Ok(())
}

/// `(name, command)` of the agents in a manifest (`agents: [[name, cmd], ...]`).
pub(crate) fn agents(manifest: &Value) -> Result<Vec<(String, String)>, String> {
    serde_json::from_value(manifest.get("agents").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("the shards' manifest lists no agents: {e}"))
}

/// `referee merge`: checks that the directories are the shards of one run,
/// writes the merged records and manifest, and prints the run's tables.
pub(crate) fn run(heads: &[ShardHead], a: &MergeArgs) -> Result<i32, String> {
    let m = collect(heads)?;
    write(&m, &a.out)?;
    let swiss = swiss_rounds(heads, &m.manifest, &a.out)?;
    let ids = agents(&m.manifest)?;
    let view = RunView {
        kind: &m.kind,
        game: m.manifest.get("game").and_then(|g| g.as_str()).unwrap_or(""),
        ids: &ids,
        gauntlet: m.manifest.get("gauntlet").and_then(|g| g.as_bool()).unwrap_or(false),
        anchor: m.manifest.get("anchor").and_then(|g| g.as_str()),
        // A Swiss is sharded a round at a time (--round N --shard K/M).
        swiss,
    };
    let records = a.out.join("records.jsonl");
    println!(
        "{} {}: {} games merged from {} shards (records: {})",
        view.game,
        view.kind,
        m.records.len(),
        m.shards,
        records.display()
    );
    print!("{}", results::tables(&view, &m.records));
    if let Some(path) = &a.results {
        let time: Vec<f64> = m
            .manifest
            .get("time")
            .and_then(|t| serde_json::from_value(t.clone()).ok())
            .unwrap_or_default();
        let mut res = results::results(&view, &m.records, m.records.len() as u64, 0, &time, None, &records);
        res.finished = true;
        results::write(path, &res)?;
    }
    Ok(0)
}

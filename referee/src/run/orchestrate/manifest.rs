//! The run directory's manifest and `--resume`: what a run was started
//! with, the refusal of a directory that holds another run's games, and the
//! command that resumes an interrupted run.

use super::RunPlan;
use crate::output::record::{self, GameRecord};
use crate::schedule::roundrobin::RoundRobin;
use crate::schedule::shard::Shard;
use crate::schedule::swiss::Stage;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What a run directory was started with; `--resume` must match it, and
/// `referee merge` merges only shards whose manifests agree apart from `shard`.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Manifest {
    game: String,
    agents: Vec<(String, String)>,
    games: u64,
    /// Time control, mode and board parameters (absent in older manifests).
    #[serde(default)]
    conditions: crate::run::outdir::Conditions,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    time: Vec<f64>,
    #[serde(default)]
    openings: Option<String>,
    #[serde(default)]
    gauntlet: bool,
    #[serde(default)]
    shard: Option<Shard>,
    /// `--anchor` (absent in older manifests and when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    anchor: Option<String>,
    /// A Swiss's `--rounds` (absent for a round robin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rounds: Option<u32>,
    /// A Swiss's `--final` (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finalists: Option<usize>,
    /// A Swiss played one round here (`--round N`; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    round: Option<u32>,
}

impl RunPlan {
    fn manifest(&self) -> Manifest {
        Manifest {
            game: self.game.clone(),
            agents: self.ids(),
            games: self.games,
            conditions: self.conditions(),
            seed: self.starts.gen.seed,
            time: self.time.clone(),
            openings: self.openings.clone(),
            gauntlet: self.gauntlet,
            shard: self.shard,
            anchor: self.anchor.clone(),
            rounds: self.swiss.as_ref().map(|s| s.rounds),
            finalists: self.swiss.as_ref().map(|s| s.finalists).filter(|&k| k > 0),
            round: self.swiss.as_ref().and_then(|s| s.round),
        }
    }

    /// Everything else that decides the games, for `--resume` to compare.
    fn conditions(&self) -> crate::run::outdir::Conditions {
        let r = &self.rules;
        let g = &self.starts.gen;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "(not set)".into());
        let times: Vec<String> = self.time.iter().map(f64::to_string).collect();
        let start = self.starts.text.as_ref().map(|t| {
            // FNV-1a: a start file changed in place is noticed without storing it.
            let h = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
            format!("{} bytes, hash {h:016x}", t.len())
        });
        [
            ("--mode", r.mode.token().to_string()),
            ("--time", times.join(",")),
            ("--grace", r.grace.to_string()),
            ("--move-time", opt(r.move_time.map(|m| m.to_string()))),
            ("--max-plies", r.max_plies.to_string()),
            ("--wall-factor", r.wall_factor.to_string()),
            ("--seed", g.seed.to_string()),
            ("--rows", opt(g.rows.map(|v| v.to_string()))),
            ("--cols", opt(g.cols.map(|v| v.to_string()))),
            ("--size", opt(g.size.map(|v| v.to_string()))),
            ("--density", opt(g.density.map(|v| v.to_string()))),
            ("--start", opt(start)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn manifest_path(&self) -> PathBuf {
        self.out.join(format!("{}.json", self.kind.label()))
    }
}

/// Creates `out` and returns the games already recorded there: none for a
/// new run (a directory holding records is refused), those of the
/// interrupted run for `--resume` (whose manifest must match).
pub(super) fn open_out(plan: &RunPlan) -> Result<Vec<GameRecord>, String> {
    let out = &plan.out;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let manifest = plan.manifest();
    let manifest_path = plan.manifest_path();
    let records_path = plan.records_path();
    if plan.resume {
        let text = std::fs::read_to_string(&manifest_path)
            .map_err(|e| format!("--resume: cannot read {}: {e}", manifest_path.display()))?;
        let old: Manifest = serde_json::from_str(&text).map_err(|e| {
            format!(
                "--resume: {} is not a {} manifest: {e}",
                manifest_path.display(),
                plan.kind.label()
            )
        })?;
        let changed = crate::run::outdir::differences(&old.conditions, &manifest.conditions);
        if !old.conditions.is_empty() && !changed.is_empty() {
            return Err(format!(
                "--resume: {} was started under other conditions: {}; rerun with the original options",
                out.display(),
                changed.join("; ")
            ));
        }
        if (&old.game, &old.agents, old.games) != (&manifest.game, &manifest.agents, manifest.games) {
            return Err(format!(
                "--resume: {} was started with a different game, agents or --games (game {}, {} games per pairing, agents {}); rerun with the original arguments",
                out.display(),
                old.game,
                old.games,
                old.agents.iter().map(|(n, c)| format!("{n}={c}")).collect::<Vec<_>>().join(", ")
            ));
        }
        if (old.rounds, old.finalists) != (manifest.rounds, manifest.finalists) {
            let shown = |r: Option<u32>, f: Option<usize>| match (r, f) {
                (None, _) => "a round robin".to_string(),
                (Some(r), None) => format!("a Swiss of {r} rounds"),
                (Some(r), Some(k)) => format!("a Swiss of {r} rounds and a final of {k}"),
            };
            return Err(format!(
                "--resume: {} holds {}, not {}; rerun with the original --format, --rounds and --final",
                out.display(),
                shown(old.rounds, old.finalists),
                shown(manifest.rounds, manifest.finalists)
            ));
        }
        // A shard stays that shard of that round; an unsharded directory of
        // rounds 1 to N (a merge) may go on to later rounds and the final.
        if old.shard != manifest.shard || (old.shard.is_some() && old.round != manifest.round) {
            return Err(format!(
                "--resume: {} holds {}, not {}; rerun with the original --round and --shard",
                out.display(),
                part(old.shard, old.round),
                part(manifest.shard, manifest.round)
            ));
        }
        return record::load(&records_path, true);
    }
    if std::fs::metadata(&records_path).map(|m| m.len() > 0).unwrap_or(false) {
        return Err(format!(
            "{} already holds game records: add --resume to continue that {}, or choose another --out",
            out.display(),
            plan.kind.label()
        ));
    }
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest_path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    Ok(Vec::new())
}

/// What part of a run a directory plays, in words.
fn part(shard: Option<Shard>, round: Option<u32>) -> String {
    let of = shard.map(|s| format!("shard {s} of ")).unwrap_or_default();
    match round {
        Some(r) => format!("{of}round {r}"),
        None if shard.is_some() => format!("{of}the schedule"),
        None => "the whole run".into(),
    }
}

/// `--round N --after PREV` started afresh: the games of rounds 1 to N-1
/// that PREV holds (refused unless PREV is the same Swiss), to be copied
/// into the new run directory, whose rounds are paired from them.
pub(super) fn read_after(plan: &RunPlan, prev: &Path, round: u32) -> Result<Vec<GameRecord>, String> {
    let path = prev.join(format!("{}.json", plan.kind.label()));
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "--after: cannot read {} ({e}): give the directory of the merge of round {}",
            path.display(),
            round - 1
        )
    })?;
    let theirs: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("--after: {} is not a run manifest: {e}", path.display()))?;
    let ours = plan.manifest();
    let as_value = |m: &Manifest| {
        let mut v = serde_json::to_value(m).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("shard");
            o.remove("round");
        }
        v
    };
    let diff = crate::run::merge::differences(&as_value(&theirs), &as_value(&ours));
    if !diff.is_empty() {
        return Err(format!(
            "--after: {} is another Swiss (it differs in: {}); give the rounds played with the same arguments",
            prev.display(),
            diff.join(", ")
        ));
    }
    let kept = record::load(&prev.join("records.jsonl"), false)?;
    if let Some(r) = kept
        .iter()
        .find(|r| !matches!(Stage::of(&r.key), Some(Stage::Round(k)) if k < round))
    {
        return Err(format!(
            "--after: {} holds game {:?}, which is not of rounds 1 to {}",
            prev.display(),
            r.key,
            round - 1
        ));
    }
    Ok(kept)
}

/// Every recorded game belongs to the schedule, once; returns their keys.
pub(super) fn check_records(
    rr: &RoundRobin,
    recs: &[GameRecord],
    path: &Path,
    game: &str,
) -> Result<HashSet<String>, String> {
    check_records_by(|key| rr.job_of(key).is_some(), recs, path, game)
}

/// Every recorded game is of `game`, replays by its rules, is one that
/// `belongs` says the run plays, and is recorded once; returns their keys.
pub(super) fn check_records_by(
    belongs: impl Fn(&str) -> bool,
    recs: &[GameRecord],
    path: &Path,
    game: &str,
) -> Result<HashSet<String>, String> {
    let mut seen = HashSet::new();
    for r in recs {
        if !r.game.eq_ignore_ascii_case(game) {
            return Err(format!(
                "{} holds game {:?} of {}, not of {game}: it is another run's record",
                path.display(),
                r.key,
                r.game
            ));
        }
        // Every recorded move is judged again, so a tampered or foreign
        // record cannot count toward this run.
        crate::for_game!(game, |G| crate::game::replay_states::<G>(r).map(|_| ())).map_err(|e| {
            format!(
                "{} holds game {:?} whose moves do not replay by the rules ({e}); move that file aside or start a new --out",
                path.display(),
                r.key
            )
        })?;
        if !belongs(&r.key) {
            return Err(not_of_this_run(path, &r.key));
        }
        if !seen.insert(r.key.clone()) {
            return Err(format!("{} holds game {:?} twice", path.display(), r.key));
        }
    }
    Ok(seen)
}

/// The refusal of a recorded game the run does not play.
pub(super) fn not_of_this_run(path: &Path, key: &str) -> String {
    format!(
        "{} holds a game {key:?} that is not part of this run; move that file aside or start a new --out",
        path.display()
    )
}

/// This process's command line with `--resume` (and `--out`) added.
pub(super) fn resume_command(out: &Path) -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|x| x == "--resume") {
        args.push("--resume".into());
    }
    if !args.iter().any(|x| x == "--out" || x.starts_with("--out=")) {
        args.push("--out".into());
        args.push(out.display().to_string());
    }
    args.iter().map(|s| shell_quote(s)).collect::<Vec<_>>().join(" ")
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_commands_quote_what_the_shell_would_split() {
        assert_eq!(shell_quote("--out"), "--out");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}

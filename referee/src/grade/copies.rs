//! Copies found by their code and by their play. Two submissions are the
//! same program when their files are the same once comments and
//! whitespace are set aside (a fingerprint taken at the intake), or when
//! they played the same legal move in every single-move test and the same
//! moves in every game against the deterministic reference. Pairs join
//! into clusters, each with its evidence. It changes no grade and costs
//! nothing: it reads what the grading recorded.

use super::exam::TestResult;
use crate::output::record::GameRecord;
use serde::Serialize;
use std::collections::BTreeMap;

/// FNV-1a, 64 bits: stable from run to run (for `--resume`).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A file's hash with its comments (`#`, `//` and `/* */`) and whitespace
/// set aside; a binary file (one holding a NUL byte) as it is. `None` for
/// a file with nothing left.
pub(crate) fn file_hash(bytes: &[u8]) -> Option<u64> {
    if bytes.contains(&0) {
        return Some(fnv1a(bytes));
    }
    let mut kept = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest[0] == b'#' || rest.starts_with(b"//") {
            i += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            i += rest.windows(2).position(|w| w == b"*/").map_or(rest.len(), |p| p + 2);
        } else {
            if !rest[0].is_ascii_whitespace() {
                kept.push(rest[0]);
            }
            i += 1;
        }
    }
    (!kept.is_empty()).then(|| fnv1a(&kept))
}

/// A folder's fingerprint from its files' hashes, whatever their names
/// and order.
pub(crate) fn fingerprint(mut hashes: Vec<u64>) -> Option<String> {
    if hashes.is_empty() {
        return None;
    }
    hashes.sort_unstable();
    let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
    Some(format!("{:016x}", fnv1a(&bytes)))
}

/// Submissions that are the same program, and why that is thought.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Cluster {
    /// The students, sorted.
    pub students: Vec<String>,
    /// What they share: `same code` and/or `same play`, in words.
    pub evidence: Vec<String>,
}

/// The clusters of the class: students grouped by their intake
/// fingerprints and by their play (`results` and the games' `records`).
pub(crate) fn clusters(students: &[String], results: &[TestResult], records: &[GameRecord]) -> Vec<Cluster> {
    let mut groups: Vec<Cluster> = Vec::new();
    let code = group(students, |s| {
        results
            .iter()
            .find(|r| r.student == s && r.fingerprint.is_some())
            .and_then(|r| r.fingerprint.clone())
    });
    for members in code {
        add(
            &mut groups,
            members,
            "the same code (the same files, comments and whitespace aside)",
        );
    }
    let play = group(students, |s| play_of(s, results, records));
    for members in play {
        add(
            &mut groups,
            members,
            "the same play (the same move in every single-move test and the same moves in every game)",
        );
    }
    groups.sort_by(|a, b| a.students.cmp(&b.students));
    groups
}

/// The students sharing a key, two or more to a group.
fn group(students: &[String], key: impl Fn(&str) -> Option<String>) -> Vec<Vec<String>> {
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in students {
        if let Some(k) = key(s) {
            by.entry(k).or_default().push(s.clone());
        }
    }
    by.into_values().filter(|g| g.len() > 1).collect()
}

/// Merges `members` into the clusters, with their evidence.
fn add(groups: &mut Vec<Cluster>, members: Vec<String>, why: &str) {
    let (mut joined, rest): (Vec<Cluster>, Vec<Cluster>) = std::mem::take(groups)
        .into_iter()
        .partition(|c| c.students.iter().any(|s| members.contains(s)));
    *groups = rest;
    let mut c = Cluster {
        students: members,
        evidence: vec![why.to_string()],
    };
    for j in joined.drain(..) {
        c.students.extend(j.students);
        c.evidence.extend(j.evidence);
    }
    c.students.sort();
    c.students.dedup();
    c.evidence.sort();
    c.evidence.dedup();
    groups.push(c);
}

/// A student's play as one key: every single move (each must be legal)
/// and every game's moves of its own seat; none when a test is missing.
fn play_of(student: &str, results: &[TestResult], records: &[GameRecord]) -> Option<String> {
    let mut mine: Vec<&TestResult> = results
        .iter()
        .filter(|r| r.student == student && (r.test.starts_with('s') || r.test.starts_with('g')))
        .collect();
    mine.sort_by(|a, b| a.test.cmp(&b.test));
    if mine.is_empty() {
        return None;
    }
    let mut key = String::new();
    for r in mine {
        if r.test.starts_with('s') {
            key += r.moved.as_deref()?;
        } else {
            let rec = records.iter().find(|g| Some(&g.key) == r.record.as_ref())?;
            let seat = rec.agents.iter().position(|a| a == student)?;
            for m in rec.moves.iter().filter(|m| m.seat == seat) {
                key += &m.text;
                key.push(';');
            }
        }
        key.push('|');
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_whitespace_are_set_aside() {
        let a = b"def f(x):\n    return x + 1  # add one\n";
        let b = b"# my own work\ndef f(x):\n  return x+1\n";
        let c = b"def f(x):\n    return x + 2\n";
        assert_eq!(file_hash(a), file_hash(b));
        assert_ne!(file_hash(a), file_hash(c));
        assert_eq!(file_hash(b"int x; /* a\nb */ // c\n"), file_hash(b"int  x;"));
        assert_eq!(file_hash(b"# only a comment\n"), None);
        assert_eq!(fingerprint(vec![1, 2]), fingerprint(vec![2, 1]));
    }

    #[test]
    fn pairs_join_into_clusters_with_their_evidence() {
        let mut groups = Vec::new();
        add(&mut groups, vec!["a".into(), "b".into()], "code");
        add(&mut groups, vec!["c".into(), "d".into()], "code");
        add(&mut groups, vec!["b".into(), "c".into()], "play");
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].students, vec!["a", "b", "c", "d"]);
        assert_eq!(groups[0].evidence, vec!["code", "play"]);
    }
}

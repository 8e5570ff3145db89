//! What an agent says about itself on stderr: an optional per-move report
//! and, when it fails, the last lines of its stderr for the verdict.
//!
//! Convention (optional for agents): the last line an agent writes to stderr
//! during a move may be `info depth D score S nodes N` (any subset of the
//! three pairs, in any order; unknown pairs are ignored). The referee records
//! it with the move, so a record shows how deep and how confident each side
//! was. Nothing else on stderr is read, except for a failing agent's tail.

use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// An agent's own report on one move.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Search depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Score of the chosen move from the mover's view, in the agent's units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// Nodes searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

impl AgentInfo {
    /// Parses one `info ...` line; `None` when the line is not one or
    /// carries none of the known pairs.
    pub fn parse_line(line: &str) -> Option<AgentInfo> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut info = AgentInfo::default();
        let rest: Vec<&str> = words.collect();
        for pair in rest.chunks(2) {
            if let [key, value] = pair {
                match *key {
                    "depth" => info.depth = value.parse().ok(),
                    "score" => info.score = value.parse().ok(),
                    "nodes" => info.nodes = value.parse().ok(),
                    _ => {}
                }
            }
        }
        (info != AgentInfo::default()).then_some(info)
    }

    /// The report in the last non-empty line of `stderr`, if it is one.
    pub fn from_stderr(stderr: &str) -> Option<AgentInfo> {
        stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(AgentInfo::parse_line)
    }
}

/// Bytes read from the end of a stderr file: enough for a few lines, and a
/// 1 GB stderr costs no more than a small one.
const TAIL_BYTES: u64 = 4096;

/// The last `lines` non-empty lines of a file (at most its last 4 KiB),
/// lossily decoded; empty if the file is missing or unreadable.
pub fn tail(path: &Path, lines: usize) -> String {
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if f.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES))).is_err() {
        return String::new();
    }
    let mut buf = Vec::new();
    if f.take(TAIL_BYTES).read_to_end(&mut buf).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&buf);
    let kept: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    kept[kept.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let i = AgentInfo::parse_line("info depth 12 score -35 nodes 1234567").unwrap();
        assert_eq!((i.depth, i.score, i.nodes), (Some(12), Some(-35), Some(1_234_567)));
        let j = AgentInfo::parse_line("info nodes 9 time 3 depth 2").unwrap();
        assert_eq!((j.depth, j.score, j.nodes), (Some(2), None, Some(9)));
        assert_eq!(AgentInfo::parse_line("info string hello"), None);
        assert_eq!(AgentInfo::parse_line("information depth 3"), None);
        assert_eq!(
            AgentInfo::from_stderr("warming up\ninfo depth 3 score 10\n\n")
                .unwrap()
                .depth,
            Some(3)
        );
        // Only the last line counts: a report followed by other text is stale.
        assert_eq!(AgentInfo::from_stderr("info depth 3\nTraceback ...\n"), None);
        let json = serde_json::to_string(&AgentInfo::parse_line("info depth 4").unwrap()).unwrap();
        assert_eq!(json, r#"{"depth":4}"#);
    }

    #[test]
    fn tail_of_a_file() {
        let p = std::env::temp_dir().join(format!("referee-tail-{}.txt", std::process::id()));
        std::fs::write(&p, "one\n\ntwo\nthree\n").unwrap();
        assert_eq!(tail(&p, 2), "two\nthree");
        assert_eq!(tail(&p, 10), "one\ntwo\nthree");
        let big = "x".repeat(10_000) + "\nlast words\n";
        std::fs::write(&p, big).unwrap();
        assert!(tail(&p, 3).ends_with("last words") && tail(&p, 3).len() < 4200);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(tail(&p, 3), "");
    }
}

//! What an agent says about itself on stderr: an optional per-move report
//! and, when it fails, the last lines of its stderr for the verdict.
//!
//! Convention (optional for agents): the last line an agent writes to stderr
//! during a move may be `info depth D score S nodes N` (any subset of the
//! three pairs, in any order; unknown pairs are ignored). The referee records
//! it with the move, so a record shows how deep and how confident each side
//! was. Nothing else on stderr is read, except for a failing agent's tail.

use serde::{Deserialize, Serialize};

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
    pub(crate) fn parse_line(line: &str) -> Option<AgentInfo> {
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
    pub(crate) fn from_stderr(stderr: &str) -> Option<AgentInfo> {
        stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(AgentInfo::parse_line)
    }
}

/// The last `lines` non-empty lines of a captured stream's tail (see
/// [`crate::process::agent_files::Capture::tail`]), lossily decoded, with control
/// characters escaped so that agent text cannot drive a terminal.
pub(crate) fn last_lines(tail: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(tail);
    let kept: Vec<String> = text.lines().filter(|l| !l.trim().is_empty()).map(printable).collect();
    kept[kept.len().saturating_sub(lines)..].join("\n")
}

/// `line` with every control character (escape sequences, carriage returns,
/// bells, bidi overrides) written as a visible `\u{..}` escape; tabs stay.
pub(crate) fn printable(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && c != '\t') || bidi {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
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
    fn last_lines_of_a_tail() {
        assert_eq!(last_lines(b"one\n\ntwo\nthree\n", 2), "two\nthree");
        assert_eq!(last_lines(b"one\n\ntwo\nthree\n", 10), "one\ntwo\nthree");
        assert_eq!(last_lines(b"", 3), "");
        assert_eq!(last_lines(b"\xff\xfeok\n", 1), "\u{fffd}\u{fffd}ok");
    }

    #[test]
    fn control_characters_are_escaped() {
        let evil = "\x1b]0;pwned\x07\x1b[2J\rtab\there\u{202e}";
        assert_eq!(
            printable(evil),
            "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{d}tab\there\\u{202e}"
        );
        assert!(!last_lines(evil.as_bytes(), 1)
            .chars()
            .any(|c| c.is_control() && c != '\t'));
    }
}

//! Game records: one JSON object per line, appended and flushed when a game
//! ends, so an interrupted run loses at most the games in progress.

use crate::process::agentinfo::AgentInfo;
use serde::{Deserialize, Serialize};

mod file;
pub use file::{append, load};

/// Why a player lost by forfeit (not by the game's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossReason {
    /// A well-formed move that is not legal in the position.
    IllegalMove,
    /// `output.txt` does not have the form of a move.
    Malformed,
    /// `output.txt` missing or empty.
    NoOutput,
    /// Non-zero exit status or killed by a signal.
    Crash,
    /// Used more CPU time than it had (or was killed at a limit).
    OverTime,
    /// A person at the terminal resigned or closed the input.
    Resigned,
    /// Left more in its working directory than `--disk` allows.
    Disk,
    /// Its processes together held more memory than `--memory` allows.
    Memory,
}

impl LossReason {
    /// Short label for tables.
    pub(crate) fn label(self) -> &'static str {
        match self {
            LossReason::IllegalMove => "illegal move",
            LossReason::Malformed => "malformed output",
            LossReason::NoOutput => "no output",
            LossReason::Crash => "crash",
            LossReason::OverTime => "over time",
            LossReason::Resigned => "resigned",
            LossReason::Disk => "disk use",
            LossReason::Memory => "memory",
        }
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Won or drawn by the game's rules.
    Rules,
    /// The move cap was reached: more remaining time wins.
    MoveCap,
    /// The side to move had no legal move and the game settles by time.
    NoLegalMove,
    /// A player forfeited (see `loss`).
    Forfeit,
}

/// One move of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// 1-based ply number.
    pub ply: usize,
    /// Seat index (0 = the game's first-listed seat) of the mover.
    pub seat: usize,
    /// The move as the mover wrote it (normalised by the game's formatter).
    pub text: String,
    /// CPU seconds charged for the move (0 for a person).
    pub cpu: f64,
    /// The mover's remaining CPU seconds after the move.
    pub left: f64,
    /// Wall-clock seconds the move took.
    pub wall: f64,
    /// The agent's own report on the move (its last stderr line, when that
    /// is an `info depth D score S nodes N` line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<AgentInfo>,
}

/// Where a game of a run came from: when it was played, by which referee,
/// from which seed and opening. Absent from records of older referees.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// When the game ended (RFC 3339, UTC).
    #[serde(default)]
    pub date: Option<String>,
    /// The run's `--seed`.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The opening's id (`--openings`), if the run used a suite.
    #[serde(default)]
    pub opening: Option<String>,
    /// The referee's version and git commit.
    #[serde(default)]
    pub referee: Option<String>,
}

/// This referee's version, as `referee --version` prints it and records carry it.
pub(crate) const REFEREE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (git ", env!("REFEREE_GIT_COMMIT"), ")");

/// Output of one agent move past the capture cap (`--file-size`), read and
/// thrown away so that a flood costs neither disk nor a blocked agent (the
/// kept part of the move's `stdout.txt`/`stderr.txt` ends with a note too).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discarded {
    /// 1-based ply of the move (a move that forfeited the game counts).
    pub ply: usize,
    /// Seat index of the mover.
    pub seat: usize,
    /// Bytes of stdout thrown away.
    pub stdout: u64,
    /// Bytes of stderr thrown away.
    pub stderr: u64,
    /// Bytes of each stream that were kept.
    pub cap: u64,
}

impl Discarded {
    /// The note for people, naming the agent by `agents[seat]`.
    pub(crate) fn note(&self, agents: &[String; 2]) -> String {
        let mut parts = Vec::new();
        for (n, stream) in [(self.stdout, "stdout"), (self.stderr, "stderr")] {
            if n > 0 {
                parts.push(format!("{} of {stream}", bytes(n)));
            }
        }
        format!(
            "{}, ply {}: {} past the {} capture cap discarded",
            agents[self.seat],
            self.ply,
            parts.join(" and "),
            bytes(self.cap)
        )
    }
}

/// A byte count for people: `812 bytes`, `1.5 KiB`, `47.7 MiB`, `2.0 GiB`.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// One finished game. Per-seat values are plain two-element arrays and
/// seats are indices (0 for [`agent::Player::One`]): this is the
/// JSON-lines record format; the game loop works with `ByPlayer` and
/// `Player` and converts here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Unique key of the game within its run (used by `--resume`).
    pub key: String,
    /// Game name (`halma`, ...).
    pub game: String,
    /// Agent names by seat (index 0 plays the first-listed seat).
    pub agents: [String; 2],
    /// Agent commands by seat (`human` for a person).
    pub commands: [String; 2],
    /// Seat names as the game writes them (e.g. BLACK, WHITE).
    pub seat_names: [String; 2],
    /// Seat index that moved first.
    pub first: usize,
    /// `SINGLE` or `GAME`.
    pub mode: String,
    /// Starting CPU seconds by seat.
    pub time: [f64; 2],
    /// The start position as an `input.txt` for the side to move.
    pub start: String,
    /// Every move played.
    pub moves: Vec<MoveRecord>,
    /// Winning seat index, `None` for a draw.
    pub winner: Option<usize>,
    /// How the game ended.
    pub ending: Ending,
    /// For a forfeit: why the loser lost.
    pub loss: Option<LossReason>,
    /// Human-readable explanation of the result.
    pub reason: String,
    /// Remaining CPU seconds by seat at the end.
    pub clocks: [f64; 2],
    /// The agents' working directories by seat.
    pub dirs: [String; 2],
    /// Agent output discarded past the capture cap, move by move (absent when none was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discarded: Vec<Discarded>,
    /// Date, seed, opening and referee version.
    #[serde(flatten)]
    pub run: RunInfo,
}

impl GameRecord {
    /// The winner's name, if any.
    pub fn winner_name(&self) -> Option<&str> {
        self.winner.map(|s| self.agents[s].as_str())
    }

    /// Score of the named agent in this game: 1, 0.5 or 0 (`None` if it did not play).
    pub(crate) fn score_of(&self, name: &str) -> Option<f64> {
        let seat = self.agents.iter().position(|a| a == name)?;
        Some(match self.winner {
            None => 0.5,
            Some(w) if w == seat => 1.0,
            Some(_) => 0.0,
        })
    }
}

#[cfg(test)]
impl GameRecord {
    /// A testnim record for the tests of tables, summaries and results:
    /// `agents` as seated (seat 0 moved first), `winner` by seat, a forfeit
    /// for `loss` when given, by the rules otherwise; no moves.
    pub(crate) fn for_test(
        key: &str,
        agents: [&str; 2],
        winner: Option<usize>,
        loss: Option<LossReason>,
    ) -> GameRecord {
        GameRecord {
            key: key.into(),
            game: "testnim".into(),
            agents: [agents[0].into(), agents[1].into()],
            commands: ["a".into(), "b".into()],
            seat_names: ["1".into(), "2".into()],
            first: 0,
            mode: "GAME".into(),
            time: [1.0, 1.0],
            start: String::new(),
            moves: Vec::new(),
            winner,
            ending: if loss.is_some() { Ending::Forfeit } else { Ending::Rules },
            loss,
            reason: String::new(),
            clocks: [1.0, 1.0],
            dirs: [String::new(), String::new()],
            discarded: Vec::new(),
            run: RunInfo::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::io::Write;

    #[test]
    fn discarded_output_notes_name_the_agent_move_and_sizes() {
        let d = Discarded {
            ply: 3,
            seat: 1,
            stdout: 48_951_424,
            stderr: 0,
            cap: 16 << 20,
        };
        let agents = ["a".to_string(), "flood".to_string()];
        assert_eq!(
            d.note(&agents),
            "flood, ply 3: 46.7 MiB of stdout past the 16.0 MiB capture cap discarded"
        );
        assert_eq!(bytes(812), "812 bytes");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }

    fn sample(key: &str) -> GameRecord {
        GameRecord {
            key: key.into(),
            game: "testnim".into(),
            agents: ["a".into(), "b".into()],
            commands: ["x".into(), "y".into()],
            seat_names: ["1".into(), "2".into()],
            first: 0,
            mode: "GAME".into(),
            time: [1.0, 1.0],
            start: "TESTNIM\n".into(),
            moves: vec![MoveRecord {
                ply: 1,
                seat: 0,
                text: "1".into(),
                cpu: 0.1,
                left: 0.9,
                wall: 0.1,
                info: None,
            }],
            winner: Some(1),
            ending: Ending::Forfeit,
            loss: Some(LossReason::Crash),
            reason: "crash".into(),
            clocks: [0.9, 1.0],
            dirs: ["d0".into(), "d1".into()],
            discarded: Vec::new(),
            run: RunInfo::default(),
        }
    }

    #[test]
    fn round_trips_and_repairs_a_cut_line() {
        let p = std::env::temp_dir().join(format!("referee-rec-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&p);
        append(&p, &sample("g1")).unwrap();
        append(&p, &sample("g2")).unwrap();
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"key\":\"g3\",\"ga").unwrap();
        drop(f);
        let recs = load(&p, true).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1], sample("g2"));
        assert_eq!(recs[0].score_of("b"), Some(1.0));
        assert_eq!(recs[0].score_of("z"), None);
        // The cut line is gone from the file; a new append starts cleanly.
        append(&p, &sample("g3")).unwrap();
        assert_eq!(load(&p, true).unwrap().len(), 3);
        // Run details and agent reports survive a round trip; older records
        // without them still load.
        let mut r = sample("g4");
        r.run.opening = Some("random:4#2".into());
        r.run.seed = Some(9);
        r.moves[0].info = crate::process::agentinfo::AgentInfo::parse_line("info depth 3 score 5");
        let line = serde_json::to_string(&r).unwrap();
        assert!(
            line.contains("\"opening\":\"random:4#2\"") && line.contains("\"info\":{\"depth\":3"),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<GameRecord>(&line).unwrap(), r);
        let old = serde_json::to_string(&sample("g5"))
            .unwrap()
            .replace(",\"date\":null,\"seed\":null,\"opening\":null,\"referee\":null", "");
        assert!(!old.contains("seed"), "{old}");
        assert_eq!(serde_json::from_str::<GameRecord>(&old).unwrap(), sample("g5"));
        std::fs::write(&p, "{\"key\": 1}\n").unwrap();
        assert!(load(&p, false).unwrap_err().contains("line 1"));
        std::fs::remove_file(&p).unwrap();
    }
}

//! `playdata.txt`: what the agent remembers between the moves of one game
//! (GAME mode): how many moves it has made and the positions already seen,
//! so that it does not walk in circles. The file is a hint, not trusted: a
//! missing, special, oversized, foreign or damaged file is ignored (with a
//! note in the `-v` log) and the game goes on from a fresh record. Its last
//! line is a checksum of the rest: the file is written in place (a rename
//! costs a tenth of a millisecond on a disk), so a kill mid-write leaves a
//! mixture of two records, which the checksum refuses.

use crate::protocol::{read_bounded, write_file, Replace};
use fxhash::FxHashSet;
use std::path::Path;

const MAGIC: &str = "agent-playdata 2";
/// The first word of the last line, before the checksum in hex.
const CHECK: &str = "check ";

/// More moves than any game here lasts (Halma's cap is 1000 plies); a
/// larger count means the file is damaged.
pub(crate) const MAX_MOVES: u32 = 100_000;
/// More positions than a game can pass through; a larger set is damaged.
pub(crate) const MAX_SEEN: usize = 100_000;

/// The remembered state.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PlayData {
    /// Game name the file belongs to.
    pub game: String,
    /// Moves this agent has made so far in the game.
    pub moves: u32,
    /// Hashes of positions the game has passed through.
    pub seen: FxHashSet<u64>,
    /// The clock at this agent's last move, to measure what a move costs.
    pub clock: Option<Clock>,
}

/// What the last move knew of the clock: with the next move's remaining
/// time, the CPU the referee charged for it, and so what a move costs
/// outside the search on this machine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Clock {
    /// CPU seconds left when the last move started.
    pub remaining: f64,
    /// CPU seconds that move's search took.
    pub search: f64,
    /// The estimate of a move's cost outside its search, seconds.
    pub overhead: f64,
}

impl PlayData {
    /// Parses the file's text; None when it is not ours or is damaged.
    pub fn parse(text: &str, game: &str) -> Option<PlayData> {
        Self::parse_body(unseal(text)?, game)
    }

    /// Parses the text above the checksum (the fuzzer calls this too: random
    /// bytes never carry a matching checksum).
    pub(crate) fn parse_body(text: &str, game: &str) -> Option<PlayData> {
        let mut lines = text.lines();
        if lines.next()?.trim() != MAGIC {
            return None;
        }
        let g = lines.next()?.trim().strip_prefix("game ")?.to_string();
        if g != game {
            return None;
        }
        let moves: u32 = lines.next()?.trim().strip_prefix("moves ")?.parse().ok()?;
        if moves > MAX_MOVES {
            return None;
        }
        let mut line = lines.next()?.trim();
        let mut clock = None;
        if let Some(c) = line.strip_prefix("clock ") {
            let v: Vec<f64> = c.split_whitespace().map(|t| t.parse().ok()).collect::<Option<_>>()?;
            let plausible = |x: f64| x.is_finite() && (0.0..1e6).contains(&x);
            if v.len() != 3 || !v.iter().all(|&x| plausible(x)) {
                return None;
            }
            clock = Some(Clock {
                remaining: v[0],
                search: v[1],
                overhead: v[2],
            });
            line = lines.next()?.trim();
        }
        let seen_list = line.strip_prefix("seen")?;
        let mut seen = FxHashSet::default();
        for tok in seen_list.split_whitespace() {
            if seen.len() >= MAX_SEEN {
                return None;
            }
            seen.insert(u64::from_str_radix(tok, 16).ok()?);
        }
        Some(PlayData {
            game: g,
            moves,
            seen,
            clock,
        })
    }

    /// Reads `dir/playdata.txt` for `game`, or a fresh record.
    pub fn load(dir: &Path, game: &str) -> PlayData {
        let path = dir.join("playdata.txt");
        let fresh = || PlayData {
            game: game.to_string(),
            ..Default::default()
        };
        match read_bounded(&path) {
            Ok(text) => PlayData::parse(&text, game).unwrap_or_else(|| {
                log::debug!(
                    "ignoring {}: not a {game} record of this agent, or damaged",
                    path.display()
                );
                fresh()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => fresh(),
            Err(e) => {
                log::debug!("ignoring {}: {e}", path.display());
                fresh()
            }
        }
    }

    /// The file's text.
    pub(crate) fn to_text(&self) -> String {
        let mut hashes: Vec<u64> = self.seen.iter().copied().collect();
        hashes.sort_unstable();
        let mut s = format!("{MAGIC}\ngame {}\nmoves {}\n", self.game, self.moves);
        if let Some(c) = self.clock {
            s.push_str(&format!("clock {} {} {}\n", c.remaining, c.search, c.overhead));
        }
        s.push_str("seen");
        for h in hashes {
            s.push_str(&format!(" {h:x}"));
        }
        s.push('\n');
        seal(s)
    }

    /// Writes `dir/playdata.txt` in place (the checksum guards against a
    /// kill mid-write); failures are only logged (the move in output.txt is
    /// what counts).
    pub(crate) fn save(&self, dir: &Path) {
        if let Err(e) = write_file(dir, "playdata.txt", &self.to_text(), Replace::Stale) {
            log::warn!("could not write playdata.txt: {e}");
        }
    }
}

/// `body` (whole lines) followed by the line of its checksum.
fn seal(mut body: String) -> String {
    let sum = fxhash::hash64(body.as_bytes());
    body.push_str(&format!("{CHECK}{sum:016x}\n"));
    body
}

/// The body of a sealed text whose checksum matches; None for any other
/// text (damaged, cut short, two records mixed, or no checksum at all).
fn unseal(text: &str) -> Option<&str> {
    let end = text.strip_suffix('\n')?;
    let start = end.rfind('\n').map_or(0, |i| i + 1);
    let sum = u64::from_str_radix(end[start..].strip_prefix(CHECK)?, 16).ok()?;
    let body = &text[..start];
    (fxhash::hash64(body.as_bytes()) == sum).then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str, game: &str) -> Option<PlayData> {
        PlayData::parse(&seal(body.to_string()), game)
    }

    #[test]
    fn round_trips() {
        let mut p = PlayData {
            game: "halma".into(),
            moves: 7,
            seen: FxHashSet::default(),
            clock: None,
        };
        p.seen.insert(0xdead_beef);
        p.seen.insert(u64::MAX);
        assert_eq!(PlayData::parse(&p.to_text(), "halma"), Some(p.clone()));
        p.clock = Some(Clock {
            remaining: 41.25,
            search: 0.5,
            overhead: 0.004,
        });
        assert_eq!(PlayData::parse(&p.to_text(), "halma"), Some(p));
        let bad = "agent-playdata 2\ngame halma\nmoves 1\nclock 1 NaN 2\nseen\n";
        assert_eq!(parse(bad, "halma"), None);
    }

    #[test]
    fn a_record_cut_short_or_mixed_with_an_older_one_is_refused() {
        let mut p = PlayData {
            game: "halma".into(),
            moves: 1,
            ..PlayData::default()
        };
        p.seen.extend([0x1f, 0x2a]);
        let old = p.to_text();
        p.moves = 2;
        p.seen.extend([0x3b, 0x4c]);
        let new = p.to_text();
        assert_eq!(PlayData::parse(&new, "halma"), Some(p));
        // Killed part-way through writing the new record over the old.
        for cut in 1..new.len() {
            let mixed = format!("{}{}", &new[..cut], old.get(cut..).unwrap_or(""));
            // Before the first changed byte the old record is whole, and fine.
            if mixed != old {
                assert_eq!(PlayData::parse(&mixed, "halma"), None, "{mixed:?}");
            }
            assert_eq!(PlayData::parse(&new[..cut], "halma"), None);
        }
        // A record without its checksum line (an older agent's) is not ours.
        let unsealed = old.rsplit_once(CHECK).unwrap().0;
        assert_eq!(PlayData::parse(unsealed, "halma"), None);
    }

    #[test]
    fn corrupt_or_foreign_files_are_ignored() {
        assert_eq!(parse("", "halma"), None);
        assert_eq!(parse("agent-playdata 2\ngame hinger\nmoves 1\nseen\n", "halma"), None);
        assert_eq!(parse("agent-playdata 2\ngame halma\nmoves x\nseen\n", "halma"), None);
        assert_eq!(parse("agent-playdata 2\ngame halma\nmoves 1\nseen zz\n", "halma"), None);
        let dir = std::env::temp_dir().join(format!("agent-pd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("playdata.txt"), [0xffu8, 0xfe, 0x00]).unwrap();
        assert_eq!(PlayData::load(&dir, "halma").moves, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn implausible_values_and_special_files_are_ignored() {
        let big = format!("agent-playdata 2\ngame halma\nmoves {}\nseen\n", MAX_MOVES + 1);
        assert_eq!(parse(&big, "halma"), None);
        let many: String = (0..=MAX_SEEN as u64).map(|h| format!(" {h:x}")).collect();
        let many = format!("agent-playdata 2\ngame halma\nmoves 3\nseen{many}\n");
        assert_eq!(parse(&many, "halma"), None);
        // A FIFO (which would block a plain read) gives a fresh record at once.
        let dir = std::env::temp_dir().join(format!("agent-pd-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = rustix::fs::FileType::Fifo;
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join("playdata.txt"),
            fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(PlayData::load(&dir, "halma").moves, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `playdata.txt`: what the agent remembers between the moves of one game
//! (GAME mode): how many moves it has made and the positions already seen,
//! so that it does not walk in circles. A missing or corrupt file is ignored.

use fxhash::FxHashSet;
use std::path::Path;

const MAGIC: &str = "agent-playdata 1";

/// The remembered state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayData {
    /// Game name the file belongs to.
    pub game: String,
    /// Moves this agent has made so far in the game.
    pub moves: u32,
    /// Hashes of positions the game has passed through.
    pub seen: FxHashSet<u64>,
}

impl PlayData {
    /// Parses the file's text; None when it is not ours or is damaged.
    pub fn parse(text: &str, game: &str) -> Option<PlayData> {
        let mut lines = text.lines();
        if lines.next()?.trim() != MAGIC {
            return None;
        }
        let g = lines.next()?.trim().strip_prefix("game ")?.to_string();
        if g != game {
            return None;
        }
        let moves = lines.next()?.trim().strip_prefix("moves ")?.parse().ok()?;
        let seen_line = lines.next()?.trim();
        let seen_list = seen_line.strip_prefix("seen")?;
        let mut seen = FxHashSet::default();
        for tok in seen_list.split_whitespace() {
            seen.insert(u64::from_str_radix(tok, 16).ok()?);
        }
        Some(PlayData { game: g, moves, seen })
    }

    /// Reads `dir/playdata.txt` for `game`, or a fresh record.
    pub fn load(dir: &Path, game: &str) -> PlayData {
        std::fs::read_to_string(dir.join("playdata.txt"))
            .ok()
            .and_then(|t| PlayData::parse(&t, game))
            .unwrap_or_else(|| PlayData {
                game: game.to_string(),
                ..Default::default()
            })
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut hashes: Vec<u64> = self.seen.iter().copied().collect();
        hashes.sort_unstable();
        let mut s = format!("{MAGIC}\ngame {}\nmoves {}\nseen", self.game, self.moves);
        for h in hashes {
            s.push_str(&format!(" {h:x}"));
        }
        s.push('\n');
        s
    }

    /// Writes `dir/playdata.txt` atomically; failures are only logged (the
    /// move in output.txt is what counts).
    pub fn save(&self, dir: &Path) {
        if let Err(e) = crate::protocol::write_atomic(dir, "playdata.txt", &self.to_text()) {
            log::warn!("could not write playdata.txt: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut p = PlayData {
            game: "halma".into(),
            moves: 7,
            seen: FxHashSet::default(),
        };
        p.seen.insert(0xdead_beef);
        p.seen.insert(u64::MAX);
        assert_eq!(PlayData::parse(&p.to_text(), "halma"), Some(p));
    }

    #[test]
    fn corrupt_or_foreign_files_are_ignored() {
        assert_eq!(PlayData::parse("", "halma"), None);
        assert_eq!(
            PlayData::parse("agent-playdata 1\ngame hinger\nmoves 1\nseen\n", "halma"),
            None
        );
        assert_eq!(
            PlayData::parse("agent-playdata 1\ngame halma\nmoves x\nseen\n", "halma"),
            None
        );
        assert_eq!(
            PlayData::parse("agent-playdata 1\ngame halma\nmoves 1\nseen zz\n", "halma"),
            None
        );
        let dir = std::env::temp_dir().join(format!("agent-pd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("playdata.txt"), [0xffu8, 0xfe, 0x00]).unwrap();
        assert_eq!(PlayData::load(&dir, "halma").moves, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

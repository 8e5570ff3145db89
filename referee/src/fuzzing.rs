//! Entry points for the referee's fuzz targets in `fuzz/` (run by
//! `scripts/fuzz.sh`) and for the replay of their corpora in
//! `referee/tests/fuzz_corpus.rs`. Each takes arbitrary bytes and panics
//! only on a real bug; refusing bad input with a message is expected.

use crate::output::record;
use crate::schedule::starts::Starts;
use agent::Game;
use agent::{GenOptions, Mode, Notation, Setup, View};
use std::path::PathBuf;
use std::sync::OnceLock;

/// A records file of this process's own, in the temp directory.
fn records_file() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("referee-fuzz-{}.jsonl", std::process::id())))
}

/// The record reader (`records.jsonl`, as `replay` and `--resume` read it):
/// a file it accepts is replayed move by move through the game's own
/// judge; a record whose start or moves the game refuses gives an error,
/// never a panic.
pub fn records(data: &[u8]) {
    let path = records_file();
    std::fs::write(path, data).expect("cannot write the scratch records file");
    match record::load(path, false) {
        Ok(recs) => {
            for r in &recs {
                let _ = replay(r);
            }
        }
        Err(e) => assert!(!e.is_empty(), "empty error message"),
    }
    // Nothing left in the temp directory once the input is judged.
    let _ = std::fs::remove_file(path);
}

/// Replays one record's moves from its start; Err at the first refusal.
fn replay(r: &record::GameRecord) -> Result<(), String> {
    crate::for_game!(&r.game, |G| {
        let mut state = G::parse_input(&r.start).map_err(|e| e.to_string())?.state;
        for m in &r.moves {
            if state.result().is_some() {
                return Err("a move after the end".into());
            }
            let mv = state.parse_move(&m.text).map_err(|e| e.to_string())?;
            state.play(mv);
        }
        let _ = state.render();
        Ok(())
    })
}

/// The `--start` loader for every game: a start it accepts must draw and
/// write back to an `input.txt` that the same loader accepts again.
pub fn start(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let load = |text: String| Starts {
        text: Some(text),
        gen: GenOptions::default(),
        openings: None,
    };
    for game in crate::game_names() {
        let starts = load(text.clone());
        let _: Result<(), String> = crate::for_game!(game, |G| {
            if let Ok((pos, _)) = starts.position::<G>(0, 0) {
                let _ = pos.render();
                if let Err(e) = load(pos.write_input(Mode::Game, 10.0)).position::<G>(0, 0) {
                    panic!("{game}: a start written by the referee does not load: {e}");
                }
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_and_refused_inputs_run_without_panicking() {
        start(b"HINGER\nGAME\n1\n10\n1 3\n1 1 1\n");
        start(b"CONNECTSQUARE\nGAME\nR\n10\n18446744073709551615 4\n");
        records(b"{\"not\": \"a record\"}\n");
        records(b"");
    }
}

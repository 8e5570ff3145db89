//! Entry points for the fuzz targets in `fuzz/` (run by `scripts/fuzz.sh`)
//! and for the replay of their corpora in `tests/fuzz_corpora.rs`. Each
//! takes arbitrary bytes and panics only on a real bug: a parser that
//! panics or loops, a written `input.txt` that does not read back as the
//! same position, or an agent turn that fails on a valid position or writes
//! an illegal move. Refusing bad input with an error is the expected outcome.

use crate::driver::{self, AgentOptions, TurnError};
use crate::play::FileGame;
use crate::playdata::PlayData;
use crate::search::Strategy;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Remaining time given to the agent's turn: small, so that a fuzzer runs
/// hundreds of turns a second, yet above the 0.005 s the time policy keeps.
const TURN_SECONDS: f64 = 0.01;

/// A scratch directory for this thread (the turn writes `output.txt`, and
/// GAME mode `playdata.txt`, there). Per thread, not per process: the
/// corpus replays run as parallel tests, and the temporary file a turn
/// renames onto `output.txt` is named after the process, so two threads
/// sharing a directory took each other's file.
fn scratch() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static DIR: Scratch = {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let d = std::env::temp_dir().join(format!("agent-fuzz-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&d).expect("cannot create the fuzzing scratch directory");
            Scratch(d)
        };
    }
    DIR.with(|s| s.0.clone())
}

/// The scratch directory, removed when its thread ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `input.txt` of game `G`: parse; a parsed position must write back to a
/// text that parses to the same text again; a position with a legal move
/// must get a legal move from one agent turn under a tiny budget.
pub fn input_turn<G: FileGame>(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let input = match G::parse_input(&text) {
        Ok(i) => i,
        Err(e) => {
            assert!(!e.message.is_empty(), "empty parse error message");
            return;
        }
    };
    let state = input.state;
    let written = state.write_input(input.mode, input.remaining);
    let again =
        G::parse_input(&written).unwrap_or_else(|e| panic!("the agent's own input.txt does not parse: {e}\n{written}"));
    assert_eq!(
        again.state.write_input(again.mode, again.remaining),
        written,
        "input.txt does not round-trip"
    );
    if state.result().is_some() {
        return;
    }
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    let dir = scratch();
    // Each call independent of the last: no memory carried over.
    let _ = std::fs::remove_file(dir.join("playdata.txt"));
    let _ = std::fs::remove_file(dir.join("output.txt"));
    let opts = AgentOptions {
        dir,
        strategy: Strategy::Best,
        time_scale: 1.0,
    };
    let tiny = state.write_input(input.mode, TURN_SECONDS);
    match driver::turn::<G>(&tiny, &opts) {
        Ok(report) => {
            if let Err(e) = state.parse_move(&report.output) {
                panic!("the agent wrote {:?}: {e}\n{tiny}", report.output);
            }
        }
        Err(TurnError::NoMove(_)) if moves.is_empty() => {}
        Err(e) => panic!("the turn failed on a valid position: {e}\n{tiny}"),
    }
}

/// `playdata.txt`: whatever parses must write back to the same record.
/// The bytes go both to the whole parser (checksum first) and to the parser
/// of the record under the checksum, which random bytes would not reach.
pub fn playdata(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for game in crate::games::GameKind::ALL.iter().map(|k| k.name()) {
        let parsed = [PlayData::parse(&text, game), PlayData::parse_body(&text, game)];
        for p in parsed.into_iter().flatten() {
            assert_eq!(
                PlayData::parse(&p.to_text(), game).as_ref(),
                Some(&p),
                "playdata round trip"
            );
        }
    }
}

/// `calibration.txt`: read through the agent's own reader from a file in a
/// scratch directory; a value it accepts must be usable (finite, positive).
pub fn calibration(data: &[u8]) {
    let dir = scratch();
    std::fs::write(dir.join("calibration.txt"), data).expect("cannot write calibration.txt");
    if let Some(nps) = crate::timing::read_calibration(&dir) {
        assert!(nps.is_finite() && nps > 0.0, "accepted nodes_per_second {nps}");
    }
}

#[cfg(test)]
/// Any game's `input.txt`, as the agent binary sees it: the game is
/// detected from the text, then [`input_turn`] runs for it.
pub(crate) fn any_input(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(kind) = crate::games::GameKind::detect(&text) {
        with_game!(kind, |G| input_turn::<G>(data))
    }
}

/// Replays a fuzz corpus as a regression test: calls `f` on every file of
/// `fuzz/corpus/<target>` under the workspace root `root`, in name order,
/// and fails naming the first input on which `f` panics, or when the corpus
/// holds fewer than `min` inputs (a missing or emptied corpus fails rather
/// than passing silently). Shared by the agent's and the referee's corpus
/// tests.
pub fn replay_corpus(root: &Path, target: &str, min: usize, f: impl Fn(&[u8])) {
    let dir = root.join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()).unwrap_or_else(|e| panic!("{}: {e}", dir.display())))
        .collect();
    files.sort();
    assert!(
        files.len() >= min,
        "{}: {} inputs, expected at least {min}",
        dir.display(),
        files.len()
    );
    for path in files {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Name the input that fails; the panic itself says why.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&data)));
        assert!(r.is_ok(), "{target}: {} fails", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_input_gets_a_turn_and_garbage_is_refused() {
        input_turn::<crate::games::hinger::Hinger>(b"HINGER\nSINGLE\n1\n5.0\n1 3\n1 1 1\n");
        input_turn::<crate::games::hinger::Hinger>(b"HINGER\nSINGLE\n1\n5.0\n1 18446744073709551615\n");
        any_input(b"\xff\xfe garbage");
        playdata(b"agent-playdata 2\ngame hinger\nmoves 3\nseen 1f 2a\n");
        calibration(b"nodes_per_second 2500000\n");
    }
}

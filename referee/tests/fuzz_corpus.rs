//! Replays the fuzz corpora of the referee's targets (`fuzz/corpus/records`
//! and `fuzz/corpus/start`, grown by `scripts/fuzz.sh`) through the entry
//! points the fuzzer calls (`referee::fuzzing`), without a nightly toolchain.

use std::path::Path;

fn replay(target: &str, min: usize, f: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    agent::fuzzing::replay_corpus(&root, target, min, f);
}

#[test]
fn records_corpus() {
    replay("records", 6, referee::fuzzing::records);
}

#[test]
fn start_corpus() {
    replay("start", 30, referee::fuzzing::start);
}

//! Replays the fuzz corpora of the agent's targets (`fuzz/corpus/<target>/`,
//! grown by `scripts/fuzz.sh`) through the same entry points the fuzzer
//! calls (`agent::fuzzing`), so every input the fuzzer kept, including past
//! findings, stays a regression test without a nightly toolchain.

use std::path::Path;

fn replay(target: &str, min: usize, f: impl Fn(&[u8])) {
    agent::fuzzing::replay_corpus(Path::new(env!("CARGO_MANIFEST_DIR")), target, min, f);
}

#[test]
fn halma_corpus() {
    replay("halma", 10, agent::fuzzing::input_turn::<agent::Halma>);
}

#[test]
fn hinger_corpus() {
    replay("hinger", 8, agent::fuzzing::input_turn::<agent::Hinger>);
}

#[test]
fn connectsquare_corpus() {
    replay("connectsquare", 6, agent::fuzzing::input_turn::<agent::ConnectSquare>);
}

#[test]
fn fifteen_corpus() {
    replay("fifteen", 5, agent::fuzzing::input_turn::<agent::Fifteen>);
}

#[test]
fn hashi_corpus() {
    replay("hashi", 6, agent::fuzzing::input_turn::<agent::Hashi>);
}

#[test]
fn agent_files_corpus() {
    replay("agent_files", 4, |d| {
        agent::fuzzing::playdata(d);
        agent::fuzzing::calibration(d);
    });
}

//! Replays the fuzz corpora of the agent's targets (`fuzz/corpus/<target>/`,
//! grown by `scripts/fuzz.sh`) through the same entry points the fuzzer
//! calls (`agent::fuzzing`), so every input the fuzzer kept, including past
//! findings, stays a regression test without a nightly toolchain.

use std::path::Path;

/// Every file of `fuzz/corpus/<target>`, at least `min` of them (a missing
/// or emptied corpus fails rather than passing silently).
fn corpus(target: &str, min: usize) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    assert!(
        v.len() >= min,
        "{}: {} inputs, expected at least {min}",
        dir.display(),
        v.len()
    );
    v
}

fn replay(target: &str, min: usize, f: impl Fn(&[u8])) {
    for (name, data) in corpus(target, min) {
        // Name the input that fails; the panic itself says why.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&data)));
        assert!(r.is_ok(), "{target}: {name} fails");
    }
}

#[test]
fn halma_corpus() {
    replay("halma", 10, agent::fuzzing::input_turn::<agent::games::halma::Halma>);
}

#[test]
fn hinger_corpus() {
    replay("hinger", 8, agent::fuzzing::input_turn::<agent::games::hinger::Hinger>);
}

#[test]
fn connectsquare_corpus() {
    replay(
        "connectsquare",
        6,
        agent::fuzzing::input_turn::<agent::games::connectsquare::ConnectSquare>,
    );
}

#[test]
fn fifteen_corpus() {
    replay(
        "fifteen",
        5,
        agent::fuzzing::input_turn::<agent::games::fifteen::Fifteen>,
    );
}

#[test]
fn hashi_corpus() {
    replay("hashi", 6, agent::fuzzing::input_turn::<agent::games::hashi::Hashi>);
}

#[test]
fn agent_files_corpus() {
    replay("agent_files", 4, |d| {
        agent::fuzzing::playdata(d);
        agent::fuzzing::calibration(d);
    });
}

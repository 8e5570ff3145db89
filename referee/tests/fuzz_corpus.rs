//! Replays the fuzz corpora of the referee's targets (`fuzz/corpus/records`
//! and `fuzz/corpus/start`, grown by `scripts/fuzz.sh`) through the entry
//! points the fuzzer calls (`referee::fuzzing`), without a nightly toolchain.

use std::path::Path;

/// Every file of `fuzz/corpus/<target>`, at least `min` of them.
fn corpus(target: &str, min: usize) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
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

fn replay(target: &str, min: usize, f: fn(&[u8])) {
    for (name, data) in corpus(target, min) {
        let r = std::panic::catch_unwind(|| f(&data));
        assert!(r.is_ok(), "{target}: {name} fails");
    }
}

#[test]
fn records_corpus() {
    replay("records", 6, referee::fuzzing::records);
}

#[test]
fn start_corpus() {
    replay("start", 30, referee::fuzzing::start);
}

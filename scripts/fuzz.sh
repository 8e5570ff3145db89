#!/usr/bin/env bash
# Runs the fuzz targets in fuzz/ with cargo fuzz (libFuzzer), one at a time,
# each for SECONDS, growing the corpora in fuzz/corpus/<target>/.
#
#   scripts/fuzz.sh SECONDS [TARGET]
#
# Targets: halma hinger connectsquare fifteen hashi (input.txt parse, round
# trip and one agent turn under a 0.01 s budget), agent_files (playdata.txt,
# calibration.txt), records (the referee's record reader + replay), start
# (the referee's --start loader). Needs a nightly toolchain and cargo-fuzz
# (`rustup toolchain install nightly; cargo install cargo-fuzz`). Findings
# land in fuzz/artifacts/<target>/; replay one with
#   cd fuzz && cargo +nightly fuzz run TARGET artifacts/TARGET/crash-...
# The corpora are replayed without the fuzzer by `cargo test`
# (tests/fuzz_corpora.rs, referee/tests/fuzz_corpus.rs).
# Runs under `nice -n 10`; prints each target's executions and corpus size.
set -euo pipefail
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
    echo "usage: scripts/fuzz.sh SECONDS [TARGET]  (SECONDS: a positive whole number)" >&2
    exit 2
fi
seconds=$1
all="halma hinger connectsquare fifteen hashi agent_files records start"
targets=${2:-$all}
for t in $targets; do
    if ! [[ " $all " == *" $t "* ]]; then
        echo "unknown target $t: expected one of: $all" >&2
        exit 2
    fi
done
cd "$(dirname "$0")/../fuzz"
for t in $targets; do
    mkdir -p "corpus/$t" "artifacts/$t"
    log=$(mktemp)
    echo "== $t: $seconds s"
    # -rss_limit_mb: the agent sizes its tables from the budget; 2 GB is ample.
    # -timeout: one input may take at most 10 s (a turn is budgeted 0.01 s).
    set +e
    nice -n 10 cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1
    status=$?
    set -e
    grep -E '^(#[0-9]+ +(INITED|DONE)|==[0-9]+== ERROR|SUMMARY|stat::number_of_executed_units)' "$log" || true
    if [ "$status" -ne 0 ]; then
        echo "$t: the fuzzer stopped with a finding (exit $status); last lines:" >&2
        tail -40 "$log" >&2
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    files=$(find "corpus/$t" -type f | wc -l)
    size=$(du -sk "corpus/$t" | cut -f1)
    echo "$t: exit $status, $execs executions, corpus $files files ($size KB)"
    rm -f "$log"
done

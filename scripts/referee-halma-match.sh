#!/usr/bin/env bash
# The referee's headline figure, as the contest would play it: our default
# agent against the reference agent (`agent --strategy minimax --depth 2`),
# GAMES full timed Halma games at TIME CPU seconds per side, first move
# alternating (the first-named agent, ours, gets the extra first move of an
# odd count).
# Prints the results table; the JSON results and the records stay in OUT.
#
#   scripts/referee-halma-match.sh                 # 9 games at 100 s, 2 at a time
#   GAMES=2 TIME=30 scripts/referee-halma-match.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-9}
TIME=${TIME:-100}
CONCURRENCY=${CONCURRENCY:-2}
OUT=${OUT:-target/referee-halma-match}

cargo build --release --workspace
AGENT="$PWD/target/release/agent"
REFEREE="$PWD/target/release/referee"
rm -rf "${OUT:?}"
mkdir -p "$OUT"
"$REFEREE" match --game halma --games "$GAMES" --time "$TIME" --concurrency "$CONCURRENCY" \
    --names ours,minimax2 --out "$OUT" --results "$OUT/results.json" \
    "$AGENT" "$AGENT --strategy minimax --depth 2"
echo "results: $OUT/results.json; records: $OUT/records.jsonl (referee replay $OUT/records.jsonl --game N)"

#!/usr/bin/env bash
# Fifteen strength run (issue 6): the default agent against the one-ply
# greedy player and against plain minimax to depth 2, on 6x6, through the
# referee: GAMES games each (default 100), first move alternating.
#
# Usage: scripts/fifteen-strength.sh [GAMES] [SECONDS_PER_GAME]
# Environment: CONCURRENCY (default 1), OUT (default a new temp directory).
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${1:-100}
TIME=${2:-2}
CONCURRENCY=${CONCURRENCY:-1}
OUT=${OUT:-$(mktemp -d -t fifteen-strength.XXXXXX)}
cargo build --release --workspace
AGENT="$PWD/target/release/agent"
REF="$PWD/target/release/referee"
for opp in "greedy" "minimax --depth 2"; do
    name=${opp%% *}
    echo "== agent vs --strategy $opp: $GAMES games, 6x6, $TIME CPU s per agent per game"
    "$REF" match --game fifteen --size 6 --games "$GAMES" --time "$TIME" \
        --concurrency "$CONCURRENCY" --names "agent,$name" \
        --out "$OUT/$name" --results "$OUT/$name.json" \
        "$AGENT" "$AGENT --strategy $opp"
done
echo "records and results in $OUT"

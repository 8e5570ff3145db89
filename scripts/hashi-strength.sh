#!/usr/bin/env bash
# Hashi strength (issue 7): the default agent against `--strategy random` and
# against the reference `--strategy minimax --depth 2`, GAMES generated boards
# each (size SIZE, seeds from SEED), first move alternating, through
# `referee match --game hashi`. Prints each match's summary; the JSON results
# and records stay in OUT.
#
#   scripts/hashi-strength.sh            # 100 games each, 7x7, 2 s per side
#   GAMES=20 TIME=1 scripts/hashi-strength.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-100}
SIZE=${SIZE:-7}
SEED=${SEED:-1}
TIME=${TIME:-2}
CONCURRENCY=${CONCURRENCY:-1}
OUT=${OUT:-target/hashi-strength}

cargo build --release --workspace
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
AGENT="$TARGET/release/agent"
REFEREE="$TARGET/release/referee"
mkdir -p "$OUT"

for opp in random minimax; do
    case $opp in
        random) OPP_CMD="$AGENT --strategy random" ;;
        minimax) OPP_CMD="$AGENT --strategy minimax --depth 2" ;;
    esac
    echo "== hashi: agent vs $opp, $GAMES games, ${SIZE}x${SIZE}, ${TIME} s per side"
    rm -rf "${OUT:?}/$opp"
    "$REFEREE" match --game hashi --games "$GAMES" --size "$SIZE" --seed "$SEED" \
        --time "$TIME" --concurrency "$CONCURRENCY" \
        --out "$OUT/$opp" --results "$OUT/$opp.json" \
        "$AGENT" "$OPP_CMD"
    echo "results: $OUT/$opp.json"
done

#!/usr/bin/env bash
# Hashi strength (issue 7): the default agent against `--strategy random` and
# against the reference `--strategy minimax --depth 2`, GAMES generated boards
# each (size SIZE), first move alternating, through `referee match --game
# hashi`. The referee plays each board twice with the seats swapped (board
# seed = SEED + game pair).
#
# The match runs in chunks of CHUNK games (seeds continue from chunk to
# chunk, so the boards are exactly those of one GAMES-game match), and a
# chunk the referee aborts is played again: the referee can stop with
# "wait4 on the agent failed: No child processes" when an agent exits
# between its two wait4 calls (a race in referee/src/runner.rs, reported).
# The records and JSON results of every chunk stay in OUT.
#
#   scripts/hashi-strength.sh            # 100 games each, 7x7, 2 s per side
#   GAMES=20 TIME=1 scripts/hashi-strength.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-100}
CHUNK=${CHUNK:-10}
SIZE=${SIZE:-7}
SEED=${SEED:-1}
TIME=${TIME:-2}
CONCURRENCY=${CONCURRENCY:-1}
OUT=${OUT:-target/hashi-strength}
if (( CHUNK % 2 != 0 || GAMES % CHUNK != 0 )); then
    echo "CHUNK must be even and divide GAMES" >&2
    exit 2
fi

cargo build --release --workspace
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
AGENT="$TARGET/release/agent"
REFEREE="$TARGET/release/referee"
mkdir -p "$OUT"

# Sums wins/losses/draws of agent A over the chunk result files given.
tally() {
    awk '
        /"name": "A"/ { a = 1 }
        /"name": "B"/ { a = 0 }
        a && /"wins":/ { gsub(/[^0-9]/, ""); w += $0 }
        a && /"losses":/ { gsub(/[^0-9]/, ""); l += $0 }
        a && /"draws":/ { gsub(/[^0-9]/, ""); d += $0 }
        END { n = w + l + d; printf "agent: %d games, %d wins, %d losses, %d draws, score %.1f%%\n", n, w, l, d, n ? 100 * (w + d / 2) / n : 0 }
    ' "$@"
}

for opp in random minimax; do
    case $opp in
        random) OPP_CMD="$AGENT --strategy random" ;;
        minimax) OPP_CMD="$AGENT --strategy minimax --depth 2" ;;
    esac
    echo "== hashi: agent vs $opp, $GAMES games, ${SIZE}x${SIZE}, ${TIME} s per side"
    rm -rf "${OUT:?}/$opp"
    mkdir -p "$OUT/$opp"
    for ((k = 0; k < GAMES / CHUNK; k++)); do
        seed=$((SEED + k * CHUNK / 2))
        for attempt in 1 2 3; do
            rm -rf "$OUT/$opp/chunk$k"
            if "$REFEREE" match --game hashi --games "$CHUNK" --size "$SIZE" --seed "$seed" \
                --time "$TIME" --concurrency "$CONCURRENCY" \
                --out "$OUT/$opp/chunk$k" --results "$OUT/$opp/chunk$k.json" \
                "$AGENT" "$OPP_CMD" > "$OUT/$opp/chunk$k.log" 2>&1; then
                break
            fi
            echo "chunk $k (seed $seed) failed (attempt $attempt): $(tail -1 "$OUT/$opp/chunk$k.log")"
            rm -f "$OUT/$opp/chunk$k.json"
            [[ $attempt == 3 ]] && exit 1
        done
        echo "  after chunk $((k + 1))/$((GAMES / CHUNK)): $(tally "$OUT/$opp"/chunk*.json)"
    done
    echo "vs $opp: $(tally "$OUT/$opp"/chunk*.json)"
done

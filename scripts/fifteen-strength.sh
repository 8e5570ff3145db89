#!/usr/bin/env bash
# Fifteen strength run (issue 6): the default agent against the one-ply
# greedy player (`--strategy greedy`) and against plain minimax to depth 2
# (`--strategy minimax --depth 2`), on 6x6, through `referee match`.
#
# Both players are deterministic, so games from the empty board repeat one
# game per colour. Each pair of games therefore starts from its own seeded
# random opening (OPENING_PLIES random placements, default 2, from
# `agent fifteen opening`), played twice with the colours swapped: first
# move alternating, as many games as asked.
#
# Usage: scripts/fifteen-strength.sh [GAMES] [SECONDS_PER_GAME] [OPPONENTS]
#   GAMES            per opponent (default 100, rounded up to even)
#   SECONDS_PER_GAME CPU seconds per agent per game (default 2)
#   OPPONENTS        "greedy", "minimax" or "both" (default both)
# Environment: OPENING_PLIES (default 2; 0 = empty board, a single match),
#   OUT (default a new temp directory).
set -uo pipefail
cd "$(dirname "$0")/.."
GAMES=${1:-100}
TIME=${2:-2}
WHICH=${3:-both}
PLIES=${OPENING_PLIES:-2}
OUT=${OUT:-$(mktemp -d -t fifteen-strength.XXXXXX)}
cargo build --release --workspace || exit 1
AGENT="$PWD/target/release/agent"
REF="$PWD/target/release/referee"
mkdir -p "$OUT"

run_opponent() {
    local name=$1 opp=$2 dir="$OUT/$1"
    mkdir -p "$dir"
    echo "== agent vs --strategy $opp: $GAMES games, 6x6, $TIME CPU s per agent per game, openings of $PLIES random plies"
    if [ "$PLIES" = 0 ]; then
        "$REF" match --game fifteen --size 6 --games "$GAMES" --time "$TIME" --names "agent,$name" \
            --out "$dir/m0" --results "$dir/r0.json" "$AGENT" "$AGENT --strategy $opp" >/dev/null \
            || echo "   match failed (see $dir/m0)"
    else
        local pairs=$(( (GAMES + 1) / 2 )) i
        for i in $(seq 1 "$pairs"); do
            "$AGENT" fifteen opening --size 6 --plies "$PLIES" --seed "$i" --time "$TIME" > "$dir/open$i.txt" || exit 1
            "$REF" match --game fifteen --games 2 --time "$TIME" --start "$dir/open$i.txt" --names "agent,$name" \
                --out "$dir/m$i" --results "$dir/r$i.json" "$AGENT" "$AGENT --strategy $opp" >/dev/null 2>"$dir/err$i.txt" \
                || echo "   pair $i: referee failed: $(tail -1 "$dir/err$i.txt")"
        done
    fi
    python3 - "$dir" "$name" <<'PY'
import glob, json, sys
d, name = sys.argv[1], sys.argv[2]
w = dr = l = 0
for f in glob.glob(d + "/r*.json"):
    a = [x for x in json.load(open(f))["agents"] if x["name"] == "agent"][0]
    w += a["wins"]; dr += a["draws"]; l += a["losses"]
n = w + dr + l
print(f"agent vs {name}: {n} games: {w} wins, {dr} draws, {l} losses: "
      f"{100.0 * (w + dr / 2) / max(n, 1):.1f}%")
PY
}

case "$WHICH" in
    greedy) run_opponent greedy "greedy" ;;
    minimax) run_opponent minimax "minimax --depth 2" ;;
    *) run_opponent greedy "greedy"; run_opponent minimax "minimax --depth 2" ;;
esac
echo "records and results in $OUT"

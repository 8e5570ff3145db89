#!/usr/bin/env bash
# Connect Square strength (issue 5): the default agent against the brief's
# greedy player (`--strategy greedy`), through `referee match --game
# connectsquare` on 6x7, colours alternating:
#   1. GAMES games from the empty board (both agents are deterministic up to
#      the CPU clock, so these are few distinct games repeated);
#   2. GAMES games from GAMES/2 random two-coin openings, each played with
#      both colours (`agent connectsquare opening`);
#   3. the solver check: the default agent, in process, against greedy from
#      WINCHECK positions the exact solver marks as won for the agent's side
#      (at least MIN_WIN plies from the end), failing if any is not won.
# Prints each match's summary; JSON results and records stay in OUT.
#
#   scripts/connectsquare-strength.sh                 # 100 + 100 games, 10 s per side
#   GAMES=20 TIME=5 WINCHECK=20 scripts/connectsquare-strength.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-100}
TIME=${TIME:-10}
ROWS=${ROWS:-6}
COLS=${COLS:-7}
SEED=${SEED:-1}
CONCURRENCY=${CONCURRENCY:-1}
WINCHECK=${WINCHECK:-50}
MIN_WIN=${MIN_WIN:-3}
MOVE_SECONDS=${MOVE_SECONDS:-0.3}
OUT=${OUT:-target/connectsquare-strength}

cargo build --release --workspace
AGENT="$PWD/target/release/agent"
REFEREE="$PWD/target/release/referee"
rm -rf "${OUT:?}"
mkdir -p "$OUT"

summary() { # JSON results -> one line per agent
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for a in r["agents"]:
    print(f'  {a["name"]:8} +{a["wins"]} ={a["draws"]} -{a["losses"]}  score {a["score_pct"]:.1f}%  forfeits {a["loss_reasons"]}')
EOF
}

echo "== 1. default vs greedy from the empty ${ROWS}x${COLS} board: $GAMES games, $TIME s per side"
"$REFEREE" match --game connectsquare --rows "$ROWS" --cols "$COLS" --games "$GAMES" --time "$TIME" \
    --concurrency "$CONCURRENCY" --names default,greedy \
    --out "$OUT/empty" --results "$OUT/empty.json" \
    "$AGENT" "$AGENT --strategy greedy" >"$OUT/empty.log"
summary "$OUT/empty.json"

echo "== 2. default vs greedy from $((GAMES / 2)) random two-coin openings, both colours, $TIME s per side"
total_w=0 total_d=0 total_l=0
for i in $(seq 1 $((GAMES / 2))); do
    "$AGENT" connectsquare opening --rows "$ROWS" --cols "$COLS" --plies 2 --seed $((SEED * 1000 + i)) >"$OUT/opening$i.txt"
    "$REFEREE" match --game connectsquare --start "$OUT/opening$i.txt" --games 2 --time "$TIME" \
        --names default,greedy --out "$OUT/opening$i" --results "$OUT/opening$i.json" \
        "$AGENT" "$AGENT --strategy greedy" >"$OUT/opening$i.log"
    read -r w d l < <(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["agents"][0]; print(a["wins"], a["draws"], a["losses"])' "$OUT/opening$i.json")
    total_w=$((total_w + w)) total_d=$((total_d + d)) total_l=$((total_l + l))
done
python3 -c "import sys; w,d,l=map(int,sys.argv[1:]); n=w+d+l; print(f'  default  +{w} ={d} -{l}  score {100*(w+d/2)/n:.1f}%')" $total_w $total_d $total_l

echo "== 3. from $WINCHECK solver-won positions (${ROWS}x${COLS}, wins of at least $MIN_WIN plies), $MOVE_SECONDS s per agent move"
"$AGENT" connectsquare wincheck --rows "$ROWS" --cols "$COLS" --positions "$WINCHECK" --min-win-plies "$MIN_WIN" \
    --min-plies 18 --max-plies 24 --noise 0.9 --move-seconds "$MOVE_SECONDS" --seed "$SEED"

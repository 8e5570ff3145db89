#!/usr/bin/env bash
# Hinger strength figure: 100 referee games of the default agent (A) against
# the reference agent (B: --strategy minimax --depth 2) from random binary
# boards of 5x5, 5x6, 6x5 and 6x6 (density 0.6 unless DENSITY is set), seats
# alternating. Prints each match's summary and the total score of A
# (win = 1, draw = 1/2).
#
# Usage: scripts/hinger-strength.sh [TIME_PER_GAME_SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
TIME=${1:-20}
SEED=${2:-1}
DENSITY=${DENSITY:-0.6}
cargo build --release --workspace
AGENT="$(pwd)/target/release/agent"
OUT=$(mktemp -d /tmp/hinger-strength.XXXXXX)
total_w=0; total_d=0; total_l=0
for spec in 5x5:26 5x6:24 6x5:24 6x6:26; do
  dims=${spec%%:*}; games=${spec##*:}
  rows=${dims%x*}; cols=${dims#*x}
  res="$OUT/$dims.json"
  ./target/release/referee match --game hinger --rows "$rows" --cols "$cols" --density "$DENSITY" \
    --seed "$SEED" --games "$games" --time "$TIME" --names best,minimax2 --out "$OUT/$dims" \
    --results "$res" "$AGENT" "$AGENT --strategy minimax --depth 2" | tail -n 8
  # Count from the records: the winner field of each game, from A's view.
  read -r w d l < <(python3 - "$res" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def find(o, keys):
    if isinstance(o, dict):
        for k in keys:
            if k in o and isinstance(o[k], (int, float)):
                return o[k]
        for v in o.values():
            x = find(v, keys)
            if x is not None:
                return x
    return None
a = r["agents"][0] if "agents" in r else r
w = find(a, ["wins", "win"]); d = find(a, ["draws", "draw"]); l = find(a, ["losses", "loss"])
print(int(w or 0), int(d or 0), int(l or 0))
PY
)
  echo "$dims: best wins $w, draws $d, losses $l"
  total_w=$((total_w + w)); total_d=$((total_d + d)); total_l=$((total_l + l))
done
n=$((total_w + total_d + total_l))
echo "TOTAL over $n games: best $total_w wins, $total_d draws, $total_l losses;" \
  "score $(python3 -c "print(f'{($total_w + $total_d / 2) / max($n, 1) * 100:.1f}')")%"
echo "records in $OUT"

#!/bin/sh
# Per-move cost of `--sandbox full` against `none` (README, "Sandbox cost"):
# one 200-ply Halma game at 10 s per side between two mock agents (random
# movers) at each level; prints the medians of the records' per-move wall
# and CPU figures and the whole run's wall and CPU (referee + agents).
# Needs root and cgroup v2 for `full`, and python3.
set -e
cd "$(dirname "$0")/.."
cargo build --release -p referee --bin referee --example mock-agent >/dev/null
R=$PWD/target/release
OUT=${TMPDIR:-/tmp}/sandbox-overhead-$$
for lvl in none full; do
  rm -rf "$OUT-$lvl"
  /usr/bin/time -f "$lvl: game wall %e s, CPU of referee and agents %U+%S s" nice "$R/referee" match \
    "$R/examples/mock-agent play" "$R/examples/mock-agent play" \
    --game halma --games 1 --time 10 --max-plies 200 --sandbox "$lvl" --out "$OUT-$lvl" >/dev/null
  python3 - "$OUT-$lvl/records.jsonl" "$lvl" <<'PY'
import json, statistics as st, sys
rec = json.loads(open(sys.argv[1]).readline())
wall = [m["wall"] for m in rec["moves"]]
cpu = [m["cpu"] for m in rec["moves"]]
print(f"{sys.argv[2]}: {len(wall)} plies, median per-move wall {st.median(wall)*1e3:.2f} ms, "
      f"median per-move CPU {st.median(cpu)*1e3:.2f} ms")
PY
  rm -rf "$OUT-$lvl"
done

#!/bin/sh
# The referee's own cost per move at each sandbox level, against the floor:
# a bare `sh -c CMD` fork/exec of the same agent on the same position.
# One 200-ply Halma game at 10 s per side between two mock agents (random
# movers) per level. Prints per ply: the game's wall clock, the CPU of the
# referee and its agents together (from /usr/bin/time), the CPU charged to
# the agents (from the records), and the referee's own share (the
# difference). `full` needs root and cgroup v2; `full-rootless` is run as
# the user nobody when this script runs as root. Needs python3 and GNU time.
#
# Usage: scripts/sandbox-overhead.sh [PLIES]   (default 200)
set -e
cd "$(dirname "$0")/.."
plies=${1:-200}
cargo build --release -p referee --bin referee --example mock-agent >/dev/null
# Copies any user can run (the checkout may sit in root's home).
W=$(mktemp -d /tmp/sandbox-overhead.XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
cp target/release/referee target/release/examples/mock-agent "$W/"
MOCK="$W/mock-agent play"

# The floor: the same agent run $plies times by a shell, as `sh -c CMD`.
mkdir "$W/bare"
cp samples/halma/start_black.txt "$W/bare/input.txt"
cd "$W/bare"
/usr/bin/time -f "%e %U %S" -o "$W/bare.time" sh -c "i=0; while [ \$i -lt $plies ]; do sh -c '$MOCK' >/dev/null 2>&1; i=\$((i+1)); done"
cd - >/dev/null
python3 - "$W/bare.time" "$plies" <<'PY'
import sys
wall, u, s = map(float, open(sys.argv[1]).read().split()[-3:])
n = int(sys.argv[2])
print(f"bare sh -c fork/exec: {n} runs, per run wall {wall/n*1e3:.2f} ms, CPU {(u+s)/n*1e3:.2f} ms")
PY

levels="none rlimits"
[ "$(id -u)" = 0 ] && levels="$levels full"
levels="$levels full-rootless"
for lvl in $levels; do
  run=""
  if [ "$lvl" = full-rootless ] && [ "$(id -u)" = 0 ]; then
    run="setpriv --reuid 65534 --regid 65534 --clear-groups"
  fi
  mkdir -m 1777 "$W/$lvl"
  if ! $run /usr/bin/time -f "%e %U %S" -o "$W/$lvl/time" env HOME="$W/$lvl" "$W/referee" match "$MOCK" "$MOCK" \
      --game halma --games 1 --time 10 --max-plies "$plies" --no-preflight --sandbox "$lvl" \
      --out "$W/$lvl/out" >/dev/null 2>"$W/$lvl/err"; then
    echo "$lvl: not available here: $(tail -1 "$W/$lvl/err")"
    continue
  fi
  python3 - "$W/$lvl/out/records.jsonl" "$W/$lvl/time" "$lvl" <<'PY'
import json, statistics as st, sys
rec = json.loads(open(sys.argv[1]).readline())
wall, u, s = map(float, open(sys.argv[2]).read().split()[-3:])
n = len(rec["moves"])
charged = sum(m["cpu"] for m in rec["moves"])
med_wall = st.median(m["wall"] for m in rec["moves"])
print(f"{sys.argv[3]}: {n} plies, per ply: game wall {wall/n*1e3:.2f} ms "
      f"(move median {med_wall*1e3:.2f} ms), CPU of referee+agents {(u+s)/n*1e3:.2f} ms, "
      f"charged to agents {charged/n*1e3:.2f} ms, referee's own {(u+s-charged)/n*1e3:.2f} ms")
PY
done

#!/usr/bin/env bash
# The per-move floor: the whole-process CPU (user + system, from wait4) of
# a short Halma move by our agent (GAME, 0.05 s left, a midgame position),
# of `agent --version` (start-up alone) and of /bin/true, run alternately
# RUNS times in one loop so that load hits all three alike; medians. Then,
# with --referee, the referee's per-ply overhead against a bare fork and
# exec (scripts/sandbox-overhead.sh). Needs python3.
#
# Usage: scripts/floor.sh [RUNS] [--referee]     (default 40)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-40}
agent=$root/target/release/agent
[ -x "$agent" ] || { echo "floor: build first: cargo build --release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo GAME; echo BLACK; echo 0.05; tail -n +4 "$root/samples/halma/midgame_1.txt"; } >"$work/input.txt"
cd "$work"
python3 - "$runs" /bin/true "$agent --version" "$agent" <<'PY'
import os, statistics, sys
def cpu_ms(argv):
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"floor: {' '.join(argv)} failed (wait status {status})")
    return (ru.ru_utime + ru.ru_stime) * 1e3
runs = int(sys.argv[1])
cmds = [c.split() for c in sys.argv[2:]]
seen = [[] for _ in cmds]
for _ in range(runs):
    for i, c in enumerate(cmds):
        seen[i].append(cpu_ms(c))
base = statistics.median(seen[0])
print(f"median whole-process CPU of {runs} runs each, alternating (load {os.getloadavg()[0]:.1f}):")
for c, s in zip(cmds, seen):
    m = statistics.median(s)
    name = " ".join(os.path.basename(w) if w.startswith("/") else w for w in c)
    print(f"  {m:6.3f} ms  (+{m - base:5.3f} over /bin/true)  {name}")
PY
cd "$root"
if [ "${2:-}" = --referee ]; then
    scripts/sandbox-overhead.sh 200
fi

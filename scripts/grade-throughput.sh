#!/usr/bin/env bash
# How well `referee grade` keeps the machine busy: grades a synthetic class
# of N students (our agent at several strengths and the Python template)
# at --concurrency J, then prints the agents' CPU (every move of the
# submissions and of the reference agent, as charged) divided by
# (wall time x J). 1.0 would be every core busy with agents all the time.
#
# Usage: [REFEREE=BIN] [GRADE_LOG=FILE] scripts/grade-throughput.sh [STUDENTS] [CONCURRENCY] [extra grade options]
#        (default 20 students, concurrency 2, --singles 3 --games 2 --time 5;
#        REFEREE: another referee binary to time, e.g. an older build side by side;
#        GRADE_LOG: where the grading's own messages go, /dev/null by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
j=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
extra=("$@")
[ ${#extra[@]} -gt 0 ] || extra=(--singles 3 --games 2 --time 5)
work=$(mktemp -d)
trap 'rm -rf "$work" "$work.builds"' EXIT
agent="$root/target/release/agent"
strengths=("" "--strategy alphabeta --depth 1" "--strategy alphabeta --depth 2" "--strategy greedy")
for i in $(seq 1 "$n"); do
    d="$work/class/s$(printf %02d "$i")"
    mkdir -p "$d"
    if [ $((i % 5)) -eq 0 ]; then
        cp "$root/samples/agents/python/halma_agent.py" "$d/homework.py"
    else
        echo "$agent ${strengths[$((i % 4))]}" > "$d/run"
    fi
done
start=$(date +%s.%N)
"${REFEREE:-$root/target/release/referee}" grade --concurrency "$j" "${extra[@]}" --sandbox-ro "$root/target/release" --out "$work/out" "$work/class" 2>"${GRADE_LOG:-/dev/null}"
end=$(date +%s.%N)
python3 - "$work/out" "$start" "$end" "$j" "$n" <<'PY'
import json, sys
out, start, end, j, n = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cpu, moves = 0.0, 0
for line in open(f"{out}/records/games.jsonl"):
    rec = json.loads(line)
    cpu += sum(m["cpu"] for m in rec["moves"])
    moves += len(rec["moves"])
for line in open(f"{out}/records/results.jsonl"):
    r = json.loads(line)
    if r["test"].startswith("s"):
        cpu += r["cpu"]
        moves += 1
wall = end - start
print(f"students {n}, concurrency {j}: agents' CPU {cpu:.1f} s, wall {wall:.1f} s, "
      f"utilisation {cpu / (wall * j):.3f}, {moves} moves")
PY

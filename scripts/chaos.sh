#!/usr/bin/env bash
# Chaos: SIGKILLs the referee at KILLS random moments of a tournament
# (Connect Square, two agents, concurrency 2, the default sandbox),
# resuming after each kill, then lets it finish. Fails unless every
# scheduled game is recorded exactly once, every record line is whole
# JSON, and nothing of the killed runs survives: no agent process, no
# cgroup of a killed referee, no jail root of a killed referee in /tmp.
#
# Usage: scripts/chaos.sh [KILLS] [GAMES]     (defaults 50 and 2000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kills=${1:-50}
games=${2:-2000}
ref=$root/target/release/referee
[ -x "$ref" ] && [ -x "$root/target/release/agent" ] || { echo "chaos: build first: cargo build --release" >&2; exit 2; }
work=$(mktemp -d /tmp/chaos.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
# A copy with a path of its own, so that its processes can be found.
agent=$work/agent
cp "$root/target/release/agent" "$agent"
out=$work/out
# (exec: in the background the kill must reach the referee, not a subshell.)
run() {
    exec "$ref" tournament --game connectsquare --games "$games" --concurrency 2 --time 5 --no-preflight \
        "random=$agent --strategy random" "greedy=$agent --strategy greedy" --out "$out" "$@"
}
# The pids of the killed referees: only what they made is looked for, so
# that a cgroup some other process left on the machine is not blamed on them.
pids=()
leftovers() {
    pgrep -f "^$agent" || true
    # Cgroups and jail roots named after a killed referee.
    for pid in "${pids[@]}"; do
        find /sys/fs/cgroup -maxdepth 6 -type d -name "referee-$pid-*" 2>/dev/null
        ls -d /tmp/referee-root-"$pid"-* 2>/dev/null || true
    done
}
killed=0
while [ $killed -lt "$kills" ]; do
    resume=()
    [ -e "$out/tournament.json" ] && resume=(--resume)
    run "${resume[@]}" >"$work/log" 2>&1 &
    pid=$!
    sleep "$(awk -v s=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (s % 100) / 200 }')"
    if ! kill -0 $pid 2>/dev/null; then
        wait $pid || { echo "chaos: the referee failed before its kill:" >&2; grep -av "^Finished game" "$work/log" | tail -8 >&2; exit 1; }
        echo "chaos: the run finished after $killed kills; lower GAMES or raise KILLS" >&2
        break
    fi
    kill -KILL $pid
    wait $pid 2>/dev/null || true
    pids+=("$pid")
    killed=$((killed + 1))
    # Agents die with the referee (a parent-death signal), within moments.
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(pgrep -f "^$agent" || true)" ] && break; sleep 0.1; done
    if [ -n "$(pgrep -f "^$agent" || true)" ]; then
        echo "chaos: agent processes outlived kill $killed:" >&2
        pgrep -af "^$agent" >&2
        exit 1
    fi
done
resume=()
[ -e "$out/tournament.json" ] && resume=(--resume)
(run "${resume[@]}") >"$work/log" 2>&1 || { echo "chaos: the final run failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
left=$(leftovers)
[ -z "$left" ] || { echo "chaos: left behind by the killed runs:" >&2; echo "$left" >&2; exit 1; }
python3 - "$out/records.jsonl" "$games" "$killed" <<'PY'
import json, sys
keys = []
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        keys.append(json.loads(line)["key"])
    except Exception as e:
        sys.exit(f"chaos: record line {n} is not whole JSON: {e}")
games = int(sys.argv[2])
dup = {k for k in keys if keys.count(k) > 1}
if dup:
    sys.exit(f"chaos: games recorded twice: {sorted(dup)[:5]}")
if len(keys) != games:
    sys.exit(f"chaos: {len(keys)} of {games} games recorded")
print(f"chaos: {sys.argv[3]} kills; {games} games, each recorded once; nothing left behind")
PY

#!/usr/bin/env bash
# Soak: one long tournament of short games (Connect Square, a random and a
# greedy agent, concurrency 2, the default sandbox), sampling the referee
# once SAMPLE games are done (the warm-up): its RSS, open descriptors, its
# cgroups, the mounts it sees, its entries in /tmp and the size of --out
# without records.jsonl. Fails when a figure grows past its
# tolerance: RSS by more than 10 % from the first sample after warm-up to
# the last; the others compare their floor (the least value) over the
# first and the second half of the games, since a move in flight at a
# sample holds descriptors, a cgroup and a game directory.
#
# Usage: scripts/soak.sh [GAMES] [SAMPLE]     (defaults 2000 and 100)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
games=${1:-2000}
every=${2:-100}
[ "$games" -ge $((3 * every)) ] || { echo "soak: GAMES must be at least 3 x SAMPLE" >&2; exit 2; }
command -v python3 >/dev/null || { echo "soak: needs python3" >&2; exit 2; }
ref=$root/target/release/referee
agent=$root/target/release/agent
[ -x "$ref" ] && [ -x "$agent" ] || { echo "soak: build first: cargo build --release" >&2; exit 2; }
work=$(mktemp -d /tmp/soak.XXXXXX)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
out=$work/out
# What this referee leaves in /tmp (its entries carry its pid; other
# programs may be busy there).
tmp_entries() { find /tmp -mindepth 1 -maxdepth 1 -name "referee-*-$pid*" | wc -l; }
tmp0=0

"$ref" tournament --game connectsquare --games "$games" --concurrency 2 --time 5 \
    "random=$agent --strategy random" "greedy=$agent --strategy greedy" \
    --out "$out" >"$work/log" 2>&1 &
pid=$!
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/$pid/cgroup 2>/dev/null || true)
printf '%8s %9s %5s %8s %7s %6s %10s\n' games rss_kib fds cgroups mounts tmp out_kib
samples=$work/samples
# The sampler reads /proc directly (no processes of its own): every 20 ms
# the descriptors, cgroups and mounts, every 0.5 s the RSS, /tmp and the
# size of --out; floors need many samples.
python3 - "$pid" "$out" "$cg" "$every" "$samples" <<'PY'
import glob, os, sys, time
pid, out, cg, every, samples = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
def games():
    try:
        with open(os.path.join(out, "records.jsonl"), "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0
def count(f):
    try:
        return f()
    except OSError:
        return None
def cgroups():
    return sum(1 for d, _, _ in os.walk(cg) if f"/referee-{pid}-" in d + "/" or os.path.basename(d).startswith(f"referee-{pid}-"))
def size_kib():
    total = 0
    for d, _, files in os.walk(out):
        for n in files:
            if n != "records.jsonl":
                try:
                    total += os.lstat(os.path.join(d, n)).st_blocks * 512
                except OSError:
                    pass
    return total // 1024
slow, nxt = (0, 0, 0), every
with open(samples, "w") as log:
    last_slow = 0.0
    while os.path.exists(f"/proc/{pid}/status"):
        g = games()
        if g >= every:
            now = time.monotonic()
            if now - last_slow > 0.5:
                rss = count(lambda: int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")).split()[1]))
                tmp = len(glob.glob(f"/tmp/referee-*-{pid}*"))
                slow, last_slow = (rss or 0, tmp, size_kib()), now
            fds = count(lambda: len(os.listdir(f"/proc/{pid}/fd")))
            mnts = count(lambda: sum(1 for _ in open(f"/proc/{pid}/mountinfo")))
            if fds is None or mnts is None or slow[0] == 0:
                break
            row = (g, slow[0], fds, cgroups(), mnts, slow[1], slow[2])
            log.write(" ".join(map(str, row)) + "\n")
            if g >= nxt:
                print("%8d %9d %5d %8d %7d %6d %10d" % row, flush=True)
                nxt += every
        time.sleep(0.02)
PY
wait $pid || { echo "soak: the referee failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
recorded=$(wc -l <"$out/records.jsonl")
[ "$recorded" -eq "$games" ] || { echo "soak: $recorded of $games games recorded" >&2; exit 1; }
echo "after the run: $(( $(tmp_entries) - tmp0 )) new /tmp entries"
python3 - "$samples" "$(( $(tmp_entries) - tmp0 ))" "$games" <<'PY'
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
games = int(sys.argv[3])
first_half = [r for r in rows if r[0] < games // 2]
second_half = [r for r in rows if r[0] >= games // 2]
if len(first_half) < 3 or len(second_half) < 3:
    sys.exit(f"soak: too few samples ({len(rows)}); play more games")
first, last = first_half[0], rows[-1]
names = ["games", "rss_kib", "fds", "cgroups", "mounts", "tmp", "out_kib"]
# fds: one move's worth (pipes, pidfd, cgroup, capture files); a leak of
# one a game would show hundreds.
slack = {"fds": 8, "cgroups": 1, "mounts": 0, "tmp": 0, "out_kib": 64}
bad = []
rss_growth = (last[1] - first[1]) / first[1]
print(f"rss {first[1]} -> {last[1]} KiB ({rss_growth:+.1%}, tolerance +10%)")
if rss_growth > 0.10:
    bad.append("rss")
for i, n in enumerate(names[2:], start=2):
    a, b = min(r[i] for r in first_half), min(r[i] for r in second_half)
    print(f"{n} floor {a} -> {b} (slack {slack[n]})")
    if b - a > slack[n]:
        bad.append(n)
if int(sys.argv[2]) > 0:
    bad.append(f"{sys.argv[2]} referee entries left in /tmp")
if bad:
    sys.exit("soak: growth in " + ", ".join(bad))
print(f"soak: flat over {last[0]} games ({len(rows)} samples)")
PY

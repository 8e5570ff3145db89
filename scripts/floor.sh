#!/usr/bin/env bash
# The per-move floor: the whole-process CPU (user + system, from wait4, of
# a process started with posix_spawn) of a short Halma move by our agent
# (GAME, 0.05 s left, a midgame position),
# of `agent --version` (start-up alone) and of /bin/true, run alternately
# RUNS times in one loop so that load hits all three alike; medians. Then,
# with --referee, the referee's per-ply overhead against a bare fork and
# exec (scripts/sandbox-overhead.sh). Says whether the agent is statically
# linked (`make build` links it so; `cargo build` alone does not). Other
# agent binaries in FLOOR_ALSO (space-separated paths) are timed in the same
# loop, e.g. a dynamically linked build beside the static one. Needs python3.
#
# The moves run in a fresh directory under $TMPDIR (default /tmp), one per
# binary: with TMPDIR=/dev/shm they write to a tmpfs, as under the referee,
# whose working directories are tmpfs mounts; on a disk file system a
# rename over a file costs more (the agent writes its files in place where
# it safely can, for that reason).
#
# Usage: [FLOOR_ALSO="BIN..."] [TMPDIR=DIR] scripts/floor.sh [RUNS] [--referee]   (default 40)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-40}
agent=$root/target/release/agent
[ -x "$agent" ] || { echo "floor: build first: cargo build --release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo GAME; echo BLACK; echo 0.05; tail -n +4 "$root/samples/halma/midgame_1.txt"; } >"$work/input.txt"
cd "$work"
# shellcheck disable=SC2086 # FLOOR_ALSO is a list of paths
python3 - "$runs" /bin/true "$agent --version" "$agent" ${FLOOR_ALSO:-} <<'PY'
import os, statistics, struct, sys
def linking(path):
    # PT_INTERP (3) among the ELF program headers: a dynamic loader is named.
    with open(path, "rb") as f:
        h = f.read(64)
        phoff, = struct.unpack_from("<Q", h, 32)
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    kinds = {struct.unpack_from("<I", ph, i * phentsize)[0] for i in range(phnum)}
    return "dynamically linked" if 3 in kinds else "statically linked"
def cpu_ms(argv):
    # posix_spawn (a vfork in glibc), not fork: a forked child would also be
    # charged for tearing down its copy of this Python process at exec,
    # about 1.4 ms here, which is the launcher's cost, not the program's.
    null = os.open(os.devnull, os.O_RDWR)
    dup = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=dup)
    os.close(null)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"floor: {' '.join(argv)} failed (wait status {status})")
    return (ru.ru_utime + ru.ru_stime) * 1e3
runs = int(sys.argv[1])
cmds = [c.split() for c in sys.argv[2:]]
seen = [[] for _ in cmds]
# A directory of its own for each command, all starting from the same
# input.txt: the moves keep playdata.txt there, and two builds must not read
# each other's (another version's record is ignored, and a fresh record
# plans differently).
dirs = []
for i in range(len(cmds)):
    os.mkdir(f"run{i}")
    with open("input.txt") as src, open(f"run{i}/input.txt", "w") as dst:
        dst.write(src.read())
    dirs.append(os.path.abspath(f"run{i}"))
for _ in range(runs):
    for i, c in enumerate(cmds):
        os.chdir(dirs[i])
        seen[i].append(cpu_ms(c))
base = statistics.median(seen[0])
print(f"median whole-process CPU of {runs} runs each, alternating (load {os.getloadavg()[0]:.1f}):")
for c, s in zip(cmds, seen):
    m = statistics.median(s)
    name = " ".join(os.path.basename(w) if w.startswith("/") else w for w in c)
    kind = f" ({linking(c[0])})" if c[0] != "/bin/true" and len(c) == 1 else ""
    print(f"  {m:6.3f} ms  (+{m - base:5.3f} over /bin/true)  {name}{kind}")
PY
cd "$root"
if [ "${2:-}" = --referee ]; then
    scripts/sandbox-overhead.sh 200
fi

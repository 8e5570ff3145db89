#!/usr/bin/env bash
# One referee tournament (or match) spread over several machines with GNU
# parallel, then merged into one table.
#
#   SSHLOGIN="2/:,4/alice@node1,4/alice@node2" \
#     scripts/referee-shards-parallel.sh 8 runs/cs-sprt -- \
#       --game connectsquare --time 1 --games 200 --openings random:4 \
#       --agent name=new,cmd=target/release/agent \
#       --agent "name=greedy,cmd=target/release/agent --strategy greedy"
#
# Shard K of N (K = 0..N-1) runs `referee tournament ARGS --shard K/N --out
# OUT/shard-K` on whichever host has a free slot (`:` is this machine; `2/:`
# allows two shards here at once); each shard directory comes back to OUT
# here (`--return`), and `referee merge` combines them into OUT/merged
# (records.jsonl, results.json) and prints the table, which equals the table
# of the same run unsharded. Every host needs the referee ($REFEREE, default
# `referee` on PATH) and the agents at the same paths relative to the
# working directory (this directory, mirrored on the hosts by `--workdir .`).
# OUT must be a relative path.
set -euo pipefail
if [ $# -lt 3 ] || [ "$3" != "--" ]; then
    echo "usage: [SSHLOGIN=...] [REFEREE=...] $0 N OUT -- TOURNAMENT_ARGS..." >&2
    exit 2
fi
N=$1
OUT=$2
shift 3
case "$OUT" in /*) echo "$0: OUT must be relative (it is returned from the hosts)" >&2; exit 2 ;; esac
REFEREE=${REFEREE:-referee}
SSHLOGIN=${SSHLOGIN:-:}
mkdir -p "$OUT"
# Each job's arguments are quoted once here; parallel passes them through a shell.
ARGS=$(printf '%q ' "$@")
seq 0 $((N - 1)) | parallel --sshlogin "$SSHLOGIN" --workdir . --return "$OUT/shard-{}" --halt now,fail=1 \
    "mkdir -p $OUT && $REFEREE tournament $ARGS --shard {}/$N --out $OUT/shard-{} > $OUT/shard-{}.log 2>&1 || { cat $OUT/shard-{}.log >&2; exit 1; }"
SHARDS=()
for k in $(seq 0 $((N - 1))); do SHARDS+=("$OUT/shard-$k"); done
"$REFEREE" merge --out "$OUT/merged" "${SHARDS[@]}"

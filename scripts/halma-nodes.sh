#!/usr/bin/env bash
# Nodes and CPU seconds a fixed-depth alpha-beta search takes over the Halma
# positions in samples/halma/bench/ (30 positions at plies 20, 40 and 60 of
# 4 s self-play games): how a change to move ordering, pruning or windows is
# judged before it is worth an SPRT. Node counts are exact and repeatable;
# CPU seconds depend on the machine's load.
#
# Usage: scripts/halma-nodes.sh [AGENT_BINARY] [DEPTH]
#        (default target/release/agent, depth 7)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
agent=${1:-$root/target/release/agent}
depth=${2:-7}
[ -x "$agent" ] || { echo "halma-nodes.sh: no agent binary at $agent (cargo build --release)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total_nodes=0
total_cpu=0
for f in "$root"/samples/halma/bench/*.txt; do
    rm -f "$work"/*
    cp "$f" "$work/input.txt"
    # The search's per-iteration line (RUST_LOG=trace): depth, score, nodes, cpu.
    line=$(RUST_LOG=trace "$agent" --strategy alphabeta --depth "$depth" --dir "$work" 2>&1 |
        grep -E "depth $depth score .* cpu [0-9.]+" | tail -1 || true)
    [ -n "$line" ] || { echo "halma-nodes.sh: no depth-$depth line for $f" >&2; exit 1; }
    nodes=$(sed -E 's/.* nodes ([0-9]+).*/\1/' <<<"$line")
    cpu=$(sed -E 's/.* cpu ([0-9.]+).*/\1/' <<<"$line")
    printf '%s nodes %s cpu %s move %s\n' "$(basename "$f")" "$nodes" "$cpu" "$(tr '\n' ' ' <"$work/output.txt")"
    total_nodes=$((total_nodes + nodes))
    total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN { printf "%.3f", a + b }')
done
echo "total nodes $total_nodes cpu $total_cpu (depth $depth)"

#!/usr/bin/env bash
# Prints, for every sample position of every game, the move, score and node
# count of a fixed-depth alpha-beta search (and of the reference minimax):
# a fingerprint of the rules, evaluation and search. A refactor that claims
# "behaviour unchanged" must leave this output identical.
#
# Usage: scripts/fixed-depth.sh [AGENT_BINARY]   (default target/release/agent)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
agent=${1:-$root/target/release/agent}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "$root"/samples/*/*.txt; do
    game=$(basename "$(dirname "$f")")
    for strat in "alphabeta --depth 4" "minimax --depth 2"; do
        rm -f "$work"/*
        cp "$f" "$work/input.txt"
        # A sample the agent refuses (a malformed-input example) prints its error.
        info=$("$agent" --strategy $strat --dir "$work" 2>&1 >/dev/null | grep -iE '^info|error' | tail -1 || true)
        mv=$(tr '\n' ' ' 2>/dev/null <"$work/output.txt" || echo "-")
        printf '%s/%s [%s]: %s| %s\n' "$game" "$(basename "$f")" "$strat" "$mv" "$info"
    done
done

#!/usr/bin/env bash
# The strength ladder of `agent --level N` (issue 43), measured through the
# referee: every level against the next one up (N vs N+1, --games each, in
# colour-swapped pairs from seeded random openings), and every level
# against fixed baselines (the reference minimax at depths 1-3, greedy,
# random: one gauntlet each, --baseline-games per level). Then one
# Bradley-Terry fit (Elo scale, draws half a win, level 1 = 0) over every
# game of the run, and a table: each level's score against the one below
# and its fitted Elo ± 95 %.
#
# Usage: scripts/ladder.sh [--time S] [--games N] [--baseline-games M]
#                          [--plies K] [--out DIR]
#   defaults: 3 CPU s per side per game, 40 games per neighbouring pair,
#   2 games (one colour-swapped pair) per level and baseline, 8-ply random
#   openings, /tmp/halma-ladder. About 40 minutes on one core.
# Needs target/release/{agent,referee} (cargo build --release --workspace);
# the agent is copied into DIR first, so a rebuild during the run cannot
# reach it. One game at a time (--concurrency 1). A run stopped part-way
# is resumed by the same command: finished matches are kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
time=3
games=40
bgames=2
plies=8
out=/tmp/halma-ladder
while [ $# -gt 0 ]; do
    case $1 in
        --time) time=$2; shift 2 ;;
        --games) games=$2; shift 2 ;;
        --baseline-games) bgames=$2; shift 2 ;;
        --plies) plies=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "ladder.sh: unknown option $1 (see the usage at the top of the script)" >&2; exit 2 ;;
    esac
done
referee=$root/target/release/referee
for bin in "$root/target/release/agent" "$referee"; do
    [ -x "$bin" ] || { echo "ladder.sh: $bin is missing: cargo build --release --workspace" >&2; exit 2; }
done
mkdir -p "$out"
agent=$out/agent
[ -x "$agent" ] || cp "$root/target/release/agent" "$agent"
common=(--game halma --mode game --time "$time" --openings "random:$plies" --concurrency 1)

# Plays one referee run into $out/$1 unless its results are already there;
# an interrupted run is resumed.
run() {
    local name=$1 kind=$2
    shift 2
    [ -f "$out/$name.json" ] && return 0
    local resume=()
    [ -d "$out/$name" ] && resume=(--resume)
    echo "== $name" >&2
    "$referee" "$kind" "${common[@]}" --out "$out/$name" --results "$out/$name.partial.json" "${resume[@]}" "$@" \
        >"$out/$name.log"
    mv "$out/$name.partial.json" "$out/$name.json"
}

for n in 1 2 3 4 5 6 7 8 9; do
    m=$((n + 1))
    run "pair-$n-$m" match --games "$games" \
        --agent "name=L$n,cmd=$agent --level $n" --agent "name=L$m,cmd=$agent --level $m"
done
levels=()
for n in 1 2 3 4 5 6 7 8 9 10; do levels+=(--agent "name=L$n,cmd=$agent --level $n"); done
run base-minimax1 tournament --gauntlet --games "$bgames" \
    --agent "name=minimax1,cmd=$agent --strategy minimax --depth 1" "${levels[@]}"
run base-minimax2 tournament --gauntlet --games "$bgames" \
    --agent "name=minimax2,cmd=$agent --strategy minimax --depth 2" "${levels[@]}"
run base-minimax3 tournament --gauntlet --games "$bgames" \
    --agent "name=minimax3,cmd=$agent --strategy minimax --depth 3" "${levels[@]}"
run base-greedy tournament --gauntlet --games "$bgames" \
    --agent "name=greedy,cmd=$agent --strategy greedy" "${levels[@]}"
run base-random tournament --gauntlet --games "$bgames" \
    --agent "name=random,cmd=$agent --strategy random" "${levels[@]}"

echo "Halma ladder: $time CPU s per side per game, random:$plies openings, $games games per neighbouring pair, $bgames per level and baseline"
cat "$out"/*/records.jsonl | python3 "$root/scripts/ladder-fit.py"

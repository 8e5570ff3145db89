#!/usr/bin/env bash
# Halma self-play SPRT (issue 16): the working tree's agent against the agent
# of git revision BASE_REV, through `referee match --sprt` in GAME mode, game
# pairs (colours swapped) from random openings, two games at a time.
#
#   scripts/sprt.sh BASE_REV [--time S] [--games N] [--elo0 A --elo1 B]
#                            [--plies K] [--concurrency C] [--out DIR]
#
# BASE_REV's agent is built from `git archive` of that revision (no worktree
# is added to the repository) with its own CARGO_TARGET_DIR under
# $SPRT_CACHE (default /tmp/halma-sprt), so it never disturbs the working
# tree's build; the binary is cached by full commit hash. The working tree's
# agent and referee are built, then copied into the run's directory, so a
# rebuild during a long match does not change the players mid-run.
# Prints the referee's log and summary (W-L-D, pentanomial pairs, LLR and
# bounds, Elo); records.jsonl and results.json stay in the --out directory.
#
#   scripts/sprt.sh 97d3321                      # 10 s per side, up to 1000 games, [0, 50] Elo
#   scripts/sprt.sh HEAD~1 --time 2 --games 200  # a quick check of the last commit
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BASE_REV=$1
shift
TIME=10
GAMES=1000
ELO0=0
ELO1=50
PLIES=8
CONCURRENCY=2
OUT=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "sprt.sh: $1 needs a value" >&2; usage; }
    case $1 in
        --time) TIME=$2 ;;
        --games) GAMES=$2 ;;
        --elo0) ELO0=$2 ;;
        --elo1) ELO1=$2 ;;
        --plies) PLIES=$2 ;;
        --concurrency) CONCURRENCY=$2 ;;
        --out) OUT=$2 ;;
        *) echo "sprt.sh: unknown option $1" >&2; usage ;;
    esac
    shift 2
done

if ! BASE=$(git rev-parse --verify --quiet "$BASE_REV^{commit}"); then
    echo "sprt.sh: $BASE_REV is not a commit of this repository" >&2
    exit 2
fi
CACHE=${SPRT_CACHE:-/tmp/halma-sprt}
mkdir -p "$CACHE/bin"

# The baseline agent, built once per commit.
BASE_BIN="$CACHE/bin/agent-$BASE"
if [ ! -x "$BASE_BIN" ]; then
    SRC="$CACHE/src-$BASE"
    rm -rf "$SRC"
    mkdir -p "$SRC"
    git archive "$BASE" | tar -x -C "$SRC"
    echo "building the agent of ${BASE:0:12} in $SRC" >&2
    (cd "$SRC" && CARGO_TARGET_DIR="$CACHE/target" cargo build --release -p agent --bin agent >&2)
    cp "$CACHE/target/release/agent" "$BASE_BIN.tmp"
    mv "$BASE_BIN.tmp" "$BASE_BIN"
    rm -rf "$SRC"
fi

# The working tree's agent and referee, snapshotted for this run.
cargo build --release -p agent -p referee >&2
OUT=${OUT:-$(mktemp -d "$CACHE/run-XXXXXX")}
mkdir -p "$OUT"
cp target/release/agent "$OUT/agent-new"
cp target/release/referee "$OUT/referee"
cp "$BASE_BIN" "$OUT/agent-base"
HEAD_DESC=$(git describe --always --dirty)
echo "SPRT [$ELO0, $ELO1]: working tree ($HEAD_DESC) vs ${BASE:0:12}, Halma GAME $TIME s per side," \
    "up to $GAMES games in pairs from random:$PLIES openings, $CONCURRENCY at a time; out: $OUT" >&2

"$OUT/referee" match --game halma --mode game --time "$TIME" --games "$GAMES" \
    --sprt "$ELO0,$ELO1" --openings "random:$PLIES" --concurrency "$CONCURRENCY" \
    --agent "name=new,cmd=$OUT/agent-new" --agent "name=base,cmd=$OUT/agent-base" \
    --out "$OUT/match" --results "$OUT/results.json"
echo "results: $OUT/results.json; records: $OUT/match/records.jsonl" >&2

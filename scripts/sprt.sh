#!/usr/bin/env bash
# Halma self-play SPRT, to tell whether a change to the agent made it
# stronger with a known error rate: the working tree's agent (or that of
# revision NEW_REV) against the agent of git revision BASE_REV, through
# `referee match --sprt` in GAME mode, game pairs (colours swapped) from
# random openings (or the positions of --openings FILE, e.g. a balanced
# book from `agent halma book`), two games at a time.
#
#   scripts/sprt.sh BASE_REV [--new NEW_REV] [--time S] [--games N]
#                   [--elo0 A --elo1 B] [--plies K | --openings FILE]
#                   [--concurrency C] [--out DIR | --resume DIR]
#
# BASE_REV's agent is built from `git archive` of that revision (no worktree
# is added to the repository) with its own CARGO_TARGET_DIR under
# $SPRT_CACHE (default /tmp/halma-sprt), so it never disturbs the working
# tree's build; the binary is cached by full commit hash. The working tree's
# agent and referee are built, then copied into the run's directory, so a
# rebuild during a long match does not change the players mid-run.
# With --new, the new agent is built the same way, so edits to the working
# tree during the run (or before it) cannot reach either player.
# --resume DIR continues a run stopped part-way (killed, or the machine
# needed), with the players and referee kept in DIR and the same other
# options; no game finished before the stop is played again.
# Prints the referee's log and summary (W-L-D, pentanomial pairs, LLR and
# bounds, Elo); records.jsonl and results.json stay in the --out directory.
#
#   scripts/sprt.sh 97d3321                      # 10 s per side, up to 1000 games, [0, 50] Elo
#   scripts/sprt.sh HEAD~1 --new HEAD --time 2   # a quick check of the last commit
#   agent halma book --count 50 --depth 8 > book.txt
#   scripts/sprt.sh 97d3321 --time 100 --games 40 --openings book.txt
set -euo pipefail
CALLER_DIR=$PWD
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
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
OPENINGS=""
CONCURRENCY=2
OUT=""
NEW_REV=""
RESUME=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "sprt.sh: $1 needs a value" >&2; usage; }
    case $1 in
        --time) TIME=$2 ;;
        --games) GAMES=$2 ;;
        --elo0) ELO0=$2 ;;
        --elo1) ELO1=$2 ;;
        --plies) PLIES=$2 ;;
        --openings) OPENINGS=$2 ;;
        --concurrency) CONCURRENCY=$2 ;;
        --out) OUT=$2 ;;
        --new) NEW_REV=$2 ;;
        --resume) RESUME=$2 ;;
        *) echo "sprt.sh: unknown option $1" >&2; usage ;;
    esac
    shift 2
done

commit_of() {
    local c
    if ! c=$(git rev-parse --verify --quiet "$1^{commit}"); then
        echo "sprt.sh: $1 is not a commit of this repository" >&2
        exit 2
    fi
    echo "$c"
}
if [ -n "$OPENINGS" ]; then
    # A relative path is the caller's, not the repository root's.
    case $OPENINGS in /*) ;; *) OPENINGS="$CALLER_DIR/$OPENINGS" ;; esac
    [ -f "$OPENINGS" ] || { echo "sprt.sh: --openings $OPENINGS is not a file" >&2; exit 2; }
    SUITE=$OPENINGS
else
    SUITE="random:$PLIES"
fi
BASE=$(commit_of "$BASE_REV")
NEW=""
[ -z "$NEW_REV" ] || NEW=$(commit_of "$NEW_REV")
CACHE=${SPRT_CACHE:-/tmp/halma-sprt}
mkdir -p "$CACHE/bin"

# The agent of commit $1, built once per commit; prints the binary's path.
# Several runs may start at once (an ablation beside a baseline run): the
# build holds a lock on the cache, each build extracts into its own source
# directory, and a failed build stops the script (a command substitution
# does not inherit `set -e`, so failures are checked by hand; before this a
# build broken by a concurrent run's extraction was cached under the commit's
# name with whatever binary the shared target held).
agent_of() {
    local bin="$CACHE/bin/agent-$1"
    (
        flock 9
        if [ ! -x "$bin" ]; then
            local src
            src=$(mktemp -d "$CACHE/src-${1:0:12}-XXXXXX") || exit 1
            # -m: the files get today's time, not the commit's. Cargo judges
            # freshness by mtime against the shared target dir, so with commit
            # times a revision older than the last build there was not rebuilt
            # and the cache got the previous revision's agent under this name.
            git archive "$1" | tar -x -m -C "$src" || exit 1
            echo "building the agent of ${1:0:12} in $src" >&2
            (cd "$src" && CARGO_TARGET_DIR="$CACHE/target" cargo build --release -p agent --bin agent >&2) || {
                echo "sprt.sh: the agent of ${1:0:12} does not build" >&2
                rm -rf "$src"
                exit 1
            }
            cp "$CACHE/target/release/agent" "$bin.tmp" && mv "$bin.tmp" "$bin" || exit 1
            rm -rf "$src"
        fi
    ) 9>"$CACHE/build.lock" || exit 1
    echo "$bin"
}
# The match between the players kept in $OUT (extra referee options in "$@").
run_match() {
    "$OUT/referee" match --game halma --mode game --time "$TIME" --games "$GAMES" \
        --sprt="$ELO0,$ELO1" --openings "$SUITE" --concurrency "$CONCURRENCY" \
        --agent "name=new,cmd=$OUT/new/agent,dir=$OUT/new" --agent "name=base,cmd=$OUT/base/agent,dir=$OUT/base" \
        --out "$OUT/match" --results "$OUT/results.json" "$@"
    echo "results: $OUT/results.json; records: $OUT/match/records.jsonl" >&2
}
if [ -n "$RESUME" ]; then
    OUT=$RESUME
    for f in referee new/agent base/agent match/records.jsonl; do
        [ -e "$OUT/$f" ] || { echo "sprt.sh: --resume $OUT: no $f there; is it a run of this script?" >&2; exit 2; }
    done
    echo "SPRT [$ELO0, $ELO1]: resuming the run in $OUT" >&2
    run_match --resume
    exit
fi
BASE_BIN=$(agent_of "$BASE") || exit 2

# The referee (and, without --new, the agent) of the working tree,
# snapshotted for this run.
OUT=${OUT:-$(mktemp -d "$CACHE/run-XXXXXX")}
mkdir -p "$OUT"
# mktemp makes it private to its owner; the referee's sandbox runs the
# agents as another user when the script runs as root, and they must reach
# their binaries here.
chmod go+rx "$OUT"
# A directory of its own for each agent: the referee shows neither the
# other's program.
mkdir -p "$OUT/new" "$OUT/base"
chmod go+rx "$OUT/new" "$OUT/base"
if [ -n "$NEW" ]; then
    cargo build --release -p referee >&2
    NEW_BIN=$(agent_of "$NEW") || exit 2
    cp "$NEW_BIN" "$OUT/new/agent"
    NEW_DESC=${NEW:0:12}
else
    cargo build --release -p agent -p referee >&2
    cp target/release/agent "$OUT/new/agent"
    NEW_DESC="working tree ($(git describe --always --dirty))"
fi
cp target/release/referee "$OUT/referee"
cp "$BASE_BIN" "$OUT/base/agent"
echo "SPRT [$ELO0, $ELO1]: $NEW_DESC vs ${BASE:0:12}, Halma GAME $TIME s per side," \
    "up to $GAMES games in pairs from $SUITE openings, $CONCURRENCY at a time; out: $OUT" >&2

run_match

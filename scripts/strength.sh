#!/usr/bin/env bash
# Strength runs (long, not tests): the default agent against the reference
# players of one game, in full timed games, seats and first move
# alternating. Every game is run the same way, through `referee match`
# (Halma in-process by `agent duel`, which keeps the contest's time policy
# and charges CPU per move); what differs from game to game is the table
# below: the opponents, the default games and clock, and the runs, each a
# board or kind of start with its share of the games.
#
# Usage: scripts/strength.sh GAME [GAMES [SECONDS [OPPONENT...]]]
#   GAME      halma, connectsquare, fifteen, hashi or hinger
#   GAMES     games per opponent and run (hinger: in all, over its boards;
#             rounded to even, so both seats play every start)
#   SECONDS   CPU seconds per side per game
#   OPPONENT  greedy, minimax2 or random (default: the game's own list)
# Environment (each optional):
#   SEED (1)        seeds generated boards and random openings
#   CONCURRENCY (1) games at once (more shares the cores between agents)
#   OUT             where records and JSON results stay (default
#                   target/strength-GAME, emptied first)
#   OPENING_PLIES   fifteen: random plies of each pair's opening (2; 0: the
#                   empty board)
#   DENSITY         hinger: share of cells holding counters (0.7)
#   WINCHECK, MIN_WIN, MOVE_SECONDS
#                   connectsquare's solver check: positions (50) the exact
#                   solver marks as won by at least MIN_WIN (3) plies, played
#                   in process at MOVE_SECONDS (0.3) per agent move; the
#                   script fails if one is not won
#
#   scripts/strength.sh hashi                 # 100 games per opponent, 2 s per side
#   scripts/strength.sh fifteen 20 1 greedy
set -euo pipefail
cd "$(dirname "$0")/.."

GAME=${1:?usage: scripts/strength.sh GAME [GAMES [SECONDS [OPPONENT...]]]}
shift
SEED=${SEED:-1}
CONCURRENCY=${CONCURRENCY:-1}
OUT=${OUT:-target/strength-$GAME}

# The per-game table. runs: "LABEL|REFEREE ARGUMENTS|PERCENT OF GAMES".
after=""
case $GAME in
    halma)
        # The contest's own game: 100 s per side, the reference agent only.
        games=10 seconds=100 opponents=(minimax2) runs=() ;;
    connectsquare)
        games=100 seconds=10 opponents=(greedy)
        # Both agents are deterministic up to the CPU clock, so the empty
        # board gives few distinct games; two random coins give many.
        runs=("empty 6x7 board|--rows 6 --cols 7|100"
            "6x7, two random coins per pair|--rows 6 --cols 7 --openings random:2|100")
        after=connectsquare_wincheck ;;
    fifteen)
        games=100 seconds=2 opponents=(greedy minimax2)
        plies=${OPENING_PLIES:-2}
        # Deterministic players repeat one game per colour from the empty
        # board: each pair starts from its own random opening instead.
        if [[ $plies == 0 ]]; then
            runs=("empty 6x6 board|--size 6|100")
        else
            runs=("6x6, $plies random plies per pair|--size 6 --openings random:$plies|100")
        fi ;;
    hashi)
        # A generated board per pair (seed SEED + pair).
        games=100 seconds=2 opponents=(random minimax2)
        runs=("generated 7x7 boards|--size 7|100") ;;
    hinger)
        games=100 seconds=20 opponents=(minimax2)
        d=${DENSITY:-0.7}
        runs=("5x5|--rows 5 --cols 5 --density $d|26" "5x6|--rows 5 --cols 6 --density $d|24"
            "6x5|--rows 6 --cols 5 --density $d|24" "6x6|--rows 6 --cols 6 --density $d|26") ;;
    *)
        echo "unknown game $GAME: halma, connectsquare, fifteen, hashi or hinger" >&2
        exit 2 ;;
esac
games=${1:-$games}
seconds=${2:-$seconds}
if (($# > 2)); then
    opponents=("${@:3}")
fi

# The agent's options for each opponent (and `agent duel`'s name for it).
opponent_args() {
    case $1 in
        greedy) echo "--strategy greedy" ;;
        minimax2) echo "--strategy minimax --depth 2" ;;
        random) echo "--strategy random" ;;
        *) echo "unknown opponent $1: greedy, minimax2 or random" >&2; return 2 ;;
    esac
}
duel_name() {
    case $1 in
        minimax2) echo "minimax:2" ;;
        *) echo "$1" ;;
    esac
}

for opp in "${opponents[@]}"; do
    opponent_args "$opp" >/dev/null
done

cargo build --release --workspace
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
# OUT is emptied first, so it must be empty or an earlier run's.
if [[ -d $OUT && -n $(ls -A "$OUT") && ! -e $OUT/bin/referee ]]; then
    echo "$OUT holds other files; choose another OUT" >&2
    exit 2
fi
rm -rf "${OUT:?}"
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
# Private copies: a rebuild during a long run must not swap the binaries.
cp "$TARGET/release/agent" "$TARGET/release/referee" "$OUT/bin/"
AGENT="$OUT/bin/agent"
REFEREE="$OUT/bin/referee"

# The default agent's wins, draws and losses over the JSON results given.
tally() {
    python3 - "$@" <<'PY'
import json, sys
w = d = l = 0
forfeits = {}
for f in sys.argv[1:]:
    a = next(x for x in json.load(open(f))["agents"] if x["name"] == "default")
    w += a["wins"]; d += a["draws"]; l += a["losses"]
    for k, v in a["loss_reasons"].items():
        forfeits[k] = forfeits.get(k, 0) + v
n = w + d + l
print(f"default +{w} ={d} -{l} of {n}: score {100 * (w + d / 2) / max(n, 1):.1f}%"
      + (f", its forfeits {forfeits}" if forfeits else ""))
PY
}

connectsquare_wincheck() {
    local n=${WINCHECK:-50} min=${MIN_WIN:-3} move=${MOVE_SECONDS:-0.3}
    echo "== from $n solver-won 6x7 positions (wins of at least $min plies), $move s per agent move"
    "$AGENT" connectsquare wincheck --rows 6 --cols 7 --positions "$n" --min-win-plies "$min" \
        --min-plies 18 --max-plies 24 --noise 0.9 --move-seconds "$move" --seed "$SEED"
}

failed=0
for opp in "${opponents[@]}"; do
    args=$(opponent_args "$opp")
    if [[ $GAME == halma ]]; then
        echo "== halma: default vs $opp, $games games, $seconds s per side (agent duel)"
        "$AGENT" duel --game halma --a best --b "$(duel_name "$opp")" --games "$games" \
            --seconds "$seconds" --openings-plies 0 --verbose
        continue
    fi
    results=()
    for run in "${runs[@]}"; do
        IFS='|' read -r label board share <<<"$run"
        n=$((games * share / 100))
        n=$(((n + 1) / 2 * 2))
        ((n >= 2)) || n=2
        dir="$OUT/$opp/$(tr -cs 'A-Za-z0-9' '-' <<<"$label" | sed 's/-$//')"
        mkdir -p "$OUT/$opp"
        echo "== $GAME: default vs $opp, $label: $n games, $seconds s per side"
        # shellcheck disable=SC2086 # the board's arguments are words
        if "$REFEREE" match --game "$GAME" $board --games "$n" --time "$seconds" --seed "$SEED" \
            --concurrency "$CONCURRENCY" --names "default,$opp" --out "$dir" --results "$dir.json" \
            "$AGENT" "$AGENT $args" >"$dir.log" 2>&1; then
            echo "   $(tally "$dir.json")"
            results+=("$dir.json")
        else
            echo "   the match failed: $(tail -n 1 "$dir.log")"
            failed=1
        fi
    done
    if ((${#results[@]} > 1)); then
        echo "vs $opp in all: $(tally "${results[@]}")"
    fi
done
if [[ -n $after ]]; then
    $after
fi
echo "records, logs and results in $OUT"
exit $failed

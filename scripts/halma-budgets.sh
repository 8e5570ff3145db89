#!/usr/bin/env bash
# Halma time budgets with the long budget the test suite skips: every sample
# in SINGLE and GAME with BUDGETS (default 10 s), the whole process's CPU
# time (user+sys from /usr/bin/time) checked against the budget, the output
# checked legal by `agent halma check`. Prints one line per run.
#
#   scripts/halma-budgets.sh
#   BUDGETS="0.01 0.1 1 10" scripts/halma-budgets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGETS=${BUDGETS:-10}
cargo build --release
AGENT="$PWD/target/release/agent"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
for f in samples/halma/*.txt; do
    for mode in SINGLE GAME; do
        for b in $BUDGETS; do
            awk -v m="$mode" -v b="$b" 'NR==1{print m; next} NR==3{print b; next} {print}' "$f" > "$WORK/input.txt"
            rm -f "$WORK/output.txt"
            /usr/bin/time -f "%U %S" -o "$WORK/time.txt" "$AGENT" --dir "$WORK"
            cpu=$(awk '{printf "%.3f", $1 + $2}' "$WORK/time.txt")
            verdict=$("$AGENT" halma check "$WORK/input.txt" "$WORK/output.txt" 2>&1 || true)
            over=$(awk -v c="$cpu" -v b="$b" 'BEGIN{print (c < b) ? "ok" : "OVER"}')
            echo "$(basename "$f") $mode budget=$b cpu=$cpu $over $verdict"
            if [ "$over" != ok ] || [ "${verdict#legal}" = "$verdict" ]; then fail=1; fi
        done
    done
done
exit $fail

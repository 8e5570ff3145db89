#!/usr/bin/env bash
# Halma strength (issue 2's headline figure): the default agent against the
# reference `--strategy minimax --depth 2`, in full games of TIME CPU seconds
# per side, colours alternating, played in-process by the generic `agent duel --game halma`
# (same time policy, repeat avoidance and move cap as a refereed game; CPU
# time is charged per move on the process clock).
#
#   scripts/halma-strength.sh              # 10 games, 100 s per side
#   GAMES=4 TIME=30 scripts/halma-strength.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-10}
TIME=${TIME:-100}
cargo build --release
./target/release/agent duel --game halma --a best --b minimax:2 --games "$GAMES" --seconds "$TIME" \
    --openings-plies 0 --verbose

#!/usr/bin/env bash
# Builds Gradescope's autograder zip from a grading plan:
#   scripts/gradescope/make-autograder.sh PLAN [OUT.zip] [requirements.txt]
# The zip holds setup.sh and run_autograder at its top (as Gradescope asks;
# it unpacks the zip to /autograder/source), the plan as plan.toml, the
# referee and the agent statically linked in bin/, a requirements.txt for
# a course venv if one is given, and grade-options if the plan has one
# beside it.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PLAN [OUT.zip] [requirements.txt]" >&2; exit 2; }
plan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-autograder.zip}
req=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$plan" ] || { echo "$0: no plan $plan" >&2; exit 2; }
cd "$root"
make -s build >&2
# The referee too, statically (the image's C library may be older).
cargo rustc --release -p referee --bin referee --quiet -- -C target-feature=+crt-static >&2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin"
cp scripts/gradescope/setup.sh scripts/gradescope/run_autograder "$stage/"
cp "$plan" "$stage/plan.toml"
# Options for `referee grade` (--sandbox, --memory), one per line.
extra=()
if [ -f "$(dirname "$plan")/grade-options" ]; then
    cp "$(dirname "$plan")/grade-options" "$stage/"
    extra+=(grade-options)
fi
[ -z "$req" ] || cp "$req" "$stage/requirements.txt"
cp target/release/referee target/release/agent "$stage/bin/"
strip "$stage/bin/referee" "$stage/bin/agent" 2>/dev/null || true
# The plan must read before it is shipped.
python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' "$stage/plan.toml" \
    || { echo "$0: $plan is not valid TOML" >&2; exit 2; }
case "$out" in /*) ;; *) out="$OLDPWD/$out" ;; esac
rm -f "$out"
[ -z "$req" ] || extra+=(requirements.txt)
(cd "$stage" && python3 -m zipfile -c "$out" setup.sh run_autograder plan.toml bin "${extra[@]}")
echo "$out"

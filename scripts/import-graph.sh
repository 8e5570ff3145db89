#!/usr/bin/env bash
# Lists the module-level import edges of the agent library (`crate::X` paths
# in non-test code, at the level of src/'s top modules and of each game
# under src/games) and fails when two modules import each other.
#
# Usage: scripts/import-graph.sh [-q]    (-q: print only the circles)
set -euo pipefail
cd "$(dirname "$0")/../src"

# module name of a source file: top module, or games::<game>
module_of() {
  local f=${1%.rs}
  f=${f%/mod}
  IFS=/ read -r a b _ <<<"$f"
  if [[ $a == games && -n ${b:-} ]]; then echo "games::$b"; else echo "$a"; fi
}

# a crate path's module at the same granularity
target_of() {
  local p=$1
  a=${p%%::*}
  if [[ $a == games ]]; then
    b=${p#games::}; b=${b%%::*}
    # Any game module (a folder or file under games/), not a list to keep.
    if [[ -d games/$b || -f games/$b.rs ]]; then echo "games::$b"; return; fi
  fi
  echo "$a"
}

edges=$(
  find . -name '*.rs' ! -name tests.rs ! -name testgames.rs ! -path '*/tests/*' ! -path './main.rs' ! -path './lib.rs' |
  sort | while read -r file; do
    from=$(module_of "${file#./}")
    # Code before the unit-test module only (tests may use anything).
    awk '/^#\[cfg\(test\)\]/ { t = 1; next } t && /^(pub(\(crate\))? )?mod tests/ { exit } { t = 0; print }' "$file" |
      grep -v '^\s*//' | grep -oE '(crate|\$crate)::[a-z_]+(::[a-z_]+)?\b!?' | grep -v '!$' | sed -E 's/^\$?crate:://' |
      while read -r path; do
        to=$(target_of "$path")
        # A game naming its own parent (`crate::games::GameKind`) is not an edge.
        if [[ $to != "$from" && $to != "${from%%::*}" ]]; then echo "$from -> $to"; fi
      done
  done | sort -u
)

[[ ${1:-} == -q ]] || echo "$edges"
circles=0
while read -r a _ b; do
  [[ -z $a ]] && continue
  if grep -qxF "$b -> $a" <<<"$edges" && [[ $a < $b ]]; then
    echo "CIRCLE: $a <-> $b"
    circles=$((circles + 1))
  fi
done <<<"$edges"
if ((circles)); then
  echo "$circles import circle(s)" >&2
  exit 1
fi
echo "no import circles ($(grep -c . <<<"$edges") edges)"

#!/usr/bin/env bash
# Lists functions longer than a limit (default 80 lines, signature to closing
# brace) in the non-test code of the agent (src/) and the referee
# (referee/src, and referee/examples: the mock agent), and fails when there
# is one (issue 10: no function over 80 lines outside tests and tables).
#
# Relies on rustfmt's layout: a body ends at the first `}` alone on a line at
# the `fn`'s own indentation. Skipped: tests.rs files, tests/ folders, the
# search's test games and everything after a column-0 `#[cfg(test)]` module.
# A table kept as one function on purpose is exempt when a comment line
# `// fn-lengths: table` sits in the comments and attributes just above it.
#
# Usage: scripts/fn-lengths.sh [-q] [LIMIT]   (-q: print only the offenders)
set -euo pipefail
cd "$(dirname "$0")/.."

quiet=0
if [[ ${1:-} == -q ]]; then
  quiet=1
  shift
fi
limit=${1:-80}

report=$(
  find src referee/src referee/examples -name '*.rs' ! -name tests.rs ! -name testgames.rs ! -path '*/tests/*' | sort |
    while read -r file; do
      awk -v file="$file" -v limit="$limit" '
        # The unit-test module ends the code that counts.
        /^#\[cfg\(test\)\]/ { t = 1; next }
        t && /^(pub(\(crate\))? )?mod [a-z_]+ *\{/ { exit }
        { t = 0 }
        # Comments and attributes above an item: remember an exemption.
        /^[ \t]*(\/\/|#\[)/ {
          if ($0 ~ /fn-lengths: table/) exempt = 1
          if (!open) next
        }
        !open && match($0, /^[ \t]*(pub(\([a-z:]+\))? )?(const )?(async )?(unsafe )?(extern "[A-Za-z]+" )?fn [A-Za-z_0-9]+/) {
          indent = $0; sub(/[^ \t].*$/, "", indent)
          name = $0; sub(/^.*fn /, "", name); sub(/[^A-Za-z_0-9].*$/, "", name)
          start = NR; open = 1; body = 0; skip = exempt; exempt = 0
        }
        open {
          # A declaration without a body (a trait method) ends at `;`.
          if (!body && $0 ~ /\{[ \t]*$/) body = 1
          else if (!body && $0 ~ /;[ \t]*$/) { open = 0; next }
          if (body && NR > start && $0 == indent "}") {
            n = NR - start + 1
            if (!skip) printf "%s %s:%d %s\n", (n > limit ? "OVER" : "ok"), file, start, name " " n
            open = 0
          }
          # A one-line body `fn f() { x }`.
          if (body && NR == start && $0 ~ /\}[ \t]*$/ && $0 !~ /\{[ \t]*$/) open = 0
          next
        }
        { exempt = 0 }
      ' "$file"
    done
)

over=$(grep '^OVER' <<<"$report" || true)
if [[ $quiet == 0 ]]; then
  echo "longest functions (lines):"
  grep -v '^$' <<<"$report" | awk '{ print $4, $2, $3 }' | sort -rn | head -15
fi
if [[ -n $over ]]; then
  echo "functions over $limit lines:"
  awk '{ print "  " $2 " " $3 " (" $4 " lines)" }' <<<"$over"
  exit 1
fi
echo "no function over $limit lines ($(grep -c . <<<"$report") functions measured)"

#!/usr/bin/env bash
# A Swiss tournament on Slurm, a round at a time: round R is an array job
# of M shards (scripts/referee-shards.slurm with --round R, --after the
# merge of round R-1) that starts once that merge is done, then a job that
# merges its shards (and so pairs nothing: round R+1's tasks pair it from
# the merge); after the last round, if the arguments ask for a final
# (--final K), a job that plays it by resuming the last merge. Everything
# is submitted at once, chained by --dependency=afterok.
#
#   scripts/swiss-shards-slurm.sh M OUT --format swiss --rounds 5 --final 4 \
#       --game connectsquare --time 1 --agent name=a,cmd=... --agent ...
#
# OUT/round-R/shard-K holds shard K of round R, OUT/round-R/merged the
# rounds 1 to R (its merge.out the standings); the last round's merged
# directory is the whole Swiss (OUT/final.out: the final's tables). Extra
# sbatch options for every job: SBATCH_OPTS="--partition=p --time=2:00:00".
# Submit from the directory the agent paths are relative to. OUT/last-job
# holds the id of the chain's last job.
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 SHARDS OUT TOURNAMENT_ARGS... (with --format swiss --rounds R)" >&2
    exit 2
fi
shards=$1 out=$2
shift 2
rounds= final=
prev=
for a in "$@"; do
    case "$prev" in --rounds) rounds=$a ;; --final) final=$a ;; esac
    case "$a" in --rounds=*) rounds=${a#--rounds=} ;; --final=*) final=${a#--final=} ;; esac
    prev=$a
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "$0: give the Swiss's --rounds R among the tournament arguments" >&2; exit 2; }
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "$0: SHARDS must be a positive number, found $shards" >&2; exit 2; }
ref=${REFEREE:-referee}
here=$(cd "$(dirname "$0")" && pwd)
read -r -a opts <<<"${SBATCH_OPTS:-}"
dep=()
after=()
for r in $(seq 1 "$rounds"); do
    dir=$out/round-$r
    mkdir -p "$dir"
    job=$(REFEREE=$ref sbatch --parsable "${opts[@]}" "${dep[@]}" --array=0-$((shards - 1)) \
          --output="$dir/slurm-%A_%a.out" "$here/referee-shards.slurm" "$dir" "$@" --round "$r" "${after[@]}")
    parts=()
    for k in $(seq 0 $((shards - 1))); do parts+=("$dir/shard-$k"); done
    merge=$(sbatch --parsable "${opts[@]}" --dependency=afterok:"$job" --output="$dir/merge.out" \
            --wrap "$(printf '%q ' "$ref" merge --out "$dir/merged" "${parts[@]}")")
    echo "round $r: shards job $job, merge job $merge"
    dep=(--dependency=afterok:"$merge")
    after=(--after "$dir/merged")
done
if [ -n "$final" ]; then
    job=$(sbatch --parsable "${opts[@]}" "${dep[@]}" --output="$out/final.out" \
          --wrap "$(printf '%q ' "$ref" tournament "$@" --resume --out "$out/round-$rounds/merged")")
    echo "final: job $job"
    merge=$job
fi
# The job that ends the chain, for a script to wait on.
echo "$merge" >"$out/last-job"

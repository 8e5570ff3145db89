#!/usr/bin/env bash
# Runs the Slurm recipes (scripts/referee-shards.slurm and
# scripts/grade-shards.slurm) on a real Slurm: a one-node cluster on this
# machine (munge, slurmctld and slurmd, started here with a configuration of
# their own and stopped at the end); an array job of SHARDS shards of a small
# tournament, the merge as a dependent job, and a check that the merged table
# equals the table of the same tournament played unsharded; then the same for
# a class of four graded in two shards: the merged grades.csv must equal the
# unsharded grading's; and a Swiss played round by round, each round's
# shards and merge chained by job dependencies
# (scripts/swiss-shards-slurm.sh), must pair and rank as unsharded. Needs
# root (the daemons) and Debian's slurm-wlm and munge packages (.ci/run
# installs them).
#
# Usage: scripts/slurm-check.sh [SHARDS]     (default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shards=${1:-3}
[ "$(id -u)" = 0 ] || { echo "slurm-check: needs root to start the Slurm daemons" >&2; exit 2; }
for t in munged slurmctld slurmd sbatch sinfo; do
    command -v $t >/dev/null || { echo "slurm-check: $t not found: apt-get install slurm-wlm munge" >&2; exit 2; }
done
ref=$root/target/release/referee
agent=$root/target/release/agent
[ -x "$ref" ] && [ -x "$agent" ] || { echo "slurm-check: build first: cargo build --release" >&2; exit 2; }

work=$(mktemp -d /tmp/slurm-check.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# munge: a key and a daemon of this run's own (its own socket).
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge/key"
sock=$work/munge/socket
munged --key-file="$work/munge/key" --socket="$sock" --pid-file="$work/munge/pid" \
    --log-file="$work/munge/log" --seed-file="$work/munge/seed" --force
pids+=("$(cat "$work/munge/pid")")

host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/spool" "$work/state"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=referee-check
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmctldPort=$((20000 + RANDOM % 20000))
SlurmdPort=$((40000 + RANDOM % 20000))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 0.2
done
sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' || {
    echo "slurm-check: the one-node cluster did not come up:" >&2
    tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2 || true
    exit 1
}

# Fixed-depth and one-ply agents: the same games in every run, so the
# sharded tables must equal the unsharded ones exactly.
args=(--game connectsquare --time 2 --games 4 --seed 3 --openings random:2
      --agent "name=best,cmd=$agent --strategy alphabeta --depth 4" --agent "name=greedy,cmd=$agent --strategy greedy"
      --agent "name=random,cmd=$agent --strategy random")
cd "$work"
# The recipe as its header shows it: the array, then the merge after it.
job=$(REFEREE=$ref sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 \
      --output="$work/slurm-%A_%a.out" "$root/scripts/referee-shards.slurm" "$work/runs" "${args[@]}")
merge=$(sbatch --parsable --dependency=afterok:"$job" --output="$work/merge.out" \
        --wrap "$ref merge --out $work/runs/merged $(printf "$work/runs/shard-%d " $(seq 0 $((shards - 1))))")
# Waits for job $1 to end; fails unless it completed.
wait_job() {
    local state=
    for _ in $(seq 600); do
        state=$(scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
        case "$state" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
        sleep 0.5
    done
    [ "$state" = COMPLETED ] || {
        echo "slurm-check: the merge job ended ${state:-in no known state}" >&2
        tail -5 "$work"/slurm-*.out "$work"/merge*.out >&2 2>/dev/null || true
        exit 1
    }
}
wait_job "$merge"
"$ref" tournament "${args[@]}" --out "$work/whole" >"$work/whole.out" 2>/dev/null
table() { sed -n '/^agent /,/^$/p' "$1" | sed '/^$/d'; }
if ! diff <(table "$work/whole.out") <(table "$work/merge.out") >"$work/diff"; then
    echo "slurm-check: the merged table differs from the unsharded one:" >&2
    cat "$work/diff" >&2
    exit 1
fi
games=$(wc -l <"$work/runs/merged/records.jsonl")
echo "slurm-check: $shards shards as a Slurm array on $host, merged by a dependent job: $games games, the same table as unsharded"
table "$work/merge.out"

# The grading recipe: a class of four (one folder that does not build)
# graded by a 2-task array and merged by a dependent job. The merged
# grades.csv must hold the shards' rows as they wrote them, and equal the
# unsharded one in every column measured time does not decide: the players
# choose every single move without a clock, while a game cut at 20 plies
# goes to the side with more CPU time left (the total and game columns).
gshards=2
for s in "d1:--strategy alphabeta --depth 1" "d2:--strategy alphabeta --depth 2" "gr:--strategy greedy"; do
    mkdir -p "$work/class/${s%%:*}"
    echo "$agent ${s#*:}" >"$work/class/${s%%:*}/run"
done
mkdir -p "$work/class/none"
: >"$work/class/none/notes.txt"
cat >"$work/plan.toml" <<EOF
game = "halma"
seed = 5
[singles]
count = 2
points = 1
budget = 1.0
[games]
count = 1
opened = 1
points = 10
clock = [2.0, 2.0]
opponent = "{agent} --strategy minimax --depth 1"
max_plies = 20
draw = "nobody"
EOF
gjob=$(REFEREE=$ref sbatch --parsable --array=0-$((gshards - 1)) --cpus-per-task=1 \
       --output="$work/slurm-grade-%A_%a.out" "$root/scripts/grade-shards.slurm" "$work/grades" \
       --plan "$work/plan.toml" --sandbox-ro "$root/target/release" "$work/class")
gmerge=$(sbatch --parsable --dependency=afterok:"$gjob" --output="$work/merge-grades.out" \
         --wrap "$ref merge --out $work/grades/merged $(printf "$work/grades/shard-%d " $(seq 0 $((gshards - 1))))")
wait_job "$gmerge"
"$ref" grade --plan "$work/plan.toml" --sandbox-ro "$root/target/release" --out "$work/whole-grades" "$work/class" 2>"$work/whole-grades.err" || {
    echo "slurm-check: the unsharded grading failed:" >&2
    tail -5 "$work/whole-grades.err" >&2
    exit 1
}
untimed() { cut -d, -f1,4,6,7 "$1"; }
rows() { tail -n +2 "$@" | grep -v '^==>' | sed '/^$/d' | sort; }
if ! diff <(untimed "$work/whole-grades/grades.csv") <(untimed "$work/grades/merged/grades.csv") >"$work/diff" ||
    ! diff <(rows "$work"/grades/shard-*/grades.csv) <(rows "$work/grades/merged/grades.csv") >>"$work/diff"; then
    echo "slurm-check: the merged grades.csv differs from the unsharded one or from its shards:" >&2
    cat "$work/diff" >&2
    exit 1
fi
echo "slurm-check: a class of $(($(wc -l <"$work/grades/merged/grades.csv") - 1)) students graded in $gshards shards as a Slurm array, merged by a dependent job: the same grades.csv as unsharded (but for what measured time decides)"
cat "$work/grades/merged/grades.csv"

# The Swiss chain (scripts/swiss-shards-slurm.sh): two rounds of two shards
# each, every round's merge a job that waits for its array and every next
# array a job that waits for that merge, then the final by a dependent
# resume. The same fixed-depth and one-ply agents as above: the rounds as
# paired and the standings must equal those of the same Swiss unsharded.
sargs=(--format swiss --rounds 2 --final 3 --game connectsquare --time 2 --games 2 --seed 3 --openings random:2
       --agent "name=best,cmd=$agent --strategy alphabeta --depth 4" --agent "name=d1,cmd=$agent --strategy alphabeta --depth 1"
       --agent "name=greedy,cmd=$agent --strategy greedy" --agent "name=random,cmd=$agent --strategy random")
REFEREE=$ref SBATCH_OPTS="--cpus-per-task=1" "$root/scripts/swiss-shards-slurm.sh" 2 "$work/swiss" "${sargs[@]}" >"$work/swiss.jobs"
wait_job "$(cat "$work/swiss/last-job")"
"$ref" tournament "${sargs[@]}" --out "$work/swiss-whole" >"$work/swiss-whole.out" 2>/dev/null
standings() { sed -n '/^Swiss standings/,$p' "$1"; }
if ! diff <(standings "$work/swiss-whole.out") <(standings "$work/swiss/final.out") >"$work/diff" ||
    ! diff "$work/swiss-whole/rounds.json" "$work/swiss/round-2/merged/rounds.json" >>"$work/diff"; then
    echo "slurm-check: the Swiss played round by round in shards differs from the unsharded one:" >&2
    cat "$work/diff" >&2
    exit 1
fi
echo "slurm-check: a Swiss of 2 rounds in 2 shards each, chained by Slurm dependencies (merge after each round, the final last): the same standings as unsharded"
standings "$work/swiss/final.out"

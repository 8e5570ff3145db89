#!/usr/bin/env bash
# What `make test` needs beyond Rust: the referee's match-runner tests run
# sample agents in Python, Java and C++, shard with GNU parallel and Slurm
# (a one-node Slurm with munge, started by the test itself), and open
# reports in headless Chromium. Those tests fail without them, with one
# exception: the real-Slurm check (referee/tests/match_runner.rs) skips,
# saying so, when not run as root, since starting slurmctld and slurmd
# needs root (CI runs as root). Apart from tools, the tests of the full
# sandbox's confinement (hostile.rs, match_runner.rs) skip, saying so,
# where the full sandbox is not in force.
# As root on Debian or Ubuntu the missing packages are installed; otherwise
# one message names them, before anything compiles.
set -euo pipefail
missing=()
have() { command -v "$1" >/dev/null 2>&1; }
have python3 || missing+=(python3)
# The venv test (referee/tests/match_runner.rs) makes a Python venv.
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
have javac || missing+=(default-jdk-headless)
have g++ || missing+=(g++)
have parallel || missing+=(parallel)
have sbatch || missing+=(slurm-wlm)
{ have munged || [ -x /usr/sbin/munged ]; } || missing+=(munge)
have chromium || missing+=(chromium)
# util-linux's unshare and fallocate are used by the disk tests.
have unshare && have fallocate || missing+=(util-linux)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && have apt-get; then
    echo "make test: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    exit 0
fi
echo "make test needs these packages, which are missing: ${missing[*]} (on Debian or Ubuntu: sudo apt-get install ${missing[*]}; or run make test as root, which installs them)" >&2
exit 1

#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (its Ubuntu base): the languages a submission may be written in, and the
# referee and agent from the autograder zip (statically linked, so they
# need nothing of the image's C library).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3 python3-venv default-jdk-headless g++ >/dev/null
install -m 0755 "$here/bin/referee" "$here/bin/agent" /usr/local/bin/
# A course venv (numpy, say): list its packages in requirements.txt and
# name it in the plan's [languages]: python = "/opt/course-venv/bin/python3",
# read_only = ["/opt/course-venv"].
if [ -f "$here/requirements.txt" ]; then
    python3 -m venv /opt/course-venv
    /opt/course-venv/bin/pip install -q -r "$here/requirements.txt"
fi

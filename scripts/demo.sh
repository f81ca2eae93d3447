#!/usr/bin/env bash
# The main job on this machine: audit the shipped example shift and show the findings.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# shellcheck disable=SC1091
. "${VENV:-.venv}/bin/activate"
status=0
tablewatch audit examples/shift.jsonl --config examples/tables.yaml || status=$?
# exit 1 means "findings reported": that is the demo working
[[ $status -le 1 ]]

#!/usr/bin/env bash
# The main job on this machine: the live pipeline (Kafka, worker with embedded ClickHouse,
# ingest endpoint) with a simulated floor of 16 tables (the simulator's games in turn: four
# of each of four games) for about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# shellcheck disable=SC1091
. "${VENV:-.venv}/bin/activate"
started_kafka=0
if ! deploy/kafka.sh status >/dev/null 2>&1; then
  deploy/kafka.sh start
  started_kafka=1
fi
if [[ $started_kafka == 1 ]]; then
  trap 'deploy/kafka.sh stop' EXIT
fi
tablewatch live --tables 16 --alerts examples/alerts.yaml "$@"

#!/usr/bin/env bash
# The whole test suite from a fresh clone: install, lint, type-check, start Kafka, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# shellcheck disable=SC1091
. "${VENV:-.venv}/bin/activate"

echo "== ruff"
ruff check tablewatch tests benchmarks deploy
ruff format --check tablewatch tests benchmarks deploy
echo "== mypy"
mypy
echo "== kafka"
deploy/kafka.sh start
trap 'deploy/alertmanager.sh stop; deploy/kafka.sh stop' EXIT
deploy/kafka.sh topics
echo "== alertmanager"
deploy/alertmanager.sh start
echo "== pytest"
python -m pytest -q --durations=25 "$@"

#!/usr/bin/env bash
# Create .venv and install TableWatch with its development tools (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
stamp="$VENV/.installed"
if [[ -f "$stamp" && "$stamp" -nt pyproject.toml ]]; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[dev]'
touch "$stamp"

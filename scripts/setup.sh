#!/usr/bin/env bash
# Create .venv, install TableWatch with its development tools, compile the rules (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
stamp="$VENV/.installed"
# System packages the tests and the demo use: Debian's chromium (the pages in a real
# browser), Prometheus Alertmanager with amtool (the alerts) and DejaVu Sans (the font the
# shift report's PDF embeds).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v prometheus-alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || missing+=(fonts-dejavu-core)
if ((${#missing[@]})); then
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "setup: installing ${missing[*]} with apt-get" >&2
  "${sudo[@]}" apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
if [[ ! -f "$stamp" || "$stamp" -ot pyproject.toml ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[dev]'
  touch "$stamp"
fi
# The rules engine compiled with mypyc (tablewatch/native.py): about a minute when
# rules/ changed, nothing otherwise. If it cannot be built (no C compiler or Python
# headers), everything still runs, as pure Python, slower; the test suite then fails
# tests/test_native.py, which requires the build.
if ! "$VENV/bin/tablewatch" native build; then
  echo "setup: the compiled rules engine could not be built; running pure Python" >&2
fi
# kustomize renders deploy/k8s for tests/deploy/test_kubernetes.py: kubectl's own, one on
# PATH, or else built from the Go module proxy into .cache/bin (about a minute, once).
if ! command -v kustomize >/dev/null 2>&1 && ! command -v kubectl >/dev/null 2>&1 \
    && [[ ! -x .cache/bin/kustomize ]]; then
  echo "setup: building kustomize v5.5.0 into .cache/bin" >&2
  if ! GOBIN="$PWD/.cache/bin" go install sigs.k8s.io/kustomize/kustomize/v5@v5.5.0; then
    echo "setup: kustomize could not be built; tests/deploy/test_kubernetes.py will fail" >&2
  fi
fi

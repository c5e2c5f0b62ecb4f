#!/usr/bin/env bash
# Creates .venv with the interop peers of tests/requirements.txt. Idempotent: skips the
# install when the requirements have not changed since the last successful one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
req="$root/tests/requirements.txt"
stamp="$venv/.requirements.stamp"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  exit 0
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
cp "$req" "$stamp"

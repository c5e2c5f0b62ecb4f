#!/usr/bin/env bash
# Creates .venv with the interop peers of tests/requirements.txt, plus those of any further
# requirements files given as arguments (make test-interop adds the heavy suites' file).
# Idempotent: skips a file's install when it has not changed since its last successful one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
for req in "$root/tests/requirements.txt" "$@"; do
  req="$(cd "$(dirname "$req")" && pwd)/$(basename "$req")"
  # One stamp per file, named after its path inside the repository.
  name="${req#"$root"/}"
  stamp="$venv/.requirements.${name//\//_}.stamp"
  if [ "$name" = "tests/requirements.txt" ]; then stamp="$venv/.requirements.stamp"; fi
  if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
    continue
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
done

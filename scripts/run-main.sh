#!/usr/bin/env bash
# The main job of `make run`. Until `floe server` exists, the most useful thing floe can
# do is inspect and rewrite Parquet and Avro files: show the commands and run them on
# FILE if one is given (FLOE_RUN_FILE=path make run).
set -euo pipefail
floe="$1"
"$floe" --help
if [ -n "${FLOE_RUN_FILE:-}" ]; then
  "$floe" parquet meta "$FLOE_RUN_FILE"
fi

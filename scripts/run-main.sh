#!/usr/bin/env bash
# The main job of `make run`: `floe server` with embedded defaults — an SQLite metastore and
# a local warehouse under ./floe-data, the Iceberg REST catalog on http://127.0.0.1:8181/v1 and
# the dashboard on http://127.0.0.1:8181/ (built beside the binary; `make demo` loads tables).
# Override with FLOE_DATA_DIR, FLOE_HTTP_PORT or FLOE_METASTORE=postgresql://...
# Stops gracefully on Ctrl-C or SIGTERM.
set -euo pipefail
floe="$1"
exec "$floe" server

#!/usr/bin/env bash
# Installs the Debian packages floe builds and tests with. Idempotent: installs only
# what is missing, and runs apt-get update at most once.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  clang-16 libclang-rt-16-dev libfuzzer-16-dev clang-format-16 clang-tidy-16
  # product dependencies
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libdeflate-dev libxxhash-dev
  libboost-dev libboost-system-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev libssl-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  # the key index of keyed table topics (src/floe/ingest/key_index.h)
  librocksdb-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 python3-venv python3-pip time wrk
  # kcat (librdkafka) against table topics (tests/interop/test_table_topic_clients.py)
  kcat
  # a throwaway server for the SQL catalog's PostgreSQL tests (scripts/test-postgres.sh)
  postgresql
  # the dashboard's browser test (tests/e2e/dashboard.mjs drives it headless)
  chromium
)
# The dashboard (web/) is built with npm. A Node.js that brings its own npm (as some
# machines' nodejs builds do) is kept: Debian's npm package would conflict with it.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

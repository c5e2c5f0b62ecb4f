#!/usr/bin/env bash
# Installs the JDK and Maven that the Java interop peers (tests/interop_heavy: parquet-mr,
# the Iceberg Java harness) build and run with. Idempotent: installs only what is missing,
# and runs apt-get update at most once.
set -euo pipefail

packages=(openjdk-17-jdk-headless maven)

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

#!/usr/bin/env bash
# Runs every libFuzzer target in DIR for SECONDS each, starting from its seed corpus in
# tests/fuzz/corpus/<target>/ (copied to a scratch dir so the checkout stays clean).
set -euo pipefail
dir="$1"
seconds="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
shopt -s nullglob
status=0
for bin in "$dir"/fuzz_*; do
  [ -x "$bin" ] || continue
  name="$(basename "$bin")"
  work="$(mktemp -d)"
  if [ -d "$root/tests/fuzz/corpus/$name" ]; then
    cp -r "$root/tests/fuzz/corpus/$name/." "$work/"
  fi
  mkdir -p "$root/build/fuzz-artifacts"
  echo "fuzz: $name for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$root/build/fuzz-artifacts/$name-" "$work" >"$work.log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -50 "$work.log"; status=1
  else
    grep -E 'stat::number_of_executed_units' "$work.log" || true
  fi
  rm -rf "$work" "$work.log"
done
exit $status

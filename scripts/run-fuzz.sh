#!/usr/bin/env bash
# Runs every libFuzzer target in DIR for SECONDS each, starting from its seed corpus in
# tests/fuzz/corpus/<target>/ (copied to a scratch dir so the checkout stays clean).
# Targets run JOBS at a time (default: the number of cores): each fuzzer is single-threaded,
# so this keeps the fuzzing time per target while the wall time shrinks.
set -euo pipefail
dir="$1"
seconds="$2"
jobs="${3:-$(nproc)}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root/build/fuzz-artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Fuzzes one target; its log and verdict go to $scratch/<name>.{log,ok}.
fuzz_one() {
  local bin="$1" name work
  name="$(basename "$bin")"
  work="$scratch/$name.corpus"
  mkdir -p "$work"
  if [ -d "$root/tests/fuzz/corpus/$name" ]; then
    cp -r "$root/tests/fuzz/corpus/$name/." "$work/"
  fi
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$root/build/fuzz-artifacts/$name-" "$work" \
       >"$scratch/$name.log" 2>&1; then
    touch "$scratch/$name.ok"
  fi
}

shopt -s nullglob
targets=()
for bin in "$dir"/fuzz_*; do
  [ -x "$bin" ] && targets+=("$bin")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in $dir"; exit 1
fi

running=0
for bin in "${targets[@]}"; do
  echo "fuzz: $(basename "$bin") for ${seconds}s"
  fuzz_one "$bin" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

status=0
for bin in "${targets[@]}"; do
  name="$(basename "$bin")"
  if [ -e "$scratch/$name.ok" ]; then
    echo "fuzz: $name $(grep -E 'stat::number_of_executed_units' "$scratch/$name.log" || echo ok)"
  else
    echo "fuzz: $name FAILED"; tail -50 "$scratch/$name.log"; status=1
  fi
done
exit $status

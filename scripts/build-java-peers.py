#!/usr/bin/env python3
"""Builds the Java peers that tests/interop drives, into the caches the tests read: the Iceberg
Java harness (with its class-data-sharing archive), the Iceberg REST client peer and the RCK
classpath. Each is skipped when its cache already holds a build of the current sources.

The tests build them on first use anyway; `make test` runs this beside the sanitizer compile
so that Maven's downloads and javac overlap the C++ build instead of the interop run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "interop"), str(ROOT / "tests" / "rck")]

import classpath  # noqa: E402  (tests/rck)
import iceberg_java  # noqa: E402  (tests/interop)


def main() -> int:
    steps = [("Iceberg Java harness", iceberg_java.build_harness),
             ("Iceberg REST client peer", iceberg_java.build_rest_peer),
             ("RCK classpath", classpath.resolve)]
    for name, build in steps:
        start = time.monotonic()
        try:
            build()
        except Exception as e:  # noqa: BLE001: the first line of Maven's output is the story
            print(f"java peers: {name} failed: {e}", file=sys.stderr)
            return 1
        print(f"java peers: {name} ready ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

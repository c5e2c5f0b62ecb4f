"""Fixtures of the corrupt-file suite: the floe binary from FLOE_BIN (missing is an error),
run under an address-space limit so that an unbounded allocation driven by a hostile length
fails (and shows up as a signal or an error) instead of succeeding on a large machine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import floe_runner  # noqa: E402

# Far above what reading these few-KB seeds needs, far below a 2^31 or 2^62 length.
MEMORY_LIMIT_BYTES = 1 << 30


def pytest_sessionstart(session):
    try:
        floe_runner.floe_from_env()
    except RuntimeError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def floe_limited() -> floe_runner.Floe:
    f = floe_runner.floe_from_env()
    return floe_runner.Floe(f.path, memory_limit_bytes=MEMORY_LIMIT_BYTES)

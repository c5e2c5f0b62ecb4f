"""Fixtures of the heavy interop suites (`make test-interop`, not `make test`): they build and
run peers from Maven Central, which takes minutes and a JDK."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))

import floe_runner  # noqa: E402


@pytest.fixture(scope="session")
def floe() -> floe_runner.Floe:
    return floe_runner.floe_from_env()

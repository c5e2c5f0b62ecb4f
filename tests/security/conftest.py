"""Fixtures of the security suite (tests/security/): attacks a hostile client can make on
loopback, one test per attack class, each asserting the refusal *and* that the victim (file,
table, topic) is intact and the server still answers. The floe binary comes from FLOE_BIN
(missing is an error, not a skip); servers run from pytest's tmp dirs on free ports."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import floe_runner  # noqa: E402


def pytest_sessionstart(session):
    try:
        floe_runner.floe_from_env()
    except RuntimeError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def floe() -> floe_runner.Floe:
    return floe_runner.floe_from_env()

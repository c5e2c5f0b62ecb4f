"""Fixtures of the interop suites: the floe binary (from FLOE_BIN; missing is an error, not a
skip) and the session's matrix of peer-written input files with the peers' readings of them.
Everything is written under pytest's tmp dirs; nothing touches the network."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import floe_runner
import floe_server
import parquet_matrix as pm
import peers


def pytest_sessionstart(session):
    # Fail the whole run at once, loudly, rather than erroring every test.
    try:
        floe_runner.floe_from_env()
    except RuntimeError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def floe() -> floe_runner.Floe:
    return floe_runner.floe_from_env()


class ParquetInputs:
    """The matrix files of parquet_matrix.cases(), written on first use and cached for the
    session together with pyarrow's and DuckDB's readings of them."""

    def __init__(self, root: Path):
        self.root = root
        self.cases = {c.name: c for c in pm.cases()}
        self._lock = threading.Lock()
        self._paths: dict[str, Path] = {}
        self._cache: dict = {}

    def path(self, name: str) -> Path:
        with self._lock:
            if name not in self._paths:
                p = self.root / f"{name}.parquet"
                pm.write_case(self.cases[name], p)
                self._paths[name] = p
            return self._paths[name]

    def _memo(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    def table(self, name: str):
        """pyarrow's reading, ARROW:schema applied (what a pyarrow user sees)."""
        return self._memo(("table", name), lambda: peers.read(self.path(name)))

    def bare(self, name: str):
        """pyarrow's reading of the Parquet schema alone."""
        return self._memo(("bare", name), lambda: peers.read_bare(self.path(name)))

    def schema(self, name: str):
        return self._memo(("schema", name), lambda: peers.schema_elements(self.path(name)))

    def kv(self, name: str):
        return self._memo(("kv", name), lambda: peers.kv_pairs(self.path(name)))


@pytest.fixture(scope="session")
def parquet_inputs(tmp_path_factory) -> ParquetInputs:
    return ParquetInputs(tmp_path_factory.mktemp("parquet-inputs"))


@pytest.fixture(scope="session")
def postgres_server():
    with floe_server.local_postgres() as uri:
        yield uri

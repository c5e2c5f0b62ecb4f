"""The Iceberg REST Compatibility Kit 1.11.0 (Iceberg Java's CatalogTests and ViewCatalogTests
through its RESTCatalog client; tests/rck) against `floe server`, with the metastore on SQLite
and on PostgreSQL. Every test the kit runs must pass.

floe requires a namespace before its tables, so the kit runs with
rck.requires-namespace-create=true (the switch the kit's README shows for such servers).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from floe_server import FloeServer

RUN_RCK = Path(__file__).resolve().parents[1] / "rck" / "run_rck.py"


def run_kit(server: FloeServer, report_dir: Path, extra: dict[str, str] | None = None) -> str:
    """Runs the whole kit; `extra` are more client properties (e.g. an OAuth2 credential)."""
    extra_args = []
    for k, v in {"rck.requires-namespace-create": "true", **(extra or {})}.items():
        extra_args += ["--extra", f"{k}={v}"]
    proc = subprocess.run(
        [sys.executable, str(RUN_RCK), "--uri", server.uri + "/", "--warehouse", "default",
         "--report-dir", str(report_dir), *extra_args],
        capture_output=True, text=True, timeout=1500)
    out = proc.stdout + proc.stderr
    summary = re.search(r"RCK: tests found (\d+), succeeded (\d+), failed (\d+), skipped (\d+)",
                        out)
    assert summary, out[-4000:]
    found, passed, failed, skipped = map(int, summary.groups())
    failures = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert proc.returncode == 0 and failed == 0, "\n".join(failures[:40]) + "\n" + out[-2000:]
    # The kit's own skips (nested/empty namespaces, names with dots, a @Disabled test) are 12
    # with namespaces required: anything more means a whole class did not run.
    assert found >= 150 and skipped <= 13, out[-2000:]
    auth = "auth on" if extra and "credential" in extra else "auth off"
    print(f"RCK on {server.metastore or 'sqlite'}, {auth}: {passed} passed, {failed} failed, "
          f"{skipped} skipped of {found}")
    return out


def rck_config(data_dir: Path) -> dict:
    """The default catalog as the server creates it, plus `file:/tmp` in its allowed locations:
    CatalogTests.testCompleteCreateTable places a table at file:/tmp/ns/tbl (Polaris' kit setup
    allows it the same way)."""
    return {"catalogs": {"default": {"kind": "internal", "warehouse": str(data_dir / "warehouse"),
                                     "properties": {"allowed-locations": "file:/tmp"}}}}


def test_rck_on_sqlite(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", config=rck_config(tmp_path / "data")) as server:
        run_kit(server, tmp_path / "reports")
    assert server.exit_code == 0


def test_rck_on_postgres(floe, tmp_path, postgres_server):
    with FloeServer(floe.path, tmp_path / "data", metastore=postgres_server,
                    config=rck_config(tmp_path / "data")) as server:
        run_kit(server, tmp_path / "reports")
    assert server.exit_code == 0

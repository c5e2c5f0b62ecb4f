"""The Iceberg REST Compatibility Kit 1.11.0 against `floe server` with authentication on, on
SQLite and PostgreSQL: the kit's RESTCatalog client authenticates with OAuth2 client
credentials (`credential`, `oauth2-server-uri`, `scope`, passed through the kit's client
properties by tests/rck/run_rck.py) as a principal with write access to every catalog. Every
test the kit runs must pass, as with auth off (tests/interop/test_rck.py); that the server
really required the token is checked from its access log."""

from __future__ import annotations

import hashlib
import json

import pytest

from floe_server import FloeServer, local_postgres
from test_rck import rck_config, run_kit

SECRET = "rck-secret-61"


@pytest.fixture(scope="module")
def postgres_server():
    with local_postgres() as uri:
        yield uri


def auth_config() -> dict:
    return {"auth": {"enabled": True, "principals": {
        "rck": {"secret-sha256": hashlib.sha256(SECRET.encode()).hexdigest(),
                "catalogs": {"*": "write"}}}}}


def run_with_auth(server: FloeServer, tmp_path) -> None:
    assert server.request("GET", "/v1/config")[0] == 401
    run_kit(server, tmp_path / "reports",
            {"credential": f"rck:{SECRET}", "scope": "catalog",
             "oauth2-server-uri": f"{server.uri}/v1/oauth/tokens"})
    entries = [json.loads(line) for line in
               (server.data_dir / "access.log").read_text().splitlines()]
    catalog_calls = [e for e in entries if e["path"].startswith("/v1/default/")]
    assert catalog_calls and all(e.get("principal") == "rck" for e in catalog_calls)
    assert SECRET not in (server.data_dir / "access.log").read_text() + server.log_text()


def test_rck_with_auth_on_sqlite(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data",
                    config={**auth_config(), **rck_config(tmp_path / "data")}) as server:
        run_with_auth(server, tmp_path)
    assert server.exit_code == 0


def test_rck_with_auth_on_postgres(floe, tmp_path, postgres_server):
    with FloeServer(floe.path, tmp_path / "data", metastore=postgres_server,
                    config={**auth_config(), **rck_config(tmp_path / "data")}) as server:
        run_with_auth(server, tmp_path)
    assert server.exit_code == 0

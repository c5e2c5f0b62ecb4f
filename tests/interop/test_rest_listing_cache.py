"""Listings served from floe's listing cache (answered on the io thread, validated by SQLite's
PRAGMA data_version) stay exact: a change made to the metastore database by ANOTHER process —
pyiceberg's own SqlCatalog writing floe.db directly, not through the server — shows in the very
next REST listing, and a cached answer never reaches a principal the catalog refuses."""

from __future__ import annotations

import hashlib
import urllib.parse

import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import ForbiddenError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from floe_server import FloeServer

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True))


def names(identifiers) -> list[str]:
    return sorted(".".join(i) for i in identifiers)


def direct_catalog(server) -> SqlCatalog:
    # The server's internal catalog "default" keeps its pointers in floe.db with the Iceberg
    # JDBC schema, so pyiceberg's SqlCatalog can write the same rows from outside.
    return SqlCatalog("default", uri=f"sqlite:///{server.data_dir / 'floe.db'}",
                      warehouse=f"file://{server.data_dir / 'warehouse'}")


def test_external_writes_show_in_the_next_listing(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "floe") as server:
        rest = RestCatalog("floe", uri=server.uri, warehouse="default")
        rest.create_namespace("ns")
        for name in ("a", "b"):
            rest.create_table(f"ns.{name}", SCHEMA)
        # Twice: the second answer can come from the cache.
        assert names(rest.list_tables("ns")) == ["ns.a", "ns.b"]
        assert names(rest.list_tables("ns")) == ["ns.a", "ns.b"]
        assert ("ns",) in rest.list_namespaces()

        direct = direct_catalog(server)
        direct.create_table("ns.c", SCHEMA)
        assert names(rest.list_tables("ns")) == ["ns.a", "ns.b", "ns.c"]
        direct.drop_table("ns.a")
        assert names(rest.list_tables("ns")) == ["ns.b", "ns.c"]
        direct.rename_table("ns.b", "ns.renamed")
        assert names(rest.list_tables("ns")) == ["ns.c", "ns.renamed"]

        direct.create_namespace("other")
        assert ("other",) in rest.list_namespaces()
        direct.drop_namespace("other")
        assert ("other",) not in rest.list_namespaces()

        # The server's own writes, between two cached listings.
        rest.create_table("ns.d", SCHEMA)
        assert names(rest.list_tables("ns")) == ["ns.c", "ns.d", "ns.renamed"]
        rest.drop_table("ns.c")
        assert names(rest.list_tables("ns")) == ["ns.d", "ns.renamed"]

        # Paged listings (an empty pageToken asks for paging) are cached per page request and
        # stay exact too.
        first_page = "/v1/default/namespaces/ns/tables?pageToken=&pageSize=1"
        for _ in range(2):
            status, body, _ = server.request("GET", first_page)
            assert status == 200
            assert [t["name"] for t in body["identifiers"]] == ["d"]
        direct.create_table("ns.aa", SCHEMA)
        status, body, _ = server.request("GET", first_page)
        assert [t["name"] for t in body["identifiers"]] == ["aa"]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_cached_listing_keeps_access_checks(floe, tmp_path):
    secrets = {"etl": "etl-secret-1", "outsider": "outsider-secret-2"}
    config = {"auth": {"enabled": True, "principals": {
        "etl": {"secret-sha256": sha256(secrets["etl"]), "catalogs": {"default": "write"}},
        "outsider": {"secret-sha256": sha256(secrets["outsider"]),
                     "catalogs": {"elsewhere": "write"}},
    }}}
    with FloeServer(floe.path, tmp_path / "floe", config=config) as server:
        etl = RestCatalog("floe", uri=server.uri, warehouse="default",
                          credential=f"etl:{secrets['etl']}")
        etl.create_namespace("ns")
        etl.create_table("ns.t", SCHEMA)
        for _ in range(3):
            assert names(etl.list_tables("ns")) == ["ns.t"]

        # A principal of another catalog, with a valid token (pyiceberg's RestCatalog could not
        # even fetch this catalog's config, so raw requests).
        status, body, _ = server.request(
            "POST", "/v1/oauth/tokens",
            urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "outsider",
                                    "client_secret": secrets["outsider"]}),
            {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200
        bearer = {"Authorization": f"Bearer {body['access_token']}"}
        for path in ("/v1/default/namespaces/ns/tables", "/v1/default/namespaces"):
            status, body, _ = server.request("GET", path, headers=bearer)
            assert status == 403
            assert body["error"]["type"] == "ForbiddenException"
        with pytest.raises(ForbiddenError):
            RestCatalog("floe", uri=server.uri, warehouse="default",
                        credential=f"outsider:{secrets['outsider']}")
        status, _, headers = server.request("GET", "/v1/default/namespaces/ns/tables")
        assert status == 401
        assert "Bearer" in headers.get("WWW-Authenticate", "")
        status, _, _ = server.request("GET", "/v1/default/namespaces/ns/tables",
                                      headers={"Authorization": "Bearer not-a-token"})
        assert status == 401

"""Storage confinement (issue 19 §1), tried as a hostile catalog client would: locations named
by create, set-location and the location properties, escapes through `..`, percent-encoding,
relative paths and foreign schemes, unsafe names, register of a non-metadata file, and orphan
cleaning aimed at another table or the warehouse root. Each test asserts the refusal *and*
that the victim files and tables are intact and the server still answers."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import NoSuchTableError

from floe_server import FloeServer
from managed_table import SCHEMA, rows

SCHEMA_JSON = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True}]}


@pytest.fixture
def server(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    config={"optimizer": {"maintenance-interval-ms": 0}},
                    extra_args=["--optimizer-refresh-ms", "3600000"]) as s:
        yield s


def victim(tmp_path: Path) -> Path:
    """A file outside the warehouse that nothing may touch."""
    path = tmp_path / "victim" / "precious.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("keep me")
    return path


def create(server, name: str, **fields):
    return server.request("POST", "/v1/default/namespaces/ns/tables",
                          {"name": name, "schema": SCHEMA_JSON, **fields})


def test_locations_outside_the_warehouse_are_refused_everywhere(server, tmp_path):
    precious = victim(tmp_path)
    outside = str(precious.parent)
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["ns"]})[0] == 200
    warehouse = str(server.warehouse)
    escapes = [outside, f"file://{outside}", f"{warehouse}/../victim",
               f"{warehouse}/%2e%2e/victim", f"{warehouse}/ns%2f..%2f..%2fvictim",
               "relative/dir", "hdfs://namenode/x", f"{warehouse}/ok/\u0001"]
    for location in escapes:
        status, body, _ = create(server, "t1", location=location)
        assert status in (400, 403), (location, status, body)
    # The answer is the same whether the place exists or not: nothing is asked of storage.
    there = create(server, "t1", location=outside)
    missing = create(server, "t1", location=outside + "-missing")
    assert there[0] == missing[0] == 403
    assert there[1]["error"]["message"].replace(outside, "X") == \
        missing[1]["error"]["message"].replace(outside + "-missing", "X")
    for prop in ("write.data.path", "write.metadata.path", "write.object-storage.path"):
        status, body, _ = create(server, "t2", properties={prop: outside})
        assert status == 403 and body["error"]["type"] == "ForbiddenException", (prop, body)
    # A table made inside, then moved or pointed outside by updates.
    assert create(server, "inside")[0] == 200
    path = "/v1/default/namespaces/ns/tables/inside"
    for update in ({"action": "set-location", "location": outside},
                   {"action": "set-properties", "updates": {"write.data.path": outside}},
                   {"action": "set-statistics", "statistics": {
                       "snapshot-id": 1, "statistics-path": f"{outside}/stats.puffin",
                       "file-size-in-bytes": 1, "file-footer-size-in-bytes": 1,
                       "blob-metadata": []}}):
        status, body, _ = server.request("POST", path, {"requirements": [], "updates": [update]})
        assert status in (400, 403), (update, body)
    # Namespaces may not name a location outside either.
    status, _, _ = server.request("POST", "/v1/default/namespaces",
                                  {"namespace": ["evil"], "properties": {"location": outside}})
    assert status == 403
    assert precious.read_text() == "keep me" and sorted(os.listdir(precious.parent)) == [
        "precious.txt"]
    status, body, _ = server.request("GET", path)
    assert status == 200 and body["metadata"]["location"].startswith(
        ("file:" + warehouse, warehouse))


def test_unsafe_names_are_refused(server):
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["ns"]})[0] == 200
    for name in (".", "..", "a/b", "a\\b", "a\x00b", "a\nb"):
        status, body, _ = create(server, name)
        assert status == 400, (name, body)
    for level in ("..", "x/y"):
        status, _, _ = server.request("POST", "/v1/default/namespaces", {"namespace": [level]})
        assert status == 400, level
    assert server.request("GET", "/v1/default/namespaces")[0] == 200


def test_register_refuses_foreign_and_invalid_metadata(server, tmp_path):
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["ns"]})[0] == 200
    precious = victim(tmp_path)
    status, body, _ = server.request("POST", "/v1/default/namespaces/ns/register",
                                     {"name": "r", "metadata-location": str(precious)})
    assert status == 403, body
    # A file inside the warehouse that is not table metadata: 400, nothing registered.
    junk = server.warehouse / "junk.metadata.json"
    junk.parent.mkdir(parents=True, exist_ok=True)
    junk.write_text("{\"format-version\": 2, \"not\": \"metadata\"}")
    status, body, _ = server.request("POST", "/v1/default/namespaces/ns/register",
                                     {"name": "r", "metadata-location": str(junk)})
    assert status == 400, body
    assert server.request("GET", "/v1/default/namespaces/ns/tables/r")[0] == 404
    # register with overwrite=true is atomic: a bad new file leaves the old table whole.
    assert create(server, "src")[0] == 200
    _, src, _ = server.request("GET", "/v1/default/namespaces/ns/tables/src")
    status, body, _ = server.request("POST", "/v1/default/namespaces/ns/register",
                                     {"name": "r", "metadata-location": src["metadata-location"]})
    assert status == 200, body
    for bad in (str(junk), str(precious), str(server.warehouse / "missing.metadata.json")):
        status, body, _ = server.request("POST", "/v1/default/namespaces/ns/register",
                                         {"name": "r", "metadata-location": bad,
                                          "overwrite": True})
        assert status in (400, 403, 404), (bad, status, body)
        status, kept, _ = server.request("GET", "/v1/default/namespaces/ns/tables/r")
        assert status == 200 and kept["metadata-location"] == src["metadata-location"]


def wait_for_run(server, table: str, kind: str, seconds: float = 30) -> dict:
    path = f"/api/v1/catalogs/default/namespaces/ns/tables/{table}/maintenance-runs"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, body, _ = server.request("GET", path)
        assert status == 200, body
        runs = [r for r in body["items"] if r["kind"] == kind]
        if runs:
            return runs[0]
        time.sleep(0.2)
    raise AssertionError(f"no {kind} run of {table}; log:\n{server.log_text()[-3000:]}")


def test_orphan_cleaning_cannot_reach_another_table_or_the_warehouse(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("ns")
    victim_table = cat.create_table("ns.victim", SCHEMA,
                                    properties={"self-optimizing.enabled": "false"})
    victim_table.append(rows(0, 10))
    victim_files = [task.file.file_path for task in victim_table.scan().plan_files()]
    victim_data = victim_table.location().rstrip("/") + "/data"
    cleaning = {"clean-orphan-file.enabled": "true",
                "clean-orphan-file.min-existing-time-minutes": "0",
                "self-optimizing.enabled": "false", "table-expire.enabled": "false"}
    # An attacker's table whose data path is the victim's data directory: every victim file is
    # an orphan to it.
    attacker = cat.create_table("ns.attacker", SCHEMA,
                                properties={**cleaning, "write.data.path": victim_data})
    attacker.append(rows(100, 1))  # the commit event: the optimizer evaluates it
    run = wait_for_run(server, "attacker", "clean-orphan-files")
    assert run["status"] == "refused" and "another table" in run["error"], run
    # A table in a place of its own is still cleaned.
    own = cat.create_table("ns.own", SCHEMA, properties=cleaning)
    own.append(rows(300, 1))
    assert wait_for_run(server, "own", "clean-orphan-files")["status"] == "success"
    # A table at the warehouse root: cleaning there would reach every table (and, until it
    # is dropped, every other table's cleaning is refused for overlapping it).
    root = cat.create_table("ns.rooted", SCHEMA, location=str(server.warehouse),
                            properties=cleaning)
    root.append(rows(200, 1))
    run = wait_for_run(server, "rooted", "clean-orphan-files")
    assert run["status"] == "refused" and "contains) the allowed location" in run["error"], run
    status, body, _ = server.request("GET",
                                     "/api/v1/catalogs/default/namespaces/ns/tables/attacker")
    assert status == 200 and "another table" in body["health"]["orphan-cleaning-refused"]["reason"]
    assert '"event":"orphan-cleaning-refused"' in server.log_text()
    # The victim's files are all there and it reads back whole.
    for f in victim_files:
        assert os.path.exists(f.removeprefix("file:")), f
    assert sorted(r["id"] for r in cat.load_table("ns.victim").scan().to_arrow().to_pylist()) \
        == list(range(10))


def test_purge_deletes_only_the_tables_own_files(server, tmp_path):
    precious = victim(tmp_path)
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("ns")
    keep = cat.create_table("ns.keep", SCHEMA)
    keep.append(rows(0, 5))
    keep_files = [task.file.file_path.removeprefix("file:")
                  for task in keep.scan().plan_files()]
    doomed = cat.create_table("ns.doomed", SCHEMA)
    doomed.append(rows(10, 5))
    status, _, _ = server.request("DELETE",
                                  "/v1/default/namespaces/ns/tables/doomed?purgeRequested=true")
    assert status == 204
    assert all(os.path.exists(p) for p in keep_files)
    assert precious.read_text() == "keep me"
    assert sorted(r["id"] for r in cat.load_table("ns.keep").scan().to_arrow().to_pylist()) \
        == list(range(5))
    with pytest.raises(NoSuchTableError):
        cat.load_table("ns.doomed")

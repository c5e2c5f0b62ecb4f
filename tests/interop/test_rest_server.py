"""`floe server` as an Iceberg REST catalog, driven by pyiceberg's RestCatalog (the peer) and by
raw HTTP for the error model:

- the same steps (namespace, partitioned table, append, schema evolution, append, scan, drop)
  through RestCatalog on floe and through pyiceberg's own SqlCatalog give equal results;
- malformed JSON, oversized bodies, invalid identifiers and unknown updates get 4xx with the
  spec's error body, and the server keeps serving;
- concurrent appends from many clients: every acknowledged commit is in the table, every
  rejected one left no snapshot; a stale schema update gets 409 CommitFailedException;
- SIGTERM stops the server with exit code 0.
"""

from __future__ import annotations

import os
import threading
import time

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError, NamespaceAlreadyExistsError
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import (DoubleType, LongType, NestedField, StringType, TimestampType)

from floe_server import FloeServer

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "amount", DoubleType(), required=False),
    NestedField(4, "ts", TimestampType(), required=False),
)
SPEC = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "category"),
                     PartitionField(4, 1001, DayTransform(), "ts_day"))


def batch(start: int, n: int, with_note: bool = False) -> pa.Table:
    import datetime as dt
    cols = {
        "id": pa.array(range(start, start + n), pa.int64()),
        "category": pa.array([["a", "b", None][i % 3] for i in range(n)], pa.string()),
        "amount": pa.array([i * 1.5 for i in range(n)], pa.float64()),
        "ts": pa.array([dt.datetime(2026, 11, 1 + i % 5, 12, 0) for i in range(n)],
                       pa.timestamp("us")),
    }
    fields = [pa.field("id", pa.int64(), nullable=False), pa.field("category", pa.string()),
              pa.field("amount", pa.float64()), pa.field("ts", pa.timestamp("us"))]
    if with_note:
        cols["note"] = pa.array([f"n{i}" for i in range(n)], pa.string())
        fields.append(pa.field("note", pa.string()))
    return pa.Table.from_pydict(cols, schema=pa.schema(fields))


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-server")) as s:
        yield s


def rest_catalog(server: FloeServer) -> RestCatalog:
    return RestCatalog("floe", uri=server.uri, warehouse="default")


def run_steps(catalog, ns: str) -> pa.Table:
    """The common script; returns the final scan sorted by id."""
    try:
        catalog.create_namespace(ns, {"owner": "tests"})
    except NamespaceAlreadyExistsError:
        pass
    assert catalog.load_namespace_properties(ns)["owner"] == "tests"
    table = catalog.create_table(f"{ns}.events", SCHEMA, partition_spec=SPEC,
                                 properties={"format-version": "2"})
    table.append(batch(0, 300))
    with table.update_schema() as update:
        update.add_column("note", StringType())
    table = catalog.load_table(f"{ns}.events")
    table.append(batch(300, 200, with_note=True))
    table = catalog.load_table(f"{ns}.events")
    assert [f.name for f in table.schema().fields] == ["id", "category", "amount", "ts", "note"]
    assert len(table.history()) == 2
    result = table.scan().to_arrow().sort_by("id")
    rows = table.scan(row_filter="category = 'a' and id >= 100").to_arrow()
    assert rows.num_rows == sum(1 for i in range(100, 500) if i % 3 == 0)
    assert (f"{ns}", "events") in catalog.list_tables(ns)
    catalog.drop_table(f"{ns}.events")
    with pytest.raises(NoSuchTableError):
        catalog.load_table(f"{ns}.events")
    return result


def test_pyiceberg_rest_matches_sql_catalog(server, tmp_path):
    over_rest = run_steps(rest_catalog(server), "steps")
    sql = SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'peer.db'}",
                     warehouse=f"file://{tmp_path / 'peer-wh'}")
    over_sql = run_steps(sql, "steps")
    assert over_rest.num_rows == 500
    assert over_rest.to_pylist() == over_sql.to_pylist()


def test_rest_table_read_back_after_restart(floe, tmp_path):
    data = tmp_path / "data"
    with FloeServer(floe.path, data) as s:
        cat = rest_catalog(s)
        cat.create_namespace("keep")
        t = cat.create_table("keep.t", SCHEMA)
        t.append(batch(0, 10))
    with FloeServer(floe.path, data) as s:
        t = rest_catalog(s).load_table("keep.t")
        assert sorted(t.scan().to_arrow()["id"].to_pylist()) == list(range(10))
    assert s.exit_code == 0


ERROR_CASES = [
    ("POST", "/v1/default/namespaces", "{not json", 400),
    ("POST", "/v1/default/namespaces", "[1, 2]", 400),
    ("POST", "/v1/default/namespaces", {"namespace": []}, 400),
    ("POST", "/v1/default/namespaces", {"namespace": ["a", ""]}, 400),
    ("POST", "/v1/default/namespaces", {"namespace": "a"}, 400),
    ("POST", "/v1/default/namespaces", {"namespace": ["p"], "properties": {"k": 1}}, 400),
    ("GET", "/v1/default/namespaces/a%1F%1Fb", None, 400),
    ("GET", "/v1/default/namespaces/%zz", None, 400),
    ("GET", "/v1/default/namespaces?pageToken=&pageSize=-1", None, 400),
    ("GET", "/v1/nosuchcatalog/namespaces", None, 404),
    ("GET", "/v1/config?warehouse=nosuchcatalog", None, 404),
    ("POST", "/v1/default/namespaces/errs/tables", {"name": "t"}, 400),
    ("POST", "/v1/default/namespaces/errs/tables", {"name": "", "schema": {}}, 400),
    ("POST", "/v1/default/namespaces/errs/tables/t",
     {"requirements": [], "updates": [{"action": "no-such-update"}]}, 400),
    ("POST", "/v1/default/namespaces/errs/tables/t",
     {"requirements": [{"type": "no-such-requirement"}], "updates": []}, 400),
    ("GET", "/v1/default/namespaces/errs/tables/t?snapshots=some", None, 400),
    ("POST", "/v1/default/namespaces/errs/properties",
     {"removals": ["k"], "updates": {"k": "v"}}, 422),
    ("POST", "/v1/default/tables/rename", {"source": {"namespace": ["errs"], "name": "t"}}, 400),
    ("POST", "/v1/default/transactions/commit", {"table-changes": [{"requirements": []}]}, 400),
]


def test_bad_requests_get_4xx_with_error_body(server):
    rest_catalog(server).create_namespace("errs")
    rest_catalog(server).create_table("errs.t", SCHEMA)
    for method, path, body, code in ERROR_CASES:
        status, parsed, _ = server.request(method, path, body)
        assert status == code, (method, path, body, status, parsed)
        error = parsed["error"]
        assert error["code"] == code and error["type"] and error["message"], parsed
    # Oversized body: 413, and the server goes on serving.
    status, parsed, _ = server.request("POST", "/v1/default/namespaces", b"x" * (17 << 20))
    assert status == 413 and parsed["error"]["code"] == 413
    status, _, _ = server.request("GET", "/v1/config")
    assert status == 200
    assert server.proc.poll() is None


def test_error_types_java_clients_branch_on(server):
    cat = rest_catalog(server)
    cat.create_namespace("types")
    cat.create_table("types.t", SCHEMA)
    cases = [
        ("GET", "/v1/default/namespaces/missing", None, 404, "NoSuchNamespaceException"),
        ("GET", "/v1/default/namespaces/types/tables/missing", None, 404, "NoSuchTableException"),
        ("POST", "/v1/default/namespaces", {"namespace": ["types"]}, 409, "AlreadyExistsException"),
        ("DELETE", "/v1/default/namespaces/types", None, 409, "NamespaceNotEmptyException"),
        ("POST", "/v1/default/namespaces/missing/tables",
         {"name": "t", "schema": {"type": "struct", "fields": []}}, 404, "NoSuchNamespaceException"),
    ]
    for method, path, body, code, type_name in cases:
        status, parsed, _ = server.request(method, path, body)
        assert (status, parsed["error"]["type"]) == (code, type_name), (path, parsed)


def test_stale_schema_update_is_409_commit_failed(server):
    cat = rest_catalog(server)
    cat.create_namespace("schemas")
    cat.create_table("schemas.t", SCHEMA)
    first = cat.load_table("schemas.t")
    second = cat.load_table("schemas.t")
    with first.update_schema() as u:
        u.add_column("x", StringType())
    with pytest.raises(CommitFailedException):
        with second.update_schema() as u:
            u.add_column("y", LongType())
    # Raw: the same stale requirement answers 409 with the type Java clients expect.
    status, parsed, _ = server.request(
        "POST", "/v1/default/namespaces/schemas/tables/t",
        {"requirements": [{"type": "assert-current-schema-id", "current-schema-id": 0}],
         "updates": [{"action": "set-properties", "updates": {"k": "v"}}]})
    assert status == 409 and parsed["error"]["type"] == "CommitFailedException", parsed
    final = cat.load_table("schemas.t")
    assert [f.name for f in final.schema().fields][-1] == "x"
    assert "k" not in final.properties


def test_etag_and_if_none_match(server):
    cat = rest_catalog(server)
    cat.create_namespace("etag")
    cat.create_table("etag.t", SCHEMA)
    status, body, headers = server.request("GET", "/v1/default/namespaces/etag/tables/t")
    assert status == 200 and headers.get("ETag")
    status, body, _ = server.request("GET", "/v1/default/namespaces/etag/tables/t",
                                     headers={"If-None-Match": headers["ETag"]})
    assert status == 304 and body is None
    cat.load_table("etag.t").append(batch(0, 5))
    status, body, headers2 = server.request("GET", "/v1/default/namespaces/etag/tables/t",
                                            headers={"If-None-Match": headers["ETag"]})
    assert status == 200 and headers2["ETag"] != headers["ETag"]


def test_idempotency_key_replays_the_first_answer(server):
    key = {"Idempotency-Key": "0190f0e8-7c1a-7000-8000-000000000001"}
    first = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]}, key)
    again = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]}, key)
    assert first[0] == 200 and again[0] == 200 and again[1] == first[1]
    other = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem2"]}, key)
    assert other[0] == 422
    without = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]})
    assert without[0] == 409


def test_pagination(server):
    cat = rest_catalog(server)
    cat.create_namespace("pages")
    for i in range(7):
        cat.create_table(f"pages.t{i}", SCHEMA)
    seen, token = [], ""
    while True:
        status, body, _ = server.request(
            "GET", f"/v1/default/namespaces/pages/tables?pageSize=3&pageToken={token}")
        assert status == 200 and len(body["identifiers"]) <= 3
        seen += [i["name"] for i in body["identifiers"]]
        token = body["next-page-token"]
        if token is None:
            break
    assert seen == [f"t{i}" for i in range(7)]
    status, body, _ = server.request("GET", "/v1/default/namespaces/pages/tables")
    assert len(body["identifiers"]) == 7 and "next-page-token" not in body
    assert sorted(t for _, t in cat.list_tables("pages")) == [f"t{i}" for i in range(7)]


CLIENTS = 16


def test_concurrent_appends_lose_nothing(server):
    seconds = float(os.environ.get("FLOE_CONCURRENCY_SECONDS", "10"))
    cat = rest_catalog(server)
    cat.create_namespace("busy")
    cat.create_table("busy.t", SCHEMA)
    committed, rejected, errors = [], [], []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(k: int):
        catalog = rest_catalog(server)
        n = 0
        while time.monotonic() < deadline:
            row_id = k * 1_000_000 + n
            n += 1
            try:
                catalog.load_table("busy.t").append(batch(row_id, 1))
                with lock:
                    committed.append(row_id)
            except CommitFailedException:
                with lock:
                    rejected.append(row_id)
            except Exception as e:  # anything else is a failure of the test
                with lock:
                    errors.append(repr(e))
                return

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    table = cat.load_table("busy.t")
    ids = sorted(table.scan().to_arrow()["id"].to_pylist())
    assert ids == sorted(committed)
    # A rejected commit leaves nothing: exactly one snapshot per acknowledged append.
    assert len(table.snapshots()) == len(committed)
    assert committed, "no append succeeded"
    print(f"{CLIENTS} clients, {seconds}s: {len(committed)} appends committed, "
          f"{len(rejected)} rejected with 409")


def test_sigterm_stops_gracefully(floe, tmp_path):
    s = FloeServer(floe.path, tmp_path / "d").start()
    assert s.request("GET", "/v1/config")[0] == 200
    assert s.stop() == 0

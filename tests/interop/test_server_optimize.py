"""Self-optimizing inside `floe server`: tables written through the REST catalog by
pyiceberg and by an upsert writer (floe's CLI through `rest:`, equality deletes as a Flink
upsert job writes them) are optimized by the server on its own, and pyiceberg reads the
results with the rows it wrote.
"""

from __future__ import annotations

import json
import time

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from floe_server import FloeServer

WAIT_SECONDS = 60


@pytest.fixture
def server(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    extra_args=["--optimizer-refresh-ms", "500"]) as s:
        yield s


def optimize_snapshots(table):
    return [s for s in table.metadata.snapshots
            if (s.summary or {}).get("snapshot-producer") == "OPTIMIZE"]


def wait_for(predicate, what: str, server):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {WAIT_SECONDS}s; server log:\n"
                         f"{server.log_text()[-4000:]}")


def test_small_appends_are_compacted(server):
    cat = RestCatalog("floe", uri=server.uri)
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "v", StringType(), required=False))
    t = cat.create_table("db.events", schema, properties={
        "self-optimizing.minor.trigger.file-count": "5",
        "self-optimizing.minor.trigger.interval": "-1",
        "self-optimizing.min-plan-interval": "0"})
    expected = []
    for i in range(6):
        rows = [{"id": i * 100 + k, "v": f"r{i}-{k}"} for k in range(50)]
        expected += rows
        t.append(pa.Table.from_pylist(rows, schema=t.schema().as_arrow()))

    def compacted():
        t.refresh()
        return bool(optimize_snapshots(t))

    wait_for(compacted, "a compaction of 6 small files", server)
    files = t.inspect.files()
    assert files.num_rows < 6, files.to_pylist()
    snap = optimize_snapshots(t)[0]
    assert snap.summary.operation.value == "replace"
    assert snap.summary["floe.optimizing.type"] == "minor"
    got = sorted((r["id"], r["v"]) for r in t.scan().to_arrow().to_pylist())
    assert got == sorted((r["id"], r["v"]) for r in expected)


@pytest.mark.parametrize("version", [2, 3])
def test_upsert_equality_deletes_are_converted(server, floe, tmp_path, version):
    flags = ["--catalog", f"rest:{server.uri}"]
    r = floe.run("namespace", "create", "cdc", *flags)
    assert r.rc == 0, r.describe()
    r = floe.run("table", "create", "cdc.t", "--schema", "id long not null, v string",
                 "--identifier", "id", "--format-version", str(version),
                 "--property", "self-optimizing.minor.trigger.file-count=3",
                 "--property", "self-optimizing.min-plan-interval=0", *flags)
    assert r.rc == 0, r.describe()
    model = {}
    for i in range(4):
        rows = [{"id": k, "v": f"u{i}-{k}"} for k in range(i * 5, i * 5 + 20)]
        for row in rows:
            model[row["id"]] = row["v"]
        path = tmp_path / f"u{i}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        r = floe.run("table", "upsert", "cdc.t", str(path), *flags)
        assert r.rc == 0, r.describe()

    cat = RestCatalog("floe", uri=server.uri)

    def no_equality_deletes():
        t = cat.load_table("cdc.t")
        if not optimize_snapshots(t):
            return False
        return all(f["content"] != 2 for f in t.inspect.files().to_pylist())

    wait_for(no_equality_deletes, "the equality deletes' conversion", server)
    t = cat.load_table("cdc.t")
    got = sorted((r["id"], r["v"]) for r in t.scan().to_arrow().to_pylist())
    assert got == sorted(model.items())

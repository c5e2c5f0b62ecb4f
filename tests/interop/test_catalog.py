"""floe's SQL catalog shares tables with pyiceberg's SqlCatalog and Iceberg Java's JdbcCatalog:
one SQLite database, one catalog name ("default", floe's CLI default and pyiceberg's), one
warehouse. Tables created by each are listed and loaded by the others, and floe's commits are
seen by both. floe runs through `floe namespace` / `floe table` (FLOE_BIN)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

CATALOG_NAME = "default"


@pytest.fixture
def env(tmp_path, floe):
    db = tmp_path / "catalog.db"
    wh = tmp_path / "wh"
    wh.mkdir()

    def run(*args):
        return floe.ok(*args, "--catalog", f"sqlite:{db}", "--warehouse", str(wh))

    def run_json(*args):
        return json.loads(run(*args, "--json").text)

    py = SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{db}", warehouse=str(wh))
    return {"db": db, "wh": wh, "floe": run, "floe_json": run_json, "py": py, "raw": floe}


def java_catalog(env):
    ij = pytest.importorskip("iceberg_java")
    harness = ij.build_harness()
    return harness.catalog(f"jdbc:sqlite:{env['db']}", CATALOG_NAME, str(env["wh"]))


def test_floe_table_seen_by_pyiceberg_and_java(env):
    env["floe"]("namespace", "create", "db")
    created = env["floe_json"]("table", "create", "db.t",
                               "--schema", "id long not null, name string",
                               "--partition", "bucket(4, id)", "--property", "owner=floe")
    # Java JdbcCatalog's default location: <warehouse>/<namespace levels>/<table>.
    assert created["location"] == f"{env['wh']}/db/t"

    py = env["py"]
    assert ("db", "t") in py.list_tables("db")
    table = py.load_table("db.t")
    assert str(table.metadata.table_uuid) == created["table_uuid"]
    assert table.metadata_location == created["metadata_location"]
    assert [(f.field_id, f.name, str(f.field_type), f.required) for f in table.schema().fields] == \
        [(1, "id", "long", True), (2, "name", "string", False)]
    field = table.spec().fields[0]
    assert (field.source_id, field.field_id, str(field.transform), field.name) == \
        (1, 1000, "bucket[4]", "id_bucket")
    assert table.properties["owner"] == "floe"

    java = java_catalog(env)
    described = java.describe("db.t")
    assert described["table_uuid"] == created["table_uuid"]
    assert described["metadata_location"] == created["metadata_location"]
    assert described["location"] == created["location"]

    # A floe commit is seen by both.
    after = env["floe_json"]("table", "set-property", "db.t", "k=v", "--unset", "owner")
    assert after["metadata_location"].split("/")[-1].startswith("00001-")
    table = py.load_table("db.t")
    assert table.properties.get("k") == "v" and "owner" not in table.properties
    assert table.metadata_location == after["metadata_location"]
    assert [e.metadata_file for e in table.metadata.metadata_log] == [created["metadata_location"]]
    described = java.describe("db.t")
    assert described["properties"].get("k") == "v"
    assert described["metadata_location"] == after["metadata_location"]


def test_pyiceberg_table_loaded_and_committed_by_floe(env):
    py = env["py"]
    py.create_namespace("ns")
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "s", StringType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                        name="s"))
    table = py.create_table("ns.p", schema=schema, partition_spec=spec)
    # pyiceberg's default location agrees with Java's and floe's for one-level namespaces.
    assert table.location() == f"{env['wh']}/ns/p"
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                           "s": pa.array(["a", "b", None])},
                          schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                            pa.field("s", pa.string())])))
    table = py.load_table("ns.p")

    assert env["floe_json"]("table", "list", "ns") == ["ns.p"]
    described = env["floe_json"]("table", "describe", "ns.p")
    assert described["table_uuid"] == str(table.metadata.table_uuid)
    assert described["current_snapshot_id"] == table.metadata.current_snapshot_id
    assert described["metadata_location"] == table.metadata_location

    env["floe"]("table", "set-property", "ns.p", "from=floe")
    table = py.load_table("ns.p")
    assert table.properties["from"] == "floe"
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == [1, 2, 3]


def test_java_table_loaded_and_committed_by_floe(env):
    java = java_catalog(env)
    schema = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "v", "required": False, "type": "string"}]}
    created = java.create("jns.j", schema, format_version=2, properties={"by": "java"})
    assert created["location"] == f"{env['wh']}/jns/j"
    java.append("jns.j", [{"id": 1, "v": "x"}, {"id": 2, "v": "y"}])
    before = java.describe("jns.j")

    assert env["floe_json"]("namespace", "list") == ["jns"]
    described = env["floe_json"]("table", "describe", "jns.j")
    assert described["table_uuid"] == before["table_uuid"]
    assert described["current_snapshot_id"] == before["current_snapshot_id"]
    assert described["properties"]["by"] == "java"

    env["floe"]("table", "set-property", "jns.j", "touched=floe")
    after = java.describe("jns.j")
    assert after["properties"]["touched"] == "floe"
    assert after["current_snapshot_id"] == before["current_snapshot_id"]
    assert len(java.scan("jns.j")) == 2
    assert "jns.j" in [".".join(t) for t in env["py"].list_tables("jns")]


def test_errors_have_documented_exit_codes(env):
    raw = env["raw"]
    base = ["--catalog", f"sqlite:{env['db']}", "--warehouse", str(env["wh"])]
    assert raw.run("table", "describe", "nope.t", *base).rc == 3
    assert raw.run("table", "create", "t", "--schema", "id long", *base).rc == 2
    env["floe"]("namespace", "create", "e")
    env["floe"]("table", "create", "e.t", "--schema", "id long")
    again = raw.run("table", "create", "e.t", "--schema", "id long", *base)
    assert again.rc == 1 and "already exists" in again.stderr
    full = raw.run("namespace", "drop", "e", *base)
    assert full.rc == 1 and "not empty" in full.stderr

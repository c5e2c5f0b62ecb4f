"""Tables written by Iceberg Java 1.10.1 with every delete kind, read by floe's scan.

The Java harness (tests/interop/java/iceberg-harness) writes, in a JdbcCatalog on SQLite:
Flink-style upserts (equality deletes, partitioned and global), position-delete files on v2
(file- and partition-scoped) and deletion vectors on v3 (merged across commits). floe reads
each table from its metadata file with `floe iceberg scan` (Parquet output read back with
pyarrow) and must return exactly the rows Java's IcebergGenerics reader returns, for the
current snapshot and for every earlier one. Expected rows come from Iceberg Java.
"""

from __future__ import annotations

import random
import uuid

import pyarrow.parquet as pq
import pytest

import iceberg_java as ij
from test_iceberg_java import ALL_TYPES_SCHEMA, ALL_TYPES_SPEC, CATALOG, _all_types_rows

KEYED_SCHEMA = {
    "type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2], "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "region", "required": True, "type": "string"},
        {"id": 3, "name": "amount", "required": False, "type": "decimal(10, 2)"},
        {"id": 4, "name": "note", "required": False, "type": "string"},
    ]}
REGION_SPEC = {"fields": [{"name": "region", "transform": "identity", "source-id": 2}]}


@pytest.fixture(scope="session")
def harness() -> ij.Harness:
    return ij.build_harness()


@pytest.fixture
def java(harness, tmp_path):
    db, wh = tmp_path / "catalog.db", tmp_path / "warehouse"
    wh.mkdir()
    return harness.catalog(f"jdbc:sqlite:{db}", CATALOG, str(wh))


def floe_rows(floe, tmp_path, metadata_location, *args) -> list[dict]:
    out = tmp_path / f"scan-{uuid.uuid4().hex}.parquet"
    floe.ok("iceberg", "scan", metadata_location, "--format", "parquet", "--output", out, *args,
            timeout=600)
    return ij.canonical_rows(pq.read_table(out))


def check_all_snapshots(floe, tmp_path, java, table):
    md = java.describe(table)["metadata_location"]
    ij.assert_same_rows(java.scan(table), floe_rows(floe, tmp_path, md), "current snapshot")
    for snap in java.snapshots(table)["snapshots"]:
        sid = snap["snapshot_id"] if "snapshot_id" in snap else snap["snapshot-id"]
        ij.assert_same_rows(java.scan(table, snapshot_id=sid),
                            floe_rows(floe, tmp_path, md, "--snapshot", sid),
                            f"snapshot {sid}")


def keyed_rows(rng, ids, tag):
    return [{"id": k, "region": rng.choice(["eu", "us", "ap"]),
             "amount": f"{rng.randrange(-99999, 99999) / 100:.2f}",
             "note": None if rng.random() < 0.2 else f"{tag}-{k}"} for k in ids]


@pytest.mark.parametrize("partitioned", [True, False])
def test_equality_deletes_from_upserts(floe, java, tmp_path, partitioned):
    rng = random.Random(7)
    table = "ns.upserts"
    java.create(table, KEYED_SCHEMA, REGION_SPEC if partitioned else None, format_version=2)
    # The key includes the partition source, as Flink requires.
    java.upsert(table, ["id", "region"], keyed_rows(rng, range(0, 300), "a"), commits=3)
    java.upsert(table, ["id", "region"], keyed_rows(rng, range(150, 400), "b"), commits=4)
    java.append(table, keyed_rows(rng, range(1000, 1050), "c"))
    java.upsert(table, ["id", "region"], keyed_rows(rng, range(0, 1200, 7), "d"), commits=2)
    files = java.files(table)
    assert any(f["content"] == "equality_deletes" for f in files), [f["content"] for f in files]
    check_all_snapshots(floe, tmp_path, java, table)


@pytest.mark.parametrize("granularity", ["file", "partition"])
def test_position_deletes_v2(floe, java, tmp_path, granularity):
    rng = random.Random(11)
    table = "ns.posdel"
    java.create(table, ALL_TYPES_SCHEMA, ALL_TYPES_SPEC, format_version=2)
    java.append(table, _all_types_rows(rng, 0, 400))
    java.append(table, _all_types_rows(rng, 400, 300))
    java.delete_where(table, "category", "red", granularity=granularity)
    java.delete_where(table, "flag", True, granularity=granularity)
    java.append(table, _all_types_rows(rng, 700, 50))
    check_all_snapshots(floe, tmp_path, java, table)


def test_deletion_vectors_v3(floe, java, tmp_path):
    rng = random.Random(13)
    table = "ns.dv"
    java.create(table, ALL_TYPES_SCHEMA, ALL_TYPES_SPEC, format_version=3)
    java.append(table, _all_types_rows(rng, 0, 500))
    java.delete_where(table, "category", "green")
    # A second DV for the same data files merges the first.
    java.delete_where(table, "flag", False)
    java.append(table, _all_types_rows(rng, 500, 100))
    files = java.files(table)
    assert any(str(f.get("format", f.get("file_format", ""))).upper() == "PUFFIN"
               for f in files), files
    check_all_snapshots(floe, tmp_path, java, table)


def test_filters_over_deletes(floe, java, tmp_path):
    rng = random.Random(17)
    table = "ns.filtered"
    java.create(table, KEYED_SCHEMA, REGION_SPEC, format_version=2)
    java.upsert(table, ["id", "region"], keyed_rows(rng, range(0, 500), "a"), commits=2)
    java.upsert(table, ["id", "region"], keyed_rows(rng, range(0, 500, 3), "b"))
    md = java.describe(table)["metadata_location"]
    for text in ["region = 'eu'", "id < 100", "id >= 250"]:
        expected = [r for r in java.scan(table) if _matches(r, text)]
        ij.assert_same_rows(expected, floe_rows(floe, tmp_path, md, "--where", text), text)


def _matches(row, text):
    if text == "region = 'eu'":
        return row["region"] == "eu"
    if text == "id < 100":
        return row["id"] < 100
    return row["id"] >= 250

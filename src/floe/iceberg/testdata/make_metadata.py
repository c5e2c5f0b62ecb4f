"""Writes the pyiceberg-produced table metadata files that floe's metadata tests read.

Run from the repository root with the project venv:
    /work/main/.venv/bin/python src/floe/iceberg/testdata/make_metadata.py

For format versions 1 and 2 it creates a table in a SqlCatalog on SQLite under a
fixed warehouse path, appends, evolves the schema and the partition spec, sets a sort
order, adds a tag and a branch, and copies every metadata file into
src/floe/iceberg/testdata/pyiceberg_v<N>/. Next to each table's last file it writes
`<name>.expected.json`: pyiceberg's own reading of that file (the facts floe must read the
same way).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import TableMetadataUtil
from pyiceberg.table.sorting import SortField, SortOrder
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import (DoubleType, IntegerType, ListType, LongType, MapType, NestedField,
                             StringType, StructType, TimestampType)

WAREHOUSE = Path("/tmp/floe-testdata-warehouse")
OUT = Path(__file__).resolve().parent


def schema() -> Schema:
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), required=False, doc="display name"),
        NestedField(3, "ts", TimestampType(), required=False),
        NestedField(4, "tags", ListType(5, StringType(), element_required=False), required=False),
        NestedField(6, "props", MapType(7, StringType(), 8, IntegerType(), value_required=True),
                    required=False),
        NestedField(9, "loc", StructType(NestedField(10, "lat", DoubleType(), required=False),
                                         NestedField(11, "lon", DoubleType(), required=False)),
                    required=False),
        identifier_field_ids=[1],
    )


def batch(t, start: int, n: int) -> pa.Table:
    import datetime as dt
    return pa.table({
        "id": pa.array(range(start, start + n), pa.int64()),
        "name": pa.array([f"n{i}" for i in range(start, start + n)], pa.string()),
        "ts": pa.array([dt.datetime(2024, 1, 1 + i % 3) for i in range(n)], pa.timestamp("us")),
        "tags": pa.array([["a", "b"]] * n, pa.list_(pa.string())),
        "props": pa.array([[("k", 1)]] * n, pa.map_(pa.string(), pa.field("value", pa.int32(), False))),
        "loc": pa.array([{"lat": 1.5, "lon": -2.0}] * n,
                        pa.struct([("lat", pa.float64()), ("lon", pa.float64())])),
    }, schema=pa.schema([f for f in t.schema().as_arrow() if f.name != "score"]))


def facts(md) -> dict:
    """pyiceberg's reading of a metadata file, as plain JSON."""
    return {
        "format-version": md.format_version,
        "table-uuid": str(md.table_uuid),
        "location": md.location,
        "last-sequence-number": getattr(md, "last_sequence_number", 0),
        "last-updated-ms": md.last_updated_ms,
        "last-column-id": md.last_column_id,
        "current-schema-id": md.current_schema_id,
        "schema-ids": [s.schema_id for s in md.schemas],
        "current-schema-field-ids": [f.field_id for f in md.schema().fields],
        "default-spec-id": md.default_spec_id,
        "spec-ids": [s.spec_id for s in md.partition_specs],
        "last-partition-id": md.last_partition_id,
        "default-sort-order-id": md.default_sort_order_id,
        "sort-order-ids": [o.order_id for o in md.sort_orders],
        "properties": md.properties,
        "current-snapshot-id": md.current_snapshot_id,
        "snapshots": [{
            "snapshot-id": s.snapshot_id,
            "parent-snapshot-id": s.parent_snapshot_id,
            "sequence-number": s.sequence_number,
            "timestamp-ms": s.timestamp_ms,
            "manifest-list": s.manifest_list,
            "operation": s.summary.operation.value if s.summary else None,
            "summary": {k: v for k, v in (s.summary.additional_properties.items() if s.summary else [])},
            "schema-id": s.schema_id,
        } for s in md.snapshots],
        "refs": {name: {"snapshot-id": r.snapshot_id, "type": r.snapshot_ref_type.value}
                 for name, r in md.refs.items()},
        "snapshot-log": [[e.timestamp_ms, e.snapshot_id] for e in md.snapshot_log],
        "metadata-log": [[e.timestamp_ms, e.metadata_file] for e in md.metadata_log],
        "next-row-id": getattr(md, "next_row_id", None),
    }


def build(version: int) -> None:
    cat = SqlCatalog("floe", uri=f"sqlite:///{WAREHOUSE}/catalog.db", warehouse=f"file://{WAREHOUSE}")
    cat.create_namespace_if_not_exists("db")
    name = f"db.t_v{version}"
    spec = PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "ts_part"))
    order = SortOrder(SortField(1, IdentityTransform()))
    t = cat.create_table(name, schema(), partition_spec=spec, sort_order=order,
                         properties={"format-version": str(version), "owner": "floe"})
    t.append(batch(t, 0, 5))
    t.append(batch(t, 5, 3))
    with t.update_schema() as u:
        u.add_column("score", DoubleType(), doc="added later")
    with t.update_spec() as u:
        u.add_field("name", IdentityTransform(), "name_part")
    b = batch(t, 8, 2)
    t.append(b.append_column(t.schema().as_arrow().field("score"), pa.array([0.5, 1.5], pa.float64())))
    first = t.metadata.snapshots[0].snapshot_id
    t.manage_snapshots().create_tag(first, "v1.0").create_branch(
        t.metadata.current_snapshot_id, "audit").commit()
    with t.transaction() as tx:
        tx.set_properties({"commit.retry.num-retries": "7"})
    t.delete("id = 1")

    out = OUT / f"pyiceberg_v{version}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    meta_dir = WAREHOUSE / "db" / f"t_v{version}" / "metadata"
    files = sorted(meta_dir.glob("*.metadata.json"))
    for i, f in enumerate(files):
        target = out / f"{i:05d}.metadata.json"
        shutil.copy(f, target)
        md = TableMetadataUtil.parse_raw(f.read_text())
        (out / f"{i:05d}.expected.json").write_text(json.dumps(facts(md), indent=1) + "\n")


def main() -> None:
    shutil.rmtree(WAREHOUSE, ignore_errors=True)
    WAREHOUSE.mkdir(parents=True)
    # pyiceberg 0.12 reads v3 metadata but refuses to write it ("Writing V3 is not yet
    # supported", apache/iceberg-python#1551); v3 documents come from Iceberg Java
    # (java_v3/, see gen_java_metadata.sh).
    for v in (1, 2):
        build(v)


if __name__ == "__main__":
    main()

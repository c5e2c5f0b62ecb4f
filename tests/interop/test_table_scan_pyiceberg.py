"""Tables written by pyiceberg (SqlCatalog on SQLite), read by floe's scan.

pyiceberg 0.12 creates v2 tables, appends, overwrites and deletes (copy-on-write), evolves
schemas and partition specs. floe reads each table straight from its metadata file with
`floe iceberg scan` (Parquet output, read back with pyarrow) and must return exactly the rows
pyiceberg's own `scan().to_arrow()` returns: for the current snapshot, every earlier snapshot
(time travel), column projections and row filters. Expected rows come from pyiceberg.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import (And, EqualTo, GreaterThan, GreaterThanOrEqual, In, IsNull, LessThan,
                                   NotEqualTo, Or, StartsWith)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (BucketTransform, DayTransform, IdentityTransform,
                                  MonthTransform, TruncateTransform, YearTransform,
                                  HourTransform)
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType,
                             FixedType, FloatType, IntegerType, ListType, LongType, MapType,
                             NestedField, StringType, StructType, TimestampType,
                             TimestamptzType, TimeType, UUIDType)

from floe_runner import EXIT_NOT_FOUND, EXIT_USAGE
import iceberg_java as ij

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "flag", BooleanType()),
    NestedField(4, "i", IntegerType()),
    NestedField(5, "f", FloatType()),
    NestedField(6, "d", DoubleType()),
    NestedField(7, "price", DecimalType(10, 2)),
    NestedField(8, "day", DateType()),
    NestedField(9, "t", TimeType()),
    NestedField(10, "ts", TimestampType()),
    NestedField(11, "tstz", TimestamptzType()),
    NestedField(12, "u", UUIDType()),
    NestedField(13, "fx", FixedType(3)),
    NestedField(14, "bin", BinaryType()),
    NestedField(15, "tags", ListType(16, StringType(), element_required=False)),
    NestedField(17, "props", MapType(18, StringType(), 19, IntegerType(), value_required=False)),
    NestedField(20, "loc", StructType(NestedField(21, "lat", DoubleType()),
                                      NestedField(22, "lon", DoubleType()))),
)


def row_dicts(start: int, n: int) -> list[dict]:
    base = dt.datetime(2024, 1, 1, 0, 0, 0)
    data = []
    for k in range(start, start + n):
        null = k % 7 == 3
        data.append({
            "id": k,
            "name": None if null else f"name-{k % 11}",
            "flag": None if null else k % 2 == 0,
            "i": None if null else k * 3 - 50,
            "f": None if null else (float("nan") if k % 13 == 5 else k / 4),
            "d": None if null else k * 1.5 - 7,
            "price": None if null else decimal.Decimal(f"{k * 7 - 20}.{k % 100:02d}"),
            "day": None if null else dt.date(2023, 12, 30) + dt.timedelta(days=k % 40),
            "t": None if null else dt.time(k % 24, k % 60, k % 60, k % 1000),
            "ts": None if null else base + dt.timedelta(hours=k * 5, microseconds=k),
            "tstz": None if null else (base + dt.timedelta(hours=k * 3)).replace(tzinfo=dt.timezone.utc),
            "u": None if null else uuid.UUID(int=k * 0x10001 + 7).bytes,
            "fx": None if null else bytes([k % 256, 1, 2]),
            "bin": None if null else bytes(range(k % 5)),
            "tags": None if null else [f"t{j}" for j in range(k % 3)] + ([None] if k % 5 == 0 else []),
            "props": None if null else {f"k{j}": (None if j == 2 else j * k) for j in range(k % 4)},
            "loc": None if null else {"lat": k / 10, "lon": None if k % 3 == 0 else -k / 10},
        })
    return data


def rows(table, start: int, n: int, **extra) -> pa.Table:
    """Rows for `table`'s current schema (pyiceberg assigns fresh field ids at create)."""
    data = row_dicts(start, n)
    for d in data:
        for name, fn in extra.items():
            d[name] = fn(d)
    return pa.Table.from_pylist(data, schema=table.schema().as_arrow())


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    root = tmp_path_factory.mktemp("pyiceberg_catalog")
    return SqlCatalog("floe", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/wh")


SPECS = {
    "unpartitioned": PartitionSpec(),
    "identity": PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "name")),
    "bucket_day": PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "id_bucket"),
                                PartitionField(10, 1001, DayTransform(), "ts_day")),
    "truncate_month": PartitionSpec(PartitionField(2, 1000, TruncateTransform(3), "name_trunc"),
                                    PartitionField(8, 1001, MonthTransform(), "day_month")),
    "year_hour": PartitionSpec(PartitionField(11, 1000, YearTransform(), "tstz_year"),
                               PartitionField(10, 1001, HourTransform(), "ts_hour")),
}


def floe_scan(floe, tmp_path, metadata_location, *args):
    out = tmp_path / f"out-{uuid.uuid4().hex}.parquet"
    floe.ok("iceberg", "scan", metadata_location, "--format", "parquet", "--output", out, *args)
    return pq.read_table(out)


def same(expected: pa.Table, actual: pa.Table, what: str):
    ij.assert_same_rows(ij.canonical_rows(expected), ij.canonical_rows(actual), what)


@pytest.mark.parametrize("spec_name", list(SPECS))
def test_history_of_writes(floe, catalog, tmp_path, spec_name):
    ns = "scan_" + spec_name
    catalog.create_namespace_if_not_exists(ns)
    table = catalog.create_table(f"{ns}.t", schema=SCHEMA, partition_spec=SPECS[spec_name])
    table.append(rows(table, 0, 60))
    table.append(rows(table, 60, 45))
    table.overwrite(rows(table, 200, 10), overwrite_filter=LessThan("id", 20))
    table.delete(delete_filter=In("name", ["name-3", "name-4"]))
    table.append(rows(table, 300, 5))
    table = catalog.load_table(f"{ns}.t")

    same(table.scan().to_arrow(), floe_scan(floe, tmp_path, table.metadata_location), "current")
    for snap in table.snapshots():
        same(table.scan(snapshot_id=snap.snapshot_id).to_arrow(),
             floe_scan(floe, tmp_path, table.metadata_location, "--snapshot", snap.snapshot_id),
             f"snapshot {snap.snapshot_id} ({snap.summary.operation})")


FILTERS = [
    ("id < 30", LessThan("id", 30)),
    ("id >= 250 OR name = 'name-5'", Or(GreaterThanOrEqual("id", 250), EqualTo("name", "name-5"))),
    ("name != 'name-1' AND i IS NULL", And(NotEqualTo("name", "name-1"), IsNull("i"))),
    ("name STARTS WITH 'name-1'", StartsWith("name", "name-1")),
    ("day >= '2024-01-15'", GreaterThanOrEqual("day", "2024-01-15")),
    ("ts < timestamp '2024-01-05T00:00:00'", LessThan("ts", "2024-01-05T00:00:00")),
    ("tstz >= '2024-01-10T00:00:00+00:00'", GreaterThanOrEqual("tstz", "2024-01-10T00:00:00+00:00")),
    ("price IN (13.05, 62.12, 300.00)", In("price", [decimal.Decimal("13.05"),
                                                     decimal.Decimal("62.12"),
                                                     decimal.Decimal("300.00")])),
    ("loc.lat > 5", GreaterThan("loc.lat", 5.0)),
]


@pytest.mark.parametrize("spec_name", ["bucket_day", "truncate_month", "identity"])
def test_filters_and_projection(floe, catalog, tmp_path, spec_name):
    ns = "filter_" + spec_name
    catalog.create_namespace_if_not_exists(ns)
    table = catalog.create_table(f"{ns}.t", schema=SCHEMA, partition_spec=SPECS[spec_name])
    for start in range(0, 120, 30):
        table.append(rows(table, start, 30))
    for text, expr in FILTERS:
        same(table.scan(row_filter=expr).to_arrow(),
             floe_scan(floe, tmp_path, table.metadata_location, "--where", text), text)
    same(table.scan(selected_fields=("loc", "id", "tags")).to_arrow(),
         floe_scan(floe, tmp_path, table.metadata_location, "--columns", "loc,id,tags"),
         "projection")


def test_schema_and_partition_evolution(floe, catalog, tmp_path):
    catalog.create_namespace_if_not_exists("evolve")
    table = catalog.create_table("evolve.t", schema=SCHEMA, partition_spec=SPECS["identity"])
    table.append(rows(table, 0, 40))
    with table.update_schema() as u:
        u.add_column("extra", LongType())
        u.rename_column("name", "label")
        u.update_column("i", field_type=LongType())
        u.delete_column("bin")
    with table.update_spec() as s:
        s.add_field("id", BucketTransform(8), "id_b8")
    table = catalog.load_table("evolve.t")
    table.append(rows(table, 100, 30, label=lambda d: d["name"], extra=lambda d: d["id"] * 2))
    table = catalog.load_table("evolve.t")
    same(table.scan().to_arrow(), floe_scan(floe, tmp_path, table.metadata_location), "evolved")
    same(table.scan(row_filter=EqualTo("label", "name-2")).to_arrow(),
         floe_scan(floe, tmp_path, table.metadata_location, "--where", "label = 'name-2'"),
         "filter on a renamed column")


def test_errors(floe, catalog, tmp_path):
    catalog.create_namespace_if_not_exists("errs")
    table = catalog.create_table("errs.t", schema=SCHEMA)
    table.append(rows(table, 0, 5))
    loc = table.metadata_location
    r = floe.run("iceberg", "scan", loc, "--where", "nope = 1")
    assert r.rc == EXIT_USAGE or r.rc == 1, r.describe()
    assert "nope" in r.stderr
    r = floe.run("iceberg", "scan", loc, "--snapshot", "12345")
    assert r.rc == EXIT_NOT_FOUND, r.describe()
    r = floe.run("iceberg", "scan", str(tmp_path / "missing.metadata.json"))
    assert r.rc == EXIT_NOT_FOUND, r.describe()

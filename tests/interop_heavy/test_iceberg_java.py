"""The Iceberg Java harness (tests/interop/java/iceberg-harness) against pyiceberg 0.12 as the
peer, both on one SQLite JdbcCatalog / SqlCatalog file under the same catalog name:

  * Java creates a v2 table partitioned by identity, bucket and day and appends every Iceberg
    type; pyiceberg reads exactly the input rows, and the partitions Java wrote are the ones
    pyiceberg's transforms compute;
  * pyiceberg creates and appends; Java reads exactly pyiceberg's input;
  * Java upserts (Flink's equality deletes): its own scan shows last-write-wins, `files` shows
    key-only equality-delete files per partition; pyiceberg refuses to scan them;
  * Java deletes rows with position-delete files (v2) and deletion vectors (v3); pyiceberg
    reads the remaining rows.
Expected rows come from the inputs; expected partitions and deleted positions from pyiceberg
and pyarrow.
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
import struct
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType,
                             FloatType, IntegerType, ListType, LongType, MapType, NestedField,
                             StringType, StructType, TimestampType, TimestamptzType, TimeType)

import iceberg_java as ij

CATALOG = "floe"

# Top-level ids first, then nested ones in order: the ids Iceberg Java's createTable assigns.
ALL_TYPES_SCHEMA = {
    "type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "category", "required": False, "type": "string"},
        {"id": 3, "name": "ts", "required": False, "type": "timestamp"},
        {"id": 4, "name": "tstz", "required": False, "type": "timestamptz"},
        {"id": 5, "name": "i", "required": False, "type": "int"},
        {"id": 6, "name": "f", "required": False, "type": "float"},
        {"id": 7, "name": "d", "required": False, "type": "double"},
        {"id": 8, "name": "dec", "required": False, "type": "decimal(12, 3)"},
        {"id": 9, "name": "day", "required": False, "type": "date"},
        {"id": 10, "name": "tm", "required": False, "type": "time"},
        {"id": 11, "name": "u", "required": False, "type": "uuid"},
        {"id": 12, "name": "bin", "required": False, "type": "binary"},
        {"id": 13, "name": "fx", "required": False, "type": "fixed[4]"},
        {"id": 14, "name": "flag", "required": False, "type": "boolean"},
        {"id": 15, "name": "s", "required": False, "type": {
            "type": "struct", "fields": [
                {"id": 18, "name": "a", "required": False, "type": "int"},
                {"id": 19, "name": "b", "required": False, "type": "string"}]}},
        {"id": 16, "name": "lst", "required": False, "type": {
            "type": "list", "element-id": 20, "element": "long", "element-required": False}},
        {"id": 17, "name": "m", "required": False, "type": {
            "type": "map", "key-id": 21, "key": "string", "value-id": 22, "value": "int",
            "value-required": False}},
    ]}
ALL_TYPES_SPEC = {"fields": [
    {"name": "category", "transform": "identity", "source-id": 2},
    {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1},
    {"name": "ts_day", "transform": "day", "source-id": 3}]}

SPECIAL_DOUBLES = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 5e-324,
                   1.7976931348623157e308, 1e16, 1e15, 1e-5, 1e-4, 0.1, 123456789.125, -2.5e-7]
SPECIAL_FLOATS = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.401298464324817e-45,
                  3.4028234663852886e38, 1e16, 1e-5, 0.1, 16777217.0, -2.5e-7]

_EPOCH = dt.datetime(1970, 1, 1)


@pytest.fixture(scope="session")
def harness() -> ij.Harness:
    return ij.build_harness()


@pytest.fixture
def catalogs(harness, tmp_path):
    """(Java JdbcCatalog, pyiceberg SqlCatalog) on one SQLite file and warehouse."""
    db, wh = tmp_path / "catalog.db", tmp_path / "warehouse"
    wh.mkdir()
    java = harness.catalog(f"jdbc:sqlite:{db}", CATALOG, str(wh))
    py = SqlCatalog(CATALOG, uri=f"sqlite:///{db}", warehouse=f"file://{wh}")
    return java, py


def _f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _ts_text(micros: int) -> str:
    t = _EPOCH + dt.timedelta(microseconds=micros)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")


def _all_types_rows(rng: random.Random, start: int, n: int) -> list[dict]:
    """Rows in canonical form (they are both the input and the expected reading)."""
    rows = []
    for k in range(start, start + n):
        def maybe(v):
            return None if rng.random() < 0.1 else v
        ts_us = rng.randrange(-2_000_000_000_000_000, 4_000_000_000_000_000)
        d = SPECIAL_DOUBLES[k % len(SPECIAL_DOUBLES)] if k % 3 == 0 else \
            struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        f = _f32(SPECIAL_FLOATS[k % len(SPECIAL_FLOATS)] if k % 3 == 1 else rng.uniform(-1e6, 1e6))
        unscaled = rng.randrange(-10**12 + 1, 10**12)
        sign = "-" if unscaled < 0 else ""
        dec = f"{sign}{abs(unscaled) // 1000}.{abs(unscaled) % 1000:03d}"
        tm_us = rng.randrange(0, 86_400_000_000)
        tm = f"{tm_us // 3_600_000_000:02d}:{tm_us // 60_000_000 % 60:02d}:" \
             f"{tm_us // 1_000_000 % 60:02d}.{tm_us % 1_000_000:06d}"
        rows.append({
            "id": k,
            "category": maybe(rng.choice(["red", "green", "blue/x", "ünï"])),
            "ts": maybe(_ts_text(ts_us)),
            "tstz": maybe(_ts_text(rng.randrange(0, 4_000_000_000_000_000)) + "+00:00"),
            "i": maybe(rng.randrange(-2**31, 2**31)),
            "f": maybe(ij.float_text(f)),
            "d": maybe(ij.float_text(d)),
            "dec": maybe(dec),
            "day": maybe((dt.date(1900, 1, 1) + dt.timedelta(days=rng.randrange(0, 73000)))
                         .isoformat()),
            "tm": maybe(tm),
            "u": maybe(str(uuid.UUID(int=rng.getrandbits(128)))),
            "bin": maybe(rng.randbytes(rng.randrange(0, 9)).hex()),
            "fx": maybe(rng.randbytes(4).hex()),
            "flag": maybe(rng.random() < 0.5),
            "s": maybe({"a": maybe(rng.randrange(-100, 100)), "b": maybe(f"s{k}")}),
            "lst": maybe([maybe(rng.randrange(-10**15, 10**15)) for _ in range(rng.randrange(4))]),
            "m": maybe([[f"k{j}", maybe(rng.randrange(1000))] for j in range(rng.randrange(4))]),
        })
    return rows


def test_java_writes_pyiceberg_reads(catalogs):
    java, py = catalogs
    rng = random.Random(7)
    described = java.create("ns.all_types", ALL_TYPES_SCHEMA, ALL_TYPES_SPEC, format_version=2)
    assert [f["id"] for f in described["schema"]["fields"]] == list(range(1, 18))
    rows1, rows2 = _all_types_rows(rng, 0, 120), _all_types_rows(rng, 120, 80)
    java.append("ns.all_types", rows1)
    java.append("ns.all_types", rows2)
    expected = rows1 + rows2

    table = py.load_table("ns.all_types")
    ij.assert_same_rows(expected, ij.canonical_rows(table.scan().to_arrow()), "pyiceberg")
    ij.assert_same_rows(expected, java.scan("ns.all_types"), "Java")
    ij.assert_same_rows([{"id": r["id"], "u": r["u"]} for r in expected],
                        java.scan("ns.all_types", columns=["id", "u"]), "Java projection")
    ij.assert_same_rows([r for r in expected if r["category"] == "red"],
                        java.scan("ns.all_types", filter="category=red"), "Java filter")

    # Partition tuples: the ones pyiceberg's transforms compute from the input.
    bucket = BucketTransform(4).transform(LongType())
    day = DayTransform().transform(TimestampType())
    want = set()
    for r in expected:
        days = None
        if r["ts"] is not None:
            days = day((dt.datetime.fromisoformat(r["ts"]) - _EPOCH) // dt.timedelta(microseconds=1))
        want.add((r["category"], bucket(r["id"]),
                  None if days is None else (dt.date(1970, 1, 1) + dt.timedelta(days)).isoformat()))
    files = java.files("ns.all_types")
    assert {f["content"] for f in files} == {"data"}
    got = {(f["partition"]["category"], f["partition"]["id_bucket"], f["partition"]["ts_day"])
           for f in files}
    assert got == want
    assert sum(f["record_count"] for f in files) == len(expected)
    snaps = java.snapshots("ns.all_types")
    assert [s["operation"] for s in snaps["snapshots"]] == ["append", "append"]
    assert snaps["current_snapshot_id"] == table.current_snapshot().snapshot_id
    first = snaps["snapshots"][0]["snapshot_id"]
    ij.assert_same_rows(rows1, java.scan("ns.all_types", snapshot_id=first), "Java time travel")
    ij.assert_same_rows(expected, java.scan("ns.all_types", ref="main"), "Java ref main")


def _py_schema() -> Schema:
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "category", StringType()),
        NestedField(3, "ts", TimestampType()),
        NestedField(4, "tstz", TimestamptzType()),
        NestedField(5, "i", IntegerType()),
        NestedField(6, "f", FloatType()),
        NestedField(7, "d", DoubleType()),
        NestedField(8, "dec", DecimalType(20, 4)),
        NestedField(9, "day", DateType()),
        NestedField(10, "tm", TimeType()),
        NestedField(11, "bin", BinaryType()),
        NestedField(12, "flag", BooleanType()),
        NestedField(13, "s", StructType(NestedField(16, "a", IntegerType()),
                                        NestedField(17, "b", StringType()))),
        NestedField(14, "lst", ListType(18, LongType(), element_required=False)),
        NestedField(15, "m", MapType(19, StringType(), 20, IntegerType(), value_required=False)),
    )


def _py_arrow_input(schema: Schema, rng: random.Random, n: int) -> pa.Table:
    cols = {
        "id": list(range(n)),
        "category": [rng.choice(["a", "b", None]) for _ in range(n)],
        "ts": [None if k % 7 == 0 else _EPOCH + dt.timedelta(
            microseconds=rng.randrange(-10**15, 3 * 10**15)) for k in range(n)],
        "tstz": [None if k % 5 == 0 else (_EPOCH + dt.timedelta(
            microseconds=rng.randrange(0, 3 * 10**15))).replace(tzinfo=dt.timezone.utc)
            for k in range(n)],
        "i": [rng.randrange(-2**31, 2**31) for _ in range(n)],
        "f": [_f32(SPECIAL_FLOATS[k % len(SPECIAL_FLOATS)]) if k % 2 else
              _f32(rng.uniform(-1e9, 1e9)) for k in range(n)],
        "d": [SPECIAL_DOUBLES[k % len(SPECIAL_DOUBLES)] if k % 2 else
              struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for k in range(n)],
        "dec": [None if k % 4 == 0 else
                decimal.Decimal(rng.randrange(-10**19, 10**19)).scaleb(-4)
                for k in range(n)],
        "day": [dt.date(1950, 1, 1) + dt.timedelta(days=rng.randrange(0, 40000)) for _ in range(n)],
        "tm": [dt.time(rng.randrange(24), rng.randrange(60), rng.randrange(60),
                       rng.randrange(10**6)) for _ in range(n)],
        "bin": [rng.randbytes(rng.randrange(5)) for _ in range(n)],
        "flag": [None if k % 6 == 0 else bool(k % 2) for k in range(n)],
        "s": [None if k % 9 == 0 else {"a": k, "b": None if k % 2 else f"b{k}"} for k in range(n)],
        "lst": [None if k % 8 == 0 else [rng.randrange(10**12) if j % 3 else None
                                          for j in range(k % 4)] for k in range(n)],
        "m": [None if k % 10 == 0 else [(f"k{j}", None if j == 1 else j * k) for j in range(k % 3)]
              for k in range(n)],
    }
    return pa.Table.from_pydict(cols, schema=schema.as_arrow())


def test_pyiceberg_writes_java_reads(catalogs):
    java, py = catalogs
    schema = _py_schema()
    # Identity only: pyiceberg 0.12 computes day/bucket partitions for writes through the
    # optional pyiceberg-core package (not installed here).
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "category"),
                         PartitionField(12, 1001, IdentityTransform(), "flag"))
    py.create_namespace("pyns")
    table = py.create_table("pyns.t", schema, partition_spec=spec)
    rng = random.Random(11)
    first, second = _py_arrow_input(schema, rng, 150), _py_arrow_input(schema, rng, 60)
    table.append(first)
    table.append(second)
    expected = ij.canonical_rows(first) + ij.canonical_rows(second)
    ij.assert_same_rows(expected, java.scan("pyns.t"), "Java reading pyiceberg's table")
    files = java.files("pyns.t")
    assert {f["content"] for f in files} == {"data"}
    assert sum(f["record_count"] for f in files) == 210
    # The Java side can write to the pyiceberg-created table and pyiceberg reads it back.
    more = [{"id": 1000, "category": "a", "ts": "2020-02-29T12:00:00.000001",
             "tstz": "1970-01-01T00:00:00.000000+00:00", "i": -1, "f": "1.5", "d": "-0.0",
             "dec": "-0.0001", "day": "1969-12-31", "tm": "23:59:59.999999", "bin": "00ff",
             "flag": True, "s": {"a": None, "b": "x"}, "lst": [], "m": [["z", None]]}]
    java.append("pyns.t", more)
    ij.assert_same_rows(expected + more,
                        ij.canonical_rows(py.load_table("pyns.t").scan().to_arrow()),
                        "pyiceberg after a Java append")


UPSERT_SCHEMA = {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "v", "required": False, "type": "string"},
    {"id": 3, "name": "n", "required": False, "type": "int"}]}
UPSERT_SPEC = {"fields": [{"name": "id_bucket", "transform": "bucket[4]", "source-id": 1}]}


def _last_write_wins(*batches: list[dict]) -> list[dict]:
    state = {}
    for batch in batches:
        for r in batch:
            state[r["id"]] = r
    return list(state.values())


def test_java_upsert_equality_deletes(catalogs):
    java, py = catalogs
    java.create("ns.up", UPSERT_SCHEMA, UPSERT_SPEC, format_version=2)
    batch1 = [{"id": k, "v": f"a{k}", "n": k} for k in range(40)]
    batch2 = [{"id": k, "v": f"b{k}", "n": -k} for k in range(20, 60)] + \
             [{"id": 25, "v": "b25-again", "n": None}]
    java.upsert("ns.up", ["id"], batch1)
    java.upsert("ns.up", ["id"], batch2)
    ij.assert_same_rows(_last_write_wins(batch1, batch2), java.scan("ns.up"), "Java after upserts")

    bucket = BucketTransform(4).transform(LongType())
    files = java.files("ns.up")
    snaps = java.snapshots("ns.up")["snapshots"]
    assert [s["operation"] for s in snaps] == ["overwrite", "overwrite"]
    for snap, batch in zip(snaps, (batch1, batch2)):
        seq = snap["sequence_number"]
        keys = {r["id"] for r in batch}
        buckets = {bucket(k) for k in keys}
        eq = [f for f in files if f["content"] == "equality_deletes"
              and f["data_sequence_number"] == seq]
        data = [f for f in files if f["content"] == "data" and f["data_sequence_number"] == seq]
        # One equality-delete file and one data file per partition per commit.
        assert sorted(f["partition"]["id_bucket"] for f in eq) == sorted(buckets)
        assert sorted(f["partition"]["id_bucket"] for f in data) == sorted(buckets)
        assert all(f["equality_ids"] == [1] for f in eq)
        assert sum(f["record_count"] for f in eq) == len(keys)
        # Key-only delete rows, as Flink's upsert writer writes them (read with pyarrow).
        for f in eq:
            t = pq.read_table(f["path"])
            assert t.column_names == ["id"]
            assert t.schema.field("id").metadata[b"PARQUET:field_id"] == b"1"
            assert {bucket(k) for k in t.column("id").to_pylist()} == {f["partition"]["id_bucket"]}

    # pyiceberg 0.12 does not apply equality deletes: planning refuses the scan.
    with pytest.raises(ValueError, match="PyIceberg does not yet support equality deletes"):
        py.load_table("ns.up").scan().to_arrow()


def test_java_upsert_many_commits(catalogs):
    java, _ = catalogs
    java.create("ns.many", UPSERT_SCHEMA, None, format_version=2)
    rows = [{"id": k % 30, "v": f"v{k}", "n": k} for k in range(100)]
    out = java.upsert("ns.many", ["id"], rows, commits=10)
    assert len(out["snapshots"]) == 10
    files = java.files("ns.many")
    eq = [f for f in files if f["content"] == "equality_deletes"]
    assert len(eq) == 10 and all(f["partition"] == {} for f in eq)
    assert out["snapshots"][-1]["summary"]["total-equality-deletes"] == "100"
    final = _last_write_wins(rows)
    ij.assert_same_rows(final, java.scan("ns.many"))
    bench = java.bench_scan("ns.many", repeat=2)
    assert (bench["rows"], bench["sum_column"], bench["sum"]) == \
        (len(final), "id", sum(r["id"] for r in final))
    assert len(bench["seconds"]) == 2


DELETE_SCHEMA = {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "part", "required": False, "type": "string"},
    {"id": 3, "name": "n", "required": False, "type": "int"}]}
DELETE_SPEC = {"fields": [{"name": "part", "transform": "identity", "source-id": 2}]}


@pytest.mark.parametrize("format_version", [2, 3])
def test_java_position_deletes_read_by_pyiceberg(catalogs, format_version):
    java, py = catalogs
    java.create("ns.del", DELETE_SCHEMA, DELETE_SPEC, format_version=format_version)
    rows = [{"id": k, "part": "p" + str(k % 3), "n": k % 7} for k in range(60)]
    java.append("ns.del", rows)
    out = java.delete_where("ns.del", "n", 3)
    assert out["operation"] == "delete"
    expected = [r for r in rows if r["n"] != 3]
    assert out["deleted_positions"] == len(rows) - len(expected)

    # Positions 0 and 2 of the "p1" data file, as pyarrow reads that file; one of them may
    # already be deleted (n == 3), deleting it again is harmless.
    p1 = [f for f in java.files("ns.del") if f["content"] == "data"
          and f["partition"] == {"part": "p1"}]
    assert len(p1) == 1
    gone = pq.read_table(p1[0]["path"]).take([0, 2]).column("id").to_pylist()
    java.delete_positions("ns.del", p1[0]["path"], [0, 2])
    expected = [r for r in expected if r["id"] not in gone]

    ij.assert_same_rows(expected, java.scan("ns.del"), "Java")
    ij.assert_same_rows(expected, ij.canonical_rows(py.load_table("ns.del").scan().to_arrow()),
                        "pyiceberg")

    files = java.files("ns.del")
    deletes = [f for f in files if f["content"] == "position_deletes"]
    data_paths = {f["path"] for f in files if f["content"] == "data"}
    # Every delete file targets one data file ("file" granularity / one DV per data file).
    assert all(f["file_scoped_to"] in data_paths for f in deletes)
    if format_version == 3:
        assert all(f["referenced_data_file"] == f["file_scoped_to"] for f in deletes)
        assert {f["format"] for f in deletes} == {"puffin"}
        assert len({f["referenced_data_file"] for f in deletes}) == len(deletes) == 3
        assert all(f["content_offset"] is not None and f["content_size_in_bytes"] > 0
                   for f in deletes)
        dv = next(f for f in deletes if f["referenced_data_file"] == p1[0]["path"])
        # The second DV for p1 was merged with the first: its cardinality is the union.
        p1_rows = [r for r in rows if r["part"] == "p1"]
        assert dv["record_count"] == len({r["id"] for r in p1_rows if r["n"] == 3} | set(gone))
    else:
        assert {f["format"] for f in deletes} == {"parquet"}
        assert all(f["content_offset"] is None for f in deletes)
        # Iceberg 1.10.1 leaves referenced_data_file unset on v2 position-delete files.
        assert all(f["referenced_data_file"] is None for f in deletes)
        assert len(deletes) == 4  # 3 from delete_where (one per data file), 1 from positions


def test_pyiceberg_refuses_to_create_v3(catalogs):
    _, py = catalogs
    py.create_namespace("ns")
    with pytest.raises(NotImplementedError, match="Writing V3 is not yet supported"):
        py.create_table("ns.v3", Schema(NestedField(1, "id", LongType(), required=True)),
                        properties={"format-version": "3"})


def test_errors_are_one_line(catalogs):
    java, _ = catalogs
    with pytest.raises(ij.HarnessError) as e:
        java.scan("ns.missing")
    assert e.value.rc == 1
    assert e.value.stderr.count("\n") == 1 and "NoSuchTableException" in e.value.stderr
    with pytest.raises(ij.HarnessError) as e:
        java.run("scan", "ns.t", "--bogus", "1")
    assert e.value.rc == 2 and "unknown option --bogus" in e.value.stderr


def test_expire_keeps_last(catalogs):
    java, py = catalogs
    java.create("ns.exp", UPSERT_SCHEMA, None)
    for k in range(3):
        java.append("ns.exp", [{"id": k, "v": None, "n": k}])
    out = java.expire("ns.exp", older_than_ms=2**62, retain_last=1)
    current = java.snapshots("ns.exp")["current_snapshot_id"]
    assert out["snapshot_ids"] == [current]
    assert any(p.endswith(".avro") for p in out["deleted_files"])
    ij.assert_same_rows([{"id": k, "v": None, "n": k} for k in range(3)],
                        ij.canonical_rows(py.load_table("ns.exp").scan().to_arrow()))

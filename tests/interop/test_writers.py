"""Interop of floe's data and delete file writers (`floe iceberg write-data`,
`floe iceberg write-deletes`) with pyarrow, DuckDB and pyiceberg 0.12:

(a) data files written from a pyarrow table (every primitive type, a struct, a list; an
    identity + bucket partition spec) are read back by pyarrow and DuckDB with the same rows,
    each file holding exactly the rows of its partition (partition values as pyiceberg's
    transforms compute them, paths as pyiceberg's partition paths);
(b) column metrics equal what pyiceberg computes from the same Parquet footers
    (data_file_statistics_from_parquet_metadata with compute_statistics_plan) for the metrics
    modes both support: counts and bounds bytes of top-level columns under truncate(16),
    truncate(N), full, counts and none. Known, intended differences (Java's behaviour, which
    floe follows) are asserted separately: pyiceberg keeps no bounds for struct fields and
    counts list elements; it reports no NaN counts;
(c) position delete files are Parquet files pyarrow reads as (file_path, pos) sorted, with the
    reserved field ids; deletion vectors are read by pyiceberg's Puffin reader; equality delete
    files hold the delete rows.

The floe binary comes from $FLOE_BIN.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

duckdb = pytest.importorskip("duckdb")
pyio = pytest.importorskip("pyiceberg.io.pyarrow")
from pyiceberg.schema import Schema as PySchema  # noqa: E402
from pyiceberg.partitioning import PartitionField, PartitionSpec as PySpec  # noqa: E402
from pyiceberg.typedef import Record  # noqa: E402
from pyiceberg.transforms import BucketTransform, IdentityTransform  # noqa: E402
from pyiceberg.types import (  # noqa: E402
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType, IntegerType,
    ListType, LongType, NestedField, StringType, StructType, TimestampType, TimestamptzType, TimeType,
)

ICEBERG_SCHEMA = PySchema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "region", StringType()),
    NestedField(4, "i", IntegerType()),
    NestedField(5, "f", FloatType()),
    NestedField(6, "d", DoubleType()),
    NestedField(7, "dec9", DecimalType(9, 2)),
    NestedField(8, "dec18", DecimalType(18, 4)),
    NestedField(9, "dec38", DecimalType(38, 10)),
    NestedField(10, "day", DateType()),
    NestedField(11, "tod", TimeType()),
    NestedField(12, "ts", TimestampType()),
    NestedField(13, "tstz", TimestamptzType()),
    NestedField(14, "flag", BooleanType()),
    NestedField(15, "raw", BinaryType()),
    NestedField(16, "fx", FixedType(4)),
    NestedField(17, "s", StructType(NestedField(18, "x", IntegerType()))),
    NestedField(19, "tags", ListType(20, StringType(), element_required=False)),
)
TOP_PRIMITIVES = list(range(1, 17))


def arrow_schema():
    return pyio.schema_to_pyarrow(ICEBERG_SCHEMA)


def rows(n=600):
    out = []
    utc = dt.timezone.utc
    for k in range(n):
        out.append({
            "id": k * 7919 % 1000 - 300,
            "name": None if k % 11 == 0 else ("naïve-😀-" * (k % 4)) + f"name-{k:05d}-padding-padding",
            "region": ["eu", "us", None, "ap"][k % 4],
            "i": None if k % 5 == 0 else k - 250,
            "f": float("nan") if k % 9 == 0 else (k - 300) / 4.0,
            "d": -0.0 if k == 5 else (float("nan") if k % 13 == 0 else k * 1.25 - 100),
            "dec9": decimal.Decimal(k * 37 - 9000) / 100,
            "dec18": decimal.Decimal(k * 1234567 - 10**9) / 10**4,
            "dec38": decimal.Decimal(k - 100) * decimal.Decimal(10) ** 20 / 10**10,
            "day": dt.date(2017, 11, 1) + dt.timedelta(days=k % 40),
            "tod": dt.time(k % 24, k % 60, k % 60, k),
            "ts": dt.datetime(2017, 11, 16, 22, 31, 8) + dt.timedelta(minutes=k),
            "tstz": dt.datetime(2017, 11, 16, 22, 31, 8, tzinfo=utc) - dt.timedelta(hours=k),
            "flag": None if k % 7 == 0 else k % 3 == 0,
            "raw": bytes([255 - k % 256]) * (k % 30),
            "fx": bytes([k % 256, 1, 2, 3]),
            "s": None if k % 17 == 0 else {"x": k},
            "tags": None if k % 6 == 0 else [f"t{k}", None][: k % 3],
        })
    return out


def spec_json():
    return json.dumps({"spec-id": 0, "fields": [
        {"name": "region", "transform": "identity", "source-id": 3, "field-id": 1000},
        {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1001}]})


def py_spec():
    return PySpec(PartitionField(3, 1000, IdentityTransform(), "region"),
                  PartitionField(1, 1001, BucketTransform(4), "id_bucket"))


def write_input(tmp_path, data):
    table = pa.Table.from_pylist(data, schema=arrow_schema())
    path = tmp_path / "input.parquet"
    pq.write_table(table, path)
    return path, table


def run_write_data(floe, tmp_path, properties=None, spec=None, extra=()):
    data = rows()
    src, _ = write_input(tmp_path, data)
    location = tmp_path / "table"
    result = floe.ok("iceberg", "write-data", "--schema-json", ICEBERG_SCHEMA.model_dump_json(),
                     "--spec-json", spec or spec_json(),
                     "--properties-json", json.dumps(properties or {}),
                     "--location", str(location), "--operation-id", "op", "--input", str(src),
                     *extra)
    return data, json.loads(result.text)["data_files"]


def canonical(row):
    def norm(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, dict):
            return tuple(sorted((k, norm(x)) for k, x in v.items()))
        if isinstance(v, list):
            return tuple(norm(x) for x in v)
        if isinstance(v, dt.datetime) and v.tzinfo is not None:
            return v.astimezone(dt.timezone.utc)
        return v
    return tuple(sorted((k, norm(v)) for k, v in row.items()))


def test_data_files_read_back_by_pyarrow_and_duckdb(floe, tmp_path):
    data, files = run_write_data(floe, tmp_path)
    assert sum(f["record_count"] for f in files) == len(data)
    spec = py_spec()
    seen = []
    for f in files:
        assert f["content"] == 0 and f["file_format"] == "PARQUET" and f["spec_id"] == 0
        table = pq.read_table(f["file_path"])
        assert table.num_rows == f["record_count"]
        got = table.to_pylist()
        # Every row belongs to the file's partition, computed by pyiceberg's transforms, and the
        # file sits under pyiceberg's partition path for it.
        region, bucket = f["partition"]
        for r in got:
            assert r["region"] == region
            assert BucketTransform(4).transform(LongType())(r["id"]) == bucket
        path = spec.partition_to_path(Record(region, bucket), ICEBERG_SCHEMA)
        assert f"/data/{path}/00000-0-op-" in f["file_path"], (path, f["file_path"])
        assert f["file_size_in_bytes"] == (tmp_path / f["file_path"]).stat().st_size
        meta = pq.read_metadata(f["file_path"])
        assert f["split_offsets"] == sorted(
            min(c.dictionary_page_offset or c.data_page_offset, c.data_page_offset)
            for c in (meta.row_group(g).column(0) for g in range(meta.num_row_groups)))
        assert json.loads(meta.metadata[b"iceberg.schema"])["fields"][0]["id"] == 1
        con = duckdb.connect()
        n, ids = con.execute(f"select count(*), sum(id) from read_parquet('{f['file_path']}')").fetchone()
        assert n == len(got) and ids == sum(r["id"] for r in got)
        seen.extend(got)
    assert sorted(map(canonical, seen), key=repr) == sorted(map(canonical, data), key=repr)


def pyiceberg_stats(path, properties):
    meta = pq.read_metadata(path)
    return pyio.data_file_statistics_from_parquet_metadata(
        parquet_metadata=meta,
        stats_columns=pyio.compute_statistics_plan(ICEBERG_SCHEMA, properties),
        parquet_column_mapping=pyio.parquet_path_to_id_mapping(ICEBERG_SCHEMA))


def floe_map(m, hex_values=False):
    return {int(k): (bytes.fromhex(v) if hex_values else v) for k, v in (m or {}).items()}


MODES = {
    "default": {},
    "truncate4": {"write.metadata.metrics.default": "truncate(4)"},
    "full": {"write.metadata.metrics.default": "full"},
    "mixed": {"write.metadata.metrics.default": "counts",
              "write.metadata.metrics.column.name": "truncate(2)",
              "write.metadata.metrics.column.raw": "full",
              "write.metadata.metrics.column.ts": "none",
              "write.metadata.metrics.column.d": "full"},
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_metrics_match_pyiceberg(floe, tmp_path, mode):
    props = MODES[mode]
    _, files = run_write_data(floe, tmp_path, properties=props)
    for f in files:
        stats = pyiceberg_stats(f["file_path"], props)
        plan = pyio.compute_statistics_plan(ICEBERG_SCHEMA, props)
        ours_sizes = floe_map(f["column_sizes"])
        ours_values = floe_map(f["value_counts"])
        ours_nulls = floe_map(f["null_value_counts"])
        ours_lower = floe_map(f["lower_bounds"], True)
        ours_upper = floe_map(f["upper_bounds"], True)
        theirs_lower = {fid: agg.min_as_bytes() for fid, agg in stats.column_aggregates.items()}
        theirs_upper = {fid: agg.max_as_bytes() for fid, agg in stats.column_aggregates.items()}
        assert f["record_count"] == stats.record_count
        for fid in TOP_PRIMITIVES:
            none = plan[fid].mode.type.name == "NONE"
            if none:
                assert fid not in ours_sizes and fid not in ours_values
                continue
            assert ours_sizes[fid] == stats.column_sizes[fid], fid
            assert ours_values[fid] == stats.value_counts[fid], fid
            assert ours_nulls[fid] == stats.null_value_counts[fid], fid
            lower = theirs_lower.get(fid)
            upper = theirs_upper.get(fid)
            assert ours_lower.get(fid) == lower, (fid, ours_lower.get(fid), lower)
            assert ours_upper.get(fid) == upper, (fid, ours_upper.get(fid), upper)
        # NaN counts (pyiceberg has none): the file's NaNs, as Java's value writers count them.
        table = pq.read_table(f["file_path"], columns=["f", "d"])
        for fid, col in ((5, "f"), (6, "d")):
            if plan[fid].mode.type.name == "NONE":
                continue
            nans = sum(1 for v in table[col].to_pylist() if v is not None and math.isnan(v))
            assert floe_map(f["nan_value_counts"])[fid] == nans
        # Java ParquetMetrics (not pyiceberg): struct fields keep bounds, list elements get
        # sizes only.
        if plan[18].mode.type.name != "NONE":
            assert 18 in ours_values and 20 not in ours_values and 20 in ours_sizes
            if mode in ("default", "full", "truncate4"):
                assert 18 in ours_lower


def test_position_deletes_and_deletion_vectors(floe, tmp_path):
    from pyiceberg.table import puffin as puffin_mod
    from pyiceberg.table import deletion_vector as dv_mod
    schema_json = ICEBERG_SCHEMA.model_dump_json()
    deletes = [
        {"file_path": "s3://b/t/data/region=eu/id_bucket=1/a.parquet", "positions": [9, 3, 3, 0],
         "partition": ["eu", 1], "previous": [100]},
        {"file_path": "s3://b/t/data/region=eu/id_bucket=1/b.parquet", "positions": [1],
         "partition": ["eu", 1]},
        {"file_path": "s3://b/t/data/region=us/id_bucket=0/c.parquet", "positions": [5, 2**33],
         "partition": ["us", 0]},
    ]
    spec = tmp_path / "deletes.json"
    spec.write_text(json.dumps(deletes))
    out = json.loads(floe.ok("iceberg", "write-deletes", "--mode", "position", "--schema-json",
                             schema_json, "--spec-json", spec_json(), "--location",
                             str(tmp_path / "t"), "--deletes-json", str(spec)).text)
    files = {tuple(f["partition"]): f for f in out["delete_files"]}
    assert set(files) == {("eu", 1), ("us", 0)}
    eu = files[("eu", 1)]
    assert eu["content"] == 1 and eu["file_path"].endswith("-deletes.parquet")
    assert "/data/region=eu/id_bucket=1/" in eu["file_path"]
    table = pq.read_table(eu["file_path"])
    assert [f.metadata[b"PARQUET:field_id"] for f in table.schema] == [b"2147483546", b"2147483545"]
    assert not any(f.nullable for f in table.schema)
    assert table.to_pylist() == [{"file_path": deletes[0]["file_path"], "pos": p} for p in (0, 3, 9)] + \
        [{"file_path": deletes[1]["file_path"], "pos": 1}]
    assert eu["referenced_data_file"] is None and "2147483546" not in (eu["lower_bounds"] or {})
    us = files[("us", 0)]
    assert us["referenced_data_file"] == deletes[2]["file_path"]
    assert bytes.fromhex(us["lower_bounds"]["2147483546"]).decode() == deletes[2]["file_path"]
    con = duckdb.connect()
    assert con.execute(f"select max(pos) from read_parquet('{us['file_path']}')").fetchone()[0] == 2**33

    dv = json.loads(floe.ok("iceberg", "write-deletes", "--mode", "dv", "--schema-json", schema_json,
                            "--spec-json", spec_json(), "--location", str(tmp_path / "t"),
                            "--deletes-json", str(spec)).text)
    assert len({f["file_path"] for f in dv["delete_files"]}) == 1
    path = dv["delete_files"][0]["file_path"]
    assert path.endswith("-deletes.puffin") and "/t/data/00000-0-" in path
    pf = puffin_mod.PuffinFile((tmp_path / path).read_bytes())
    got = {v.referenced_data_file: v.to_vector().to_pylist()
           for v in dv_mod.deletion_vectors_from_puffin_file(pf)}
    assert got == {deletes[0]["file_path"]: [0, 3, 9, 100], deletes[1]["file_path"]: [1],
                   deletes[2]["file_path"]: [5, 2**33]}
    for f in dv["delete_files"]:
        assert f["file_format"] == "PUFFIN" and f["content"] == 1
        assert f["record_count"] == len(got[f["referenced_data_file"]])
        blob = next(b for b in pf.footer.blobs
                    if b.properties["referenced-data-file"] == f["referenced_data_file"])
        assert (blob.offset, blob.length) == (f["content_offset"], f["content_size_in_bytes"])


def test_equality_deletes(floe, tmp_path):
    data = rows(40)
    src, _ = write_input(tmp_path, data)
    out = json.loads(floe.ok("iceberg", "write-deletes", "--mode", "equality", "--schema-json",
                             ICEBERG_SCHEMA.model_dump_json(), "--spec-json", spec_json(),
                             "--location", str(tmp_path / "t"), "--input", str(src),
                             "--equality-ids", "1", "3").text)
    got = []
    for f in out["delete_files"]:
        assert f["content"] == 2 and f["equality_ids"] == [1, 3]
        assert f["file_path"].endswith("-deletes.parquet")
        got.extend(pq.read_table(f["file_path"]).to_pylist())
    assert sorted(map(canonical, got), key=repr) == sorted(map(canonical, data), key=repr)

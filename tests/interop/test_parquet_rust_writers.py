"""Files written by the Rust Parquet writers, read by floe.

* parquet-rs (the arrow-rs crate), through DataFusion's `write_parquet_with_options`:
  writer version 1.0 and 2.0 (2.0 without dictionaries writes DELTA_BINARY_PACKED,
  DELTA_BYTE_ARRAY and RLE booleans), each codec, dictionary on and off, page index
  statistics, Bloom filters, lists named `item`.
* Polars' own writer (polars-parquet), through `DataFrame.write_parquet`: each codec,
  small pages and row groups.

For each file, `floe parquet cat` equals pyarrow's reading of it in the text forms, and
the output of `floe parquet rewrite` reads back in pyarrow equal to the input.
"""

from __future__ import annotations

import datetime as dt
import decimal

import datafusion
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import peers
import text_forms as tf

N = 2500


def source_table() -> pa.Table:
    rows = range(N)
    return pa.table({
        "id": pa.array(list(rows), pa.int64()),
        "i32": pa.array([None if i % 13 == 0 else (i * 7919) % 200000 - 100000 for i in rows], pa.int32()),
        "f64": pa.array([None if i % 17 == 0 else i / 7 for i in rows], pa.float64()),
        "b": pa.array([None if i % 11 == 0 else i % 3 == 0 for i in rows], pa.bool_()),
        "s": pa.array([None if i % 5 == 0 else f"v{i % 41}" * (i % 4) for i in rows], pa.string()),
        "dec": pa.array([None if i % 7 == 0 else decimal.Decimal(i * 37 - 40000) / 100 for i in rows],
                        pa.decimal128(12, 2)),
        "day": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i % 900) for i in rows], pa.date32()),
        "ts": pa.array([i * 3_600_000_123 for i in rows], pa.timestamp("us", tz="UTC")),
        "tags": pa.array([None if i % 9 == 0 else [f"t{j}" for j in range(i % 4)] for i in rows],
                         pa.list_(pa.string())),
        "pt": pa.array([None if i % 6 == 0 else {"x": i, "y": None if i % 4 else str(i)} for i in rows],
                       pa.struct([("x", pa.int64()), ("y", pa.string())])),
    })


def write_datafusion(path, table, **options):
    ctx = datafusion.SessionContext()
    df = ctx.from_arrow(table)
    df.write_parquet_with_options(str(path), datafusion.dataframe.ParquetWriterOptions(**options))
    if path.is_dir():  # DataFusion may write a directory of parts; take the single part
        parts = sorted(path.glob("*.parquet"))
        assert len(parts) == 1, parts
        return parts[0]
    return path


WRITERS = {
    "parquet_rs_v1_zstd": lambda p, t: write_datafusion(p, t, compression="zstd(3)", writer_version="1.0"),
    "parquet_rs_v2_snappy": lambda p, t: write_datafusion(p, t, compression="snappy", writer_version="2.0",
                                                           data_pagesize_limit=4096),
    "parquet_rs_v2_plain_gzip": lambda p, t: write_datafusion(p, t, compression="gzip(6)", writer_version="2.0",
                                                               dictionary_enabled=False, max_row_group_size=700),
    "parquet_rs_lz4_bloom": lambda p, t: write_datafusion(p, t, compression="lz4", bloom_filter_on_write=True,
                                                           statistics_enabled="page"),
    "parquet_rs_uncompressed": lambda p, t: write_datafusion(p, t, compression="uncompressed",
                                                              data_page_row_count_limit=100),
    "polars_zstd": lambda p, t: pl.from_arrow(t).write_parquet(p, compression="zstd") or p,
    "polars_snappy_small": lambda p, t: pl.from_arrow(t).write_parquet(p, compression="snappy", row_group_size=500,
                                                                        data_page_size=2048) or p,
    "polars_lz4": lambda p, t: pl.from_arrow(t).write_parquet(p, compression="lz4") or p,
    "polars_uncompressed": lambda p, t: pl.from_arrow(t).write_parquet(p, compression="uncompressed") or p,
}


@pytest.fixture(scope="module")
def rust_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("rust-writers")
    table = source_table()
    return {name: write(root / f"{name}.parquet", table) for name, write in WRITERS.items()}


@pytest.mark.parametrize("name", list(WRITERS))
def test_cat_matches_pyarrow(floe, rust_files, name):
    path = rust_files[name]
    created_by = pq.ParquetFile(path).metadata.created_by
    assert ("polars" in created_by.lower()) == name.startswith("polars"), created_by
    expected = tf.expected_rows(peers.read(path))
    d = tf.rows_difference(expected, tf.parse_lines(floe.cat(path).text))
    assert d is None, f"{name} ({created_by}): {d}"


@pytest.mark.parametrize("name", list(WRITERS))
def test_rewrite_reads_back_equal(floe, rust_files, tmp_path, name):
    src = rust_files[name]
    out = tmp_path / "out.parquet"
    floe.rewrite(src, out, [])
    d = peers.tables_difference(peers.read(src), peers.read(out))
    assert d is None, f"{name}: pyarrow: {d}"
    d = peers.schema_difference(peers.schema_elements(src), peers.schema_elements(out))
    assert d is None, f"{name}: Parquet schema: {d}"

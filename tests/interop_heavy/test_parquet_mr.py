"""Files written by parquet-mr (parquet-java 1.18.1, the writer inside Spark, Flink, Hive and
Iceberg Java), read by floe.

parquet-mr-writer/ is a small Maven project (parquet-hadoop's example Group writer and
parquet-avro) that writes, with field ids on every field: every Iceberg type, INT96, legacy
two-level lists, writer versions 1 and 2 (v2 pages with DELTA_BINARY_PACKED and
DELTA_BYTE_ARRAY), codecs SNAPPY, GZIP, ZSTD, LZ4_RAW and the Hadoop-framed LZ4, dictionary
on and off, page CRCs, bloom filters, several row groups; and through parquet-avro,
BYTE_ARRAY decimals, enums and its default two-level lists. For every file:
  * `floe parquet cat` equals DuckDB's reading converted to the text forms, and pyarrow's
    for the columns where the two peers agree on the type (pyarrow exposes ENUM as binary,
    DuckDB as text; the text form follows DuckDB, the Parquet ENUM annotation being UTF-8);
  * `floe parquet rewrite` (default; v2 + zstd; no dictionary) is read back by pyarrow and
    DuckDB exactly as they read the input, with the same Parquet schema and metadata.
INT96 files are outside the contract: floe reads them correctly or refuses them with exit 5.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import peers
import text_forms as tf
from floe_runner import EXIT_OK, EXIT_UNSUPPORTED

PROJECT = Path(__file__).resolve().parent / "parquet-mr-writer"
FILES = ["mr_v1_snappy", "mr_v2_zstd", "mr_v1_gzip_plain", "mr_v1_lz4_hadoop",
         "mr_v2_lz4_hadoop_plain", "mr_v2_lz4_raw", "mr_v1_uncompressed_bloom", "mr_avro_snappy",
         "mr_avro_v2_gzip_3level"]


@pytest.fixture(scope="session")
def mr_files(tmp_path_factory):
    for tool in ("mvn", "java"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is needed for the parquet-mr interop suite (Debian: maven, "
                               f"openjdk-17-jdk-headless)")
    project = tmp_path_factory.mktemp("parquet-mr-build") / "parquet-mr-writer"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target"))
    subprocess.run(["mvn", "-q", "-B", "package"], cwd=project, check=True, timeout=1800)
    out = tmp_path_factory.mktemp("parquet-mr-files")
    target = project / "target"
    cp = f"{target / 'parquet-mr-writer-1.jar'}:{target / 'lib'}/*"
    subprocess.run(["java", "-cp", cp, "floe.interop.WriteFiles", str(out)], check=True, timeout=600,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {p.stem: p for p in out.glob("*.parquet")}


def _expected_from_duckdb(path) -> pa.Table:
    table = peers.duckdb_table(path)
    declared = peers.parquet_arrow_schema(path)
    cols = []
    for name in table.column_names:
        col, want = table.column(name), declared.field(name).type
        t = col.type
        if ((pa.types.is_timestamp(t) and pa.types.is_timestamp(want)) or
                (pa.types.is_time(t) and pa.types.is_time(want))) and t.unit != want.unit:
            col = col.cast(pa.timestamp(want.unit, t.tz) if pa.types.is_timestamp(t) else want)
        cols.append(col)
    return pa.table(cols, names=table.column_names)


def _enum_columns(path) -> set:
    return {e[0] for e in peers.schema_elements(path)
            if e[peers.SCHEMA_COLUMNS.index("converted_type")] == "ENUM"
            or e[peers.SCHEMA_COLUMNS.index("logical_type")] == "EnumType()"}


@pytest.mark.parametrize("name", FILES)
def test_cat_matches_peers(floe, mr_files, name):
    path = mr_files[name]
    rows = tf.parse_lines(floe.cat(path).text)
    d = tf.rows_difference(tf.expected_rows(_expected_from_duckdb(path)), rows)
    assert d is None, f"{name} (vs DuckDB): {d}"
    bare = peers.read_bare(path)
    columns = [c for c in bare.column_names if c not in _enum_columns(path)]
    projected = [tf.Obj([kv for kv in r if kv[0] in columns]) for r in rows]
    d = tf.rows_difference(tf.expected_rows(bare, columns), projected)
    assert d is None, f"{name} (vs pyarrow): {d}"


@pytest.mark.parametrize("options", [[], ["--page-version", "2", "--codec", "zstd"], ["--dictionary", "off"]],
                         ids=["default", "v2-zstd", "dict-off"])
@pytest.mark.parametrize("name", FILES)
def test_rewrite_read_back_by_peers(floe, mr_files, tmp_path, name, options):
    src = mr_files[name]
    out = tmp_path / "out.parquet"
    floe.rewrite(src, out, options)
    label = f"{name} {' '.join(options)}"
    d = peers.tables_difference(peers.read(src), peers.read(out))
    assert d is None, f"{label}: pyarrow: {d}"
    d = peers.tables_difference(peers.duckdb_table(src), peers.duckdb_table(out))
    assert d is None, f"{label}: DuckDB: {d}"
    d = peers.schema_difference(peers.schema_elements(src), peers.schema_elements(out))
    assert d is None, f"{label}: Parquet schema: {d}"
    assert peers.kv_pairs(out) == peers.kv_pairs(src), f"{label}: key-value metadata changed"


def test_int96_read_correctly_or_refused(floe, mr_files, tmp_path):
    src = mr_files["mr_int96"]
    cat = floe.run("parquet", "cat", src)
    assert cat.rc in (EXIT_OK, EXIT_UNSUPPORTED), cat.describe()
    if cat.rc == EXIT_UNSUPPORTED:
        assert src.name in cat.stderr, cat.describe()
        return
    rows = tf.parse_lines(cat.text)
    bare = peers.read_bare(src)
    local = tf.rows_difference(tf.expected_rows(bare), rows)
    utc = tf.rows_difference(tf.expected_rows(bare.set_column(
        1, "legacy_ts", bare.column("legacy_ts").cast(pa.timestamp("ns", "UTC")))), rows)
    assert local is None or utc is None, f"mr_int96: {local}"
    out = tmp_path / "out.parquet"
    floe.rewrite(src, out)
    d = peers.tables_difference(pq.read_table(src), pq.read_table(out))
    assert d is None, f"mr_int96: {d}"

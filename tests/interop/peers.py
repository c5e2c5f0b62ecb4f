"""What the peers (pyarrow, DuckDB) say about a Parquet file, and exact comparisons.

* `read_bare` reads a file with pyarrow after removing the `ARROW:schema` key-value entry,
  so the Arrow types come from the Parquet schema alone (field ids, logical types,
  nullability). With the entry present pyarrow restores types and even field ids from it,
  which would hide a writer that lost them.
* `schema_elements` lists every Parquet SchemaElement as DuckDB's parquet_schema() reports
  it (field ids included), a second, independent view of the file's schema;
  `schema_difference` compares two such lists (rules in its docstring).
* `assert_tables_equal` compares schemas (with field and schema metadata) and values exactly;
  floats compare by value with NaN equal to NaN and -0.0 distinct from +0.0.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_file as pf
import text_forms as tf

ARROW_SCHEMA_KEY = b"ARROW:schema"


def without_arrow_schema(data: bytes) -> bytes:
    meta, _, _ = pf.read_footer(data)
    pairs = [(k, v) for k, v in pf.kv_metadata(meta) if k != ARROW_SCHEMA_KEY]
    pf.set_kv_metadata(meta, pairs)
    return pf.replace_footer(data, meta)


def read_bare(path: Path, **kwargs) -> pa.Table:
    kwargs.setdefault("page_checksum_verification", True)
    return pq.read_table(io.BytesIO(without_arrow_schema(Path(path).read_bytes())), **kwargs)


def parquet_arrow_schema(path: Path) -> pa.Schema:
    """The Arrow schema pyarrow derives from the Parquet schema alone."""
    return pq.ParquetFile(io.BytesIO(without_arrow_schema(Path(path).read_bytes()))).schema_arrow


def read(path: Path, **kwargs) -> pa.Table:
    """pyarrow's reading, verifying page CRCs where a page has one."""
    kwargs.setdefault("page_checksum_verification", True)
    return pq.read_table(path, **kwargs)


def kv_pairs(path: Path) -> list:
    """Key-value metadata in file order, exactly as stored (value None when absent)."""
    meta, _, _ = pf.read_footer(Path(path).read_bytes())
    return pf.kv_metadata(meta)


SCHEMA_COLUMNS = ("name", "type", "type_length", "repetition_type", "num_children",
                  "converted_type", "scale", "precision", "field_id", "logical_type")


_duckdb = None


def duckdb_connection():
    """One single-threaded DuckDB connection for the session (connecting costs ~75 ms)."""
    global _duckdb
    if _duckdb is None:
        _duckdb = duckdb.connect(config={"threads": 1})
    return _duckdb


def schema_elements(path: Path) -> list[tuple]:
    """DuckDB's view of the SchemaElement list; the root's name is left out (it names no
    column, and writers differ: 'schema', 'root', 'duckdb_schema')."""
    rows = duckdb_connection().execute(f"SELECT {', '.join(SCHEMA_COLUMNS)} FROM parquet_schema(?)",
                                       [str(path)]).fetchall()
    return [("<root>",) + tuple(rows[0][1:])] + [tuple(r) for r in rows[1:]]


# The logical type a legacy converted_type stands for (parquet-format LogicalTypes.md,
# "Backward compatibility"), in DuckDB's parquet_schema() spelling.
def _unit(u):
    return ("TimeUnit(MILLIS=MilliSeconds(), MICROS=<null>, NANOS=<null>)" if u == "ms" else
            "TimeUnit(MILLIS=<null>, MICROS=MicroSeconds(), NANOS=<null>)")


_CONVERTED_MEANING = {
    "UTF8": "StringType()", "ENUM": "EnumType()", "JSON": "JsonType()", "BSON": "BsonType()",
    "DATE": "DateType()", "LIST": "ListType()", "MAP": "MapType()",
    "TIME_MILLIS": f"TimeType(isAdjustedToUTC=1, unit={_unit('ms')})",
    "TIME_MICROS": f"TimeType(isAdjustedToUTC=1, unit={_unit('us')})",
    "TIMESTAMP_MILLIS": f"TimestampType(isAdjustedToUTC=1, unit={_unit('ms')})",
    "TIMESTAMP_MICROS": f"TimestampType(isAdjustedToUTC=1, unit={_unit('us')})",
}
for _bits in (8, 16, 32, 64):
    _CONVERTED_MEANING[f"INT_{_bits}"] = f"IntType(bitWidth={chr(_bits)}, isSigned=1)"
    _CONVERTED_MEANING[f"UINT_{_bits}"] = f"IntType(bitWidth={chr(_bits)}, isSigned=0)"


_PLAIN_SIGNED = {"INT32": (_CONVERTED_MEANING["INT_32"],), "INT64": (_CONVERTED_MEANING["INT_64"],)}


def _meaning(e: tuple):
    """The element's logical type; when only a converted_type is set, the logical type it
    implies (so a writer that adds the equivalent logical annotation is not flagged)."""
    row = dict(zip(SCHEMA_COLUMNS, e))
    meaning = row["logical_type"]
    c = row["converted_type"]
    if meaning is None and c is not None and c != "MAP_KEY_VALUE":
        if c == "DECIMAL":
            meaning = f"DecimalType(scale={row['scale']}, precision={row['precision']})"
        else:
            meaning = _CONVERTED_MEANING.get(c, f"converted {c}")
    if meaning in _PLAIN_SIGNED.get(row["type"], ()):
        return None  # signed 32/64-bit integers are what INT32/INT64 mean without annotation
    return meaning


_EXACT_COLUMNS = ("name", "type", "type_length", "repetition_type", "num_children",
                  "scale", "precision", "field_id")


def schema_difference(expected: list[tuple], actual: list[tuple]):
    """Compare SchemaElement lists: structure, names, physical types, repetition, field ids,
    scale and precision exactly; logical types by meaning (a converted_type alone counts as
    the logical type it implies; INT_32 / INT_64 on INT32 / INT64 mean the same as no
    annotation); and every other converted_type of the input must be kept, since readers
    that predate logical types depend on it. Adding an equivalent converted_type
    where the input had only a logical type is allowed."""
    for i, (e, a) in enumerate(zip(expected, actual)):
        ed, ad = dict(zip(SCHEMA_COLUMNS, e)), dict(zip(SCHEMA_COLUMNS, a))
        diffs = [f"{c}: {ed[c]!r} != {ad[c]!r}" for c in _EXACT_COLUMNS if ed[c] != ad[c]]
        if _meaning(e) != _meaning(a):
            diffs.append(f"logical type: {_meaning(e)!r} != {_meaning(a)!r}")
        if (ed["converted_type"] not in (None, "INT_32", "INT_64")
                and ed["converted_type"] != ad["converted_type"]):
            diffs.append(f"converted_type: {ed['converted_type']!r} != {ad['converted_type']!r}")
        if diffs:
            return f"schema element {i} ({e[0]}): " + "; ".join(diffs)
    if len(expected) != len(actual):
        return f"expected {len(expected)} schema elements, got {len(actual)}"
    return None


def _same(a, b) -> bool:
    if isinstance(a, tf.Float) and isinstance(b, tf.Float):
        if math.isnan(a.value) or math.isnan(b.value):
            return math.isnan(a.value) and math.isnan(b.value)
        return a.value == b.value and math.copysign(1, a.value) == math.copysign(1, b.value)
    if isinstance(a, tf.Int) and isinstance(b, tf.Int):
        return a.value == b.value
    if isinstance(a, list) and isinstance(b, list):
        if isinstance(a, tf.Obj) != isinstance(b, tf.Obj) or len(a) != len(b):
            return False
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def column_difference(expected: pa.ChunkedArray, actual: pa.ChunkedArray):
    if expected.equals(actual):
        return None
    ev = tf.column_values(expected)
    av = tf.column_values(actual)
    if len(ev) != len(av):
        return f"{len(ev)} values expected, {len(av)} found"
    for i, (x, y) in enumerate(zip(ev, av)):
        if not _same(x, y):
            return f"row {i}: expected {tf.short(x)}, got {tf.short(y)}"
    return None


def tables_difference(expected: pa.Table, actual: pa.Table, check_metadata: bool = True):
    if not actual.schema.equals(expected.schema, check_metadata=check_metadata):
        for i, (e, a) in enumerate(zip(expected.schema, actual.schema)):
            if not a.equals(e, check_metadata=check_metadata):
                return (f"field {i} differs:\n  expected {e!r} {dict(e.metadata or {})}\n"
                        f"  got      {a!r} {dict(a.metadata or {})}")
        if len(expected.schema) != len(actual.schema):
            return f"expected {len(expected.schema)} fields, got {len(actual.schema)}"
        return (f"schema metadata differs:\n  expected {expected.schema.metadata}\n"
                f"  got      {actual.schema.metadata}")
    if expected.num_rows != actual.num_rows:
        return f"expected {expected.num_rows} rows, got {actual.num_rows}"
    for name in expected.column_names:
        d = column_difference(expected.column(name), actual.column(name))
        if d:
            return f"column {name!r}: {d}"
    return None


def sql_string(value) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def duckdb_table(path: Path, columns: list[str] | None = None) -> pa.Table:
    """DuckDB's reading of a file, as Arrow (one thread)."""
    cols = "*" if columns is None else ", ".join(f'"{c}"' for c in columns)
    return duckdb_connection().sql(f"SELECT {cols} FROM read_parquet({sql_string(path)})").to_arrow_table()

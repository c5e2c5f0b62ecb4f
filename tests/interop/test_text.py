"""JSON Lines and CSV: floe's readers against pyarrow's (`pyarrow.json.read_json`,
`pyarrow.csv.read_csv`, both with an explicit schema) on the same files, and floe's writers
read back by pyarrow. Expected rows come from pyarrow's readings, converted to the `floe
parquet cat` text forms by text_forms.py; floe is driven through `floe text convert`.

The files are generated here (seeded) with the text forms both sides accept: ISO dates,
times and timestamps (timestamptz with varied offsets), decimals as strings, NaN-free floats
written with Python's shortest repr, strings with quotes, delimiters, newlines and non-ASCII.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from decimal import Decimal

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.json as pjson
import pyarrow.parquet as pq
import pytest

import floe_runner
import text_forms as tf

# name, Iceberg type JSON, pyarrow type, the formats pyarrow reads it from ("c" CSV, "j"
# JSON): pyarrow's CSV reader has no nested types, its JSON reader no dates or times.
FIELDS = [
    ("b", "boolean", pa.bool_(), "cj"),
    ("i", "int", pa.int32(), "cj"),
    ("l", "long", pa.int64(), "cj"),
    ("f", "float", pa.float32(), "cj"),
    ("d", "double", pa.float64(), "cj"),
    ("dec", "decimal(12, 3)", pa.decimal128(12, 3), "cj"),
    ("day", "date", pa.date32(), "c"),
    ("t", "time", pa.time64("us"), "c"),
    ("ts", "timestamp", pa.timestamp("us"), "cj"),
    ("tstz", "timestamptz", pa.timestamp("us", tz="UTC"), "cj"),
    ("s", "string", pa.string(), "cj"),
    ("st", {"type": "struct", "fields": [
        {"id": 101, "name": "x", "required": False, "type": "double"},
        {"id": 102, "name": "y", "required": False, "type": "string"}]},
     pa.struct([("x", pa.float64()), ("y", pa.string())]), "j"),
    ("li", {"type": "list", "element-id": 103, "element": "long", "element-required": False},
     pa.list_(pa.int64()), "j"),
]
ROWS = 2000


def _in(csv: bool, formats: str) -> bool:
    return ("c" if csv else "j") in formats


def iceberg_schema(csv: bool) -> str:
    fields = [{"id": k + 1, "name": n, "required": False, "type": t}
              for k, (n, t, _, f) in enumerate(FIELDS) if _in(csv, f)]
    return json.dumps({"type": "struct", "schema-id": 0, "fields": fields})


def arrow_schema(csv: bool) -> pa.Schema:
    return pa.schema([(n, a) for n, _, a, f in FIELDS if _in(csv, f)])


STRINGS = ["plain", "", "a,b", 'q"uote', "multi\nline", "tab\there", "\u00e9t\u00e9 \U0001F600",
           " padded ", "NaN", "null"]
OFFSETS = ["Z", "+00:00", "+05:30", "-08:00", "+14:00"]


def make_rows(seed: int) -> list[dict]:
    """Row values as text-ready Python values (None = null)."""
    rnd = random.Random(seed)

    def maybe(v):
        return None if rnd.random() < 0.15 else v

    rows = []
    for _ in range(ROWS):
        secs = rnd.randrange(-2_000_000_000, 4_000_000_000)
        micros = rnd.randrange(1_000_000)
        stamp = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=secs, microseconds=micros)
        off = rnd.choice(OFFSETS)
        rows.append({
            "b": maybe(rnd.random() < 0.5),
            "i": maybe(rnd.randrange(-2**31, 2**31)),
            "l": maybe(rnd.randrange(-2**63, 2**63)),
            "f": maybe(float(pa.scalar(rnd.uniform(-1e6, 1e6), pa.float32()).as_py())),
            "d": maybe(rnd.choice([rnd.uniform(-1e300, 1e300), rnd.random(), 0.0, -1.5])),
            "dec": maybe(str(Decimal(rnd.randrange(-10**12 + 1, 10**12)).scaleb(-3))),
            "day": maybe((dt.date(1970, 1, 1) + dt.timedelta(days=rnd.randrange(-700000, 2900000))).isoformat()),
            "t": maybe(dt.time(rnd.randrange(24), rnd.randrange(60), rnd.randrange(60),
                               rnd.randrange(1_000_000)).isoformat(timespec="microseconds")),
            "ts": maybe(stamp.isoformat(timespec="microseconds")),
            "tstz": maybe(stamp.isoformat(timespec="microseconds") + off),
            "s": maybe(rnd.choice(STRINGS)),
            "st": maybe({"x": maybe(rnd.random()), "y": maybe(rnd.choice(STRINGS))}),
            "li": maybe([maybe(rnd.randrange(-1000, 1000)) for _ in range(rnd.randrange(4))]),
        })
    return rows


def write_jsonl(rows, path):
    names = [n for n, _, _, f in FIELDS if _in(False, f)]
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({n: r[n] for n in names}, ensure_ascii=False) + "\n")


def csv_cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        v = "true" if v else "false"
    s = str(v) if not isinstance(v, float) else repr(v)
    if s == "" or any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def write_csv(rows, path, crlf: bool):
    names = [n for n, _, _, f in FIELDS if _in(True, f)]
    eol = "\r\n" if crlf else "\n"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(names) + eol)
        for r in rows:
            f.write(",".join(csv_cell(r[n]) for n in names) + eol)


def pyarrow_csv(path) -> pa.Table:
    return pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(
        column_types=arrow_schema(True), strings_can_be_null=True,
        quoted_strings_can_be_null=False, null_values=[""]))


def pyarrow_json(path) -> pa.Table:
    return pjson.read_json(path, parse_options=pjson.ParseOptions(
        explicit_schema=arrow_schema(False), unexpected_field_behavior="error"))


def floe_rows(floe, src, schema_json, out="-"):
    r = floe.ok("text", "convert", src, out, "--schema-json", schema_json)
    return tf.parse_lines(r.text)


def check(expected_table: pa.Table, actual_rows: list, what: str):
    expected = tf.expected_rows(expected_table)
    assert len(expected) == len(actual_rows), what
    d = tf.rows_difference(expected, actual_rows)
    assert d is None, f"{what}: {d}"


@pytest.mark.parametrize("seed", [1, 2])
def test_jsonl_reads_like_pyarrow(floe, tmp_path, seed):
    path = tmp_path / "rows.jsonl"
    write_jsonl(make_rows(seed), path)
    check(pyarrow_json(path), floe_rows(floe, path, iceberg_schema(False)), "jsonl")


@pytest.mark.parametrize("seed,crlf", [(3, False), (4, True)])
def test_csv_reads_like_pyarrow(floe, tmp_path, seed, crlf):
    path = tmp_path / "rows.csv"
    write_csv(make_rows(seed), path, crlf)
    check(pyarrow_csv(path), floe_rows(floe, path, iceberg_schema(True)), "csv")


def same_table(expected: pa.Table, got: pa.Table, what: str):
    got = got.select(expected.column_names).cast(expected.schema)
    for name in expected.column_names:
        e, g = expected.column(name).to_pylist(), got.column(name).to_pylist()
        for k, (x, y) in enumerate(zip(e, g)):
            assert x == y, f"{what}: row {k}, column {name}: pyarrow read {y!r}, expected {x!r}"
    assert got.num_rows == expected.num_rows, what


def test_pyarrow_reads_floe_writers(floe, tmp_path):
    rows = make_rows(5)
    src_json = tmp_path / "in.jsonl"
    write_jsonl(rows, src_json)
    expected_json = pyarrow_json(src_json)
    # JSON Lines written by floe, read by pyarrow.
    floe.ok("text", "convert", src_json, tmp_path / "out.jsonl", "--schema-json", iceberg_schema(False))
    same_table(expected_json, pyarrow_json(tmp_path / "out.jsonl"), "floe's JSON Lines")
    # CSV written by floe, read by pyarrow.
    src_csv = tmp_path / "in.csv"
    write_csv(rows, src_csv, crlf=False)
    floe.ok("text", "convert", src_csv, tmp_path / "out.csv", "--schema-json", iceberg_schema(True))
    same_table(pyarrow_csv(src_csv), pyarrow_csv(tmp_path / "out.csv"), "floe's CSV")
    # Parquet written by floe from text, read by pyarrow.
    floe.ok("text", "convert", src_json, tmp_path / "out.parquet", "--schema-json", iceberg_schema(False))
    same_table(expected_json, pq.read_table(tmp_path / "out.parquet"), "floe's Parquet")


def test_text_output_matches_parquet_cat(floe, tmp_path):
    src = tmp_path / "in.jsonl"
    write_jsonl(make_rows(6), src)
    floe.ok("text", "convert", src, tmp_path / "t.parquet", "--schema-json", iceberg_schema(False))
    cat = floe.cat(tmp_path / "t.parquet").stdout
    converted = floe.ok("text", "convert", tmp_path / "t.parquet", "-").stdout
    assert converted == cat
    # CSV and back gives the same lines.
    floe.ok("text", "convert", tmp_path / "t.parquet", tmp_path / "t.csv")
    floe.ok("text", "convert", tmp_path / "t.csv", tmp_path / "t2.jsonl", "--schema-json", iceberg_schema(False))
    assert (tmp_path / "t2.jsonl").read_bytes() == cat


@pytest.mark.parametrize("name,text,message", [
    ("bad.jsonl", '{"i": 1}\n{"i": 2}\n{"st": {"x": "abc"}}\n',
     'line 3, field "st.x": expected a number, found "abc"'),
    ("bad.jsonl", '{"i": 2147483648}\n', 'line 1, field "i": expected an integer in the int range'),
    ("bad.csv", 'i,s\n1,"a\nb"\nx,y\n', 'line 4, field "i": expected an integer, found "x"'),
    ("bad.csv", 'i,s\n1,"open\n', "line 2: unterminated quoted field"),
])
def test_errors_name_line_and_field(floe, tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    r = floe.run("text", "convert", path, "-", "--schema-json", iceberg_schema(name.endswith(".csv")))
    assert r.rc == floe_runner.EXIT_CORRUPT, r.describe()
    assert message in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1

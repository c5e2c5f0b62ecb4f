"""Interop of floe's Avro reader and writer with fastavro and pyiceberg.

(a) files fastavro writes, with every type and codec, read by `floe avro cat`: the same
    records as fastavro's own JSON encoding (fastavro.json_writer) of what it reads back;
(b) manifests and manifest lists pyiceberg writes for a partitioned table with appends and a
    delete: `floe avro cat` as in (a), and `floe avro meta` reporting Iceberg's metadata;
(c) files `floe avro rewrite` writes with each codec, read by fastavro: equal records, equal
    parsed schema (field ids included) and equal user metadata.

The floe binary comes from $FLOE_BIN.
"""

import datetime
import decimal
import io
import json
import math
import os
import random
import subprocess
import uuid

import pytest

fastavro = pytest.importorskip("fastavro")

FLOE_BIN = os.environ.get("FLOE_BIN")
if not FLOE_BIN:
    pytest.skip("FLOE_BIN is not set", allow_module_level=True)

CODECS = ["null", "deflate", "snappy", "zstandard"]


def fastavro_supports(codec):
    # fastavro needs extra libraries for some codecs (cramjam for snappy, backports.zstd
    # for zstandard before Python 3.14).
    try:
        fastavro.writer(io.BytesIO(), fastavro.parse_schema("long"), [1], codec=codec)
        return True
    except (ValueError, ImportError):
        return False


def codec_param(codec):
    marks = []
    if not fastavro_supports(codec):
        marks.append(pytest.mark.skip(reason=f"this fastavro install cannot use {codec}"))
    return pytest.param(codec, id=codec, marks=marks)


CODEC_PARAMS = [codec_param(c) for c in CODECS]


def floe(*args):
    proc = subprocess.run([FLOE_BIN, "avro", *args], capture_output=True, timeout=60)
    assert proc.returncode == 0, f"floe avro {' '.join(args)}: {proc.stderr.decode()}"
    return proc.stdout.decode()


def normalize(value):
    """NaN != NaN: replace it so parsed JSON values compare with ==."""
    if isinstance(value, float) and math.isnan(value):
        return "<NaN>"
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    return value


def fastavro_json(path):
    """fastavro's Avro JSON encoding of the records it reads from `path`."""
    with open(path, "rb") as f:
        reader = fastavro.reader(f, return_named_type=True)
        schema = reader.writer_schema
        records = list(reader)
    out = io.StringIO()
    fastavro.json_writer(out, schema, records)
    return json_lines(out.getvalue())


def json_lines(text):
    # Split on "\n" only: str.splitlines() also splits at U+0085 and U+2028 inside strings.
    return [normalize(json.loads(line)) for line in text.split("\n") if line]


def floe_json(path):
    return json_lines(floe("cat", str(path)))


def read_fastavro(path):
    with open(path, "rb") as f:
        reader = fastavro.reader(f, return_named_type=True)
        return reader.writer_schema, dict(reader.metadata), [normalize(r) for r in reader]


def user_metadata(metadata):
    return {k: v for k, v in metadata.items() if not k.startswith("avro.")}


# --- (a) every type, every codec ------------------------------------------------------

EVERYTHING = {
    "type": "record",
    "name": "Everything",
    "namespace": "floe.interop",
    "doc": "one field per Avro type and logical type",
    "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int", "field-id": 1},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "Suit",
                               "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "MD5", "size": 16}},
        {"name": "arr", "type": {"type": "array", "items": "long", "element-id": 7}},
        {"name": "m", "type": {"type": "map", "values": ["null", "string"]}},
        {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "x", "type": "int"},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "deep", "type": ["null", {"type": "record", "name": "Deeper", "fields": [
                {"name": "z", "type": "double"}]}]},
        ]}},
        {"name": "opt", "type": ["null", "Inner"], "default": None},
        {"name": "opt_last", "type": ["string", "null"]},
        {"name": "multi", "type": ["null", "int", "string", "Suit", "MD5",
                                   {"type": "array", "items": "int"},
                                   {"type": "map", "values": "long"}, "Deeper"]},
        {"name": "dec_b", "type": {"type": "bytes", "logicalType": "decimal",
                                   "precision": 20, "scale": 4}},
        {"name": "dec_f", "type": {"type": "fixed", "name": "Dec16", "size": 16,
                                   "logicalType": "decimal", "precision": 38, "scale": 9}},
        {"name": "uuid_s", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "uuid_f", "type": {"type": "fixed", "name": "Uuid16", "size": 16,
                                    "logicalType": "uuid"}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmil", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmic", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsus", "type": {"type": "long", "logicalType": "timestamp-micros",
                                  "adjust-to-utc": True}, "field-id": 99},
        {"name": "tsns", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
        {"name": "lms", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "lus", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "lns", "type": {"type": "long", "logicalType": "local-timestamp-nanos"}},
        {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12,
                                 "logicalType": "duration"}},
        {"name": "kv", "type": ["null", {"type": "array", "logicalType": "map", "items": {
            "type": "record", "name": "k10_v11", "fields": [
                {"name": "key", "type": "int", "field-id": 10},
                {"name": "value", "type": ["null", "bytes"], "field-id": 11}]}}],
         "default": None, "field-id": 9},
    ],
}

UTC = datetime.timezone.utc
FLOATS = [0.0, -0.0, 1.5, -2.25, 3.4028234663852886e38, 1e-45, float("nan"), float("inf"),
          float("-inf")]


def everything_records(n=120, seed=7):
    rng = random.Random(seed)

    def text():
        return "".join(rng.choice("abcxyz é€🙂\"\\\n\t") for _ in range(rng.randrange(0, 12)))

    def key():
        # fastavro's json_writer cannot write an empty map key.
        return "k" + text()

    def raw(k):
        return bytes(rng.randrange(256) for _ in range(k))

    def decimal_value(scale, digits):
        # Avoid -2^(8k-1): fastavro writes those one byte longer than Java does.
        while True:
            unscaled = rng.randrange(-10**digits + 1, 10**digits)
            if unscaled >= 0 or (-unscaled) & (-unscaled - 1) != 0 or (-unscaled).bit_length() % 8 != 0:
                return decimal.Decimal(unscaled).scaleb(-scale, decimal.Context(prec=60))

    inner = lambda: {  # noqa: E731
        "x": rng.randrange(-2**31, 2**31),
        "tags": [text() for _ in range(rng.randrange(0, 3))],
        "deep": None if rng.random() < 0.5 else {"z": rng.choice(FLOATS + [rng.random()])},
    }
    records = []
    for k in range(n):
        multi_choices = [
            None,
            rng.randrange(-2**31, 2**31),
            text(),
            ("floe.interop.Suit", rng.choice(["SPADES", "CLUBS"])),
            ("floe.interop.MD5", raw(16)),
            [rng.randrange(-100, 100) for _ in range(rng.randrange(0, 4))],
            {key(): rng.randrange(-2**63, 2**63) for _ in range(rng.randrange(0, 3))},
            ("floe.interop.Deeper", {"z": rng.uniform(-1e6, 1e6)}),
        ]
        records.append({
            "n": None,
            "b": rng.random() < 0.5,
            "i": rng.choice([0, -1, 2**31 - 1, -2**31, rng.randrange(-2**31, 2**31)]),
            "l": rng.choice([0, 2**63 - 1, -2**63, rng.randrange(-2**63, 2**63)]),
            "f": rng.choice(FLOATS + [rng.uniform(-1e3, 1e3)]),
            "d": rng.choice(FLOATS + [rng.uniform(-1e300, 1e300), 5e-324]),
            "by": bytes(range(256)) if k == 0 else raw(rng.randrange(0, 20)),
            "s": text(),
            "e": rng.choice(EVERYTHING["fields"][8]["type"]["symbols"]),
            "fx": raw(16),
            "arr": [rng.randrange(-2**63, 2**63) for _ in range(rng.randrange(0, 5))],
            "m": {key(): (None if rng.random() < 0.3 else text())
                  for _ in range(rng.randrange(0, 4))},
            "nested": inner(),
            "opt": None if rng.random() < 0.4 else inner(),
            "opt_last": None if rng.random() < 0.5 else text(),
            "multi": multi_choices[k % len(multi_choices)],
            "dec_b": decimal_value(4, 20),
            "dec_f": decimal_value(9, 38),
            "uuid_s": uuid.UUID(int=rng.getrandbits(128)),
            "uuid_f": raw(16),
            "date": datetime.date(1900, 1, 1) + datetime.timedelta(days=rng.randrange(0, 100000)),
            "tmil": datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60),
                                  rng.randrange(1000) * 1000),
            "tmic": datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60),
                                  rng.randrange(1000000)),
            "tsms": datetime.datetime(1950, 1, 1, tzinfo=UTC)
            + datetime.timedelta(milliseconds=rng.randrange(0, 4 * 10**12)),
            "tsus": datetime.datetime(1950, 1, 1, tzinfo=UTC)
            + datetime.timedelta(microseconds=rng.randrange(0, 4 * 10**15)),
            "tsns": rng.randrange(-2**62, 2**62),
            "lms": datetime.datetime(1950, 1, 1)
            + datetime.timedelta(milliseconds=rng.randrange(0, 4 * 10**12)),
            "lus": datetime.datetime(1950, 1, 1)
            + datetime.timedelta(microseconds=rng.randrange(0, 4 * 10**15)),
            "lns": rng.randrange(-2**62, 2**62),
            "dur": raw(12),
            "kv": None if k % 4 == 0 else [
                {"key": rng.randrange(1000), "value": None if rng.random() < 0.3 else raw(4)}
                for _ in range(rng.randrange(0, 4))],
        })
    return records


@pytest.fixture(scope="module")
def everything_files(tmp_path_factory):
    """One fastavro-written file per codec, with small blocks so there are many."""
    root = tmp_path_factory.mktemp("everything")
    parsed = fastavro.parse_schema(EVERYTHING)
    records = everything_records()
    files = {}
    for codec in CODECS:
        path = root / f"everything-{codec}.avro"
        if not fastavro_supports(codec):
            continue  # codec_param skips the tests that need it
        with open(path, "wb") as f:
            fastavro.writer(f, parsed, records, codec=codec, sync_interval=2000,
                            metadata={"origin": "fastavro", "format-version": "2"})
        files[codec] = path
    return files


@pytest.mark.parametrize("codec", CODEC_PARAMS)
def test_cat_reads_fastavro_files_with_every_type(everything_files, codec):
    path = everything_files[codec]
    expected = fastavro_json(path)
    assert len(expected) == 120
    assert floe_json(path) == expected


@pytest.mark.parametrize("codec", CODEC_PARAMS)
def test_meta_reports_header_and_counts(everything_files, codec):
    path = everything_files[codec]
    meta = json.loads(floe("meta", str(path)))
    with open(path, "rb") as f:
        reader = fastavro.reader(f)
        raw_schema = json.loads(reader.metadata["avro.schema"])
        metadata = dict(reader.metadata)
        count = sum(1 for _ in reader)
    assert meta["schema"] == raw_schema
    assert meta["codec"] == codec
    assert meta["metadata"] == user_metadata(metadata)
    assert meta["records"] == count
    assert meta["blocks"] > 1
    assert len(meta["sync_marker"]) == 32


def test_cat_limit(everything_files):
    path = everything_files["null"]
    assert json_lines(floe("cat", str(path), "--limit", "5")) == fastavro_json(path)[:5]


def test_errors_name_the_file_and_use_the_documented_exit_codes(tmp_path, everything_files):
    missing = tmp_path / "missing.avro"
    proc = subprocess.run([FLOE_BIN, "avro", "cat", str(missing)], capture_output=True)
    assert proc.returncode == 3  # kExitNotFound
    assert str(missing) in proc.stderr.decode()

    broken = tmp_path / "broken.avro"
    data = bytearray(everything_files["null"].read_bytes())
    data[-1] ^= 0xFF  # the last sync marker
    broken.write_bytes(bytes(data))
    proc = subprocess.run([FLOE_BIN, "avro", "cat", str(broken)], capture_output=True)
    assert proc.returncode == 4  # kExitCorrupt
    assert str(broken) in proc.stderr.decode()
    assert "sync" in proc.stderr.decode()


# --- (b) pyiceberg manifests and manifest lists ---------------------------------------

@pytest.fixture(scope="module")
def iceberg_metadata_files(tmp_path_factory):
    pytest.importorskip("pyiceberg")
    pytest.importorskip("sqlalchemy")
    pa = pytest.importorskip("pyarrow")
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.expressions import EqualTo
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import DateType, DoubleType, LongType, NestedField, StringType

    warehouse = tmp_path_factory.mktemp("warehouse")
    catalog = SqlCatalog("interop", uri=f"sqlite:///{warehouse}/catalog.db",
                         warehouse=f"file://{warehouse}")
    catalog.create_namespace("db")
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "category", StringType(), required=False),
        NestedField(3, "day", DateType(), required=False),
        NestedField(4, "score", DoubleType(), required=False),
    )
    spec = PartitionSpec(
        PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"),
        PartitionField(source_id=3, field_id=1001, transform=IdentityTransform(), name="day"),
    )
    table = catalog.create_table("db.events", schema=schema, partition_spec=spec)
    arrow_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("category", pa.string()),
        pa.field("day", pa.date32()), pa.field("score", pa.float64())])

    def rows(start, n=24):
        return pa.table({
            "id": list(range(start, start + n)),
            "category": [["a", "b", "c", None][i % 4] for i in range(n)],
            "day": [datetime.date(2024, 1, 1 + i % 3) for i in range(n)],
            "score": [i * 1.5 if i % 5 else None for i in range(n)],
        }, schema=arrow_schema)

    table.append(rows(0))
    table.append(rows(100))
    table.delete(EqualTo("category", "a"))
    files = sorted((warehouse / "db").rglob("metadata/*.avro"))
    assert any(p.name.startswith("snap-") for p in files)
    assert any(not p.name.startswith("snap-") for p in files)
    return files


def test_cat_reads_pyiceberg_manifests_and_lists(iceberg_metadata_files):
    for path in iceberg_metadata_files:
        expected = fastavro_json(path)
        assert expected, path
        assert floe_json(path) == expected, path


def test_meta_reports_iceberg_metadata(iceberg_metadata_files):
    for path in iceberg_metadata_files:
        meta = json.loads(floe("meta", str(path)))
        _, metadata, records = read_fastavro(path)
        assert meta["metadata"] == user_metadata(metadata), path
        assert meta["schema"] == json.loads(metadata["avro.schema"]), path
        assert meta["records"] == len(records)
        if path.name.startswith("snap-"):
            assert meta["schema"]["name"] == "manifest_file"
            for key in ["snapshot-id", "sequence-number", "format-version"]:
                assert key in meta["metadata"], (path, key)
        else:
            assert meta["schema"]["name"] == "manifest_entry"
            for key in ["schema", "partition-spec", "partition-spec-id", "format-version",
                        "content"]:
                assert key in meta["metadata"], (path, key)
            assert json.loads(meta["metadata"]["schema"])["type"] == "struct"
            assert meta["metadata"]["content"] == "data"


# --- (c) files floe writes, read by fastavro ------------------------------------------

def check_rewrite(source, out, codec):
    floe("rewrite", str(source), str(out), "--codec", codec)
    in_schema, in_meta, in_records = read_fastavro(source)
    out_schema, out_meta, out_records = read_fastavro(out)
    assert out_meta["avro.codec"] == codec
    assert out_records == in_records, source
    assert out_schema == in_schema, source
    assert json.loads(out_meta["avro.schema"]) == json.loads(in_meta["avro.schema"]), source
    assert user_metadata(out_meta) == user_metadata(in_meta), source
    # And floe reads its own output as fastavro does.
    assert floe_json(out) == fastavro_json(out), source


@pytest.mark.parametrize("codec", CODEC_PARAMS)
def test_rewrite_is_read_by_fastavro(tmp_path, everything_files, codec):
    for source in [everything_files["null"], everything_files["deflate"]]:
        check_rewrite(source, tmp_path / f"out-{source.name}", codec)


@pytest.mark.parametrize("codec", CODEC_PARAMS)
def test_rewrite_of_iceberg_files_is_read_by_fastavro(tmp_path, iceberg_metadata_files, codec):
    manifests = [p for p in iceberg_metadata_files if not p.name.startswith("snap-")]
    lists = [p for p in iceberg_metadata_files if p.name.startswith("snap-")]
    for source in [manifests[0], lists[-1]]:
        check_rewrite(source, tmp_path / f"out-{source.name}", codec)


def test_rewrite_keeps_the_input_codec_and_takes_a_level(tmp_path, everything_files):
    out = tmp_path / "same.avro"
    floe("rewrite", str(everything_files["deflate"]), str(out))
    assert read_fastavro(out)[1]["avro.codec"] == "deflate"
    out9 = tmp_path / "level.avro"
    floe("rewrite", str(everything_files["null"]), str(out9), "--codec", "deflate", "--level", "9")
    assert read_fastavro(out9)[2] == read_fastavro(everything_files["null"])[2]

"""Iceberg manifests and manifest lists against pyiceberg 0.12 and fastavro:
(a) pyiceberg reads what floe writes, (b) floe reads what pyiceberg writes, (c) the Avro
schemas of floe's files have pyiceberg's field names, ids, record names and optionality,
except for the differences listed (and justified) in KNOWN_SCHEMA_DIFFERENCES.

floe is driven through its debugging commands `floe iceberg manifest|write-manifest|
write-manifest-list` (docs/cli.md)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

fastavro = pytest.importorskip("fastavro")
pytest.importorskip("pyiceberg")

from pyiceberg.io.pyarrow import PyArrowFileIO  # noqa: E402
from pyiceberg.manifest import (  # noqa: E402
    DataFile, DataFileContent, FileFormat, ManifestContent, ManifestEntry,
    ManifestEntryStatus, ManifestFile, read_manifest_list, write_manifest,
    write_manifest_list)
from pyiceberg.partitioning import PartitionField, PartitionSpec  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform  # noqa: E402
from pyiceberg.typedef import Record  # noqa: E402
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType  # noqa: E402

FLOE_BIN = os.environ.get("FLOE_BIN")
SNAPSHOT_ID = 7001
PARENT_ID = 7000

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", TimestamptzType(), required=False),
)
SPEC = PartitionSpec(
    PartitionField(1, 1000, IdentityTransform(), "id"),
    PartitionField(2, 1001, BucketTransform(16), "name_bucket"),
    PartitionField(3, 1002, DayTransform(), "ts_day"),
    spec_id=0,
)
PARTITION_TYPE = {"type": "struct", "fields": [
    {"id": 1000, "name": "id", "type": "long", "required": False},
    {"id": 1001, "name": "name_bucket", "type": "int", "required": False},
    {"id": 1002, "name": "ts_day", "type": "date", "required": False},
]}


def floe(*args) -> str:
    assert FLOE_BIN, "FLOE_BIN is not set"
    proc = subprocess.run([FLOE_BIN, "iceberg", *map(str, args)], capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, f"floe iceberg {' '.join(map(str, args))}: {proc.stderr.decode()}"
    return proc.stdout.decode()


def files():
    """Three files: data with full metrics, a second partition with nulls, and one with an
    explicit (rewrite) data sequence number."""
    return [
        dict(status=1, partition=[1, 3, 19000], path="s3://b/t/data/a.parquet", rows=100,
             stats=True),
        dict(status=1, partition=[None, None, 19001], path="s3://b/t/data/b.parquet", rows=7,
             stats=False),
        dict(status=1, partition=[2, 15, 18999], path="s3://b/t/data/c.parquet", rows=20,
             stats=False, seq=3),
    ]


def floe_entry(f):
    df = {"content": 0, "file_path": f["path"], "file_format": "PARQUET",
          "partition": [f["partition"][0], f["partition"][1],
                        None if f["partition"][2] is None else _date_str(f["partition"][2])],
          "record_count": f["rows"], "file_size_in_bytes": f["rows"] * 10,
          "split_offsets": [4]}
    if f["stats"]:
        df.update(column_sizes={"1": 50, "2": 60}, value_counts={"1": 100},
                  null_value_counts={"1": 0}, nan_value_counts={},
                  lower_bounds={"1": "0100000000000000"}, upper_bounds={"1": "6300000000000000"})
    e = {"status": f["status"], "data_file": df}
    if "seq" in f:
        e["sequence_number"] = f["seq"]
    return e


def _date_str(days):
    import datetime
    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=days)).isoformat()


def py_data_file(f):
    kwargs = dict(content=DataFileContent.DATA, file_path=f["path"],
                  file_format=FileFormat.PARQUET, partition=Record(*f["partition"]),
                  record_count=f["rows"], file_size_in_bytes=f["rows"] * 10, split_offsets=[4])
    if f["stats"]:
        kwargs.update(column_sizes={1: 50, 2: 60}, value_counts={1: 100},
                      null_value_counts={1: 0}, nan_value_counts={},
                      lower_bounds={1: bytes.fromhex("0100000000000000")},
                      upper_bounds={1: bytes.fromhex("6300000000000000")})
    return DataFile.from_args(**kwargs)


def floe_write_manifest(tmp_path, version, entries, content="data", name="m.avro",
                        partition_type=PARTITION_TYPE):
    entries_path = tmp_path / f"{name}.entries.json"
    entries_path.write_text(json.dumps({"entries": entries}))
    out = tmp_path / name
    manifest = json.loads(floe(
        "write-manifest", out, "--entries-json", entries_path, "--version", version,
        "--partition-type-json", json.dumps(partition_type),
        "--schema-json", SCHEMA.model_dump_json(),
        "--spec-json", json.dumps([json.loads(f.model_dump_json()) for f in SPEC.fields]),
        "--snapshot-id", SNAPSHOT_ID, "--content", content))
    return out, manifest


def floe_write_list(tmp_path, version, manifests, sequence_number=5, first_row_id=None):
    path = tmp_path / "manifests.json"
    path.write_text(json.dumps({"manifests": manifests}))
    out = tmp_path / f"snap-{SNAPSHOT_ID}-1-uuid.avro"
    args = ["write-manifest-list", out, "--manifests-json", path, "--version", version,
            "--snapshot-id", SNAPSHOT_ID, "--parent-snapshot-id", PARENT_ID,
            "--sequence-number", sequence_number]
    if first_row_id is not None:
        args += ["--first-row-id", first_row_id]
    return out, json.loads(floe(*args))


def hexmap(m):
    return {str(k): v.hex() for k, v in (m or {}).items()}


def intmap(m):
    return {str(k): v for k, v in (m or {}).items()}


# --- (a) pyiceberg reads floe's files --------------------------------------------------

@pytest.mark.parametrize("version", [1, 2])
def test_pyiceberg_reads_floe_manifest_and_list(tmp_path, version):
    fs = files()
    manifest_path, manifest = floe_write_manifest(tmp_path, version, [floe_entry(f) for f in fs])
    list_path, written = floe_write_list(tmp_path, version, [manifest])
    io = PyArrowFileIO()
    listed = list(read_manifest_list(io.new_input(str(list_path))))
    assert len(listed) == 1
    m = listed[0]
    assert m.manifest_path == str(manifest_path)
    assert m.manifest_length == os.path.getsize(manifest_path)
    assert m.added_snapshot_id == SNAPSHOT_ID
    assert m.added_files_count == 3 and m.added_rows_count == 127
    assert m.existing_files_count == 0 and m.deleted_files_count == 0
    if version == 2:
        assert m.sequence_number == 5
        assert m.min_sequence_number == 3  # the explicit data sequence number
    # Partition summaries: pyiceberg's own computation over the same values.
    from pyiceberg.manifest import construct_partition_summaries
    expected = construct_partition_summaries(SPEC, SCHEMA, [Record(*f["partition"]) for f in fs])
    assert [(s.contains_null, s.contains_nan, s.lower_bound, s.upper_bound)
            for s in m.partitions] == \
        [(s.contains_null, s.contains_nan, s.lower_bound, s.upper_bound) for s in expected]

    entries = m.fetch_manifest_entry(io, discard_deleted=False)
    assert len(entries) == 3
    for e, f in zip(entries, fs):
        assert e.status == ManifestEntryStatus.ADDED
        assert e.snapshot_id == SNAPSHOT_ID
        if version == 2:
            assert e.sequence_number == f.get("seq", 5)
            assert e.file_sequence_number == 5
        d = e.data_file
        assert d.file_path == f["path"]
        assert d.file_format == FileFormat.PARQUET
        assert list(d.partition) == f["partition"]
        assert d.record_count == f["rows"]
        assert d.file_size_in_bytes == f["rows"] * 10
        assert d.split_offsets == [4]
        if f["stats"]:
            assert d.column_sizes == {1: 50, 2: 60}
            assert hexmap(d.lower_bounds) == {"1": "0100000000000000"}
            assert hexmap(d.upper_bounds) == {"1": "6300000000000000"}


def test_pyiceberg_reads_floe_delete_manifest(tmp_path):
    eq = {"status": 1, "data_file": {
        "content": 2, "file_path": "s3://b/t/data/eq.parquet", "file_format": "parquet",
        "partition": [1, 3, "2022-01-01"], "record_count": 4, "file_size_in_bytes": 99,
        "equality_ids": [1, 2]}}
    pos = {"status": 1, "data_file": {
        "content": 1, "file_path": "s3://b/t/data/pos.parquet", "file_format": "PARQUET",
        "partition": [1, 3, "2022-01-01"], "record_count": 2, "file_size_in_bytes": 77,
        "referenced_data_file": "s3://b/t/data/a.parquet"}}
    manifest_path, manifest = floe_write_manifest(tmp_path, 2, [eq, pos], content="deletes")
    list_path, _ = floe_write_list(tmp_path, 2, [manifest], sequence_number=9)
    io = PyArrowFileIO()
    (m,) = list(read_manifest_list(io.new_input(str(list_path))))
    assert m.content == ManifestContent.DELETES
    entries = m.fetch_manifest_entry(io, discard_deleted=False)
    assert entries[0].data_file.content == DataFileContent.EQUALITY_DELETES
    assert entries[0].data_file.equality_ids == [1, 2]
    assert entries[1].data_file.content == DataFileContent.POSITION_DELETES
    assert entries[1].sequence_number == 9
    # pyiceberg 0.12's DataFile has no referenced_data_file property; fastavro shows it.
    with open(manifest_path, "rb") as fh:
        records = list(fastavro.reader(fh))
    assert records[1]["data_file"]["referenced_data_file"] == "s3://b/t/data/a.parquet"


def test_v3_files_read_by_fastavro_with_row_lineage(tmp_path):
    """pyiceberg 0.12 cannot read v3 manifests' inheritance of first_row_id, so check the
    v3 fields through fastavro and floe's own reading (spec, "First Row ID Inheritance")."""
    entries = [floe_entry(f) for f in files()]
    dv = {"status": 1, "data_file": {
        "content": 1, "file_path": "s3://b/t/data/dv.puffin", "file_format": "PUFFIN",
        "partition": [1, 3, "2022-01-01"], "record_count": 3, "file_size_in_bytes": 500,
        "referenced_data_file": "s3://b/t/data/a.parquet", "content_offset": 4,
        "content_size_in_bytes": 42}}
    data_path, data_manifest = floe_write_manifest(tmp_path, 3, entries, name="d.avro")
    del_path, del_manifest = floe_write_manifest(tmp_path, 3, [dv], content="deletes",
                                                 name="x.avro")
    list_path, written = floe_write_list(tmp_path, 3, [data_manifest, del_manifest],
                                         sequence_number=5, first_row_id=1000)
    assert written["assigned_rows"] == 127
    assert written["manifests"][0]["first_row_id"] == 1000
    assert written["manifests"][1]["first_row_id"] is None
    with open(list_path, "rb") as fh:
        reader = fastavro.reader(fh)
        assert reader.metadata["first-row-id"] == "1000"
        assert reader.metadata["format-version"] == "3"
        rows = list(reader)
    assert [r["first_row_id"] for r in rows] == [1000, None]
    with open(del_path, "rb") as fh:
        (rec,) = list(fastavro.reader(fh))
    assert rec["data_file"]["content_offset"] == 4
    assert rec["data_file"]["content_size_in_bytes"] == 42
    shown = json.loads(floe("manifest", data_path, "--sequence-number", 5, "--snapshot-id",
                            SNAPSHOT_ID, "--first-row-id", 1000))
    assert [e["data_file"]["first_row_id"] for e in shown["entries"]] == [1000, 1100, 1107]


# --- (b) floe reads pyiceberg's files --------------------------------------------------

@pytest.mark.parametrize("version", [1, 2])
def test_floe_reads_pyiceberg_manifest_and_list(tmp_path, version):
    io = PyArrowFileIO()
    fs = files()
    manifest_path = tmp_path / "py-m.avro"
    with write_manifest(version, SPEC, SCHEMA, io.new_output(str(manifest_path)), SNAPSHOT_ID,
                        "deflate") as w:
        for f in fs:
            w.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED,
                                          snapshot_id=SNAPSHOT_ID,
                                          sequence_number=f.get("seq"),
                                          data_file=py_data_file(f)))
    manifest = w.to_manifest_file()
    list_path = tmp_path / "py-snap.avro"
    with write_manifest_list(version, io.new_output(str(list_path)), SNAPSHOT_ID, PARENT_ID,
                             5, "deflate") as lw:
        lw.add_manifests([manifest])

    (py_m,) = list(read_manifest_list(io.new_input(str(list_path))))
    shown_list = json.loads(floe("manifest", list_path, "--list"))["manifests"]
    assert len(shown_list) == 1
    fm = shown_list[0]
    for key in ("manifest_path", "manifest_length", "partition_spec_id", "sequence_number",
                "min_sequence_number", "added_snapshot_id", "added_files_count",
                "existing_files_count", "deleted_files_count", "added_rows_count",
                "existing_rows_count", "deleted_rows_count"):
        assert fm[key] == getattr(py_m, key), key
    assert fm["content"] == int(py_m.content)
    assert [(p["contains_null"], p["contains_nan"], p["lower_bound"], p["upper_bound"])
            for p in fm["partitions"]] == \
        [(s.contains_null, s.contains_nan, s.lower_bound.hex() if s.lower_bound else None,
          s.upper_bound.hex() if s.upper_bound else None) for s in py_m.partitions]

    shown = json.loads(floe("manifest", manifest_path, "--sequence-number", fm["sequence_number"],
                            "--snapshot-id", fm["added_snapshot_id"]))
    assert shown["format_version"] == version
    py_entries = py_m.fetch_manifest_entry(io, discard_deleted=False)
    assert len(shown["entries"]) == len(py_entries) == 3
    for fe, pe in zip(shown["entries"], py_entries):
        assert fe["status"] == int(pe.status)
        assert fe["snapshot_id"] == pe.snapshot_id
        assert fe["sequence_number"] == pe.sequence_number
        assert fe["file_sequence_number"] == pe.file_sequence_number
        fd, pd = fe["data_file"], pe.data_file
        assert fd["file_path"] == pd.file_path
        assert fd["file_format"] == pd.file_format.value.upper() == "PARQUET"
        assert fd["record_count"] == pd.record_count
        assert fd["file_size_in_bytes"] == pd.file_size_in_bytes
        expected_partition = list(pd.partition)
        if expected_partition[2] is not None:
            expected_partition[2] = _date_str(expected_partition[2])
        assert fd["partition"] == expected_partition
        assert fd["column_sizes"] == intmap(pd.column_sizes)
        assert fd["value_counts"] == intmap(pd.value_counts)
        assert fd["null_value_counts"] == intmap(pd.null_value_counts)
        assert fd["lower_bounds"] == hexmap(pd.lower_bounds)
        assert fd["upper_bounds"] == hexmap(pd.upper_bounds)
        assert fd["split_offsets"] == pd.split_offsets
    assert shown["partition_type"]["fields"][2]["type"] == "date"


def test_floe_reports_corrupt_manifests(tmp_path):
    bad = tmp_path / "bad.avro"
    bad.write_bytes(b"Obj\x01" + b"\x00" * 40)
    proc = subprocess.run([FLOE_BIN, "iceberg", "manifest", bad], capture_output=True, timeout=60)
    assert proc.returncode == 4, proc.stderr


# --- (c) schema structure against pyiceberg --------------------------------------------

def structure(schema, path="", out=None):
    """(path, field-id, optional, type) for every field, in order; docs and defaults
    ignored. Named types are followed by definition."""
    if out is None:
        out = []
    for f in schema["fields"]:
        t = f["type"]
        optional = isinstance(t, list) and "null" in t
        if isinstance(t, list):
            t = [b for b in t if b != "null"][0]
        p = f"{path}/{f['name']}"
        kind = t if isinstance(t, str) else t["type"]
        if isinstance(t, dict):
            if t.get("logicalType"):
                kind += "+" + t["logicalType"]
            if kind.startswith("record"):
                kind += ":" + t["name"]
            if t["type"] == "array":
                items = t["items"]
                kind += ":" + (items["name"] if isinstance(items, dict) and "name" in items
                               else str(items)) + f":{t.get('element-id')}"
        out.append((p, f.get("field-id"), optional, kind))
        if isinstance(t, dict) and t["type"] == "record":
            structure(t, p, out)
        if isinstance(t, dict) and t["type"] == "array" and isinstance(t["items"], dict) \
                and t["items"].get("type") == "record":
            structure(t["items"], p + "[]", out)
    return out


def writer_schema(path):
    with open(path, "rb") as fh:
        return fastavro.reader(fh).writer_schema, dict(fastavro.reader(open(path, "rb")).metadata)


# Differences between floe (which follows Iceberg Java) and pyiceberg 0.12, with reasons.
KNOWN_SCHEMA_DIFFERENCES = {
    # Java's ManifestEntry.SNAPSHOT_ID is optional in every version (V1Metadata reuses it);
    # pyiceberg makes it required in v1. Both always write a value in v1.
    (1, "manifest"): {("/snapshot_id", 1, True, "long"), ("/snapshot_id", 1, False, "long")},
    (2, "manifest"): {
        # Spec and Java DataFile.EQUALITY_IDS: list<136: int>; pyiceberg writes longs.
        ("/data_file/equality_ids", 135, True, "array:int:136"),
        ("/data_file/equality_ids", 135, True, "array:long:136"),
        # Java V2Metadata.fileType ends with REFERENCED_DATA_FILE (143, spec: optional in
        # v2); pyiceberg's v2 data_file has no field 143.
        ("/data_file/referenced_data_file", 143, True, "string"),
    },
}


@pytest.mark.parametrize("version", [1, 2])
def test_manifest_schema_matches_pyiceberg(tmp_path, version):
    floe_path, _ = floe_write_manifest(tmp_path, version, [floe_entry(files()[0])])
    io = PyArrowFileIO()
    py_path = tmp_path / "py.avro"
    with write_manifest(version, SPEC, SCHEMA, io.new_output(str(py_path)), SNAPSHOT_ID,
                        "deflate") as w:
        w.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=SNAPSHOT_ID,
                                      data_file=py_data_file(files()[0])))
    fs, fmeta = writer_schema(floe_path)
    ps, pmeta = writer_schema(py_path)
    assert fs["name"] == ps["name"] == "manifest_entry"
    a, b = structure(fs), structure(ps)
    diff = set(a) ^ set(b)
    assert diff == KNOWN_SCHEMA_DIFFERENCES.get((version, "manifest"), set()), sorted(diff)
    # Same order of field ids where both have the field.
    assert [x[:2] for x in a if x not in diff] == [x[:2] for x in b if x not in diff]
    for key in ("partition-spec-id", "format-version", "content"):
        assert fmeta.get(key) == pmeta.get(key), key
    assert json.loads(fmeta["partition-spec"]) == json.loads(pmeta["partition-spec"])
    assert json.loads(fmeta["schema"])["fields"] == json.loads(pmeta["schema"])["fields"]


@pytest.mark.parametrize("version", [1, 2])
def test_manifest_list_schema_matches_pyiceberg(tmp_path, version):
    _, manifest = floe_write_manifest(tmp_path, version, [floe_entry(files()[0])])
    floe_path, _ = floe_write_list(tmp_path, version, [manifest])
    io = PyArrowFileIO()
    py_path = tmp_path / "py-list.avro"
    m = ManifestFile.from_args(
        manifest_path="x", manifest_length=1, partition_spec_id=0, content=ManifestContent.DATA,
        sequence_number=-1, min_sequence_number=-1, added_snapshot_id=SNAPSHOT_ID,
        added_files_count=1, existing_files_count=0, deleted_files_count=0, added_rows_count=1,
        existing_rows_count=0, deleted_rows_count=0, partitions=[])
    with write_manifest_list(version, io.new_output(str(py_path)), SNAPSHOT_ID, PARENT_ID, 5,
                             "deflate") as lw:
        lw.add_manifests([m])
    fs, fmeta = writer_schema(floe_path)
    ps, pmeta = writer_schema(py_path)
    assert fs["name"] == ps["name"] == "manifest_file"
    a, b = structure(fs), structure(ps)
    assert set(a) == set(b), sorted(set(a) ^ set(b))
    if version == 1:
        # Java's V1Metadata.MANIFEST_LIST_SCHEMA puts partitions (507) before the row
        # counts; pyiceberg after. Readers resolve by field id, so both read either.
        assert [x[1] for x in a if "/" not in x[0][1:]][:8] == [500, 501, 502, 503, 504, 505,
                                                                506, 507]
    else:
        assert a == b
    for key in ("snapshot-id", "parent-snapshot-id", "sequence-number", "format-version"):
        assert fmeta.get(key) == pmeta.get(key), key

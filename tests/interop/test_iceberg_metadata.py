"""Table metadata written by floe (`floe iceberg metadata`) is read by pyiceberg
(TableMetadataUtil.parse_raw) as the same table: every file of the pyiceberg-written (v1, v2)
and Iceberg-Java-written (v1-v3) golden sets in src/floe/iceberg/testdata goes through floe's
reader and writer, and pyiceberg's reading of floe's output must equal its reading of the
original. floe's own v3 upgrade is checked against the spec's row-lineage rules."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pyiceberg.table.metadata import TableMetadataUtil

import floe_runner

TESTDATA = Path(__file__).resolve().parents[2] / "src" / "floe" / "iceberg" / "testdata"
FILES = sorted(TESTDATA.glob("pyiceberg_v*/*.metadata.json")) + sorted(
    TESTDATA.glob("java/*.metadata.json"))


def model(md) -> dict:
    """The fields of pyiceberg's model that must survive a floe rewrite."""
    return {
        "format_version": md.format_version,
        "table_uuid": md.table_uuid,
        "location": md.location,
        "last_sequence_number": getattr(md, "last_sequence_number", 0),
        "last_updated_ms": md.last_updated_ms,
        "last_column_id": md.last_column_id,
        "schemas": [s.model_dump() for s in md.schemas],
        "current_schema_id": md.current_schema_id,
        "partition_specs": [s.model_dump() for s in md.partition_specs],
        "default_spec_id": md.default_spec_id,
        "last_partition_id": md.last_partition_id,
        "sort_orders": [o.model_dump() for o in md.sort_orders],
        "default_sort_order_id": md.default_sort_order_id,
        "properties": md.properties,
        "current_snapshot_id": md.current_snapshot_id,
        "snapshots": [s.model_dump() for s in md.snapshots],
        "snapshot_log": [e.model_dump() for e in md.snapshot_log],
        "metadata_log": [e.model_dump() for e in md.metadata_log],
        "refs": {k: v.model_dump() for k, v in md.refs.items()},
        "statistics": [s.model_dump() for s in getattr(md, "statistics", [])],
        "partition_statistics": [s.model_dump() for s in getattr(md, "partition_statistics", [])],
        "next_row_id": getattr(md, "next_row_id", None),
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pyiceberg_reads_floe_rewrite(floe: floe_runner.Floe, path: Path):
    original = TableMetadataUtil.parse_raw(path.read_text())
    out = floe.ok("iceberg", "metadata", path).text
    rewritten = TableMetadataUtil.parse_raw(out)
    assert model(rewritten) == model(original)
    # pretty output is the same document
    pretty = floe.ok("iceberg", "metadata", path, "--pretty").text
    assert json.loads(pretty) == json.loads(out)


@pytest.mark.parametrize("version", [1, 2])
def test_upgrade_to_v3(floe: floe_runner.Floe, tmp_path: Path, version: int):
    src = sorted((TESTDATA / f"pyiceberg_v{version}").glob("*.metadata.json"))[-1]
    before = TableMetadataUtil.parse_raw(src.read_text())
    dst = tmp_path / "00010-floe.gz.metadata.json"
    now = before.last_updated_ms + 1000
    floe.ok("iceberg", "metadata", src, "--format-version", 3, "--now-ms", now, "--out", dst)
    text = gzip.decompress(dst.read_bytes()).decode()
    after = TableMetadataUtil.parse_raw(text)
    assert after.format_version == 3
    assert after.next_row_id == 0  # spec: next-row-id starts at 0 on upgrade
    assert after.last_updated_ms == now
    assert after.metadata_log[-1].metadata_file == str(src)
    assert after.metadata_log[-1].timestamp_ms == before.last_updated_ms
    assert after.current_snapshot_id == before.current_snapshot_id
    assert [s.snapshot_id for s in after.snapshots] == [s.snapshot_id for s in before.snapshots]
    assert after.refs == before.refs
    # v3 writes null for "no current snapshot" and -1 is gone; here a snapshot is current
    assert json.loads(text)["current-snapshot-id"] == before.current_snapshot_id


def test_errors(floe: floe_runner.Floe, tmp_path: Path):
    bad = tmp_path / "bad.metadata.json"
    bad.write_text('{"format-version": 2, "location": 3}')
    assert floe.run("iceberg", "metadata", bad).rc == floe_runner.EXIT_CORRUPT
    future = tmp_path / "v4.metadata.json"
    future.write_text('{"format-version": 4}')
    assert floe.run("iceberg", "metadata", future).rc == floe_runner.EXIT_UNSUPPORTED
    assert floe.run("iceberg", "metadata", tmp_path / "missing.metadata.json").rc in (
        floe_runner.EXIT_NOT_FOUND, floe_runner.EXIT_ERROR)

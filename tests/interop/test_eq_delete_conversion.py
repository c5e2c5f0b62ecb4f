"""Fast conversion of other writers' equality deletes (self-optimizing.eq-delete.max-age-ms,
docs/self-optimizing.md): Iceberg Java writes Flink-style upserts (key-only equality deletes
plus inserts, one RowDelta per commit) to tables in `floe server`'s REST catalog; with the
property set, the server converts every equality-delete file into per-file position deletes
(v2) or deletion vectors (v3) within the configured age of its commit, so that pyiceberg,
which refuses any live equality delete, reads the table, and reads exactly what Iceberg
Java reads of the same snapshot. A table without the property keeps its equality deletes.
"""

from __future__ import annotations

import json
import time

import pytest
from pyiceberg.catalog.rest import RestCatalog

import iceberg_java
from floe_server import FloeServer

MAX_AGE_MS = 10_000
SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2], "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "cat", "required": True, "type": "string"},
    {"id": 3, "name": "v", "required": False, "type": "long"}]}
SPEC = {"spec-id": 0, "fields": [
    {"name": "cat", "transform": "identity", "source-id": 2, "field-id": 1000}]}
CATS = ["a", "b", "c"]
# Only the conversion may touch these tables: the regular triggers stay off.
QUIET = {"self-optimizing.minor.trigger.interval": "-1",
         "self-optimizing.minor.trigger.file-count": "1000"}


def row(i: int, v: int) -> dict:
    return {"id": i, "cat": CATS[i % 3], "v": v}


def sorted_rows(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    # A long refresh: tables are seen through their commit events, as REST catalog tables are.
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-eqconvert"), optimizer=True,
                    extra_args=["--optimizer-refresh-ms", "600000"]) as s:
        yield s


def writer_snapshot(table):
    """The newest snapshot the Java writer committed (not a conversion)."""
    mine = [s for s in table.metadata.snapshots
            if (s.summary or {}).get("snapshot-producer") != "OPTIMIZE"]
    return max(mine, key=lambda s: s.sequence_number)


def read_with_pyiceberg(cat, name: str, deadline: float, server):
    """(rows, snapshot id, wall time of success) of the first successful pyiceberg read:
    pyiceberg raises on any live equality delete, so this waits for the conversion."""
    last = None
    while time.time() < deadline:
        t = cat.load_table(name)
        try:
            arrow = t.scan().to_arrow()
            return iceberg_java.canonical_rows(arrow), t.current_snapshot().snapshot_id, time.time()
        except (ValueError, NotImplementedError) as e:
            if "equality deletes" not in str(e):
                raise
            last = e
        time.sleep(0.1)
    raise AssertionError(f"pyiceberg still refuses {name} at the deadline: {last}; server log:\n"
                         f"{server.log_text()[-4000:]}")


@pytest.mark.parametrize("version", [2, 3])
def test_java_upserts_become_readable_by_pyiceberg(server, tmp_path, version):
    harness = iceberg_java.build_harness()
    java = harness.rest_catalog(server.uri)
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    on, off = f"eqc.on{version}", f"eqc.off{version}"
    base = [row(i, i) for i in range(30)]
    rounds = [
        [row(2, 200), row(4, 400), row(30, 3000)],  # upserts, one new key
        [row(2, 201), row(5, 500), row(31, 3100)],  # the same key again: a later sequence
        [row(7, 700), row(30, 3001), row(8, 800)],
    ]

    def write(path, rows):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(path)

    # The table without the property gets the same commits, in one JVM.
    props = [a for k, v in QUIET.items() for a in ("--property", f"{k}={v}")]
    argvs = []
    for name, extra in ((on, ["--property", f"self-optimizing.eq-delete.max-age-ms={MAX_AGE_MS}"]),
                        (off, [])):
        argvs.append(java.argv("create", name, "--schema-json", json.dumps(SCHEMA),
                               "--spec-json", json.dumps(SPEC), "--format-version", version,
                               *props, *extra))
        argvs.append(java.argv("append", name, "--rows-json", write(tmp_path / "base.jsonl", base)))
    for i, rows in enumerate(rounds):
        argvs.append(java.argv("upsert", off, "--key", "id,cat", "--rows-json",
                               write(tmp_path / f"off-{i}.jsonl", rows)))
    harness.batch(argvs)

    model = {r["id"]: r for r in base}
    latencies = []
    for i, rows in enumerate(rounds):
        java.upsert(on, ["id", "cat"], rows)
        model.update({r["id"]: r for r in rows})
        committed = writer_snapshot(cat.load_table(on))
        assert (committed.summary or {}).get("added-equality-delete-files", "0") != "0"
        commit_s = committed.timestamp_ms / 1000
        got, snapshot_id, ok_at = read_with_pyiceberg(
            cat, on, commit_s + MAX_AGE_MS / 1000 + 20, server)
        latency_ms = (ok_at - commit_s) * 1000
        latencies.append(round(latency_ms))
        assert latency_ms <= MAX_AGE_MS, (
            f"round {i}: readable {latency_ms:.0f} ms after the commit (max age {MAX_AGE_MS})")
        # Exactly what Iceberg Java reads of the same snapshot (and its files), in one JVM.
        lines = harness.batch([java.argv("scan", on, "--snapshot-id", snapshot_id),
                               java.argv("files", on, "--snapshot-id", snapshot_id)])
        java_rows = [json.loads(line) for line in lines[:-1]]
        files = json.loads(lines[-1])
        iceberg_java.assert_same_rows(sorted_rows(java_rows), sorted_rows(got), f"round {i}")
        iceberg_java.assert_same_rows(sorted_rows(model.values()), sorted_rows(got),
                                      f"round {i} model")
        assert not [f for f in files if f["content"] == "equality_deletes"], files
        # Per-file deletes only: one DV per data file (v3), file-scoped files (v2).
        deletes = [f for f in files if f["content"] == "position_deletes"]
        assert deletes, files
        targets = [f["file_scoped_to"] for f in deletes]
        assert None not in targets, deletes
        assert len(targets) == len(set(targets)), f"two per-file deletes for one data file: {deletes}"
        if version >= 3:
            assert all(f["format"] == "puffin" for f in deletes), deletes
        # No data file was rewritten: the conversions only replaced delete files.
        t = cat.load_table(on)
        conversions = [s for s in t.metadata.snapshots
                       if (s.summary or {}).get("floe.optimizing.type") == "convert"]
        assert conversions, "no conversion snapshot"
        for s in conversions:
            props = s.summary.additional_properties
            assert props.get("added-data-files", "0") == "0", props
            assert props.get("deleted-data-files", "0") == "0", props
    print(f"v{version} conversion latencies (ms after each commit): {latencies}")

    # Without the property the equality deletes stay (the regular triggers are off): after
    # all the time the other table took, pyiceberg still refuses it.
    t = cat.load_table(off)
    with pytest.raises((ValueError, NotImplementedError), match="equality deletes"):
        t.scan().to_arrow()
    assert not [s for s in t.metadata.snapshots
                if (s.summary or {}).get("snapshot-producer") == "OPTIMIZE"]


CDC_SCHEMA = {
    "type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2], "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "part", "required": True, "type": "int"},
        {"id": 3, "name": "v", "required": False, "type": "string"},
        {"id": 4, "name": "seq", "required": False, "type": "long"}]}
CDC_SPEC = {"fields": [{"name": "part", "transform": "identity", "source-id": 2}]}
RACE_MAX_AGE_MS = 2000


def model_rows(path) -> list[tuple]:
    return sorted((r["id"], r["part"], r["v"], r["seq"])
                  for r in map(json.loads, path.read_text().splitlines()))


def as_tuples(rows) -> list[tuple]:
    return sorted((int(r["id"]), int(r["part"]), r["v"], int(r["seq"])) for r in rows)


@pytest.mark.parametrize("version", [2, 3])
def test_conversions_racing_a_java_upsert_job(server, tmp_path, version):
    """Iceberg Java's `cdc-loop` commits upserts and deletes every ~250 ms (unvalidated
    RowDeltas, as Flink's committer) while the server converts their equality deletes
    (max age 2 s): the loop reads the table after each of its commits, and every conversion
    snapshot it sees at that snapshot, and fails on any lost, stale or resurrected row. After
    it stops, pyiceberg reads the final model within the max age."""
    harness = iceberg_java.build_harness()
    java = harness.rest_catalog(server.uri)
    name = f"eqc.race{version}"
    java.create(name, CDC_SCHEMA, CDC_SPEC, format_version=version, properties={
        **QUIET, "self-optimizing.eq-delete.max-age-ms": str(RACE_MAX_AGE_MS)})
    models = tmp_path / "models"
    out = java.run("cdc-loop", name, "--keys", 600, "--partitions", 3, "--commits", 24,
                   "--ops-per-commit", 80, "--delete-ratio", "0.25", "--pause-ms", 250,
                   "--seed", version, "--model-dir", models, timeout=900)
    result = json.loads(out)
    conversions = [s for s in result["foreign_snapshots"] if s["process_id"] is not None]
    print(f"v{version}: {len(result['commits'])} writer commits, {len(conversions)} conversions "
          f"seen during the run")
    assert len(conversions) >= 2, (result["foreign_snapshots"], server.log_text()[-4000:])

    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    last = writer_snapshot(cat.load_table(name))
    got, snapshot_id, ok_at = read_with_pyiceberg(
        cat, name, last.timestamp_ms / 1000 + RACE_MAX_AGE_MS / 1000 + 20, server)
    del ok_at
    # The loop's own checks and JVM exit take a while after its last commit, so the time of
    # this first read says little: the latency is the commit time of the first snapshot after
    # the last writer commit without equality deletes, which pyiceberg must read.
    t = cat.load_table(name)
    clean = min((s for s in t.metadata.snapshots
                 if s.sequence_number > last.sequence_number and
                 s.summary.additional_properties.get("total-equality-deletes") == "0"),
                key=lambda s: s.sequence_number)
    latency_ms = clean.timestamp_ms - last.timestamp_ms
    print(f"v{version}: equality deletes gone {latency_ms} ms after the last writer commit")
    assert latency_ms <= RACE_MAX_AGE_MS, latency_ms
    at_clean = iceberg_java.canonical_rows(t.scan(snapshot_id=clean.snapshot_id).to_arrow())
    final = model_rows(models / "final.jsonl")
    assert as_tuples(at_clean) == final
    assert as_tuples(got) == final
    assert as_tuples(java.scan(name, snapshot_id=snapshot_id)) == final
    # Every conversion committed, also those after the loop, reads its writer ancestor's model.
    snaps = {s["snapshot_id"]: s for s in java.snapshots(name)["snapshots"]}

    def writer_model(sid):
        while sid is not None:
            path = models / f"{sid}.jsonl"
            if path.exists():
                return model_rows(path)
            sid = snaps[sid]["parent_id"]
        raise AssertionError("no writer ancestor")

    converted = [s for s in snaps.values()
                 if s["summary"].get("floe.optimizing.type") == "convert"]
    # Sampled (a JVM per read): the first, the middle and the last conversion.
    sample = sorted(converted, key=lambda s: s["sequence_number"])
    for s in {id(x): x for x in (sample[0], sample[len(sample) // 2], sample[-1])}.values():
        assert as_tuples(java.scan(name, snapshot_id=s["snapshot_id"])) == \
            writer_model(s["snapshot_id"]), s

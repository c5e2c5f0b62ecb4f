"""Bounded metadata (issue 20). floe merges manifests on commit as Iceberg Java's MergeAppend
and MergingSnapshotProducer do: the same sequence of appends and upserts, committed by Iceberg
Java 1.10.1 to one table and by `floe table` to another with the same properties, leaves the
same number of data and delete manifests after every commit (counted with fastavro from each
manifest list), and Iceberg Java reads floe's table exactly. A table topic committing many
times keeps its metadata folder, its manifests per snapshot and its snapshots bounded, and
pyiceberg reads every produced row once."""

from __future__ import annotations

import json
import os
import time
import uuid
from urllib.parse import urlparse

import pytest

fastavro = pytest.importorskip("fastavro")

CATALOG_NAME = "default"
SCHEMA_JSON = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "v", "required": False, "type": "string"}]}
MERGE_PROPERTIES = {"commit.manifest.min-count-to-merge": "4"}


def local_path(location: str) -> str:
    return urlparse(location).path if location.startswith("file:") else location


def manifest_counts(manifest_list: str) -> tuple[int, int]:
    """(data manifests, delete manifests) of a manifest list."""
    with open(local_path(manifest_list), "rb") as f:
        contents = [r.get("content", 0) for r in fastavro.reader(f)]
    return contents.count(0), contents.count(1)


def test_manifest_counts_match_iceberg_java(tmp_path, floe):
    ij = pytest.importorskip("iceberg_java")
    harness = ij.build_harness()
    db, wh = tmp_path / "catalog.db", tmp_path / "wh"
    wh.mkdir()
    java = harness.catalog(f"jdbc:sqlite:{db}", CATALOG_NAME, str(wh))
    java.create("db.java_t", SCHEMA_JSON, None, format_version=2, properties=MERGE_PROPERTIES)
    java.create("db.floe_t", SCHEMA_JSON, None, format_version=2, properties=MERGE_PROPERTIES)
    flags = ["--catalog", f"sqlite:{db}", "--warehouse", str(wh)]

    appends = [[{"id": i, "v": f"a{i}"}] for i in range(10)]
    upserts = [[{"id": c, "v": f"u{c}"}, {"id": c + 1, "v": f"u{c}"}] for c in range(0, 16, 2)]
    model = {}
    for chunk in appends + upserts:
        model.update({r["id"]: r for r in chunk})

    # Iceberg Java: one JVM for every commit; the counts after each come from its snapshots.
    argvs = []
    for i, chunk in enumerate(appends):
        path = tmp_path / f"java_a{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in chunk))
        argvs.append(java.argv("append", "db.java_t", "--rows-json", str(path)))
    ups = tmp_path / "java_u.jsonl"
    ups.write_text("".join(json.dumps(r) + "\n" for chunk in upserts for r in chunk))
    argvs.append(java.argv("upsert", "db.java_t", "--key", "id", "--rows-json", str(ups),
                           "--commits", str(len(upserts))))
    outs = harness.batch(argvs)
    java_lists = [json.loads(o)["manifest_list"] for o in outs[:len(appends)]]
    java_lists += [s["manifest_list"] for s in json.loads(outs[-1])["snapshots"]]
    java_counts = [manifest_counts(p) for p in java_lists]

    floe_counts = []
    for i, chunk in enumerate(appends + upserts):
        path = tmp_path / f"floe_{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in chunk))
        verb = "append" if i < len(appends) else "upsert"
        extra = ["--key", "id"] if verb == "upsert" else []
        floe.ok("table", verb, "db.floe_t", str(path), *extra, *flags)
        snaps = java.snapshots("db.floe_t")
        current = next(s for s in snaps["snapshots"]
                       if s["snapshot_id"] == snaps["current_snapshot_id"])
        floe_counts.append(manifest_counts(current["manifest_list"]))

    # Java merges at 4 manifests: 1, 2, 3, then one merged manifest, and so on; delete
    # manifests merge on their own.
    print(f"(data, delete) manifests after each commit, Iceberg Java: {java_counts}")
    assert floe_counts == java_counts, (floe_counts, java_counts)
    assert max(d for d, _ in java_counts) < 4 and max(x for _, x in java_counts) < 4
    assert any(d == 1 for d, _ in java_counts[1:])  # merging happened

    expected = sorted(model.values(), key=lambda r: r["id"])
    ij.assert_same_rows(expected, java.scan("db.floe_t"), "Iceberg Java reading floe's table")
    ij.assert_same_rows(expected, java.scan("db.java_t"), "Iceberg Java reading its own table")


def test_table_topic_metadata_stays_bounded(floe, tmp_path):
    pytest.importorskip("confluent_kafka")
    pytest.importorskip("pyiceberg")
    from confluent_kafka import Producer
    from pyiceberg.catalog.rest import RestCatalog

    from floe_server import FloeServer
    from kafka_topics import create_topic, wait_for_table_rows

    commits = 30
    with FloeServer(floe.path, tmp_path / "data", kafka=True, optimizer=True,
                    config={"optimizer": {"maintenance-interval-ms": 0}}) as server:
        topic = f"bounded_{uuid.uuid4().hex[:8]}"
        create_topic(server.kafka_bootstrap, topic, partitions=1,
                     config={"floe.table.topic.enable": "true",
                             "floe.table.topic.commit.interval.ms": "1000",
                             "floe.table.topic.convert.value.type": "json",
                             "floe.table.topic.transform.value.type": "flatten"})
        producer = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
        table_name = f"kafka.{topic}"
        cat = RestCatalog("floe", uri=server.uri, warehouse="default")
        for i in range(commits):
            producer.produce(topic, value=json.dumps({"id": i}).encode())
            assert producer.flush(30) == 0
            wait_for_table_rows(server.uri, table_name, i + 1, 60, server.log_text)
            if i == 0:
                t = cat.load_table(table_name)
                # floe's defaults for a table topic's table.
                assert t.properties["write.metadata.delete-after-commit.enabled"] == "true"
                assert t.properties["write.metadata.previous-versions-max"] == "20"
                assert t.properties["commit.manifest.min-count-to-merge"] == "10"
                with t.transaction() as tx:
                    tx.set_properties({"snapshot.keep.max-count": "10"})

        def state():
            t = cat.load_table(table_name)
            folder = os.path.dirname(local_path(t.metadata_location))
            names = os.listdir(folder)
            data, deletes = manifest_counts(t.current_snapshot().manifest_list)
            return t, names, data + deletes

        deadline = time.monotonic() + 60
        while True:
            t, names, manifests = state()
            if len(t.metadata.snapshots) <= 11 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        rows = t.scan().to_arrow().to_pylist()
        metadata_json = [n for n in names if n.endswith(".metadata.json")]
        print(f"after {commits} commits: {len(names)} files in the metadata folder, "
              f"{len(metadata_json)} metadata.json, {manifests} manifests in the current "
              f"snapshot, {len(t.metadata.snapshots)} snapshots")
        assert sorted(r["id"] for r in rows) == list(range(commits))
        # The metadata log keeps 20 entries; older files are deleted after each commit.
        assert len(metadata_json) <= 21 + 2, sorted(metadata_json)
        assert manifests <= 12
        assert len(t.metadata.snapshots) <= 11, server.log_text()[-3000:]
        # Manifest lists and manifests of expired snapshots go with them.
        assert len(names) <= 100, sorted(names)


def test_maintenance_deletes_metadata_files_a_rest_writer_leaves(floe, tmp_path):
    """pyiceberg commits through the REST catalog to a table that does not set
    write.metadata.delete-after-commit.enabled: maintenance deletes the metadata files its
    log no longer lists, and every logged file stays readable."""
    pytest.importorskip("pyiceberg")
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog

    from floe_server import FloeServer

    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    config={"optimizer": {"maintenance-interval-ms": 0}}) as server:
        cat = RestCatalog("floe", uri=server.uri, warehouse="default")
        cat.create_namespace("db")
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
        t = cat.create_table("db.t", schema, properties={
            "write.metadata.previous-versions-max": "5", "self-optimizing.enabled": "false"})
        for i in range(20):
            t.append(pa.table({"id": [i]}, schema=schema))
        folder = os.path.dirname(local_path(t.metadata_location))

        def metadata_files():
            return sorted(n for n in os.listdir(folder) if n.endswith(".metadata.json"))

        deadline = time.monotonic() + 60
        while len(metadata_files()) > 6 and time.monotonic() < deadline:
            time.sleep(0.3)
        t = cat.load_table("db.t")
        kept = {os.path.basename(local_path(e.metadata_file)) for e in t.metadata.metadata_log}
        kept.add(os.path.basename(local_path(t.metadata_location)))
        assert set(metadata_files()) == kept, server.log_text()[-3000:]
        assert len(kept) == 6
        assert sorted(r["id"] for r in t.scan().to_arrow().to_pylist()) == list(range(20))

"""Keyed table topics in position mode (issue 21, docs/table-topics.md "Delete modes"): a
Debezium-style stream of creates, updates, deletes and re-creates (JSON envelopes, and Avro
envelopes through floe's schema registry as Debezium's Avro converter writes them) lands with position deletes
(v2) or deletion vectors (v3) found in floe's key index, never an equality delete. At *every*
snapshot of the table, including the optimizer's rewrites made while the stream runs, pyiceberg
(which refuses equality deletes), Iceberg Java's generic reader (which refuses two deletion
vectors for one data file) and `floe table scan` read exactly the model of the records that
snapshot's offsets cover. The same holds across
kill -9 of the server with the key index deleted (rebuilt from the table), and with another
writer (Iceberg Java deleting rows through the REST catalog) committing between the rounds.
"""
from __future__ import annotations

import json
import random
import shutil
import time
import urllib.request
import uuid

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import Producer  # noqa: E402
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic  # noqa: E402

DEADLINE_SECONDS = 90
PARTITIONS = 2


# Debezium's envelope as its Avro converter writes it: nullable before / after row records.
ENVELOPE_AVRO = json.dumps({
    "type": "record", "name": "Envelope", "namespace": "floe.it.pos", "fields": [
        {"name": "before", "type": ["null", {"type": "record", "name": "Value", "fields": [
            {"name": "id", "type": "long"}, {"name": "v", "type": "string"}]}],
         "default": None},
        {"name": "after", "type": ["null", "Value"], "default": None},
        {"name": "op", "type": "string"}]})


def topic_config(version: str, fmt: str = "json") -> dict:
    return {"floe.table.topic.enable": "true",
            "floe.table.topic.commit.interval.ms": "1000",
            "floe.table.topic.convert.value.type": "json" if fmt == "json" else "by_schema_id",
            "floe.table.topic.transform.value.type": "flatten_debezium",
            "floe.table.topic.id.columns": "[id]",
            "floe.table.topic.format.version": version}


class Stream:
    """Debezium envelopes over a key space, keyed by id (a key stays in one partition), and
    every record sent, to replay the model of any prefix of the log."""

    def __init__(self, bootstrap: str, topic: str, seed: int, serialize=None):
        self.bootstrap = bootstrap
        self.topic = topic
        # The value's bytes (JSON text by default; Confluent-framed Avro for registry topics).
        self.serialize = serialize or (lambda env: json.dumps(env).encode())
        # Per partition: offset -> envelope, from the delivery reports.
        self.log: dict[int, dict[int, dict]] = {}
        self.rng = random.Random(seed)
        self.live: dict[int, dict] = {}
        self.sent: list[tuple[int, dict]] = []  # (key, envelope) in send order
        # Rows deleted by another writer: (key, the partition ends its snapshot holds, its
        # snapshot id).
        self.external: list[tuple[int, dict[int, int], int]] = []

    def round(self, n: int, keys: int, tag: str) -> None:
        p = Producer({"bootstrap.servers": self.bootstrap, "enable.idempotence": True,
                      "acks": "all", "linger.ms": 5, "message.timeout.ms": 120000})
        for _ in range(n):
            key = self.rng.randrange(keys)
            before = self.live.get(key)
            if before is not None and self.rng.random() < 0.25:
                env = {"before": before, "after": None, "op": "d"}
                del self.live[key]
            else:
                after = {"id": key, "v": f"{tag}-{self.rng.randrange(10**6)}"}
                env = {"before": before, "after": after, "op": "u" if before else "c"}
                self.live[key] = after
            p.produce(self.topic, key=str(key).encode(), value=self.serialize(env),
                      on_delivery=lambda err, msg, env=env: err is None and self.log.setdefault(
                          msg.partition(), {}).__setitem__(msg.offset(), env))
            self.sent.append((key, env))
        assert p.flush(60) == 0
        assert sum(len(m) for m in self.log.values()) == len(self.sent)


def parse_ends(summary_value: str) -> dict[int, int]:
    """floe.ingest.offsets "p:start-end,...": the end offset per partition."""
    ends = {}
    for part in summary_value.split(","):
        p, rng = part.split(":")
        ends[int(p)] = int(rng.split("-")[1])
    return ends


def model_at(log: dict[int, list[dict]], ends: dict[int, int],
             external: list[tuple[int, dict[int, int]]]) -> dict[int, str]:
    """id -> v of the rows live after the records below `ends`, with the external deletes
    (key, partition ends when it committed) applied where they happened in the log."""
    live: dict[int, str] = {}
    # A key's records are all in one partition (keyed by id): its external deletes apply there.
    partition_of = {((r["value"].get("after") or r["value"].get("before"))["id"]): part
                    for part, records in log.items() for r in records}
    for part, records in log.items():
        end = ends.get(part, 0)
        deletes = sorted((e.get(part, 0), key) for key, e in external
                         if partition_of.get(key) == part)
        di = 0
        for r in records:
            if r["offset"] >= end:
                break
            while di < len(deletes) and deletes[di][0] <= r["offset"]:
                live.pop(deletes[di][1], None)
                di += 1
            env = r["value"]
            after = env.get("after")
            key = (after or env.get("before"))["id"]
            if env["op"] == "d":
                live.pop(key, None)
            else:
                live[key] = after["v"]
        while di < len(deletes):
            live.pop(deletes[di][1], None)
            di += 1
    return live


def snapshot_ends(table) -> dict[int, dict[int, int]]:
    """Per snapshot id: the partition ends of the newest ingest commit among it and its
    ancestors (an optimizer rewrite or an external commit holds what its parent held)."""
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
    out: dict[int, dict[int, int]] = {}
    for s in table.metadata.snapshots:
        cur = s
        while cur is not None:
            v = (cur.summary.additional_properties or {}).get("floe.ingest.offsets") \
                if cur.summary else None
            if v:
                out[s.snapshot_id] = parse_ends(v)
                break
            cur = by_id.get(cur.parent_snapshot_id) if cur.parent_snapshot_id else None
        else:
            out[s.snapshot_id] = {}
    return out


def wait_caught_up(server, topic: str, produced: int) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    body = {}
    while time.monotonic() < deadline:
        status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
        if status == 200 and body["records"] >= produced and body["translation-lag-offsets"] == 0:
            return
        time.sleep(0.2)
    raise AssertionError(f"{topic} not caught up: {body}; {server.log_text()[-3000:]}")


def check_every_snapshot(floe, server, topic: str, stream: Stream, version: int) -> int:
    """Every snapshot read by pyiceberg, Iceberg Java and floe equals its model, with no
    equality delete anywhere. Returns the snapshots checked."""
    iceberg_java = pytest.importorskip("iceberg_java")
    java = iceberg_java.build_harness().rest_catalog(server.uri)
    name = f"kafka.{topic}"
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    table = cat.load_table(name)
    assert table.format_version == version
    log = {part: [{"offset": o, "value": env} for o, env in sorted(m.items())]
           for part, m in stream.log.items()}
    ends = snapshot_ends(table)
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}

    def ancestors(snapshot_id):
        while snapshot_id is not None and snapshot_id in by_id:
            yield snapshot_id
            snapshot_id = by_id[snapshot_id].parent_snapshot_id

    for s in table.metadata.snapshots:
        lineage = set(ancestors(s.snapshot_id))
        external = [(key, e) for key, e, sid in stream.external if sid in lineage]
        want = model_at(log, ends[s.snapshot_id], external)
        what = f"snapshot {s.snapshot_id} ({s.summary.operation if s.summary else '?'})"
        for t in table.scan(snapshot_id=s.snapshot_id).plan_files():
            kinds = [d.content.name for d in t.delete_files]
            assert "EQUALITY_DELETES" not in kinds, (what, kinds)
        readers = {
            "pyiceberg": table.scan(snapshot_id=s.snapshot_id, selected_fields=("id", "v"))
            .to_arrow().to_pylist(),
            "iceberg-java": java.scan(name, snapshot_id=s.snapshot_id, columns=["id", "v"]),
        }
        out = floe.run("table", "scan", "--catalog", f"rest:{server.uri}", name,
                       "--snapshot", str(s.snapshot_id), "--columns", "id", "v")
        assert out.rc == 0, out.stderr
        readers["floe"] = [json.loads(line) for line in out.stdout.decode().splitlines()
                           if line.strip()]
        for reader, rows in readers.items():
            got = {r["id"]: r["v"] for r in rows}
            assert len(got) == len(rows), f"{reader}, {what}: a key is live twice"
            assert got == want, (f"{reader}, {what}: only in the table "
                                 f"{ {k: v for k, v in got.items() if want.get(k) != v} }, "
                                 f"only in the model { {k: v for k, v in want.items() if got.get(k) != v} }")
    return len(table.metadata.snapshots)


def metric(server, name: str) -> float:
    with urllib.request.urlopen(server.uri + "/metrics") as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


def fast_optimizing(server, topic: str) -> None:
    """Small-file rewrites every few commits while the stream runs."""
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        try:
            table = cat.load_table(f"kafka.{topic}")
            break
        except Exception:  # noqa: BLE001 - created by the first commit
            assert time.monotonic() < deadline
            time.sleep(0.2)
    with table.transaction() as tx:
        tx.set_properties({"self-optimizing.minor.trigger.file-count": "3",
                           "self-optimizing.minor.trigger.interval": "-1",
                           "self-optimizing.min-plan-interval": "0"})


@pytest.mark.parametrize("version,fmt", [(2, "json"), (3, "json"), (3, "avro")])
def test_every_snapshot_is_readable_by_pyiceberg_with_the_optimizer_running(floe, tmp_path,
                                                                           version, fmt):
    with FloeServer(floe.path, tmp_path / "data", kafka=True, optimizer=True) as server:
        topic = f"pos{version}{fmt}_{uuid.uuid4().hex[:6]}"
        create_topic(server.kafka_bootstrap, topic, partitions=PARTITIONS,
                     config=topic_config(str(version), fmt))
        serialize = None
        if fmt == "avro":
            from confluent_kafka.schema_registry import SchemaRegistryClient
            from confluent_kafka.schema_registry.avro import AvroSerializer
            from confluent_kafka.serialization import MessageField, SerializationContext
            ser = AvroSerializer(SchemaRegistryClient({"url": server.schema_registry_uri}),
                                 ENVELOPE_AVRO)
            ctx = SerializationContext(topic, MessageField.VALUE)
            serialize = lambda env: ser(env, ctx)  # noqa: E731
        stream = Stream(server.kafka_bootstrap, topic, seed=version, serialize=serialize)
        stream.round(150, 40, "r0")
        wait_caught_up(server, topic, len(stream.sent))
        fast_optimizing(server, topic)
        for r in range(1, 7):
            stream.round(120, 40, f"r{r}")
            wait_caught_up(server, topic, len(stream.sent))
        checked = check_every_snapshot(floe, server, topic, stream, version)
        assert checked >= 6
        table = RestCatalog("floe", uri=server.uri, warehouse="default") \
            .load_table(f"kafka.{topic}")
        ops = [s.summary.operation.value for s in table.metadata.snapshots if s.summary]
        assert "replace" in ops, f"the optimizer never rewrote the table: {ops}"
        rows = table.scan(selected_fields=("id", "v")).to_arrow().to_pylist()
        assert {r["id"]: r["v"] for r in rows} == {k: v["v"] for k, v in stream.live.items()}
        assert metric(server, "floe_key_index_memory_bytes") > 0
        status, overview, _ = server.request("GET", "/api/v1/overview")
        assert status == 200
        index = overview["key-index"]
        assert 0 < index["memory-bytes"] <= index["memory-limit-bytes"] == 256 << 20
        assert index["entries"] > 0


def test_kill_9_with_the_key_index_lost_and_an_external_writer(floe, tmp_path):
    data = tmp_path / "data"
    server = FloeServer(floe.path, data, kafka=True)
    server.start()
    try:
        topic = f"posk_{uuid.uuid4().hex[:6]}"
        create_topic(server.kafka_bootstrap, topic, partitions=PARTITIONS,
                     config=topic_config("3"))
        stream = Stream(server.kafka_bootstrap, topic, seed=11)
        stream.round(200, 50, "r0")
        wait_caught_up(server, topic, len(stream.sent))
        stream.round(150, 50, "r1")
        # Killed mid-stream: the round may be partly committed.
        server.kill()
        shutil.rmtree(data / "key-index")
        server.start()
        wait_caught_up(server, topic, len(stream.sent))
        assert metric(server, "floe_key_index_rebuilds_total") >= 1
        # Another writer: Iceberg Java deletes the rows of two live keys (deletion vectors
        # merged with floe's), between two rounds.
        iceberg_java = pytest.importorskip("iceberg_java")
        java = iceberg_java.build_harness().rest_catalog(server.uri)
        cat = RestCatalog("floe", uri=server.uri, warehouse="default")
        for key in sorted(stream.live)[:2]:
            java.delete_where(f"kafka.{topic}", "id", key)
            table = cat.load_table(f"kafka.{topic}")
            current = table.current_snapshot()
            assert current.summary.operation.value in ("delete", "overwrite")
            ends = snapshot_ends(table)[current.snapshot_id]
            stream.external.append((key, ends, current.snapshot_id))
            del stream.live[key]
        stream.round(150, 50, "r2")
        wait_caught_up(server, topic, len(stream.sent))
        assert metric(server, "floe_key_index_catch_ups_total") >= 1
        check_every_snapshot(floe, server, topic, stream, 3)
        rows = java.scan(f"kafka.{topic}", columns=["id", "v"])
        assert {r["id"]: r["v"] for r in rows} == {k: v["v"] for k, v in stream.live.items()}
    finally:
        server.stop()

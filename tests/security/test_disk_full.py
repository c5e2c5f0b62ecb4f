"""A full disk (issue 19 §4): `floe server` on a small tmpfs data directory, filled to the last
byte. Every write path answers a clear error (REST 507, Kafka KAFKA_STORAGE_ERROR), nothing
acknowledged is lost, the service resumes by itself once space is freed, and a kill -9 while
the disk is full leaves a data directory the server starts from. Needs root for the tmpfs
mount (as CI runs); a failed mount is an error, not a skip."""

from __future__ import annotations

import errno
import os
import subprocess
import uuid
from pathlib import Path

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from pyiceberg.catalog.rest import RestCatalog

from floe_server import FloeServer

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string())])
KAFKA_STORAGE_ERROR = 56


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cannot mount a tmpfs for the disk-full test: {done.stderr}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    """Writes a file until the file system has no byte left."""
    filler = directory / "filler.bin"
    chunk = b"\0" * (1 << 16)
    with open(filler, "wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
                break
        # The last partial chunk: byte by byte.
        while True:
            try:
                f.write(b"\0")
            except OSError:
                break
    return filler


def produce(bootstrap: str, topic: str, values: list[bytes], timeout: float = 20):
    """(delivered values, delivery errors)."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                  "message.timeout.ms": int(timeout * 1000), "retries": 0})
    delivered, errors = [], []
    for v in values:
        p.produce(topic, v, on_delivery=lambda err, msg: errors.append(err) if err
                  else delivered.append(msg.value()))
    p.flush(timeout + 10)
    return delivered, errors


def read_all(bootstrap: str, topic: str) -> list[bytes]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    low, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.assign([TopicPartition(topic, 0, low)])
    got = []
    while len(got) < high - low:
        m = c.poll(10)
        assert m is not None, f"{len(got)} of {high - low} read"
        assert m.error() is None, m.error()
        got.append(m.value())
    c.close()
    return got


def test_full_disk_refuses_writes_clearly_and_recovers(floe, small_disk):
    data = small_disk / "data"
    server = FloeServer(floe.path, data, kafka=True)
    server.start()
    try:
        cat = RestCatalog("floe", uri=server.uri, warehouse="default")
        cat.create_namespace("db")
        table = cat.create_table("db.t", SCHEMA)
        table.append(pa.table({"id": [1, 2], "name": ["a", "b"]}, schema=SCHEMA))
        delivered, errors = produce(server.kafka_bootstrap, "events", [b"e1", b"e2"])
        assert (delivered, errors) == ([b"e1", b"e2"], [])

        filler = fill(small_disk)
        # REST: 507 InsufficientStorage (nothing stored), never a 500.
        status, body, _ = server.request("POST", "/v1/default/namespaces/db/tables",
                                         {"name": "full", "schema": {
                                             "type": "struct", "schema-id": 0, "fields": [
                                                 {"id": 1, "name": "id", "type": "long",
                                                  "required": True}]}})
        assert status in (507, 503), (status, body)
        assert "Exception" in body["error"]["type"]
        with pytest.raises(Exception) as appended:
            cat.load_table("db.t").append(pa.table({"id": [3], "name": ["c"]}, schema=SCHEMA))
        assert "500" not in str(appended.value)
        # Kafka: KAFKA_STORAGE_ERROR, not acked. (Large enough to need new pages: a few bytes
        # may still fit in the segment's last page, and are then stored and acked rightly.)
        delivered, errors = produce(server.kafka_bootstrap, "events", [b"L" * 300_000],
                                    timeout=8)
        assert delivered == []
        assert errors and all(e.code() in (KafkaError.KAFKA_STORAGE_ERROR,
                                           KafkaError._MSG_TIMED_OUT) for e in errors), errors
        # A topic auto-created now leaves nothing half-made.
        produce(server.kafka_bootstrap, "born-full", [b"x"], timeout=6)
        assert server.request("GET", "/health")[0] == 200

        # Space freed: the same process takes writes again.
        filler.unlink()
        t = cat.load_table("db.t")
        t.append(pa.table({"id": [3], "name": ["c"]}, schema=SCHEMA))
        assert sorted(r["id"] for r in cat.load_table("db.t").scan().to_arrow().to_pylist()) \
            == [1, 2, 3]
        delivered, errors = produce(server.kafka_bootstrap, "events", [b"e3"])
        assert (delivered, errors) == ([b"e3"], [])

        # kill -9 while the disk is full, with a topic being created: the server starts again
        # once space is back, every acked record and row intact.
        filler = fill(small_disk)
        produce(server.kafka_bootstrap, "born-full-2", [b"x"], timeout=4)
        server.kill()
        filler.unlink()
        server.start()
        assert read_all(server.kafka_bootstrap, "events") == [b"e1", b"e2", b"e3"]
        cat = RestCatalog("floe", uri=server.uri, warehouse="default")
        assert sorted(r["id"] for r in cat.load_table("db.t").scan().to_arrow().to_pylist()) \
            == [1, 2, 3]
        leftovers = [p for p in data.rglob("*.tmp")]
        assert leftovers == [], leftovers
        delivered, errors = produce(server.kafka_bootstrap, "born-full-2", [b"later"])
        assert (delivered, errors) == ([b"later"], [])
    finally:
        server.stop()
    assert os.path.isdir(data)

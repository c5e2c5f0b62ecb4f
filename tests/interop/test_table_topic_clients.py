"""Every Debian and PyPI Kafka client against table topics (issue 6): kcat (librdkafka from
Debian), confluent-kafka and kafka-python each produce JSON records to a table topic with
acks=all, read them back through Fetch with the same client, and the table — read by
pyiceberg and by `floe table scan` — holds exactly those records (values, keys, offsets).
The Java client, Kafka's console tools and kafkajs are in tests/interop_heavy."""
from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
kafka = pytest.importorskip("kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import (JSON_TABLE_TOPIC as TOPIC_CONFIG, create_topic,  # noqa: E402
                          floe_scan, wait_for_table_rows)

N = 200


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("ttc") / "data", kafka=True) as s:
        yield s


def records(client: str) -> list[tuple[str, str]]:
    """(key, JSON value) pairs; the values are what the table must hold."""
    return [(f"{client}-{i}",
             json.dumps({"id": i, "client": client, "text": f"row {i} \u00e9", "n": i * 7}))
            for i in range(N)]


def check_table(floe, server, topic: str, client: str, sent: list[tuple[str, str]]):
    table = f"kafka.{topic}"
    want = sorted((key, json.loads(value)["id"], client, json.loads(value)["text"],
                   json.loads(value)["n"], offset) for offset, (key, value) in enumerate(sent))
    rows = wait_for_table_rows(server.uri, table, N, context=server.log_text)
    got = sorted((r["_kafka"]["key"], r["id"], r["client"], r["text"], r["n"],
                  r["_kafka"]["offset"]) for r in rows)
    assert got == want
    scanned = floe_scan(floe, server.uri, table)
    assert sorted((r["_kafka"]["key"], r["id"], r["client"], r["text"], r["n"],
                   r["_kafka"]["offset"]) for r in scanned) == want


def test_kcat(floe, server):
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        raise RuntimeError("kcat is needed (Debian package kcat; scripts/install-deps.sh)")
    topic = f"kcat_{uuid.uuid4().hex[:8]}"
    create_topic(server.kafka_bootstrap, topic, config=TOPIC_CONFIG)
    sent = records("kcat")
    # -K: key and value split at the first '|' of each line; acks=all, idempotence on.
    lines = "".join(f"{k}|{v}\n" for k, v in sent)
    subprocess.run([kcat, "-b", server.kafka_bootstrap, "-P", "-t", topic, "-p", "0", "-K", "|",
                    "-z", "snappy", "-X", "acks=all", "-X", "enable.idempotence=true"],
                   input=lines.encode(), check=True, timeout=60)
    out = subprocess.run([kcat, "-b", server.kafka_bootstrap, "-C", "-t", topic, "-p", "0",
                          "-o", "beginning", "-e", "-q", "-f", "%o|%k|%s\\n"],
                         check=True, timeout=60, capture_output=True).stdout.decode()
    fetched = [line.split("|", 2) for line in out.splitlines()]
    assert [(int(o), k, v) for o, k, v in fetched] == \
        [(i, k, v) for i, (k, v) in enumerate(sent)]
    check_table(floe, server, topic, "kcat", sent)


def test_confluent_kafka(floe, server):
    topic = f"confluent_{uuid.uuid4().hex[:8]}"
    create_topic(server.kafka_bootstrap, topic, config=TOPIC_CONFIG)
    sent = records("confluent")
    errors = []
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all",
                  "enable.idempotence": True, "compression.type": "lz4", "linger.ms": 5})
    for k, v in sent:
        p.produce(topic, key=k.encode(), value=v.encode(), partition=0,
                  on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(30) == 0 and errors == []
    c = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": f"g-{topic}",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    fetched = []
    deadline = time.monotonic() + 30
    while len(fetched) < N and time.monotonic() < deadline:
        m = c.poll(1)
        if m is not None and m.error() is None:
            fetched.append((m.offset(), m.key().decode(), m.value().decode()))
    c.close()
    assert fetched == [(i, k, v) for i, (k, v) in enumerate(sent)]
    check_table(floe, server, topic, "confluent", sent)


def test_kafka_python(floe, server):
    topic = f"kafkapy_{uuid.uuid4().hex[:8]}"
    create_topic(server.kafka_bootstrap, topic, config=TOPIC_CONFIG)
    sent = records("kafka-python")
    p = kafka.KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all",
                            compression_type="gzip")
    futures = [p.send(topic, key=k.encode(), value=v.encode(), partition=0) for k, v in sent]
    p.flush(30)
    assert [f.get(timeout=30).offset for f in futures] == list(range(N))
    p.close()
    c = kafka.KafkaConsumer(bootstrap_servers=server.kafka_bootstrap, enable_auto_commit=False,
                            auto_offset_reset="earliest")
    tp = kafka.TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    fetched = []
    deadline = time.monotonic() + 30
    while len(fetched) < N and time.monotonic() < deadline:
        for msgs in c.poll(timeout_ms=1000).values():
            fetched.extend((m.offset, m.key.decode(), m.value.decode()) for m in msgs)
    c.close()
    assert fetched == [(i, k, v) for i, (k, v) in enumerate(sent)]
    check_table(floe, server, topic, "kafka-python", sent)

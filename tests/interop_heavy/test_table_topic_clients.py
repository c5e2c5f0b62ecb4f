"""Table topics (issue 6) against the heavy clients: the Java client 4.0 (idempotent producer
and group consumer), Kafka's console tools (org.apache.kafka.tools.ConsoleProducer and
consumer.ConsoleConsumer from the kafka-tools jar) and kafkajs 2.2.4. Each produces JSON
records to a table topic, reads them back through Fetch, and the table — read by pyiceberg
and by `floe table scan` — holds exactly those records. The Debian and PyPI clients are in
tests/interop/test_table_topic_clients.py."""
from __future__ import annotations

import json
import subprocess
import uuid

import pytest

from floe_server import FloeServer
from kafka_topics import (JSON_TABLE_TOPIC as TOPIC_CONFIG, create_topic, floe_scan,
                          wait_for_table_rows)

pytest.importorskip("pyiceberg")

N = 200


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("ttj") / "data", kafka=True) as s:
        yield s


def doc(client: str, i: int) -> dict:
    return {"id": i, "client": client, "text": f"row {i} \u00e9", "n": i * 7}


def check_table(floe, server, topic: str, client: str, keys: list[str]):
    """The table holds record i (key keys[i], value doc(client, i)) at offset i, once."""
    want = sorted((keys[i], i, client, doc(client, i)["text"], i * 7, i) for i in range(N))
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", N, context=server.log_text)
    got = sorted((r["_kafka"]["key"], r["id"], r["client"], r["text"], r["n"],
                  r["_kafka"]["offset"]) for r in rows)
    assert got == want
    scanned = floe_scan(floe, server.uri, f"kafka.{topic}")
    assert sorted((r["_kafka"]["key"], r["id"], r["client"], r["text"], r["n"],
                   r["_kafka"]["offset"]) for r in scanned) == want


def test_java_producer_and_consumer(floe, server, java_client):
    topic = f"java_tt_{uuid.uuid4().hex[:6]}"
    java_client("create-table", server.kafka_bootstrap, topic)
    java_client("produce-json", server.kafka_bootstrap, topic, str(N))
    out = java_client("consume", server.kafka_bootstrap, topic, f"g-{topic}", str(N))
    fetched = []
    for line in out.splitlines():
        offset, key, value, _, _ = line.split(" ")
        fetched.append((int(offset), bytes.fromhex(key).decode(),
                        json.loads(bytes.fromhex(value).decode())))
    assert fetched == [(i, f"java-{i}", doc("java", i)) for i in range(N)]
    check_table(floe, server, topic, "java", [f"java-{i}" for i in range(N)])


def test_console_producer_and_consumer(floe, server, java_client):
    topic = f"console_tt_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config=TOPIC_CONFIG)
    keys = [f"console-{i}" for i in range(N)]
    lines = "".join(f"{keys[i]}|{json.dumps(doc('console', i))}\n" for i in range(N))
    java = ["java", "-cp", java_client.classpath]
    subprocess.run(java + ["org.apache.kafka.tools.ConsoleProducer",
                           "--bootstrap-server", server.kafka_bootstrap, "--topic", topic,
                           "--property", "parse.key=true", "--property", "key.separator=|",
                           "--producer-property", "acks=all",
                           "--producer-property", "enable.idempotence=true",
                           "--compression-codec", "lz4"],
                   input=lines, text=True, check=True, timeout=300, capture_output=True)
    done = subprocess.run(java + ["org.apache.kafka.tools.consumer.ConsoleConsumer",
                                  "--bootstrap-server", server.kafka_bootstrap, "--topic", topic,
                                  "--partition", "0", "--offset", "earliest",
                                  "--max-messages", str(N), "--timeout-ms", "60000",
                                  "--property", "print.key=true",
                                  "--property", "key.separator=|"],
                          text=True, check=True, timeout=300, capture_output=True)
    fetched = [line.split("|", 1) for line in done.stdout.splitlines() if line]
    assert [(k, json.loads(v)) for k, v in fetched] == \
        [(keys[i], doc("console", i)) for i in range(N)]
    check_table(floe, server, topic, "console", keys)


def test_kafkajs(floe, server, kafkajs):
    topic = f"kafkajs_tt_{uuid.uuid4().hex[:6]}"
    done = subprocess.run(["node", "client.js", server.kafka_bootstrap, topic, f"g-{topic}",
                           str(N), "table"], cwd=kafkajs, check=True, timeout=300,
                          capture_output=True, text=True)
    fetched = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["offset"], bytes.fromhex(r["key"]).decode(),
             json.loads(bytes.fromhex(r["value"]).decode())) for r in fetched] == \
        [(i, f"kafkajs-{i}", doc("kafkajs", i)) for i in range(N)]
    check_table(floe, server, topic, "kafkajs", [f"kafkajs-{i}" for i in range(N)])

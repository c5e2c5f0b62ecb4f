"""Poison records (issue 19 §3): a record that is stored but cannot be translated — bytes that
are not JSON, a value whose type fits no evolution of the table — lands in the dead-letter
table with its reason while the records around it land in the table, under the default
configs; the topic never turns `failed`. With errors.tolerance=none the topic stops at the
record and its failure is logged once, not every retry."""

from __future__ import annotations

import time
import uuid

from confluent_kafka import Producer
from floe_server import FloeServer
from kafka_topics import create_topic, wait_for_table_rows

JSON_TOPIC = {"floe.table.topic.enable": "true",
              "floe.table.topic.commit.interval.ms": "1000",
              "floe.table.topic.convert.value.type": "json",
              "floe.table.topic.transform.value.type": "flatten"}


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for v in values:
        p.produce(topic, v)
    assert p.flush(30) == 0


def test_poison_pills_land_in_the_dlq_and_the_rest_in_the_table(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", kafka=True) as server:
        topic = f"pills_{uuid.uuid4().hex[:6]}"
        create_topic(server.kafka_bootstrap, topic, config=JSON_TOPIC)
        produce(server.kafka_bootstrap, topic,
                [b'{"n": 1}', b'{"n": "text"}', b"\x00not json", b'{"n": 3}', b'{"n": {"x": 1}}',
                 b'{"n": 5}'])
        rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 3, 60, server.log_text)
        assert sorted(r["n"] for r in rows) == [1, 3, 5]
        dlq = wait_for_table_rows(server.uri, f"kafka.{topic}_dlq", 3, 60, server.log_text)
        assert sorted(r["offset"] for r in dlq) == [1, 2, 4]
        assert all(r["reason"] for r in dlq)
        status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
        assert status == 200 and body["state"] != "failed", body
        assert body["dlq-records"] == 3
        # Later records still flow.
        produce(server.kafka_bootstrap, topic, [b'{"n": 6}'])
        rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 4, 60, server.log_text)
        assert sorted(r["n"] for r in rows) == [1, 3, 5, 6]


def test_strict_topic_stops_and_logs_once(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", kafka=True) as server:
        topic = f"strict_{uuid.uuid4().hex[:6]}"
        create_topic(server.kafka_bootstrap, topic,
                     config={**JSON_TOPIC, "floe.table.topic.errors.tolerance": "none"})
        produce(server.kafka_bootstrap, topic, [b'{"n": 1}', b"oops"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            _, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
            if body.get("state") == "failed":
                break
            time.sleep(0.2)
        assert body["state"] == "failed" and "offset 1" in body["last-error"], body
        time.sleep(6)  # retries at 1, 2, 4 s: one log line for the same error
        lines = [line for line in server.log_text().splitlines()
                 if f"table topic {topic}" in line]
        assert 1 <= len(lines) <= 2, lines
        assert server.request("GET", "/health")[0] == 200

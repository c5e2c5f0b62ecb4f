"""Produce throttling on translation lag (issue 6, docs/kafka.md "Throttling"): with small
bounds in floe.yaml, a producer that outruns a table topic's translation gets Produce
responses with throttle_time_ms > 0 (seen by librdkafka's throttle callback and in
kafka-python's throttle-time metric), every acked record still lands in the table exactly
once, and the lag is reported in bytes by the topics API and /metrics."""
from __future__ import annotations

import json
import time
import urllib.request
import uuid

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
kafka = pytest.importorskip("kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import Producer  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic, wait_for_table_rows  # noqa: E402

THROTTLE_BYTES = 256 << 10
LIMIT_BYTES = 1 << 20
# Long enough that only the backlog (not the interval) makes the translator commit while the
# producers run; the tail below half the throttle bound waits for the interval.
COMMIT_INTERVAL_MS = 4000


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    config = {"kafka": {"lag-throttle-bytes": THROTTLE_BYTES, "lag-limit-bytes": LIMIT_BYTES,
                        "max-throttle-ms": 300}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("throttle") / "data", kafka=True,
                    config=config) as s:
        yield s


def value(client: str, i: int) -> bytes:
    return json.dumps({"id": i, "client": client, "pad": "x" * 1000}).encode()


def test_producers_are_throttled_and_nothing_is_lost(server):
    topic = f"throttled_{uuid.uuid4().hex[:8]}"
    create_topic(server.kafka_bootstrap, topic, config={
        "floe.table.topic.enable": "true",
        "floe.table.topic.commit.interval.ms": str(COMMIT_INTERVAL_MS),
        "floe.table.topic.convert.value.type": "json",
        "floe.table.topic.transform.value.type": "flatten"})
    n = 6000  # about 6 MiB: many times the bounds
    throttles = []
    errors = []
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all",
                  "enable.idempotence": True, "linger.ms": 5,
                  "throttle_cb": lambda event: throttles.append(event.throttle_time)})
    for i in range(n):
        while True:
            try:
                p.produce(topic, value=value("confluent", i), partition=0,
                          on_delivery=lambda err, msg: errors.append(err) if err else None)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    assert p.flush(120) == 0
    assert errors == []
    # librdkafka reports throttle_time_ms > 0 from the Produce responses (in seconds here).
    assert throttles and max(throttles) > 0

    # kafka-python sees it too (its throttle-time-max metric) and pauses the connection.
    kp = kafka.KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all")
    futures = [kp.send(topic, value=value("kafka-python", i), partition=0) for i in range(n)]
    kp.flush(120)
    for f in futures:
        f.get(timeout=120)
    throttle_max = [m.value() for name, m in kp.metrics(raw=True).items()
                    if name.name == "throttle-time-max"]
    kp.close()
    assert throttle_max and max(throttle_max) > 0

    # Everything acked arrives once translation catches up, exactly once, in order.
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 2 * n, context=server.log_text)
    assert len(rows) == 2 * n
    assert sorted((r["client"], r["id"]) for r in rows) == \
        sorted([("confluent", i) for i in range(n)] + [("kafka-python", i) for i in range(n)])
    assert sorted(r["_kafka"]["offset"] for r in rows) == list(range(2 * n))

    deadline = time.monotonic() + 30
    while True:
        status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
        assert status == 200
        if body["translation-lag-bytes"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert body["translation-lag-bytes"] == 0
    assert body["translation-lag-offsets"] == 0
    assert body["translation-lag-seconds"] == 0
    assert body["partition-details"][0]["lag-bytes"] == 0
    with urllib.request.urlopen(server.uri + "/metrics") as r:
        text = r.read().decode()
    assert f'floe_table_topic_translation_lag_bytes{{topic="{topic}"}} 0' in text

"""kafkajs 2.2.4 (npm; kafkajs-client/) against `floe server`'s Kafka endpoint. kafkajs never
speaks flexible versions (Produce v7, Fetch v11, Metadata v6, JoinGroup v5, ...), so this keeps
the classic encodings honest: Admin creates a topic, the idempotent producer writes gzip
batches with acks=all, a group consumer reads every record back exactly."""
from __future__ import annotations

import json
import subprocess
import uuid

from floe_server import FloeServer


def test_kafkajs_produce_and_consume(floe, kafkajs, tmp_path):
    n = 200
    with FloeServer(floe.path, tmp_path / "data", kafka=True) as server:
        topic = f"kafkajs-{uuid.uuid4().hex[:6]}"
        done = subprocess.run(["node", "client.js", server.kafka_bootstrap, topic, f"g-{topic}",
                               str(n)], cwd=kafkajs, check=True, timeout=300,
                              capture_output=True, text=True)
        got = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(got) == n
    for i, r in enumerate(got):
        assert r == {"offset": i, "key": f"key-{i}".encode().hex(),
                     "value": f"kafkajs-value-{i}".encode().hex(),
                     "timestamp": 1_700_000_000_000 + i, "headers": {"h": str(i).encode().hex()}}

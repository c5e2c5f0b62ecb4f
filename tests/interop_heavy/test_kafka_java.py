"""The Java Kafka client 4.0 (Maven Central org.apache.kafka:kafka-clients, built from
kafka-java-client/) against `floe server`'s Kafka endpoint: Admin creates a topic, the
idempotent producer (acks=all, each codec) writes, the consumer group reads back exactly and
commits; librdkafka reads what Java wrote and Java reads what librdkafka wrote."""
from __future__ import annotations

import uuid

import pytest

from floe_server import FloeServer
from scram import scram_credential

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("kafka-java") / "data", kafka=True) as s:
        yield s


def expected(i: int):
    return (f"key-{i}".encode(), f"java-value-{i}".encode(), 1_700_000_000_000 + i,
            [("h", str(i).encode())])


def parse(stdout: str):
    out = []
    for line in stdout.splitlines():
        offset, key, value, ts, headers = line.split(" ")
        hs = []
        for h in filter(None, headers.split(",")):
            k, v = h.split("=")
            hs.append((k, None if v == "null" else bytes.fromhex(v)))
        out.append((int(offset), bytes.fromhex(key), bytes.fromhex(value), int(ts), hs))
    return out


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_java_produce_and_consume(server, java_client, codec):
    topic = f"java-{codec}-{uuid.uuid4().hex[:6]}"
    n = 300
    java_client("create", server.kafka_bootstrap, topic, "1")
    java_client("produce", server.kafka_bootstrap, topic, codec, str(n))
    got = parse(java_client("consume", server.kafka_bootstrap, topic, f"g-{topic}", str(n)))
    assert len(got) == n
    for i, (offset, key, value, ts, headers) in enumerate(got):
        assert (offset, key, value, ts, headers) == (i, *expected(i)[:3], expected(i)[3])
    # The group's commit is what librdkafka sees, and librdkafka reads Java's batches.
    c = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": f"g-{topic}"})
    assert c.committed([TopicPartition(topic, 0)], timeout=10)[0].offset == n
    c.assign([TopicPartition(topic, 0, 0)])
    msgs = []
    while len(msgs) < n:
        m = c.poll(10)
        assert m is not None and m.error() is None
        msgs.append(m)
    c.close()
    assert [(m.key(), m.value(), m.timestamp()[1]) for m in msgs] == \
        [expected(i)[:3] for i in range(n)]


def test_java_reads_librdkafka(server, java_client):
    topic = f"rd-to-java-{uuid.uuid4().hex[:6]}"
    java_client("create", server.kafka_bootstrap, topic, "1")
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "enable.idempotence": True,
                  "compression.type": "snappy"})
    for i in range(100):
        key, value, ts, headers = expected(i)
        p.produce(topic, key=key, value=value, timestamp=ts, headers=headers, partition=0)
    assert p.flush(30) == 0
    got = parse(java_client("consume", server.kafka_bootstrap, topic, f"g-{topic}", "100"))
    assert [(o, k, v, t, h) for o, k, v, t, h in got] == \
        [(i, *expected(i)[:3], expected(i)[3]) for i in range(100)]


SCRAM_PASSWORD = "java-scram-pw-81"


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_java_client_with_scram(floe, java_client, tmp_path, mechanism):
    """Kafka's own ScramSaslClient (issue 19 §2) against floe's SCRAM server, with the
    credential `floe auth scram-credential` made: produce and consume; a wrong password and a
    read-only principal are refused with Kafka's exceptions."""
    import hashlib
    principals = {
        "etl": {f"scram-{mechanism[6:].lower()}": scram_credential(floe.path, mechanism,
                                                                     SCRAM_PASSWORD),
                "catalogs": {"default": "write"}},
        "viewer": {f"scram-{mechanism[6:].lower()}": scram_credential(floe.path, mechanism,
                                                                        SCRAM_PASSWORD),
                   "secret-sha256": hashlib.sha256(b"unused").hexdigest(),
                   "catalogs": {"default": "read"}},
    }
    config = {"auth": {"enabled": True, "principals": principals,
                       "throttle": {"client-burst": 1000, "peer-burst": 1000}}}
    with FloeServer(floe.path, tmp_path / "data", kafka=True, config=config) as server:
        topic = f"java-scram-{uuid.uuid4().hex[:6]}"
        etl = f"{mechanism}:etl:{SCRAM_PASSWORD}"
        java_client("create", server.kafka_bootstrap, topic, "1", sasl=etl)
        java_client("produce", server.kafka_bootstrap, topic, "zstd", "50", sasl=etl)
        got = parse(java_client("consume", server.kafka_bootstrap, topic, f"g-{topic}", "50",
                                sasl=etl))
        assert [g[2] for g in got] == [expected(i)[1] for i in range(50)]
        wrong = java_client("produce", server.kafka_bootstrap, topic, "none", "1",
                            sasl=f"{mechanism}:etl:not-it", check=False)
        assert wrong.returncode != 0
        assert "SaslAuthenticationException" in wrong.stderr + wrong.stdout
        viewer = java_client("produce", server.kafka_bootstrap, topic, "none", "1",
                             sasl=f"{mechanism}:viewer:{SCRAM_PASSWORD}", check=False)
        assert viewer.returncode != 0
        assert ("TopicAuthorizationException" in viewer.stderr + viewer.stdout
                or "ClusterAuthorizationException" in viewer.stderr + viewer.stdout)
        # The viewer may read.
        seen = parse(java_client("consume", server.kafka_bootstrap, topic, f"v-{topic}", "50",
                                 sasl=f"{mechanism}:viewer:{SCRAM_PASSWORD}"))
        assert len(seen) == 50


def test_java_sees_invalid_record_exception(server, java_client):
    """Produce-time schema validation (issue 26): the Java producer's send fails with
    InvalidRecordException carrying floe's message (from the partition's record_errors, as
    Kafka's broker answers), the valid records around it are stored, and nothing refused
    reaches the log."""
    import json
    import struct
    import urllib.request
    topic = f"java-validation-{uuid.uuid4().hex[:6]}"
    java_client("create", server.kafka_bootstrap, topic, "1")
    # The configs through Kafka's admin API (IncrementalAlterConfigs), as any client sets them.
    from confluent_kafka.admin import AdminClient, ConfigResource, AlterConfigOpType, ConfigEntry
    admin = AdminClient({"bootstrap.servers": server.kafka_bootstrap})
    res = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry("confluent.value.schema.validation", "true",
                    incremental_operation=AlterConfigOpType.SET)])
    for f in admin.incremental_alter_configs([res]).values():
        f.result(timeout=30)
    body = json.dumps({"schema": '"string"'}).encode()
    req = urllib.request.Request(f"{server.schema_registry_uri}/subjects/{topic}-value/versions",
                                 data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        schema_id = json.load(r)["id"]
    good = (b"\x00" + struct.pack(">I", schema_id) + b"\x04hi").hex()
    out = java_client("produce-values", server.kafka_bootstrap, topic, good,
                      b'{"no": "header"}'.hex(), (b"\x00" + struct.pack(">I", 424242)).hex(), good)
    lines = out.splitlines()
    assert lines[0] == "ok 0"
    assert lines[1].startswith("error org.apache.kafka.common.InvalidRecordException ")
    assert "the value has no schema registry header" in lines[1]
    assert lines[2].startswith("error org.apache.kafka.common.InvalidRecordException ")
    assert "schema id 424242 is not registered" in lines[2]
    assert lines[3] == "ok 1", lines

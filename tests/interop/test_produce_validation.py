"""Produce-time schema validation (issue 26, docs/table-topics.md "Produce-time schema
validation") against `floe server`: confluent-kafka's Avro, Protobuf and JSON Schema
serializers write through floe's registry, and a raw producer sends what a misconfigured
client would (no header, an unknown id, an id of another subject, a payload that does not
decode, a JSON value missing a required property). As with Confluent Server and Redpanda,
each bad record is refused with INVALID_RECORD (87) and floe's message reaches the
application through librdkafka; the valid records of the same run land in the table, and
nothing refused reaches the table or the log.
"""
from __future__ import annotations

import json
import struct
import time
import urllib.request
import uuid

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONSerializer  # noqa: E402
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic, wait_for_table_rows  # noqa: E402
from test_schema_registry import compile_proto  # noqa: E402

READING = json.dumps({"type": "record", "name": "Reading", "namespace": "floe.it", "fields": [
    {"name": "id", "type": "long"}, {"name": "temp", "type": ["null", "double"], "default": None}]})
OTHER = json.dumps({"type": "record", "name": "Other", "namespace": "floe.it",
                    "fields": [{"name": "x", "type": "string"}]})
ORDER_JSON = json.dumps({"title": "Order", "type": "object", "required": ["id", "item"],
                         "properties": {"id": {"type": "integer"}, "item": {"type": "string"},
                                        "size": {"type": "string",
                                                 "enum": ["S", "M", "L"]}}})
PING_PROTO = 'syntax = "proto3"; package floe.it; message Ping { int64 seq = 1; string who = 2; }'


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("validation") / "data", kafka=True) as s:
        yield s


@pytest.fixture(scope="module")
def registry(server):
    return SchemaRegistryClient({"url": server.schema_registry_uri})


def table_topic(**extra) -> dict:
    return {"floe.table.topic.enable": "true", "floe.table.topic.commit.interval.ms": "1000",
            "floe.table.topic.convert.value.type": "by_schema_id",
            "floe.table.topic.transform.value.type": "flatten", **extra}


def framed(schema_id: int, payload: bytes) -> bytes:
    return b"\x00" + struct.pack(">I", schema_id & 0xFFFFFFFF) + payload


def send_each(server, topic: str, values: list[bytes | None], keys=None) -> list:
    """Produces every value as its own batch (a refused batch fails all its records, as in
    Kafka) with kafka-python, whose sender maps a partition's record_errors to per-record
    exceptions as the Java client does, and returns per value None (stored) or the
    exception of its send."""
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all", retries=0,
                      linger_ms=0)
    results = []
    try:
        for i, v in enumerate(values):
            try:
                p.send(topic, value=v, key=None if keys is None else keys[i],
                       partition=0).get(timeout=30)
                results.append(None)
            except Exception as e:  # noqa: BLE001 - the refusal under test
                results.append(e)
    finally:
        p.close(timeout=10)
    return results


def assert_refused(err, *fragments: str):
    from kafka.errors import InvalidRecordError
    assert err is not None, "expected INVALID_RECORD, the record was stored"
    assert isinstance(err, InvalidRecordError), repr(err)
    assert err.errno == 87
    for f in fragments:
        assert f in str(err), (f, str(err))


def librdkafka_codes(server, topic: str, values: list[bytes]) -> list:
    """The delivery error codes confluent-kafka (librdkafka) reports, one batch per value.
    (librdkafka keeps the broker's per-record message for rd_kafka_message_produce_errstr,
    which confluent-kafka's delivery report does not expose: it shows the code's name.)"""
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all", "linger.ms": 0,
                  "retries": 0})
    codes = []
    for v in values:
        got = []
        p.produce(topic, value=v, partition=0, on_delivery=lambda err, msg: got.append(err))
        assert p.flush(30) == 0
        codes.append(None if got[0] is None else got[0].code())
    return codes


def log_end(server, topic: str) -> int:
    c = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": f"g-{topic}"})
    try:
        low, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        return high
    finally:
        c.close()


def topic_stats(server, topic: str) -> dict:
    with urllib.request.urlopen(f"{server.uri}/api/v1/topics/{topic}", timeout=10) as r:
        return json.load(r)


def test_avro_payload_validation(server, registry):
    topic = f"readings-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config=table_topic(**{"floe.table.topic.value.validation": "payload"}))
    ser = AvroSerializer(registry, READING)
    ctx = SerializationContext(topic, MessageField.VALUE)
    good = [ser({"id": i, "temp": i / 2}, ctx) for i in range(3)]
    schema_id = struct.unpack(">I", good[0][1:5])[0]
    other_id = registry.register_schema("elsewhere-value", Schema(OTHER, "AVRO"))
    values = [good[0],
              b'{"id": 9}',                      # no header
              framed(999_999, good[0][5:]),      # an id the registry never gave
              framed(other_id, b"\x02x"),        # an id of another subject
              framed(schema_id, b"\x02\x02"),    # temp's double cut short
              good[1], None, good[2]]            # a tombstone passes
    keys = [None] * 6 + [b"tombstone", None]  # kafka-python sends no record without both
    results = send_each(server, topic, values, keys=keys)
    assert [r is None for r in results] == [True, False, False, False, False, True, True, True]
    assert_refused(results[1], "no schema registry header")
    assert_refused(results[2], "schema id 999999 is not registered")
    assert_refused(results[3], f"schema id {other_id} is not registered under subject "
                               f"'{topic}-value'", "elsewhere-value")
    assert_refused(results[4], f"does not decode with AVRO schema id {schema_id}")
    # librdkafka: the same refusals as INVALID_RECORD; nothing of them stored either.
    assert librdkafka_codes(server, topic, values[1:5]) == [KafkaError.INVALID_RECORD] * 4
    # One batch of a good and a bad record (kafka-python batches what is sent together):
    # the whole batch is refused, the bad record with floe's message, the other one as
    # part of a refused batch, as Kafka's producers report it.
    from kafka import KafkaProducer
    from kafka.errors import InvalidRecordError, KafkaError as KpError
    kp = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all", retries=0,
                       linger_ms=500)
    futures = [kp.send(topic, value=v, partition=0) for v in (good[1], b"no header")]
    kp.flush(30)
    kp.close(timeout=10)
    errors = [f.exception for f in futures]
    assert isinstance(errors[1], InvalidRecordError) and "no schema registry header" in str(errors[1])
    assert isinstance(errors[0], KpError) and not isinstance(errors[0], InvalidRecordError)
    assert "batch" in str(errors[0])
    # Only the stored records took offsets; only they reach the table.
    assert log_end(server, topic) == 4
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 3)
    time.sleep(1.5)  # one more commit interval: nothing else arrives
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 3)
    # (The tombstone passed validation; the translator sends a null value to the
    # dead-letter table, as before.)
    assert sorted((r["id"], r["temp"]) for r in rows) == [(0, 0.0), (1, 0.5), (2, 1.0)]
    stats = topic_stats(server, topic)
    # Each bad value was sent by kafka-python and by librdkafka, "no header" once more.
    assert stats["validation-rejected"] == {"no_schema_id": 3, "unknown_schema_id": 2,
                                            "subject_mismatch": 2, "invalid_payload": 2}
    assert any("999999" in m for m in stats["recent-rejections"])


def test_protobuf_payload_validation(server, registry):
    topic = f"pings-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config=table_topic(**{"floe.table.topic.value.validation": "payload"}))
    Ping = compile_proto(PING_PROTO, "ping.proto")("floe.it.Ping")
    ser = ProtobufSerializer(Ping, registry, {"use.deprecated.format": False})
    ctx = SerializationContext(topic, MessageField.VALUE)
    good = [ser(Ping(seq=i, who=f"w{i}"), ctx) for i in range(2)]
    header, indexes = good[0][:5], good[0][5:6]
    assert indexes == b"\x00"  # the first message: a single 0
    values = [good[0],
              header + indexes + b"\x12\x09w",   # `who` claims 9 bytes, has 1
              header + b"\x02\x0e" + good[0][6:],  # message indexes [7]: no such message
              good[1]]
    results = send_each(server, topic, values)
    assert [r is None for r in results] == [True, False, False, True]
    assert_refused(results[1], "does not decode with PROTOBUF schema id")
    assert_refused(results[2])
    assert log_end(server, topic) == 2
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 2)
    assert sorted((r["seq"], r["who"]) for r in rows) == [(0, "w0"), (1, "w1")]


def test_json_schema_payload_validation(server, registry):
    topic = f"jorders-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config=table_topic(**{"floe.table.topic.value.validation": "payload"}))
    ser = JSONSerializer(ORDER_JSON, registry)
    ctx = SerializationContext(topic, MessageField.VALUE)
    good = [ser({"id": i, "item": f"i{i}", "size": "M"}, ctx) for i in range(2)]
    header = good[0][:5]
    values = [good[0],
              header + b'{"id": 5}',                            # item is required
              header + b'{"id": "5", "item": "x"}',             # id is an integer
              header + b'{"id": 6, "item": "x", "size": "XL"}',  # not an enum symbol
              good[1]]
    results = send_each(server, topic, values)
    assert [r is None for r in results] == [True, False, False, False, True]
    assert_refused(results[1], "field 'item': required, missing")
    assert_refused(results[2], "field 'id': expected integer, got string")
    assert_refused(results[3], "field 'size'", '"XL"')
    assert log_end(server, topic) == 2
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 2)
    assert sorted((r["id"], r["item"]) for r in rows) == [(0, "i0"), (1, "i1")]


def test_plain_topic_schema_id_aliases_and_strategies(server, registry):
    """A plain topic (no table) with Redpanda's and Confluent's spellings: schema_id mode
    checks header, id and subject, not the payload; RecordNameStrategy takes the subject
    from the record's full name; keys are checked on their own."""
    topic = f"plain-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config={
        "redpanda.value.schema.id.validation": "true",
        "redpanda.value.subject.name.strategy": "RecordNameStrategy",
        "confluent.key.schema.validation": "true"})
    value_id = registry.register_schema("floe.it.Reading", Schema(READING, "AVRO"))
    key_id = registry.register_schema(f"{topic}-key", Schema('"string"', "AVRO"))
    topic_subject_id = registry.register_schema(f"{topic}-value", Schema(OTHER, "AVRO"))
    key = framed(key_id, b"\x02k")
    values = [framed(value_id, b"not avro: schema id mode does not look"),
              framed(topic_subject_id, b""),  # registered, but under <topic>-value
              framed(value_id, b"")]
    results = send_each(server, topic, values, keys=[key, key, b"raw key"])
    assert results[0] is None
    assert_refused(results[1], "not registered under subject 'floe.it.Other'")
    assert_refused(results[2], "the key has no schema registry header")
    assert log_end(server, topic) == 1
    # Contradicting spellings are an invalid config, as an unknown mode is.
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": server.kafka_bootstrap})
    for bad in ({"floe.table.topic.value.validation": "none",
                 "confluent.value.schema.validation": "true"},
                {"floe.table.topic.value.validation": "strict"}):
        f = admin.create_topics([NewTopic(f"bad-{uuid.uuid4().hex[:6]}", 1, 1, config=bad)])
        with pytest.raises(Exception) as e:
            list(f.values())[0].result(timeout=30)
        assert "INVALID_CONFIG" in str(e.value) or "InvalidConfig" in str(e.value)


def test_soft_delete_takes_effect(server, registry):
    topic = f"deleted-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config={"floe.table.topic.value.validation": "schema_id"})
    schema_id = registry.register_schema(f"{topic}-value", Schema(READING, "AVRO"))
    assert send_each(server, topic, [framed(schema_id, b"\x02\x00")]) == [None]
    registry.delete_subject(f"{topic}-value")
    [err] = send_each(server, topic, [framed(schema_id, b"\x02\x00")])
    assert_refused(err, f"schema id {schema_id} is not registered under subject '{topic}-value'")


def test_rejections_in_metrics(server):
    topic = f"metered-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config={"floe.table.topic.value.validation": "schema_id"})
    assert librdkafka_codes(server, topic, [framed(777_777, b""), b"x", b"y"]) == \
        [KafkaError.INVALID_RECORD] * 3
    with urllib.request.urlopen(f"{server.uri}/metrics", timeout=10) as r:
        text = r.read().decode()
    samples = {ln.rsplit(" ", 1)[0]: ln.rsplit(" ", 1)[1] for ln in text.splitlines()
               if ln.startswith("floe_topic_records_rejected_total{") and topic in ln}
    assert samples == {
        f'floe_topic_records_rejected_total{{topic="{topic}",reason="unknown_schema_id"}}': "1",
        f'floe_topic_records_rejected_total{{topic="{topic}",reason="no_schema_id"}}': "2"}


def test_idempotent_producer_continues_after_a_refusal(server, registry):
    """A refused batch takes no sequence numbers on the broker (as in Kafka, validation runs
    before the producer's sequence checks); librdkafka's idempotent producer goes on after
    the INVALID_RECORD with the next records, in order, without a fatal error."""
    topic = f"idem-{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic,
                 config={"floe.table.topic.value.validation": "schema_id"})
    schema_id = registry.register_schema(f"{topic}-value", Schema('"string"', "AVRO"))
    good = framed(schema_id, b"\x04hi")
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "enable.idempotence": True})
    got = []
    for v in (good, b"bad", good, good):
        p.produce(topic, value=v, partition=0,
                  on_delivery=lambda err, msg: got.append(
                      (err.code() if err else None, None if err else msg.offset())))
        assert p.flush(30) == 0
    assert got == [(None, 0), (KafkaError.INVALID_RECORD, None), (None, 1), (None, 2)]

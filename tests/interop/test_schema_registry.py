"""The built-in schema registry and registry-decoded table topics (issue 6): confluent-kafka's
SchemaRegistryClient and its Avro / Protobuf / JSON Schema serializers talk to `floe server`'s
registry, records produced in the Confluent wire format land in Iceberg tables, read back by
pyiceberg and compared with what was produced; a second schema version evolves the table;
records with unknown schema ids or bad bytes go to the dead-letter table; the registry's REST
behaviours (stable ids, versions, compatibility 409s, deletes) are what the client expects.
"""
from __future__ import annotations

import datetime
import decimal
import json
import os
import tempfile
import time
import uuid

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("pyiceberg")
pytest.importorskip("google.protobuf")
pytest.importorskip("grpc_tools")

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.error import SchemaRegistryError  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONSerializer  # noqa: E402
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic, wait_for_table_rows  # noqa: E402

DEADLINE_SECONDS = 60


def topic_config(value_type="by_schema_id", **extra):
    return {"floe.table.topic.enable": "true",
            "floe.table.topic.commit.interval.ms": "1000",
            "floe.table.topic.convert.value.type": value_type,
            "floe.table.topic.transform.value.type": "flatten", **extra}


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("sr") / "data", kafka=True) as s:
        yield s


@pytest.fixture
def registry(server):
    return SchemaRegistryClient({"url": server.schema_registry_uri})


def topic_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def produce(server, topic, values):
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all", "linger.ms": 5})
    errors = []
    for i, v in enumerate(values):
        p.produce(topic, value=v, key=f"k{i}".encode(),
                  on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(30) == 0
    assert errors == []


def wait_for_rows(server, table: str, n: int):
    return wait_for_table_rows(server.uri, table, n, DEADLINE_SECONDS, server.log_text)


# ---- registry REST behaviour, through Confluent's client

AVRO_USER_V1 = json.dumps({"type": "record", "name": "User", "namespace": "floe.it",
                           "fields": [{"name": "id", "type": "long"}]})
AVRO_USER_V2 = json.dumps({"type": "record", "name": "User", "namespace": "floe.it",
                           "fields": [{"name": "id", "type": "long"},
                                      {"name": "email", "type": ["null", "string"],
                                       "default": None}]})
AVRO_USER_BAD = json.dumps({"type": "record", "name": "User", "namespace": "floe.it",
                            "fields": [{"name": "id", "type": "long"},
                                       {"name": "age", "type": "int"}]})


def test_registry_ids_versions_compatibility(server, registry):
    subject = topic_name("users") + "-value"
    id1 = registry.register_schema(subject, Schema(AVRO_USER_V1, "AVRO"))
    # The same schema again keeps its id (a fresh client: no cache in between).
    assert SchemaRegistryClient({"url": server.schema_registry_uri}).register_schema(
        subject, Schema(AVRO_USER_V1, "AVRO")) == id1
    id2 = registry.register_schema(subject, Schema(AVRO_USER_V2, "AVRO"))
    assert id2 != id1
    assert registry.get_versions(subject) == [1, 2]
    latest = registry.get_latest_version(subject)
    assert (latest.schema_id, latest.version, latest.subject) == (id2, 2, subject)
    assert json.loads(registry.get_schema(id1).schema_str) == json.loads(AVRO_USER_V1)
    looked_up = registry.lookup_schema(subject, Schema(AVRO_USER_V1, "AVRO"))
    assert (looked_up.schema_id, looked_up.version) == (id1, 1)
    assert subject in registry.get_subjects()

    # BACKWARD by default: a new field without a default is refused with HTTP 409.
    assert registry.test_compatibility(subject, Schema(AVRO_USER_BAD, "AVRO")) is False
    with pytest.raises(SchemaRegistryError) as refused:
        registry.register_schema(subject, Schema(AVRO_USER_BAD, "AVRO"))
    assert refused.value.http_status_code == 409
    assert refused.value.error_code == 409
    # Lowering the subject's level lets it in.
    assert registry.set_compatibility(subject, "NONE") == {"compatibility": "NONE"}
    assert registry.get_compatibility(subject) == "NONE"
    assert registry.test_compatibility(subject, Schema(AVRO_USER_BAD, "AVRO")) is True
    id3 = registry.register_schema(subject, Schema(AVRO_USER_BAD, "AVRO"))
    assert registry.get_version(subject, 3).schema_id == id3

    # Errors carry Confluent's codes.
    with pytest.raises(SchemaRegistryError) as missing:
        registry.get_schema(987654)
    assert (missing.value.http_status_code, missing.value.error_code) == (404, 40403)
    with pytest.raises(SchemaRegistryError) as no_subject:
        registry.get_latest_version("no-such-subject")
    assert no_subject.value.error_code == 40401
    with pytest.raises(SchemaRegistryError) as bad:
        registry.register_schema(subject, Schema("{not avro", "AVRO"))
    assert bad.value.error_code == 42201

    # Soft delete, then permanent.
    assert registry.delete_subject(subject) == [1, 2, 3]
    assert subject not in registry.get_subjects()
    assert registry.delete_subject(subject, permanent=True) == [1, 2, 3]
    # Ids outlive their subjects.
    assert json.loads(registry.get_schema(id2).schema_str) == json.loads(AVRO_USER_V2)


def test_registry_survives_restart(server, registry):
    subject = topic_name("durable") + "-value"
    schema_id = registry.register_schema(subject, Schema(AVRO_USER_V1, "AVRO"))
    server.stop()
    server.start()
    fresh = SchemaRegistryClient({"url": server.schema_registry_uri})
    assert json.loads(fresh.get_schema(schema_id).schema_str) == json.loads(AVRO_USER_V1)
    assert fresh.get_latest_version(subject).schema_id == schema_id


# ---- Avro records into a table

READING_V1 = {
    "type": "record", "name": "Reading", "namespace": "floe.it", "fields": [
        {"name": "id", "type": "int"},
        {"name": "name", "type": "string"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "ok", "type": "boolean"},
        {"name": "ratio", "type": "float"},
        {"name": "score", "type": "double"},
        {"name": "big", "type": "long"},
        {"name": "raw", "type": "bytes"},
        {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 4}},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "long"}},
        {"name": "loc", "type": {"type": "record", "name": "Loc", "fields": [
            {"name": "lat", "type": "double"},
            {"name": "city", "type": ["null", "string"], "default": None}]}},
        {"name": "points", "type": {"type": "array", "items": {
            "type": "record", "name": "Pt", "fields": [{"name": "x", "type": "int"}]}}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "t_ms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "t_us", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "ts_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "ts_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
                                    "precision": 10, "scale": 2}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
    ]}

# v2: id int -> long (an Avro promotion), `note` dropped, `extra` added with a default.
READING_V2 = {**READING_V1, "fields": (
    [{"name": "id", "type": "long"}]
    + [f for f in READING_V1["fields"] if f["name"] not in ("id", "note")]
    + [{"name": "extra", "type": ["null", "string"], "default": None}])}

UTC = datetime.timezone.utc


def reading(i: int) -> dict:
    return {
        "id": i, "name": f"n{i}", "note": None if i % 2 else f"note{i}", "ok": i % 3 == 0,
        "ratio": i / 4, "score": i * 1.5, "big": 1 << 40 | i, "raw": bytes([i, 255]),
        "digest": bytes([i, 1, 2, 3]), "kind": "ABC"[i % 3], "tags": [f"t{i}", "x"],
        "attrs": {"a": i, "b": -i}, "loc": {"lat": 45.5 + i, "city": None if i % 2 else "Paris"},
        "points": [{"x": i}, {"x": -i}],
        "day": datetime.date(2024, 2, 29) + datetime.timedelta(days=i),
        "t_ms": datetime.time(12, 30, 15, 250000), "t_us": datetime.time(1, 2, 3, 456789),
        "ts_ms": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
        + datetime.timedelta(seconds=i),
        "ts_us": datetime.datetime(2024, 6, 1, 0, 0, 0, 123456, tzinfo=UTC),
        "amount": decimal.Decimal(f"{i}.{i % 100:02d}").scaleb(0) * (-1 if i % 2 else 1),
        "uid": uuid.UUID(int=i + 1),
    }


def check_reading(row: dict, i: int):
    want = reading(i)
    for key in ("name", "ok", "score", "big", "raw", "digest", "kind", "tags", "day", "ts_ms",
                "ts_us", "amount"):
        assert row[key] == want[key], (key, row[key], want[key])
    assert row["id"] == i
    assert row["ratio"] == pytest.approx(want["ratio"])
    assert dict(row["attrs"]) == want["attrs"]
    assert row["loc"] == want["loc"]
    assert row["points"] == want["points"]
    assert row["t_ms"] == want["t_ms"] and row["t_us"] == want["t_us"]
    assert row["uid"] == str(want["uid"])


def test_avro_records_land_and_evolve(server, registry):
    topic = topic_name("readings")
    create_topic(server.kafka_bootstrap, topic, config=topic_config())
    ctx = SerializationContext(topic, MessageField.VALUE)
    v1 = AvroSerializer(registry, json.dumps(READING_V1))
    produce(server, topic, [v1(reading(i), ctx) for i in range(20)])
    rows = wait_for_rows(server, f"kafka.{topic}", 20)
    assert len(rows) == 20
    by_id = {r["id"]: r for r in rows}
    for i in range(20):
        check_reading(by_id[i], i)
        assert by_id[i]["note"] == (None if i % 2 else f"note{i}")
        assert by_id[i]["_kafka"]["key"] == f"k{i}"

    # A second registered version: the table gains `extra`, widens `id`, keeps `note`.
    v2 = AvroSerializer(registry, json.dumps(READING_V2))
    produce(server, topic, [v2({**{k: v for k, v in reading(i).items() if k != "note"},
                                "id": (1 << 33) + i, "extra": f"e{i}"}, ctx) for i in range(5)])
    rows = wait_for_rows(server, f"kafka.{topic}", 25)
    assert len(rows) == 25
    assert registry.get_versions(f"{topic}-value") == [1, 2]
    table = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(f"kafka.{topic}")
    fields = {f.name: f for f in table.schema().fields}
    assert str(fields["id"].field_type) == "long"
    assert "extra" in fields and "note" in fields
    new = sorted((r for r in rows if r["id"] >= 1 << 33), key=lambda r: r["id"])
    assert [(r["id"], r["extra"], r["note"]) for r in new] == \
        [((1 << 33) + i, f"e{i}", None) for i in range(5)]
    assert all(r["extra"] is None for r in rows if r["id"] < 20)
    # Field ids stayed: the columns of the first version still hold the first rows.
    assert sorted(r["name"] for r in rows if r["id"] < 20) == sorted(f"n{i}" for i in range(20))


def test_bad_records_go_to_the_dead_letter_table(server, registry):
    topic = topic_name("badavro")
    create_topic(server.kafka_bootstrap, topic, config=topic_config())
    ctx = SerializationContext(topic, MessageField.VALUE)
    ser = AvroSerializer(registry, json.dumps(READING_V1))
    good = [ser(reading(i), ctx) for i in range(3)]
    bad = [b"\x00\x00\x0f\x42\x3fnot-registered",  # schema id 999999
           b"plain text, no header",
           good[0][:-4]]  # a truncated datum
    produce(server, topic, [good[0], bad[0], good[1], bad[1], bad[2], good[2]])
    rows = wait_for_rows(server, f"kafka.{topic}", 3)
    dlq = wait_for_rows(server, f"kafka.{topic}_dlq", 3)
    assert sorted(r["id"] for r in rows) == [0, 1, 2]
    by_offset = {r["offset"]: r for r in dlq}
    assert sorted(by_offset) == [1, 3, 4]
    assert by_offset[1]["value"] == bad[0] and "999999" in by_offset[1]["reason"]
    assert "header" in by_offset[3]["reason"]
    assert by_offset[4]["value"] == bad[2] and by_offset[4]["reason"]


# ---- Protobuf records

ORDER_PROTO = """
syntax = "proto3";
package floe.it;

import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string customer = 2;
  sint32 delta = 3;
  repeated int32 scores = 4;
  map<string, int64> counts = 5;
  Line line = 6;
  repeated Line lines = 7;
  Status status = 8;
  optional double price = 9;
  oneof choice {
    string text = 10;
    int32 number = 11;
  }
  google.protobuf.Timestamp at = 12;
  uint32 qty = 13;
  bytes raw = 14;
  bool flag = 15;
  float ratio = 16;

  message Line {
    string sku = 1;
    fixed64 units = 2;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
    SHIPPED = 2;
  }
}
"""


def compile_proto(text: str, name: str):
    """The message classes of a .proto text, compiled by protoc (grpcio-tools)."""
    import grpc_tools
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from grpc_tools import protoc
    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
        out = os.path.join(tmp, "set.pb")
        assert protoc.main(["protoc", f"-I{tmp}", f"-I{include}", "--include_imports",
                            f"--descriptor_set_out={out}", name]) == 0
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    return lambda full_name: message_factory.GetMessageClass(
        pool.FindMessageTypeByName(full_name))


def make_order(Order, i: int):
    o = Order(id=i, customer=f"c{i}", delta=-i, scores=[i, i + 1],
              line=Order.Line(sku=f"s{i}", units=1 << 40),
              lines=[Order.Line(sku="a", units=1), Order.Line(sku="b")],
              status=i % 3, qty=4000000000, raw=bytes([i]), flag=bool(i % 2), ratio=0.25)
    o.counts["x"] = i
    if i % 2 == 0:
        o.price = i * 1.25
        o.text = f"t{i}"
    else:
        o.number = i
    o.at.seconds = 1700000000 + i
    o.at.nanos = 5000
    return o


def test_protobuf_records_land(server, registry):
    topic = topic_name("orders")
    create_topic(server.kafka_bootstrap, topic, config=topic_config())
    Order = compile_proto(ORDER_PROTO, "order.proto")("floe.it.Order")
    ser = ProtobufSerializer(Order, registry, {"use.deprecated.format": False})
    ctx = SerializationContext(topic, MessageField.VALUE)
    produce(server, topic, [ser(make_order(Order, i), ctx) for i in range(10)])
    rows = wait_for_rows(server, f"kafka.{topic}", 10)
    # The registry stored the serializer's descriptor as .proto text.
    latest = registry.get_latest_version(f"{topic}-value")
    assert latest.schema.schema_type == "PROTOBUF"
    assert "message Order" in latest.schema.schema_str
    by_id = {r["id"]: r for r in rows}
    assert sorted(by_id) == list(range(10))
    for i in range(10):
        r = by_id[i]
        assert (r["customer"], r["delta"], r["scores"], dict(r["counts"])) == \
            (f"c{i}", -i, [i, i + 1], {"x": i})
        assert r["line"] == {"sku": f"s{i}", "units": 1 << 40}
        assert r["lines"] == [{"sku": "a", "units": 1}, {"sku": "b", "units": 0}]
        assert r["status"] == ["NEW", "PAID", "SHIPPED"][i % 3]
        assert r["price"] == (i * 1.25 if i % 2 == 0 else None)
        assert r["text"] == (f"t{i}" if i % 2 == 0 else None)
        assert r["number"] == (None if i % 2 == 0 else i)
        assert r["at"] == datetime.datetime.fromtimestamp(1700000000 + i, UTC) + \
            datetime.timedelta(microseconds=5)
        assert (r["qty"], r["raw"], r["flag"], r["ratio"]) == \
            (4000000000, bytes([i]), bool(i % 2), 0.25)


def test_protobuf_by_latest_schema(server, registry):
    """by_latest_schema: payloads without the header, decoded with the subject's latest
    schema (AutoMQ's mode for producers that do not frame their records)."""
    topic = topic_name("plain")
    create_topic(server.kafka_bootstrap, topic, config=topic_config("by_latest_schema"))
    text = 'syntax = "proto3"; package floe.it; message Ping { int64 seq = 1; string who = 2; }'
    registry.register_schema(f"{topic}-value", Schema(text, "PROTOBUF"))
    Ping = compile_proto(text, "ping.proto")("floe.it.Ping")
    produce(server, topic, [Ping(seq=i, who=f"w{i}").SerializeToString() for i in range(7)])
    rows = wait_for_rows(server, f"kafka.{topic}", 7)
    assert sorted((r["seq"], r["who"]) for r in rows) == [(i, f"w{i}") for i in range(7)]


# ---- JSON Schema records

EVENT_JSON_SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
    "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "score": {"type": ["number", "null"]}, "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "addr": {"type": "object", "properties": {"city": {"type": "string"},
                                                  "zip": {"type": "integer"}}},
    },
    "required": ["id", "name"]})


def test_json_schema_records_land(server, registry):
    topic = topic_name("jsonevents")
    create_topic(server.kafka_bootstrap, topic, config=topic_config())
    ser = JSONSerializer(EVENT_JSON_SCHEMA, registry)
    ctx = SerializationContext(topic, MessageField.VALUE)
    events = [{"id": i, "name": f"n{i}", "score": None if i % 3 == 0 else i / 2, "ok": i % 2 == 0,
               "tags": [f"t{i}"], "addr": {"city": f"c{i}", "zip": 1000 + i}} for i in range(12)]
    produce(server, topic, [ser(e, ctx) for e in events])
    rows = wait_for_rows(server, f"kafka.{topic}", 12)
    table = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(f"kafka.{topic}")
    fields = {f.name: str(f.field_type) for f in table.schema().fields}
    # Types come from the schema (integer -> long, number -> double), not from the values.
    assert fields["id"] == "long" and fields["score"] == "double"
    got = sorted(({k: r[k] for k in ("id", "name", "score", "ok", "tags", "addr")} for r in rows),
                 key=lambda r: r["id"])
    assert got == events


# ---- upserts with Avro keys and values

ACCOUNT = json.dumps({"type": "record", "name": "Account", "namespace": "floe.it", "fields": [
    {"name": "id", "type": "long"}, {"name": "balance", "type": "double"},
    {"name": "owner", "type": ["null", "string"], "default": None}]})
ACCOUNT_KEY = json.dumps({"type": "record", "name": "AccountKey", "namespace": "floe.it",
                          "fields": [{"name": "id", "type": "long"}]})


def test_avro_upserts(floe, server, registry):
    """upsert.enable with Avro keys and values: the table holds the last value per id
    (equality deletes, read by `floe table scan`, which applies them)."""
    topic = topic_name("accounts")
    create_topic(server.kafka_bootstrap, topic, config=topic_config(
        **{"floe.table.topic.convert.key.type": "by_schema_id",
           "floe.table.topic.upsert.enable": "true", "floe.table.topic.id.columns": "[id]"}))
    value_ser = AvroSerializer(registry, ACCOUNT)
    key_ser = AvroSerializer(registry, ACCOUNT_KEY)
    vctx = SerializationContext(topic, MessageField.VALUE)
    kctx = SerializationContext(topic, MessageField.KEY)
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
    want = {}
    for round_ in range(3):
        for i in range(5):
            value = {"id": i, "balance": round_ * 10.0 + i, "owner": f"o{i}-{round_}"}
            want[i] = value
            p.produce(topic, key=key_ser({"id": i}, kctx), value=value_ser(value, vctx))
        assert p.flush(30) == 0
        time.sleep(1.2)  # let a commit happen between rounds: deletes then span commits
    deadline = time.monotonic() + DEADLINE_SECONDS
    rows = []
    while time.monotonic() < deadline:
        out = floe.run("table", "scan", "--catalog", f"rest:{server.uri}", f"kafka.{topic}")
        if out.rc == 0:
            rows = [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]
            if sorted((r["id"], r["balance"], r["owner"]) for r in rows) == \
                    sorted((v["id"], v["balance"], v["owner"]) for v in want.values()):
                break
        time.sleep(0.3)
    assert sorted((r["id"], r["balance"], r["owner"]) for r in rows) == \
        sorted((v["id"], v["balance"], v["owner"]) for v in want.values())
    table = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(f"kafka.{topic}")
    assert [table.schema().find_field(i).name for i in table.schema().identifier_field_ids] == ["id"]

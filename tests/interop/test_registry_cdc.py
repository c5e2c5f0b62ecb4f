"""Debezium CDC through the schema registry (issue 6): confluent-kafka's Avro, Protobuf and
JSON Schema serializers write Debezium-shaped envelopes (before/after/source/op/ts_ms, keys as
Avro records of the key column, a tombstone after every delete, as Debezium with Confluent's
converters sends them) to a flatten_debezium table topic through `floe server`'s registry.
The table's current state equals the source model: read by `floe table scan`, and by pyiceberg
after every round (the topics' default delete.mode, position, commits position deletes, which
pyiceberg reads, never equality deletes, which it refuses). A cdc.field topic with Avro values
is checked the same way. Each case takes a few seconds.
"""
from __future__ import annotations

import json
import random
import time
import uuid

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("pyiceberg")
pytest.importorskip("google.protobuf")
pytest.importorskip("grpc_tools")

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONSerializer  # noqa: E402
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic, floe_scan  # noqa: E402
from test_schema_registry import compile_proto  # noqa: E402

DEADLINE_SECONDS = 60
NS = "dbserver1.inventory.customers"

# Debezium's envelope as its Avro converter declares it (trimmed `source`).
DEBEZIUM_AVRO = json.dumps({
    "type": "record", "name": "Envelope", "namespace": NS, "fields": [
        {"name": "before", "type": ["null", {
            "type": "record", "name": "Value", "fields": [
                {"name": "id", "type": "long"},
                {"name": "name", "type": "string"},
                {"name": "email", "type": ["null", "string"], "default": None}]}],
         "default": None},
        {"name": "after", "type": ["null", "Value"], "default": None},
        {"name": "source", "type": {
            "type": "record", "name": "Source", "namespace": "io.debezium.connector.postgresql",
            "fields": [{"name": "connector", "type": "string"}, {"name": "db", "type": "string"},
                       {"name": "ts_ms", "type": "long"},
                       {"name": "lsn", "type": ["null", "long"], "default": None}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": None},
        {"name": "transaction", "type": ["null", {
            "type": "record", "name": "block", "namespace": "event", "fields": [
                {"name": "id", "type": "string"}, {"name": "total_order", "type": "long"}]}],
         "default": None}]})
DEBEZIUM_KEY = json.dumps({"type": "record", "name": "Key", "namespace": NS,
                           "fields": [{"name": "id", "type": "long"}]})

# The same envelope as JSON Schema: nullable images as oneOf [null, $ref].
DEBEZIUM_JSON_SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#", "title": f"{NS}.Envelope",
    "type": "object",
    "properties": {
        "before": {"oneOf": [{"type": "null"}, {"$ref": "#/definitions/Value"}]},
        "after": {"oneOf": [{"type": "null"}, {"$ref": "#/definitions/Value"}]},
        "source": {"type": "object", "properties": {
            "connector": {"type": "string"}, "db": {"type": "string"},
            "ts_ms": {"type": "integer"}}},
        "op": {"type": "string"},
        "ts_ms": {"oneOf": [{"type": "null"}, {"type": "integer"}]}},
    "required": ["op"],
    "definitions": {"Value": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "email": {"oneOf": [{"type": "null"}, {"type": "string"}]}},
        "required": ["id", "name"]}}})

DEBEZIUM_PROTO = f"""
syntax = "proto3";
package {NS};
message Value {{
  int64 id = 1;
  string name = 2;
  optional string email = 3;
}}
message Source {{
  string connector = 1;
  string db = 2;
  int64 ts_ms = 3;
}}
message Envelope {{
  Value before = 1;
  Value after = 2;
  Source source = 3;
  string op = 4;
  optional int64 ts_ms = 5;
}}
"""


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("cdc") / "data", kafka=True) as s:
        yield s


@pytest.fixture
def registry(server):
    return SchemaRegistryClient({"url": server.schema_registry_uri})


def topic_config(**extra):
    return {"floe.table.topic.enable": "true",
            "floe.table.topic.commit.interval.ms": "1000",
            "floe.table.topic.convert.value.type": "by_schema_id",
            "floe.table.topic.convert.key.type": "by_schema_id",
            "floe.table.topic.id.columns": "[id]", **extra}


def value_serializer(fmt: str, registry):
    """A function of (before, after, op) -> the Confluent-framed envelope."""
    source = {"connector": "postgresql", "db": "inventory", "ts_ms": 1700000000000}
    if fmt == "avro":
        ser = AvroSerializer(registry, DEBEZIUM_AVRO)
        return lambda ctx, before, after, op: ser(
            {"before": before, "after": after, "source": {**source, "lsn": None}, "op": op,
             "ts_ms": 1700000000001, "transaction": None}, ctx)
    if fmt == "json":
        ser = JSONSerializer(DEBEZIUM_JSON_SCHEMA, registry)
        return lambda ctx, before, after, op: ser(
            {"before": before, "after": after, "source": source, "op": op,
             "ts_ms": 1700000000001}, ctx)
    message = compile_proto(DEBEZIUM_PROTO, "customers.proto")
    Envelope, Value = message(f"{NS}.Envelope"), message(f"{NS}.Value")
    ser = ProtobufSerializer(Envelope, registry, {"use.deprecated.format": False})

    def serialize(ctx, before, after, op):
        e = Envelope(op=op, ts_ms=1700000000001)
        e.source.connector, e.source.db, e.source.ts_ms = "postgresql", "inventory", 1
        for image, row in (("before", before), ("after", after)):
            if row is not None:
                getattr(e, image).CopyFrom(Value(**{k: v for k, v in row.items() if v is not None}))
        return ser(e, ctx)
    return serialize


def wait_for_model(floe, server, table: str, model: dict, columns) -> list[dict]:
    """`floe table scan` rows once they equal the model."""
    want = {k: tuple(v[c] for c in columns) for k, v in model.items()}
    deadline = time.monotonic() + DEADLINE_SECONDS
    got = None
    while time.monotonic() < deadline:
        out = floe.run("table", "scan", "--catalog", f"rest:{server.uri}", table)
        if out.rc == 0:
            rows = [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]
            got = {r["id"]: tuple(r[c] for c in columns) for r in rows}
            if got == want and len(rows) == len(got):
                return rows
        time.sleep(0.3)
    assert got == want, server.log_text()[-3000:]
    return []


def pyiceberg_rows(server, table: str) -> list[dict]:
    """The table read by pyiceberg, which refuses equality deletes."""
    t = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(table)
    return t.scan().to_arrow().to_pylist()


@pytest.mark.parametrize("fmt", ["avro", "protobuf", "json"])
def test_debezium_envelopes_through_the_registry(floe, server, registry, fmt):
    topic = f"dbz_{fmt}_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, partitions=2, config=topic_config(
        **{"floe.table.topic.transform.value.type": "flatten_debezium"}))
    serialize = value_serializer(fmt, registry)
    key_ser = AvroSerializer(registry, DEBEZIUM_KEY)
    vctx = SerializationContext(topic, MessageField.VALUE)
    kctx = SerializationContext(topic, MessageField.KEY)
    rng = random.Random(6)
    model: dict[int, dict] = {}
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "enable.idempotence": True,
                  "acks": "all", "linger.ms": 5})
    for round_ in range(2):
        for _ in range(120):
            key_id = rng.randrange(25)
            key = key_ser({"id": key_id}, kctx)
            before = model.get(key_id)
            if before is not None and rng.random() < 0.3:
                # Some connectors send deletes without `before`: the Avro key holds the id
                # (JSON Schema values go through the text path, which needs `before`).
                image = None if fmt != "json" and rng.random() < 0.5 else before
                p.produce(topic, key=key, value=serialize(vctx, image, None, "d"))
                p.produce(topic, key=key, value=None)  # Debezium's tombstone
                del model[key_id]
                continue
            after = {"id": key_id, "name": f"n{round_}-{rng.randrange(10**6)}",
                     "email": None if rng.random() < 0.3 else f"{key_id}@example.org"}
            op = "u" if before is not None else ("r" if round_ == 0 else "c")
            p.produce(topic, key=key, value=serialize(vctx, before, after, op))
            model[key_id] = after
        assert p.flush(30) == 0
        # The rounds land in separate commits (deletes reach earlier files): round 0 is in the
        # table before round 1 is produced.
        wait_for_model(floe, server, f"kafka.{topic}", model, ("name", "email"))
        rows = pyiceberg_rows(server, f"kafka.{topic}")
        assert {r["id"]: (r["name"], r["email"]) for r in rows} == \
            {k: (v["name"], v["email"]) for k, v in model.items()}
        assert len(rows) == len(model)
    table = f"kafka.{topic}"
    t = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(table)
    assert sorted(f.name for f in t.schema().fields) == ["_kafka", "email", "id", "name"]
    assert [t.schema().find_field(i).name for i in t.schema().identifier_field_ids] == ["id"]
    # Tombstones add no row and are not dead letters.
    code, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
    assert code == 200 and body["dlq-records"] == 0, body


CUSTOMER_WITH_OP = json.dumps({
    "type": "record", "name": "Customer", "namespace": "floe.it", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
        {"name": "op", "type": {"type": "enum", "name": "Op", "symbols": ["I", "U", "D"]}}]})


def test_cdc_field_with_avro_values(floe, server, registry):
    """cdc.field naming an Avro enum field: I and U upsert, D deletes the key."""
    topic = f"cdcfield_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config=topic_config(
        **{"floe.table.topic.transform.value.type": "flatten",
           "floe.table.topic.convert.key.type": "string", "floe.table.topic.cdc.field": "op"}))
    ser = AvroSerializer(registry, CUSTOMER_WITH_OP)
    ctx = SerializationContext(topic, MessageField.VALUE)
    rng = random.Random(3)
    model: dict[int, dict] = {}
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
    for _ in range(150):
        key_id = rng.randrange(20)
        if key_id in model and rng.random() < 0.3:
            row = {**model.pop(key_id), "op": "D"}
        else:
            row = {"id": key_id, "name": f"n{rng.randrange(10**6)}",
                   "op": "U" if key_id in model else "I"}
            model[key_id] = row
        p.produce(topic, key=str(key_id).encode(), value=ser(row, ctx))
    assert p.flush(30) == 0
    rows = wait_for_model(floe, server, f"kafka.{topic}", model, ("name", "op"))
    assert {r["op"] for r in rows} <= {"I", "U"}
    read = pyiceberg_rows(server, f"kafka.{topic}")
    assert {r["id"]: (r["name"], r["op"]) for r in read} == \
        {k: (v["name"], v["op"]) for k, v in model.items()}

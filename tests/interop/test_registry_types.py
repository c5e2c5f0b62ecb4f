"""Avro schema features through `floe server`'s registry (issue 6), produced by confluent-kafka's
AvroSerializer (fastavro) and read back by pyiceberg: a named type used by name in several
places, Confluent schema references (the serializer resolves them from the registry as the
Java client does), enums, fixed, and a union of several non-null types, which becomes a struct
with one optional field per branch (docs/table-topics.md, "Decoding into columns").
"""
from __future__ import annotations

import json
import uuid

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaReference  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic, wait_for_table_rows  # noqa: E402

ADDRESS = json.dumps({"type": "record", "name": "Address", "namespace": "floe.it",
                      "fields": [{"name": "city", "type": "string"},
                                 {"name": "zip", "type": ["null", "int"], "default": None}]})

# Address comes from a reference; Kind (enum) and Hash (fixed) are defined once and used
# again by name; `payload` is a union of three non-null types and null.
CUSTOMER = json.dumps({
    "type": "record", "name": "Customer", "namespace": "floe.it", "fields": [
        {"name": "id", "type": "long"},
        {"name": "home", "type": "Address"},
        {"name": "others", "type": {"type": "array", "items": "floe.it.Address"}},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
        {"name": "kinds", "type": {"type": "map", "values": "Kind"}},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
        {"name": "prev", "type": ["null", "Hash"], "default": None},
        {"name": "payload", "type": ["null", "long", "string", "Address"], "default": None}]})


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("types") / "data", kafka=True) as s:
        yield s


def customer(i: int) -> dict:
    payload = [None, i * 1000, f"s{i}", {"city": f"p{i}", "zip": i}][i % 4]
    return {"id": i, "home": {"city": f"c{i}", "zip": None if i % 2 else i},
            "others": [{"city": f"o{i}", "zip": 1}], "kind": "AB"[i % 2],
            "kinds": {"x": "A", "y": "B"}, "hash": bytes([i, i + 1]),
            "prev": None if i % 3 else bytes([0, i]), "payload": payload}


def test_references_named_types_and_unions(server):
    registry = SchemaRegistryClient({"url": server.schema_registry_uri})
    topic = f"customers_{uuid.uuid4().hex[:6]}"
    address_subject = f"{topic}-address"
    registry.register_schema(address_subject, Schema(ADDRESS, "AVRO"))
    create_topic(server.kafka_bootstrap, topic, config={
        "floe.table.topic.enable": "true", "floe.table.topic.commit.interval.ms": "1000",
        "floe.table.topic.convert.value.type": "by_schema_id",
        "floe.table.topic.transform.value.type": "flatten"})
    schema = Schema(CUSTOMER, "AVRO", [SchemaReference("floe.it.Address", address_subject, 1)])
    ser = AvroSerializer(registry, schema)
    ctx = SerializationContext(topic, MessageField.VALUE)
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
    for i in range(8):
        p.produce(topic, value=ser(customer(i), ctx))
    assert p.flush(30) == 0
    # The registry serves the schema as registered, with its reference.
    latest = registry.get_latest_version(f"{topic}-value")
    assert [r.name for r in latest.schema.references] == ["floe.it.Address"]
    assert '"Address"' in latest.schema.schema_str and '"city"' not in latest.schema.schema_str

    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 8, 60, server.log_text)
    table = RestCatalog("floe", uri=server.uri, warehouse="default").load_table(f"kafka.{topic}")
    payload_type = table.schema().find_field("payload").field_type
    assert [f.name for f in payload_type.fields] == ["long", "string", "Address"]
    assert all(not f.required for f in payload_type.fields)
    assert str(table.schema().find_field("hash").field_type) == "fixed[2]"
    by_id = {r["id"]: r for r in rows}
    assert sorted(by_id) == list(range(8))
    for i in range(8):
        r, want = by_id[i], customer(i)
        assert r["home"] == want["home"] and r["others"] == want["others"]
        assert (r["kind"], dict(r["kinds"]), r["hash"], r["prev"]) == \
            (want["kind"], want["kinds"], want["hash"], want["prev"])
        p = want["payload"]
        expected = None if p is None else {
            "long": p if isinstance(p, int) else None,
            "string": p if isinstance(p, str) else None,
            "Address": p if isinstance(p, dict) else None}
        assert r["payload"] == expected, (i, r["payload"])

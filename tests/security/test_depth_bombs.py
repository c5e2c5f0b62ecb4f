"""Depth bombs (issue 19 §3) against a running `floe server` with auth off (the setting where
nobody needs credentials to send them): deeply nested JSON request bodies, scan-planning
filters, JSON Schema, Avro and Protobuf schemas posted to the registry, and a deeply nested
JSON record value on a table topic. Each is refused with a 4xx (or lands in the dead-letter
table), the process survives, and its peak memory stays far below what a DOM of the body
would cost."""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Producer
from floe_server import FloeServer
from kafka_topics import create_topic, wait_for_table_rows
from registry_http import register


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("bombs") / "data", kafka=True) as s:
        assert s.request("POST", "/v1/default/namespaces", {"namespace": ["n"]})[0] == 200
        yield s


def peak_rss_mb(server) -> float:
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def alive(server) -> None:
    assert server.proc.poll() is None, server.log_text()
    assert server.request("GET", "/health")[0] == 200


def test_deep_request_bodies(server):
    before = peak_rss_mb(server)
    bomb = "[" * (10 << 20)  # 10 MB of nesting
    for path in ("/v1/default/namespaces/n/tables", "/v1/default/namespaces",
                 "/api/v1/optimizer-groups"):
        status, body, _ = server.request("POST", path, bomb)
        assert 400 <= status < 500, (path, status)
        alive(server)
    nested = '{"name":"t","schema":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}"
    status, _, _ = server.request("POST", "/v1/default/namespaces/n/tables", nested)
    assert status == 400
    # A DOM of 10 MB of nesting costs hundreds of MB; the depth check costs nothing.
    assert peak_rss_mb(server) - before < 100, (before, peak_rss_mb(server))
    alive(server)


def test_deep_scan_filter(server):
    schema = {"type": "struct", "fields": [{"id": 1, "name": "x", "type": "long",
                                            "required": True}]}
    assert server.request("POST", "/v1/default/namespaces/n/tables",
                          {"name": "scan", "schema": schema})[0] == 200
    depth = 5000  # written out: Python's own JSON encoder stops far earlier
    leaf = '{"type":"not","child":' * depth + '{"type":"eq","term":"x","value":1}' + "}" * depth
    status, _, _ = server.request("POST", "/v1/default/namespaces/n/tables/scan/plan",
                                  '{"filter":' + leaf + "}")
    assert 400 <= status < 500, status
    alive(server)


@pytest.mark.parametrize("kind", ["JSON", "AVRO", "PROTOBUF"])
def test_deep_registry_schemas(server, kind):
    depth = 50_000
    if kind == "JSON":
        text = '{"type":"object","properties":{"a":' * depth + "{}" + "}}" * depth
    elif kind == "AVRO":
        text = '{"type":"array","items":' * depth + '"int"' + "}" * depth
    else:
        text = 'syntax = "proto3";\n' + "message M { " * 2000 + "}" * 2000
    body = {"schema": text} if kind == "AVRO" else {"schemaType": kind, "schema": text}
    status, answer = register(server, f"deep-{kind.lower()}-value", body)
    assert status == 422 and answer["error_code"] == 42201, (status, answer)
    alive(server)


def test_deep_json_record_goes_to_the_dlq(server):
    topic = f"deep_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config={
        "floe.table.topic.enable": "true", "floe.table.topic.commit.interval.ms": "1000",
        "floe.table.topic.convert.value.type": "json",
        "floe.table.topic.transform.value.type": "flatten"})
    p = Producer({"bootstrap.servers": server.kafka_bootstrap})
    errors = []
    # 100,000 levels in 600 KB: under max.message.bytes, so it is stored.
    for value in (b'{"n": 1}', ('{"n":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}").encode(),
                  b'{"n": 2}'):
        p.produce(topic, value, on_delivery=lambda err, _m: err and errors.append(err))
    assert p.flush(30) == 0 and errors == []
    rows = wait_for_table_rows(server.uri, f"kafka.{topic}", 2, 60, server.log_text)
    assert sorted(r["n"] for r in rows) == [1, 2]
    dlq = wait_for_table_rows(server.uri, f"kafka.{topic}_dlq", 1, 60, server.log_text)
    assert [r["offset"] for r in dlq] == [1]
    time.sleep(0.1)
    alive(server)

"""What floe used to accept and its peers refuse (issue 19 §3): schemas with empty field names
or field ids below 1, partition specs with transforms nobody knows (create and add-spec), Avro
schemas registered with defaults of the wrong type or records whose values can never end
(Confluent, with Avro Java's validateDefaults). Each is a 4xx with the reason, nothing is
created, and the server keeps answering."""

from __future__ import annotations

import json

import pytest
from floe_server import FloeServer
from registry_http import register


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("acceptance") / "data", kafka=True) as s:
        assert s.request("POST", "/v1/default/namespaces", {"namespace": ["n"]})[0] == 200
        yield s


def field(fid, name, typ="long"):
    return {"id": fid, "name": name, "type": typ, "required": True}


@pytest.mark.parametrize("fields,why", [
    ([field(0, "a")], "field ids start at 1"),
    ([field(-4, "a")], "field ids start at 1"),
    ([field(1, "")], "empty name"),
    ([{"id": 1, "name": "s", "required": True, "type": {"type": "struct", "fields": [
        field(2, "")]}}], "empty name"),
])
def test_bad_schemas_are_refused(server, fields, why):
    status, body, _ = server.request("POST", "/v1/default/namespaces/n/tables",
                                     {"name": "t", "schema": {"type": "struct", "fields": fields}})
    assert status == 400 and why in body["error"]["message"], body
    assert server.request("GET", "/v1/default/namespaces/n/tables/t")[0] == 404


def test_unknown_transforms_are_refused(server):
    schema = {"type": "struct", "fields": [field(1, "x")]}
    spec = {"spec-id": 0, "fields": [{"source-id": 1, "field-id": 1000, "name": "p",
                                      "transform": "frobnicate"}]}
    status, body, _ = server.request("POST", "/v1/default/namespaces/n/tables",
                                     {"name": "u", "schema": schema, "partition-spec": spec})
    assert status == 400 and "unknown transform" in body["error"]["message"], body
    assert server.request("POST", "/v1/default/namespaces/n/tables",
                          {"name": "u", "schema": schema})[0] == 200
    status, body, _ = server.request("POST", "/v1/default/namespaces/n/tables/u", {
        "requirements": [], "updates": [{"action": "add-spec", "spec": spec}]})
    assert status == 400 and "unknown transform" in body["error"]["message"], body
    status, body, _ = server.request("POST", "/v1/default/namespaces/n/tables/u", {
        "requirements": [], "updates": [{"action": "add-schema", "schema": {
            "type": "struct", "schema-id": 1, "fields": [field(1, "x"), field(2, "")]}}]})
    assert status == 400, body
    _, loaded, _ = server.request("GET", "/v1/default/namespaces/n/tables/u")
    assert len(loaded["metadata"]["partition-specs"]) == 1
    assert len(loaded["metadata"]["schemas"]) == 1


@pytest.mark.parametrize("schema,why", [
    ({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int", "default": "x"}]},
     "invalid default"),
    ({"type": "record", "name": "R", "fields": [{"name": "r", "type": "R"}]}, "can never end"),
    ({"type": "record", "name": "A", "fields": [{"name": "b", "type": {
        "type": "record", "name": "B", "fields": [{"name": "a", "type": "A"}]}}]},
     "can never end"),
])
def test_registry_refuses_what_confluent_refuses(server, schema, why):
    status, body = register(server, "bad-value", {"schema": json.dumps(schema)})
    assert status == 422 and body["error_code"] == 42201 and why in body["message"], body
    # A linked list ends (through null): accepted.
    status, body = register(server, "list-value", {"schema": json.dumps({
        "type": "record", "name": "L", "fields": [
            {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "L"],
                                           "default": None}]})})
    assert status == 200, body

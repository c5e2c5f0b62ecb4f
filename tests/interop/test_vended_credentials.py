"""Vended credentials from floe's REST catalog, against moto (S3 and STS on one port; PyPI
moto[server]). A catalog on an s3:// warehouse names a role: with
`X-Iceberg-Access-Delegation: vended-credentials`, floe calls STS AssumeRole (signed with its
own keys, a session policy scoped to the table's location) and answers `storage-credentials`
plus the same keys in `config`, and GET .../credentials answers fresh ones. pyiceberg, given
no keys and no endpoint of its own, writes and reads the table through them. A recording
proxy in front of moto's STS shows the policies floe sent: a principal that may only read
the catalog gets read-only ones (moto does not enforce policies, so they are inspected).
"""
from __future__ import annotations

import hashlib
import http.client
import http.server
import json
import threading
import urllib.parse
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from floe_server import FloeServer
from test_s3 import ACCESS_KEY, REGION, SECRET_KEY, moto_endpoint, s3_client  # noqa: F401

ROLE = "arn:aws:iam::123456789012:role/floe-vended"
EXTERNAL_ID = "floe-test-external-id"
WRITER_TOKEN = "writer-" + uuid.uuid4().hex
READER_TOKEN = "reader-" + uuid.uuid4().hex


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class StsRecorder:
    """Forwards every request to moto and keeps the form of each AssumeRole call."""

    def __init__(self, upstream: str):
        self.upstream = urllib.parse.urlparse(upstream)
        self.calls: list[dict] = []
        # When set, AssumeRole is refused as STS refuses a role that does not trust floe.
        self.deny = False
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                form = dict(urllib.parse.parse_qsl(body.decode()))
                if form.get("Action") == "AssumeRole":
                    recorder.calls.append({**form, "authorization":
                                           self.headers.get("Authorization", "")})
                    if recorder.deny:
                        denied = (
                            b'<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
                            b"<Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User "
                            b"is not authorized to perform: sts:AssumeRole</Message></Error>"
                            b"<RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>"
                            b"</ErrorResponse>")
                        self.send_response(403)
                        self.send_header("Content-Type", "text/xml")
                        self.send_header("Content-Length", str(len(denied)))
                        self.end_headers()
                        self.wfile.write(denied)
                        return
                conn = http.client.HTTPConnection(recorder.upstream.hostname,
                                                  recorder.upstream.port, timeout=30)
                headers = {k: v for k, v in self.headers.items()}
                conn.request("POST", self.path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def vending(floe, tmp_path, moto_endpoint):  # noqa: F811
    bucket = "vend-" + uuid.uuid4().hex[:12]
    s3_client(moto_endpoint).create_bucket(Bucket=bucket)
    storage = {"s3.endpoint": moto_endpoint, "s3.region": REGION,
               "s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY}
    with StsRecorder(moto_endpoint) as sts:
        config = {
            "catalogs": {
                "lake": {"warehouse": f"s3://{bucket}/wh",
                         "properties": {**storage,
                                        "vended-credentials.role-arn": ROLE,
                                        "vended-credentials.external-id": EXTERNAL_ID,
                                        "vended-credentials.duration-seconds": "900",
                                        "vended-credentials.sts-endpoint": sts.endpoint,
                                        # The catalog may hold tables there, but vends for
                                        # its warehouse only (the default).
                                        "allowed-locations": f"s3://{bucket}/outside"}},
                "plain": {"warehouse": f"s3://{bucket}/plain",
                          "properties": {**storage, "client-config.s3.connect-timeout": "30"}},
            },
            "auth": {"enabled": True, "principals": {
                "writer": {"tokens-sha256": [sha256(WRITER_TOKEN)],
                           "catalogs": {"lake": "write", "plain": "write"}},
                "reader": {"tokens-sha256": [sha256(READER_TOKEN)],
                           "catalogs": {"lake": "read"}},
            }},
        }
        with FloeServer(floe.path, tmp_path / "data", config=config) as server:
            yield server, sts, bucket


def catalog(server, warehouse, token) -> RestCatalog:
    # No s3.* settings: everything about storage comes from floe.
    return RestCatalog("floe", uri=server.uri, warehouse=warehouse, token=token)


SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "v", StringType(), required=False))
ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "v": ["a", "b", "c"]},
                schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                  pa.field("v", pa.string())]))


def auth(token, vended=True):
    h = {"Authorization": f"Bearer {token}"}
    if vended:
        h["X-Iceberg-Access-Delegation"] = "vended-credentials"
    return h


def test_pyiceberg_writes_and_reads_with_vended_credentials(vending):
    server, sts, bucket = vending
    writer = catalog(server, "lake", WRITER_TOKEN)
    writer.create_namespace("ns")
    table = writer.create_table("ns.t", SCHEMA)
    location = f"s3://{bucket}/wh/ns/t"
    assert table.location() == location
    # The FileIO pyiceberg built holds session credentials from floe, not floe's own keys.
    io_props = table.io.properties
    assert io_props["s3.access-key-id"].startswith("ASIA"), io_props
    assert io_props["s3.access-key-id"] != ACCESS_KEY
    assert io_props["s3.session-token"]
    assert io_props["s3.endpoint"] == server_endpoint(server, "lake")
    table.append(ROWS)

    reader = catalog(server, "lake", READER_TOKEN)
    loaded = reader.load_table("ns.t")
    assert loaded.io.properties["s3.access-key-id"].startswith("ASIA")
    assert loaded.scan().to_arrow().sort_by("id").to_pylist() == ROWS.to_pylist()
    # The data files really are in the bucket, under the table's location.
    keys = [o["Key"] for o in s3_client(server_endpoint(server, "lake"))
            .list_objects_v2(Bucket=bucket, Prefix="wh/ns/t/data/").get("Contents", [])]
    assert keys and all(k.endswith(".parquet") for k in keys)

    # The AssumeRole calls: floe's role, external id and duration, signed for STS.
    assert sts.calls, "floe never called STS"
    for call in sts.calls:
        assert call["RoleArn"] == ROLE
        assert call["ExternalId"] == EXTERNAL_ID
        assert call["DurationSeconds"] == "900"
        assert f"Credential={ACCESS_KEY}/" in call["authorization"]
        assert f"/{REGION}/sts/aws4_request" in call["authorization"]
    policies = [json.loads(c["Policy"]) for c in sts.calls]
    writes = [p for p in policies if "s3:PutObject" in actions(p)]
    reads = [p for p in policies if "s3:PutObject" not in actions(p)]
    assert writes and reads, policies
    for p in policies:
        for resource in object_resources(p):
            assert resource == f"arn:aws:s3:::{bucket}/wh/ns/t/*", p
        assert "s3:GetObject" in actions(p)
    for p in reads:
        assert not {"s3:PutObject", "s3:DeleteObject"} & actions(p), p


def server_endpoint(server, name):
    code, body, _ = server.request("GET", f"/v1/config?warehouse={name}",
                                   headers=auth(WRITER_TOKEN, vended=False))
    assert code == 200, body
    return body["defaults"]["s3.endpoint"]


def actions(policy) -> set[str]:
    out = set()
    for statement in policy["Statement"]:
        assert statement["Effect"] == "Allow"
        out |= set(statement["Action"])
    return out


def object_resources(policy) -> list[str]:
    out = []
    for statement in policy["Statement"]:
        if "s3:GetObject" in statement["Action"] or "s3:PutObject" in statement["Action"]:
            out += statement["Resource"]
    return out


def test_load_config_credentials_route_and_refusals(vending):
    server, sts, bucket = vending
    writer = catalog(server, "lake", WRITER_TOKEN)
    writer.create_namespace("db")
    writer.create_table("db.events", SCHEMA)
    location = f"s3://{bucket}/wh/db/events"
    path = "/v1/lake/namespaces/db/tables/events"

    # Without the header: no keys, and no storage settings either (a table's config would
    # override the client's own; they come as /v1/config defaults).
    code, body, _ = server.request("GET", path, headers=auth(READER_TOKEN, vended=False))
    assert code == 200, body
    assert body["config"] == {}
    assert "storage-credentials" not in body
    assert SECRET_KEY not in json.dumps(body) and ACCESS_KEY not in json.dumps(body)

    # With it: a StorageCredential for the table's prefix, and the keys in config too.
    code, body, _ = server.request("GET", path, headers=auth(READER_TOKEN))
    assert code == 200, body
    assert body["config"]["s3.endpoint"].startswith("http://127.0.0.1:")
    assert body["config"]["s3.region"] == REGION
    assert body["config"]["client.region"] == REGION
    [credential] = body["storage-credentials"]
    assert credential["prefix"] == location
    cfg = credential["config"]
    assert cfg["s3.access-key-id"].startswith("ASIA")
    assert cfg["s3.secret-access-key"] and cfg["s3.session-token"]
    assert int(cfg["s3.session-token-expires-at-ms"]) > 0
    assert body["config"]["s3.access-key-id"] == cfg["s3.access-key-id"]
    # Relative to the catalog URI without a leading "/": Iceberg Java's HTTPClient refuses
    # request paths that start with one (tests/interop_heavy/test_s3_spark_vended.py).
    assert body["config"]["client.refresh-credentials-endpoint"] == path[1:] + "/credentials"
    assert SECRET_KEY not in json.dumps(body)

    # The refresh route answers a LoadCredentialsResponse for the same prefix; a reader's
    # credentials are its own (read-only) session, not the writer's.
    code, fresh, _ = server.request("GET", path + "/credentials", headers=auth(READER_TOKEN))
    assert code == 200, fresh
    [again] = fresh["storage-credentials"]
    assert again["prefix"] == location
    assert again["config"]["s3.access-key-id"].startswith("ASIA")
    code, wrote, _ = server.request("GET", path + "/credentials", headers=auth(WRITER_TOKEN))
    assert code == 200, wrote
    writer_key = wrote["storage-credentials"][0]["config"]["s3.access-key-id"]
    assert writer_key != again["config"]["s3.access-key-id"]
    # Cached: a second ask of the same principal's kind within the lifetime reuses them.
    calls = len(sts.calls)
    code, same, _ = server.request("GET", path + "/credentials", headers=auth(WRITER_TOKEN))
    assert same["storage-credentials"][0]["config"]["s3.access-key-id"] == writer_key
    assert len(sts.calls) == calls

    # A table placed outside the catalog's warehouse (allowed by its allowed-locations) gets
    # no credentials: whoever may create tables must not obtain them for any place the role
    # reaches.
    code, body, _ = server.request("POST", "/v1/lake/namespaces/db/tables",
                                   {"name": "outside", "location": f"s3://{bucket}/outside/t",
                                    "schema": json.loads(SCHEMA.model_dump_json())},
                                   headers=auth(WRITER_TOKEN))
    assert code == 200, body
    assert body["metadata"]["location"] == f"s3://{bucket}/outside/t"
    assert "storage-credentials" not in body and "s3.session-token" not in body["config"]
    code, body, _ = server.request("GET", "/v1/lake/namespaces/db/tables/outside/credentials",
                                   headers=auth(WRITER_TOKEN))
    assert code == 400, body
    assert "vended-credentials.allowed-locations" in body["error"]["message"]
    # Outside the allowed locations too: no table at all.
    code, body, _ = server.request("POST", "/v1/lake/namespaces/db/tables",
                                   {"name": "elsewhere", "location": f"s3://{bucket}/else/t",
                                    "schema": json.loads(SCHEMA.model_dump_json())},
                                   headers=auth(WRITER_TOKEN))
    assert code == 403 and body["error"]["type"] == "ForbiddenException", body

    # A catalog without a role does not vend: loads answer as before (pyiceberg asks by
    # default and brings its own keys), the credentials route says why.
    plain = catalog(server, "plain", WRITER_TOKEN)
    plain.create_namespace("p")
    plain_path = "/v1/plain/namespaces/p/tables/t"
    code, body, _ = server.request("POST", "/v1/plain/namespaces/p/tables",
                                   {"name": "t", "schema": json.loads(SCHEMA.model_dump_json())},
                                   headers=auth(WRITER_TOKEN))
    assert code == 200, body
    assert "storage-credentials" not in body
    # What the operator set for clients explicitly, and nothing else.
    assert body["config"] == {"s3.connect-timeout": "30"}
    code, body, _ = server.request("GET", plain_path + "/credentials", headers=auth(WRITER_TOKEN))
    assert code == 400, body
    assert "vended-credentials.role-arn" in body["error"]["message"]

    # A reader cannot reach the other catalog at all.
    code, _, _ = server.request("GET", plain_path + "/credentials", headers=auth(READER_TOKEN))
    assert code == 403


def test_a_refused_role_is_the_servers_failure_not_the_callers(vending):
    # STS refusing floe's AssumeRole is floe's configuration, not the caller's permission: the
    # REST answer is a 500 ServerErrorException naming the catalog (Iceberg Java: a
    # ServiceFailureException), never a 403 a client would take for its own missing grant.
    server, sts, _ = vending
    writer = catalog(server, "lake", WRITER_TOKEN)
    writer.create_namespace("refused")
    code, body, _ = server.request("POST", "/v1/lake/namespaces/refused/tables",
                                   {"name": "t", "schema": json.loads(SCHEMA.model_dump_json())},
                                   headers=auth(WRITER_TOKEN, vended=False))
    assert code == 200, body
    sts.deny = True
    path = "/v1/lake/namespaces/refused/tables/t"
    for route in (path, path + "/credentials"):
        code, body, _ = server.request("GET", route, headers=auth(WRITER_TOKEN))
        assert code == 500, (route, body)
        assert body["error"]["type"] == "ServerErrorException", body
        assert "cannot vend credentials for catalog 'lake'" in body["error"]["message"], body
    sts.deny = False
    code, body, _ = server.request("GET", path + "/credentials", headers=auth(WRITER_TOKEN))
    assert code == 200 and body["storage-credentials"], body

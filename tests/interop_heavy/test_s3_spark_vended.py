"""Spark (pyspark 3.5, Iceberg's Spark runtime with its S3FileIO, iceberg-aws-bundle) works on
an S3 warehouse with nothing but the credentials floe vends: a `floe server` catalog on moto
names a role (`vended-credentials.role-arn`, the setup of tests/interop/test_vended_credentials.py),
and Spark's catalog has no keys at all (no s3.* keys in its conf, no AWS_* variables in the
JVM's environment), only `header.X-Iceberg-Access-Delegation=vended-credentials`.

Spark creates a table, inserts, deletes (merge-on-read: position deletes) and reads the rows
a Python model implies; pyiceberg (also keyless) reads the same. The clients reach the store
through a recording TCP proxy in front of moto (`client-config.s3.endpoint`; floe itself goes
to moto directly): every request Java's AWS SDK sent was signed with the session keys floe's
refresh route hands out (an ASIA... key, the catalog's own key never). The load-table answer
carries `client.refresh-credentials-endpoint`, which answers fresh credentials for the
table's prefix, fetched directly and by Iceberg Java's own VendedCredentialsProvider in
Spark's JVM (a GET relative to the catalog URI). That provider refused floe's first answer,
"/v1/.../credentials": Java's HTTPClient takes no request path starting with "/".
"""

from __future__ import annotations

import re
import socket
import threading
import time
import uuid

import pytest
from pyiceberg.catalog.rest import RestCatalog

import iceberg_java as ij
from floe_server import FloeServer
# Fixtures and helpers of the neighbouring suites (pytest finds the fixture through the import).
from test_s3 import ACCESS_KEY, REGION, SECRET_KEY, moto_endpoint, s3_client  # noqa: F401
from test_s3_spark import canon, check_access_log, same, spark_writes_and_deletes, start_spark
from test_vended_credentials import EXTERNAL_ID, ROLE, StsRecorder


# AWS variables that name neither credentials nor where the store is.
NEUTRAL_AWS_VARIABLES = {"AWS_CA_BUNDLE", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE"}
CATALOG = "lake"
SIGNED = re.compile(rb"Authorization: AWS4-HMAC-SHA256 Credential=([A-Za-z0-9]+)/", re.I)
AGENT = re.compile(rb"\r\nUser-Agent: ([^\r\n]*)", re.I)


class SigningRecorder:
    """A TCP proxy in front of moto that notes, for every request the clients send, the access
    key of its SigV4 Authorization header and its User-Agent. It relays bytes unchanged, so it
    depends on no HTTP framing (aws-chunked uploads, keep-alive)."""

    def __init__(self, upstream: str):
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.lock = threading.Lock()
        self.keys: list[str] = []  # the access key of each signed request, in order
        self.agents: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self.accept, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def mark(self) -> tuple[int, int]:
        with self.lock:
            return len(self.keys), len(self.agents)

    def since(self, mark: tuple[int, int]) -> tuple[list[str], list[str]]:
        """The access keys and User-Agents of the requests sent after mark()."""
        with self.lock:
            return self.keys[mark[0]:], self.agents[mark[1]:]

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            threading.Thread(target=self.pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, False), daemon=True).start()

    def pump(self, src: socket.socket, dst: socket.socket, requests: bool):
        tail = b""  # the end of the previous chunk: a header split across two reads
        try:
            while data := src.recv(65536):
                if requests:
                    window = tail + data
                    # Only matches that end in the new bytes: none is counted twice.
                    found = [m for m in SIGNED.finditer(window) if m.end() > len(tail)]
                    agents = [m for m in AGENT.finditer(window) if m.end() > len(tail)]
                    with self.lock:
                        self.keys += [m.group(1).decode() for m in found]
                        self.agents += [m.group(1).decode(errors="replace") for m in agents]
                    tail = window[-512:]
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.listener.close()


@pytest.fixture(scope="module")
def vending(floe, tmp_path_factory, moto_endpoint):  # noqa: F811
    """A floe server whose catalog vends credentials (auth off: every caller may write, so
    the credentials are read/write); clients are told the recorder's address as the store's."""
    bucket = "spark-vend-" + uuid.uuid4().hex[:8]
    s3_client(moto_endpoint).create_bucket(Bucket=bucket)
    with StsRecorder(moto_endpoint) as sts, SigningRecorder(moto_endpoint) as recorder:
        properties = {"s3.endpoint": moto_endpoint, "s3.region": REGION,
                      "s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY,
                      "vended-credentials.role-arn": ROLE,
                      "vended-credentials.external-id": EXTERNAL_ID,
                      "vended-credentials.duration-seconds": "900",
                      "vended-credentials.sts-endpoint": sts.endpoint,
                      "client-config.s3.endpoint": recorder.endpoint}
        config = {"catalogs": {CATALOG: {"warehouse": f"s3://{bucket}/wh",
                                         "properties": properties}}}
        with FloeServer(floe.path, tmp_path_factory.mktemp("floe-spark-vend"),
                        config=config) as server:
            yield server, sts, recorder, bucket
        assert server.exit_code == 0, server.log_text()


@pytest.fixture(scope="module")
def spark(vending, tmp_path_factory):
    server = vending[0]
    c = f"spark.sql.catalog.{CATALOG}"
    # The catalog: where it is, and that it should vend; no keys, no endpoint.
    catalog = {c: "org.apache.iceberg.spark.SparkCatalog",
               f"{c}.type": "rest",
               f"{c}.uri": server.uri,
               f"{c}.warehouse": CATALOG,
               f"{c}.cache-enabled": "false",
               f"{c}.header.X-Iceberg-Access-Delegation": "vended-credentials"}
    session = start_spark("floe-s3-spark-vended", tmp_path_factory.mktemp("spark-vend"),
                          catalog)
    try:
        # A JVM started earlier in this process by another suite carries that suite's
        # environment: it must hold no credentials and no store location (a CA bundle, say,
        # is neither).
        leaked = [k for k in session._jvm.System.getenv().keySet()
                  if k.startswith("AWS_") and k not in NEUTRAL_AWS_VARIABLES]
        assert not leaked, f"the JVM has AWS settings of its own: {leaked}"
        yield session
    finally:
        session.stop()
    check_access_log(server)


def spark_rows(spark, table: str) -> list[dict]:
    return canon([r.asDict() for r in spark.table(f"{CATALOG}.{table}").collect()])


def test_spark_writes_and_reads_with_vended_credentials(vending, spark):
    server, sts, recorder, bucket = vending
    start = recorder.mark()
    model, _ = spark_writes_and_deletes(spark, CATALOG, "vend", "events", 150, 25)
    same(model, spark_rows(spark, "vend.events"), "Spark reads its table")
    java_keys, agents = recorder.since(start)

    # Java signed its S3 requests (the metadata and data files it wrote and read) with vended
    # session keys: the ones floe's refresh route answers for this table and access (cached
    # for half their lifetime), and never the catalog's own.
    assert len(java_keys) >= 10, java_keys
    assert any("aws-sdk-java" in a for a in agents), agents
    path = "/v1/lake/namespaces/vend/tables/events"
    code, fresh, _ = server.request("GET", path + "/credentials")  # as Java's provider asks
    assert code == 200, fresh
    [credential] = fresh["storage-credentials"]
    location = f"s3://{bucket}/wh/vend/events"
    assert credential["prefix"] == location
    vended = credential["config"]["s3.access-key-id"]
    assert vended.startswith("ASIA"), credential
    assert set(java_keys) == {vended}, (set(java_keys), vended)
    assert ACCESS_KEY not in java_keys
    assert sts.calls and all(c["RoleArn"] == ROLE for c in sts.calls)

    # The load-table answer Java got names the refresh endpoint, relative to the catalog URI
    # (no leading "/", which Java's HTTPClient refuses); fetched, even without the delegation
    # header, it answers one S3 credential for the table's prefix with every key Java's
    # VendedCredentialsProvider requires, valid for longer than its 5-minute prefetch margin.
    code, loaded, _ = server.request(
        "GET", path, headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert code == 200, loaded
    assert loaded["config"]["client.refresh-credentials-endpoint"] == path[1:] + "/credentials"
    assert loaded["config"]["s3.endpoint"] == recorder.endpoint
    assert [c["prefix"] for c in loaded["storage-credentials"]] == [location]
    endpoint = loaded["config"]["client.refresh-credentials-endpoint"]
    code, refreshed, _ = server.request("GET", "/" + endpoint)
    assert code == 200, refreshed
    s3_credentials = [c for c in refreshed["storage-credentials"] if c["prefix"].startswith("s3")]
    assert [c["prefix"] for c in s3_credentials] == [location]
    cfg = s3_credentials[0]["config"]
    for key in ("s3.access-key-id", "s3.secret-access-key", "s3.session-token",
                "s3.session-token-expires-at-ms"):
        assert cfg.get(key), (key, cfg)
    assert cfg["s3.access-key-id"].startswith("ASIA")
    assert int(cfg["s3.session-token-expires-at-ms"]) > (time.time() + 300) * 1000, cfg
    # Iceberg Java's own refresh: its VendedCredentialsProvider (in the Spark JVM), given the
    # catalog's properties (URI, headers) and the endpoint but no keys, fetches and parses the
    # route's answer into session credentials, the ones the table's FileIO signed with.
    props = spark._jvm.java.util.HashMap()
    props.put("uri", server.uri)
    props.put("header.X-Iceberg-Access-Delegation", "vended-credentials")
    props.put("credentials.uri", endpoint)
    provider = spark._jvm.org.apache.iceberg.aws.s3.VendedCredentialsProvider.create(props)
    try:
        java_credentials = provider.resolveCredentials()
        assert java_credentials.accessKeyId() == vended
        assert java_credentials.sessionToken() == cfg["s3.session-token"]
        expires = java_credentials.expirationTime().get().toEpochMilli()
        assert expires == int(cfg["s3.session-token-expires-at-ms"])
    finally:
        provider.close()

    # pyiceberg, keyless too, reads Spark's rows through the vended credentials.
    before = recorder.mark()
    rest = RestCatalog("floe", uri=server.uri, warehouse=CATALOG)
    table = rest.load_table("vend.events")
    assert table.io.properties["s3.access-key-id"].startswith("ASIA")
    same(model, ij.canonical_rows(table.scan().to_arrow()), "pyiceberg reads Spark's table")
    py_keys, _ = recorder.since(before)
    assert py_keys and all(k.startswith("ASIA") for k in py_keys), py_keys

"""floe on an s3:// warehouse, against moto's S3 server (PyPI moto[server]) started here on a
free loopback port. floe creates, appends, deletes, upserts and scans tables of a SQL catalog
(SQLite) whose warehouse is in a bucket; pyiceberg, with its own S3 FileIO pointed at the same
endpoint, reads equal content. Large files go through multipart upload; listings of more than
1000 keys page through continuation tokens; DeleteObjects batches 1000 keys. A fault-injecting
proxy in front of moto answers 503 SlowDown / 500 or drops connections on a fraction of the
requests: operations retry and succeed; with every request failing they fail cleanly and the
catalog keeps its previous metadata.
"""
from __future__ import annotations

import http.client
import http.server
import json
import os
import random
import socket
import socketserver
import subprocess
import sys
import threading
import time
import uuid

import boto3
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog

import iceberg_java as ij

ACCESS_KEY = "floe-test-key"
SECRET_KEY = "floe-test-secret"
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, deadline_s: float = 30.0):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def moto_endpoint(tmp_path_factory):
    port = free_port()
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                             str(port)], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def s3_client(endpoint: str):
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=SECRET_KEY, region_name=REGION)


@pytest.fixture
def bucket(moto_endpoint):
    name = "floe-" + uuid.uuid4().hex[:12]
    s3_client(moto_endpoint).create_bucket(Bucket=name)
    return name


def s3_properties(endpoint: str) -> dict:
    return {"s3.endpoint": endpoint, "s3.access-key-id": ACCESS_KEY,
            "s3.secret-access-key": SECRET_KEY, "s3.region": REGION}


class Env:
    """A SQLite catalog with an s3:// warehouse, driven through the floe CLI."""

    def __init__(self, floe, root, endpoint, bucket, extra_properties=()):
        self.floe = floe
        self.root = root
        self.db = root / "catalog.db"
        self.endpoint = endpoint
        self.bucket = bucket
        self.warehouse = f"s3://{bucket}/wh"
        props = [f"--catalog-property={k}={v}" for k, v in s3_properties(endpoint).items()]
        props += [f"--catalog-property={p}" for p in extra_properties]
        self.flags = ["--catalog", f"sqlite:{self.db}", "--warehouse", self.warehouse, *props]

    def run(self, *args, ok=True, timeout=300):
        r = self.floe.run(*args, *self.flags, timeout=timeout)
        if ok:
            assert r.rc == 0, r.describe()
        return r

    def jsonl(self, name, rows):
        p = self.root / name
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return p

    def scan(self, table):
        out = self.root / "scan.parquet"
        self.run("table", "scan", table, "--format", "parquet", "--output", out)
        return ij.canonical_rows(pq.read_table(out))

    def pyiceberg(self, endpoint=None):
        props = s3_properties(endpoint or self.endpoint)
        return SqlCatalog("default", uri=f"sqlite:///{self.db}", warehouse=self.warehouse,
                          **props)

    def keys(self, prefix="wh/"):
        s3 = s3_client(self.endpoint)
        out = []
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                 Prefix=prefix):
            out += [c["Key"] for c in page.get("Contents", [])]
        return out


def rows(start, n):
    return [{"id": k, "name": f"n{k % 7}", "v": k * 3 % 101} for k in range(start, start + n)]


def test_create_append_delete_scan_read_by_pyiceberg(floe, tmp_path, moto_endpoint, bucket):
    env = Env(floe, tmp_path, moto_endpoint, bucket)
    env.run("namespace", "create", "sales")
    env.run("table", "create", "sales.orders", "--schema", "id long not null, name string, v int",
            "--partition-by", "bucket(4, id)", "--format-version", "2")
    data = rows(0, 300)
    env.run("table", "append", "sales.orders", env.jsonl("a.jsonl", data[:200]))
    env.run("table", "append", "sales.orders", env.jsonl("b.jsonl", data[200:]))
    ij.assert_same_rows(data, env.scan("sales.orders"), "floe scan after appends")
    py = ij.canonical_rows(env.pyiceberg().load_table("sales.orders").scan().to_arrow())
    ij.assert_same_rows(data, py, "pyiceberg (S3 FileIO) after appends")

    env.run("table", "delete", "sales.orders", "--where", "name = 'n3' OR id >= 280")
    keep = [r for r in data if not (r["name"] == "n3" or r["id"] >= 280)]
    ij.assert_same_rows(keep, env.scan("sales.orders"), "floe scan after delete")
    py = ij.canonical_rows(env.pyiceberg().load_table("sales.orders").scan().to_arrow())
    ij.assert_same_rows(keep, py, "pyiceberg after delete")

    # Everything the table has is in the bucket under the warehouse, nothing on local disk
    # but the catalog database (with SQLite's write-ahead log and its index while a
    # connection, pyiceberg's here, keeps it open).
    table = env.pyiceberg().load_table("sales.orders")
    assert table.metadata_location.startswith(f"s3://{bucket}/wh/sales/orders/metadata/")
    keys = env.keys()
    assert any(k.endswith(".parquet") and "/data/" in k for k in keys), keys
    assert any(k.endswith(".metadata.json") for k in keys), keys
    local = {p.name for p in tmp_path.iterdir() if p.suffix not in (".jsonl", ".parquet")}
    assert "catalog.db" in local
    assert local <= {"catalog.db", "catalog.db-wal", "catalog.db-shm"}, local


def test_upsert_and_pyiceberg_append(floe, tmp_path, moto_endpoint, bucket):
    env = Env(floe, tmp_path, moto_endpoint, bucket)
    env.run("namespace", "create", "cdc")
    env.run("table", "create", "cdc.users", "--schema", "id long not null, name string, v int",
            "--identifier", "id")
    env.run("table", "upsert", "cdc.users", env.jsonl("u1.jsonl", rows(0, 100)))
    second = [{"id": k, "name": "b", "v": -k} for k in range(50, 150)]
    env.run("table", "upsert", "cdc.users", env.jsonl("u2.jsonl", second))
    want = {r["id"]: r for r in rows(0, 50)}
    want.update({r["id"]: r for r in second})
    ij.assert_same_rows(list(want.values()), env.scan("cdc.users"), "upserts")

    # pyiceberg writes to the same table through its own S3 FileIO; floe reads it.
    import pyarrow as pa
    env.run("table", "create", "cdc.plain", "--schema", "id long not null, name string, v int")
    t = env.pyiceberg().load_table("cdc.plain")
    t.append(pa.Table.from_pylist(rows(0, 40), schema=t.schema().as_arrow()))
    env.run("table", "append", "cdc.plain", env.jsonl("p.jsonl", rows(40, 10)))
    ij.assert_same_rows(rows(0, 50), env.scan("cdc.plain"), "floe reads pyiceberg's append")


def test_drop_purge_deletes_the_objects(floe, tmp_path, moto_endpoint, bucket):
    env = Env(floe, tmp_path, moto_endpoint, bucket)
    env.run("namespace", "create", "p")
    env.run("table", "create", "p.t", "--schema", "id long not null, name string, v int",
            "--partition-by", "bucket(4, id)")
    for i in range(3):
        env.run("table", "append", "p.t", env.jsonl(f"p{i}.jsonl", rows(i * 50, 50)))
    assert len(env.keys("wh/p/t/")) > 10
    env.run("table", "drop", "p.t", "--purge")
    assert env.keys("wh/p/t/") == []


def test_environment_variables_configure_s3(floe, tmp_path, moto_endpoint, bucket, monkeypatch):
    # No --property: endpoint, region and keys come from the standard AWS variables.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_REGION", REGION)
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")  # the S3-specific one wins
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", moto_endpoint)
    db = tmp_path / "env.db"
    flags = ["--catalog", f"sqlite:{db}", "--warehouse", f"s3a://{bucket}/wh"]
    floe.ok("namespace", "create", "e", *flags)
    floe.ok("table", "create", "e.t", "--schema", "id long not null", *flags)
    src = tmp_path / "e.jsonl"
    src.write_text("".join(json.dumps({"id": k}) + "\n" for k in range(10)))
    floe.ok("table", "append", "e.t", src, *flags)
    out = tmp_path / "e.parquet"
    floe.ok("table", "scan", "e.t", "--format", "parquet", "--output", out, *flags)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == list(range(10))


def test_large_file_is_a_multipart_upload(floe, tmp_path, moto_endpoint, bucket):
    # 5 MiB parts (the S3 minimum) and a ~12 MiB file: three parts.
    env = Env(floe, tmp_path, moto_endpoint, bucket,
              extra_properties=["s3.multipart.size=5242880"])
    blob = tmp_path / "blob.bin"
    blob.write_bytes(os.urandom(12 << 20))
    loc = f"s3://{bucket}/big/blob.bin"
    r = floe.run("storage", "put", blob, loc, "--stats", *env.flags[4:])
    assert r.rc == 0, r.describe()
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    assert stats["multipart"] == 5 and stats["put"] == 0, stats  # create, 3 parts, complete
    head = s3_client(moto_endpoint).head_object(Bucket=bucket, Key="big/blob.bin")
    assert head["ETag"].strip('"').endswith("-3"), head["ETag"]
    assert head["ContentLength"] == 12 << 20
    back = floe.run("storage", "cat", loc, *env.flags[4:])
    assert back.rc == 0, back.describe()
    assert back.stdout == blob.read_bytes()
    # Nothing left behind: no unfinished uploads.
    uploads = s3_client(moto_endpoint).list_multipart_uploads(Bucket=bucket)
    assert not uploads.get("Uploads"), uploads

    # A table whose data file is multipart-uploaded reads back in floe and pyiceberg.
    env.run("namespace", "create", "big")
    env.run("table", "create", "big.t", "--schema", "id long not null, payload string")
    rnd = random.Random(7)
    big = [{"id": k, "payload": "%064x" % rnd.getrandbits(256)} for k in range(160_000)]
    env.run("table", "append", "big.t", env.jsonl("big.jsonl", big))
    sizes = [c["Size"] for c in s3_client(moto_endpoint).list_objects_v2(
        Bucket=bucket, Prefix="wh/big/t/data/")["Contents"]]
    assert max(sizes) > 5 << 20, sizes
    t = env.pyiceberg().load_table("big.t").scan().to_arrow()
    assert t.num_rows == len(big)
    assert sorted(t.column("payload").to_pylist()) == sorted(r["payload"] for r in big)


def test_listing_pages_and_batch_delete(floe, tmp_path, moto_endpoint, bucket):
    s3 = s3_client(moto_endpoint)
    n = 1234
    keys = [f"many/k{i:05d} x+y" for i in range(n)]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda k: s3.put_object(Bucket=bucket, Key=k, Body=b"abc"), keys))
    s3.put_object(Bucket=bucket, Key="other", Body=b"z")
    props = [f"--property={k}={v}" for k, v in s3_properties(moto_endpoint).items()]
    r = floe.run("storage", "ls", f"s3://{bucket}/many/", "--stats", *props)
    assert r.rc == 0, r.describe()
    listed = [json.loads(line) for line in r.text.splitlines()]
    assert [f["location"] for f in listed] == [f"s3://{bucket}/{k}" for k in keys]
    assert all(f["size"] == 3 and f["modified_ms"] > 1_600_000_000_000 for f in listed)
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    assert stats["list"] == 2, stats  # 1000 + 234

    doomed = "\n".join(f["location"] for f in listed) + "\n"
    r = subprocess.run([str(floe.path), "storage", "rm", "-", "--stats", *props],
                       input=doomed.encode(), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stderr.decode().strip().splitlines()[-1])
    assert stats["delete"] == 2, stats  # DeleteObjects: 1000 + 234
    left = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert [c["Key"] for c in left] == ["other"]


# ---- fault injection -------------------------------------------------------------------

SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
             b'<Message>Please reduce your request rate.</Message></Error>')


class FaultProxy:
    """An HTTP proxy in front of moto that fails a fraction of the requests: 503 SlowDown,
    500, a connection closed before forwarding, or one closed after moto handled the request
    (the client never learns that it succeeded)."""

    def __init__(self, upstream_port: int, fault_rate: float, seed: int = 1, methods=None):
        self.upstream_port = upstream_port
        self.methods = methods  # None: every method
        self.fault_rate = fault_rate
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.faults = 0
        self.requests = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with proxy.lock:
                    proxy.requests += 1
                    eligible = proxy.methods is None or self.command in proxy.methods
                    fault = (proxy.random.choice(["503", "500", "drop", "drop-after"])
                             if eligible and proxy.random.random() < proxy.fault_rate else None)
                    proxy.faults += fault is not None
                if fault in ("503", "500"):
                    payload = SLOW_DOWN if fault == "503" else b""
                    self.send_response(int(fault))
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                    return
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                conn = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                conn.putrequest(self.command, self.path, skip_host=True,
                                skip_accept_encoding=True)
                for k, v in self.headers.items():
                    conn.putheader(k, v)
                conn.endheaders(body)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                if fault == "drop-after":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    # A HEAD answer's Content-Length is the object's size: kept as sent.
                    if k.lower() in ("transfer-encoding", "connection") or \
                            (k.lower() == "content-length" and self.command != "HEAD"):
                        continue
                    self.send_header(k, v)
                if self.command != "HEAD":
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"


def test_faults_on_a_fraction_of_requests_are_retried(floe, tmp_path, moto_endpoint, bucket):
    moto_port = int(moto_endpoint.rsplit(":", 1)[1])
    with FaultProxy(moto_port, fault_rate=0.25, seed=11) as proxy:
        # Generous attempts: a run of several faults in a row is likely over hundreds of
        # requests.
        env = Env(floe, tmp_path, proxy.endpoint, bucket,
                  extra_properties=["s3.retry.max-attempts=12"])
        env.run("namespace", "create", "f")
        env.run("table", "create", "f.t", "--schema", "id long not null, name string, v int",
                "--partition-by", "bucket(8, id)")
        data = rows(0, 500)
        for i in range(3):
            env.run("table", "append", "f.t", env.jsonl(f"f{i}.jsonl", data[i * 150:(i + 1) * 150]))
        env.run("table", "append", "f.t", env.jsonl("f3.jsonl", data[450:]))
        env.run("table", "delete", "f.t", "--where", "v < 10")
        want = [r for r in data if r["v"] >= 10]
        ij.assert_same_rows(want, env.scan("f.t"), "floe through the faulty proxy")
        assert proxy.faults > 0 and proxy.requests > 100, (proxy.faults, proxy.requests)
    # Straight to moto: pyiceberg sees the same content.
    py = ij.canonical_rows(env.pyiceberg(moto_endpoint).load_table("f.t").scan().to_arrow())
    ij.assert_same_rows(want, py, "pyiceberg after the faulty run")


@pytest.mark.parametrize("methods", [None, ("PUT", "POST")], ids=["all", "writes"])
def test_faults_on_every_request_fail_cleanly(floe, tmp_path, moto_endpoint, bucket, methods):
    env = Env(floe, tmp_path, moto_endpoint, bucket)
    env.run("namespace", "create", "x")
    env.run("table", "create", "x.t", "--schema", "id long not null")
    env.run("table", "append", "x.t", env.jsonl("a.jsonl", [{"id": k} for k in range(20)]))
    before = env.pyiceberg().load_table("x.t").metadata_location
    keys_before = set(env.keys())

    moto_port = int(moto_endpoint.rsplit(":", 1)[1])
    with FaultProxy(moto_port, fault_rate=1.0, seed=3, methods=methods) as proxy:
        bad = Env(floe, tmp_path, proxy.endpoint, bucket,
                  extra_properties=["s3.retry.max-attempts=3"])
        r = bad.run("table", "append", "x.t", env.jsonl("b.jsonl", [{"id": 99}]), ok=False,
                    timeout=120)
        assert r.rc not in (0, None) and not r.signalled, r.describe()
        assert r.stderr.strip(), r.describe()
        if methods is None:
            r = bad.run("table", "scan", "x.t", "--format", "parquet", "--output",
                        tmp_path / "never.parquet", ok=False, timeout=120)
            assert r.rc not in (0, None) and not r.signalled, r.describe()

    # The catalog still points at the old metadata, and no new metadata file appeared.
    assert env.pyiceberg().load_table("x.t").metadata_location == before
    new_keys = set(env.keys()) - keys_before
    assert not [k for k in new_keys if "/metadata/" in k], new_keys
    ij.assert_same_rows([{"id": k} for k in range(20)], env.scan("x.t"), "after the failures")


def test_filesystem_catalog_refuses_s3(floe, bucket):
    r = floe.run("namespace", "create", "n", "--catalog", f"file:s3://{bucket}/wh")
    assert r.rc not in (0, None), r.describe()
    assert "atomic rename" in r.stderr, r.stderr
    r = floe.run("namespace", "create", "n", "--catalog", f"s3://{bucket}/wh")
    assert r.rc not in (0, None) and "atomic rename" in r.stderr, r.describe()


def test_server_catalog_on_s3_with_self_optimizing(floe, tmp_path, moto_endpoint, bucket):
    """`floe server` serving an internal catalog whose warehouse is in the bucket (s3.*
    catalog properties in floe.yaml): pyiceberg writes through the REST catalog with its own
    S3 FileIO, the server's optimizer compacts the small files on S3, pyiceberg reads the
    rows it wrote."""
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType
    import pyarrow as pa
    from floe_server import FloeServer

    config = {"catalogs": {"lake": {"warehouse": f"s3://{bucket}/lake",
                                    "properties": s3_properties(moto_endpoint)}}}
    with FloeServer(floe.path, tmp_path / "data", optimizer=True, config=config,
                    extra_args=["--optimizer-refresh-ms", "500"]) as server:
        # The endpoint and region come from the server's /v1/config defaults; the keys are
        # the client's own (never vended from the catalog's properties).
        import urllib.request
        with urllib.request.urlopen(f"{server.uri}/v1/config?warehouse=lake") as resp:
            served = json.load(resp)
        assert served["defaults"]["s3.endpoint"] == moto_endpoint, served
        assert "s3.secret-access-key" not in json.dumps(served), served
        cat = RestCatalog("lake", uri=server.uri, warehouse="lake",
                          **{"s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY})
        cat.create_namespace("db")
        schema = Schema(NestedField(1, "id", LongType(), required=False),
                        NestedField(2, "v", StringType(), required=False))
        t = cat.create_table("db.events", schema, properties={
            "self-optimizing.minor.trigger.file-count": "5",
            "self-optimizing.minor.trigger.interval": "-1",
            "self-optimizing.min-plan-interval": "0"})
        assert t.metadata_location.startswith(f"s3://{bucket}/lake/db/events/metadata/")
        expected = []
        for i in range(6):
            batch = [{"id": i * 100 + k, "v": f"r{i}-{k}"} for k in range(50)]
            expected += batch
            t.append(pa.Table.from_pylist(batch, schema=t.schema().as_arrow()))

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            t.refresh()
            if any((s.summary or {}).get("snapshot-producer") == "OPTIMIZE"
                   for s in t.metadata.snapshots):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("no compaction within 60s; server log:\n"
                                 + server.log_text()[-4000:])
        assert t.inspect.files().num_rows < 6
        got = sorted((r["id"], r["v"]) for r in t.scan().to_arrow().to_pylist())
        assert got == sorted((r["id"], r["v"]) for r in expected)
        # The rewritten files are objects in the bucket too.
        assert all(f.startswith(f"s3://{bucket}/lake/db/events/data/")
                   for f in t.inspect.files().column("file_path").to_pylist())

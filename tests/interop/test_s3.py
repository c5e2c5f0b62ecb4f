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

import collections
import datetime
import http.client
import http.server
import json
import os
import random
import re
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse
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


def test_projection_reads_only_its_column_chunks_coalesced(floe, tmp_path, moto_endpoint,
                                                           bucket):
    """`floe parquet cat` of an s3:// object reads the footer (one 64 KiB tail read, and the
    4-byte head magic), then only the projected columns' chunks; adjacent chunks of a row
    group come in one ranged GET (gaps up to Arrow's hole_size_limit of 8 KiB are read
    through). The chunk layout and the values come from pyarrow, which wrote the file."""
    import pyarrow as pa
    n, width = 20000, 40
    table = pa.table({f"c{i:02d}": pa.array([(k * (i + 7)) % 1000003 for k in range(n)],
                                            pa.int64()) for i in range(width)})
    path = tmp_path / "wide.parquet"
    pq.write_table(table, path, row_group_size=n // 2, compression="none", use_dictionary=False)
    size = path.stat().st_size
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 2
    s3_client(moto_endpoint).upload_file(str(path), bucket, "wide.parquet")
    props = [f"--property={k}={v}" for k, v in s3_properties(moto_endpoint).items()]
    location = f"s3://{bucket}/wide.parquet"

    r = floe.run("parquet", "cat", location, "--columns", "c07", "--stats", *props)
    assert r.rc == 0, r.describe()
    assert [json.loads(line)["c07"] for line in r.text.splitlines()] == \
        table.column("c07").to_pylist()
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    chunks = sum(md.row_group(g).column(7).total_compressed_size for g in range(2))
    # HEAD at open; GETs: head magic, tail, one per row group.
    assert stats["head"] == 1 and stats["get"] == 4, stats
    # The chunks, the tail and the magic; each chunk read may run 100 bytes past its end
    # (the reader's allowance for parquet-mr's PARQUET-816).
    assert chunks + 65536 + 4 <= stats["bytes_read"] <= chunks + 65536 + 4 + 200, stats
    assert stats["bytes_read"] * 20 < size, (stats, size)

    wanted = [f"c{i:02d}" for i in range(20)]
    r = floe.run("parquet", "cat", location, "--columns", ",".join(wanted), "--limit", "3",
                 "--stats", *props)
    assert r.rc == 0, r.describe()
    got = [json.loads(line) for line in r.text.splitlines()]
    assert got == table.select(wanted).slice(0, 3).to_pylist()
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    # 20 adjacent chunks, one GET (20 without coalescing); --limit stops in row group 0.
    assert stats["get"] == 3, stats
    assert stats["operations"] == {"HeadObject": 1, "GetObjectRange": 3}, stats


# ---- fault injection -------------------------------------------------------------------

SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
             b'<Message>Please reduce your request rate.</Message></Error>')


def s3_operation(method: str, path: str, headers) -> str:
    """The S3 API operation of a request (GETs of objects as "GetObject"; see whole_object)."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query, keep_blank_values=True)
    bucket_only = "/" not in urllib.parse.urlsplit(path).path.strip("/")
    if method == "HEAD":
        return "HeadObject"
    if method == "GET":
        return "ListObjectsV2" if bucket_only else "GetObject"
    if method == "PUT":
        return "UploadPart" if "uploadId" in query else "PutObject"
    if method == "POST":
        if "delete" in query:
            return "DeleteObjects"
        return "CreateMultipartUpload" if "uploads" in query else "CompleteMultipartUpload"
    if method == "DELETE":
        return "AbortMultipartUpload" if "uploadId" in query else "DeleteObject"
    return method


def whole_object(range_header, content_range) -> bool:
    """Whether a GET answered the whole object: no Range, or a Content-Range
    "bytes 0-(n-1)/n" (RFC 9110 14.4)."""
    if not range_header or not content_range:
        return True
    span, _, total = content_range.removeprefix("bytes ").partition("/")
    first, _, last = span.partition("-")
    return int(first) == 0 and int(last) + 1 == int(total)


class FaultProxy:
    """An HTTP proxy in front of moto that fails a fraction of the requests: 503 SlowDown,
    500, a connection closed before forwarding, or one closed after moto handled the request
    (the client never learns that it succeeded)."""

    def __init__(self, upstream_port: int, fault_rate: float, seed: int = 1, methods=None,
                 list_rewrite=None):
        self.upstream_port = upstream_port
        self.list_rewrite = list_rewrite  # bytes -> bytes, applied to ListObjectsV2 answers
        self.methods = methods  # None: every method
        self.fault_rate = fault_rate
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.faults = 0
        self.requests = 0
        # S3 operation -> requests, and body bytes of GETs / PUTs, as seen on the wire.
        self.ops = collections.Counter()
        self.bytes_read = 0
        self.bytes_written = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                op = s3_operation(self.command, self.path, self.headers)
                with proxy.lock:
                    proxy.requests += 1
                    if op in ("PutObject", "UploadPart"):
                        proxy.bytes_written += len(body)
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
                if proxy.list_rewrite and op == "ListObjectsV2" and resp.status == 200:
                    data = proxy.list_rewrite(data)
                if op == "GetObject" and resp.status in (200, 206):
                    whole = whole_object(self.headers.get("Range"), resp.getheader("Content-Range"))
                    with proxy.lock:
                        proxy.ops["GetObject" if whole else "GetObjectRange"] += 1
                        proxy.bytes_read += len(data)
                elif op != "GetObject":
                    with proxy.lock:
                        proxy.ops[op] += 1
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


def backdate_listing(young_marker: str, seconds: int, cutoff: dict):
    """A ListObjectsV2 answer rewriter: objects written before cutoff["at"] (once set) whose
    key lacks `young_marker` show a LastModified `seconds` earlier (moto cannot create old
    objects); objects written later (commits in flight) keep their real age."""
    def rewrite(body: bytes) -> bytes:
        def one(m):
            block = m.group(0)
            key = urllib.parse.unquote_plus(re.search(r"<Key>(.*?)</Key>", block).group(1))
            stamp = re.search(r"<LastModified>(.*?)</LastModified>", block).group(1)
            when = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            if young_marker in key or "at" not in cutoff or when >= cutoff["at"]:
                return block
            old = (when - datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            return block.replace(stamp, old)
        return re.sub(r"<Contents>.*?</Contents>", one, body.decode(), flags=re.S).encode()
    return rewrite


def test_orphan_cleanup_on_s3_goes_by_last_modified(floe, tmp_path, moto_endpoint, bucket):
    """`floe server`'s orphan cleaning of a table in the bucket: the age of an object is its
    LastModified in the listing (a proxy shows the objects written before the last commit
    two hours old, but the one named "young"); unreferenced old objects under data/ and
    metadata/ go, a young one (a writer still at work) and objects outside the table's
    directories stay, and the table reads the same rows with pyiceberg."""
    from pyiceberg.catalog.rest import RestCatalog
    import pyarrow as pa
    from floe_server import FloeServer

    moto_port = int(moto_endpoint.rsplit(":", 1)[1])
    cutoff = {}
    proxy = FaultProxy(moto_port, fault_rate=0.0,
                       list_rewrite=backdate_listing("young", 7200, cutoff))
    config = {"catalogs": {"lake": {"warehouse": f"s3://{bucket}/lake",
                                    "properties": s3_properties(proxy.endpoint)}},
              "optimizer": {"maintenance-interval-ms": 0}}
    with proxy, FloeServer(floe.path, tmp_path / "data", optimizer=True, config=config,
                           extra_args=["--optimizer-refresh-ms", "3600000"]) as server:
        cat = RestCatalog("lake", uri=server.uri, warehouse="lake",
                          **{"s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY,
                             "s3.endpoint": moto_endpoint})
        cat.create_namespace("db")
        schema = pa.schema([pa.field("id", pa.int64())])
        t = cat.create_table("db.t", schema, properties={
            "clean-orphan-file.enabled": "true",
            "clean-orphan-file.min-existing-time-minutes": "60",
            "self-optimizing.enabled": "false", "table-expire.enabled": "false"})
        t.append(pa.table({"id": list(range(10))}))
        t.append(pa.table({"id": list(range(10, 20))}))
        s3 = s3_client(moto_endpoint)
        root = "lake/db/t"
        old_orphans = [f"{root}/data/failed-writer-00001.parquet",
                       f"{root}/metadata/lost-commit-m0.avro"]
        young = f"{root}/data/young-in-flight-00002.parquet"
        outside = f"{root}/data-archive/keep.parquet"
        for key in old_orphans + [young, outside]:
            s3.put_object(Bucket=bucket, Key=key, Body=b"not referenced by the table")
        before = set_of_keys(s3, bucket, root + "/")
        # What exists now turns two hours old; the next commit's files stay young (moto's
        # LastModified may have whole seconds).
        cutoff["at"] = datetime.datetime.now(datetime.timezone.utc)
        time.sleep(1.1)

        t.append(pa.table({"id": list(range(20, 25))}))  # the commit event
        deadline = time.monotonic() + 30
        while any(k in set_of_keys(s3, bucket, root) for k in old_orphans):
            assert time.monotonic() < deadline, server.log_text()[-4000:]
            time.sleep(0.2)
        left = set_of_keys(s3, bucket, root)
        assert young in left and outside in left
        # Everything else that was there (all referenced) is still there.
        assert before - set(old_orphans) <= left, before - set(old_orphans) - left
        t = cat.load_table("db.t")
        assert sorted(r["id"] for r in t.scan().to_arrow().to_pylist()) == list(range(25))
        assert '"event":"orphan-files-cleaned"' in server.log_text()


def set_of_keys(s3, bucket: str, prefix: str) -> set:
    out = set()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out |= {c["Key"] for c in page.get("Contents", [])}
    return out


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

    from metrics_scrape import scrape

    # The server reaches the store through a counting proxy (no faults); pyiceberg goes
    # straight to moto, so the proxy sees floe's requests only.
    moto_port = int(moto_endpoint.rsplit(":", 1)[1])
    proxy = FaultProxy(moto_port, fault_rate=0.0)
    config = {"catalogs": {"lake": {"warehouse": f"s3://{bucket}/lake",
                                    "properties": s3_properties(proxy.endpoint)}}}
    with proxy, FloeServer(floe.path, tmp_path / "data", optimizer=True, config=config,
                           extra_args=["--optimizer-refresh-ms", "500"]) as server:
        # The endpoint and region come from the server's /v1/config defaults; the keys are
        # the client's own (never vended from the catalog's properties).
        import urllib.request
        with urllib.request.urlopen(f"{server.uri}/v1/config?warehouse=lake") as resp:
            served = json.load(resp)
        assert served["defaults"]["s3.endpoint"] == proxy.endpoint, served
        assert "s3.secret-access-key" not in json.dumps(served), served
        cat = RestCatalog("lake", uri=server.uri, warehouse="lake",
                          **{"s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY,
                             "s3.endpoint": moto_endpoint})
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

        # /metrics counts, per operation, the requests the proxy saw, and the body bytes
        # it carried: the catalog's (metadata) under catalog="lake", the optimizer threads'
        # (data files) under catalog="". A sample agrees once no request is in flight.
        deadline = time.monotonic() + 30
        while True:
            with proxy.lock:
                seen = (dict(proxy.ops), proxy.bytes_read, proxy.bytes_written)
            families = scrape(server)
            counted = collections.Counter()
            by_catalog = collections.Counter()
            read = written = 0
            for family in families.values():
                for smp in family.samples:
                    if smp.labels.get("bucket") != bucket:
                        continue
                    if smp.name == "floe_s3_requests_total":
                        counted[smp.labels["operation"]] += int(smp.value)
                        by_catalog[smp.labels["catalog"], smp.labels["operation"]] += smp.value
                    elif smp.name == "floe_s3_read_bytes_total":
                        read += int(smp.value)
                    elif smp.name == "floe_s3_written_bytes_total":
                        written += int(smp.value)
                    elif smp.name == "floe_s3_request_errors_total":
                        raise AssertionError(f"an S3 error was counted: {smp}")
            with proxy.lock:
                again = (dict(proxy.ops), proxy.bytes_read, proxy.bytes_written)
            if seen == again and (dict(counted), read, written) == seen:
                break
            assert time.monotonic() < deadline, (dict(counted), read, written, seen)
            time.sleep(0.2)
        assert by_catalog["lake", "PutObject"] >= 7  # create + 6 appends' metadata.json
        # The optimizer's inputs are small: one GET each reads the whole file, footer and
        # chunks (docs/storage.md).
        assert by_catalog["", "GetObject"] + by_catalog["", "GetObjectRange"] > 0
        assert by_catalog["", "PutObject"] > 0
        assert read > 0 and written > 0


def test_table_topic_and_full_optimize_on_s3(floe, tmp_path, moto_endpoint, bucket):
    """A table topic whose catalog's warehouse is in the bucket: records produced with
    confluent-kafka land in the table (Parquet data files written to S3), a full optimize
    on the server rewrites them into one file on S3, and pyiceberg, with its own S3 FileIO,
    reads the produced records before and after."""
    from confluent_kafka import Producer
    from pyiceberg.catalog.rest import RestCatalog
    from floe_server import FloeServer
    from kafka_topics import JSON_TABLE_TOPIC, create_topic

    config = {"catalogs": {"lake": {"warehouse": f"s3://{bucket}/lake",
                                    "properties": s3_properties(moto_endpoint)}},
              "kafka": {"table-catalog": "lake"}}
    with FloeServer(floe.path, tmp_path / "data", optimizer=True, kafka=True, config=config,
                    extra_args=["--optimizer-refresh-ms", "3600000"]) as server:
        topic = "orders_" + uuid.uuid4().hex[:8]
        create_topic(server.kafka_bootstrap, topic, partitions=2, config=JSON_TABLE_TOPIC)
        producer = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all",
                             "enable.idempotence": True, "linger.ms": 5})
        sent = [{"id": i, "item": f"sku-{i % 13}", "qty": i % 5} for i in range(300)]
        errors = []
        cat = RestCatalog("lake", uri=server.uri, warehouse="lake",
                          **{"s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY})
        table = f"kafka.{topic}"

        def rows_once(count: int) -> list:
            # The table's rows once it holds `count` (or what it held at the deadline).
            deadline = time.monotonic() + 60
            rows = []
            while time.monotonic() < deadline:
                try:
                    rows = cat.load_table(table).scan().to_arrow().to_pylist()
                except Exception:  # noqa: BLE001 - not created yet
                    rows = []
                if len(rows) >= count:
                    break
                time.sleep(0.3)
            return rows

        # Three batches, each committed before the next is sent: several data files, however
        # slow the machine.
        for start in range(0, len(sent), 100):
            for k in range(start, start + 100):
                producer.produce(topic, value=json.dumps(sent[k]).encode(), partition=k % 2,
                                 on_delivery=lambda err, msg: errors.append(err) if err else None)
            assert producer.flush(30) == 0 and errors == []
            got = rows_once(start + 100)
        want = sorted((r["id"], r["item"], r["qty"]) for r in sent)
        assert sorted((r["id"], r["item"], r["qty"]) for r in got) == want, \
            server.log_text()[-3000:]
        t = cat.load_table(table)
        files = t.inspect.files().column("file_path").to_pylist()
        assert len(files) > 1 and all(f.startswith(f"s3://{bucket}/lake/") for f in files)

        r = floe.run("optimize", table, "--server", server.uri, "--catalog-name", "lake",
                     "--mode", "full", "--wait", timeout=120)
        assert r.rc == 0, r.describe()
        t = cat.load_table(table)
        assert (t.current_snapshot().summary or {}).get("snapshot-producer") == "OPTIMIZE"
        files = t.inspect.files().column("file_path").to_pylist()
        assert len(files) == 1 and files[0].startswith(f"s3://{bucket}/lake/"), files
        got = t.scan().to_arrow().to_pylist()
        assert sorted((r["id"], r["item"], r["qty"]) for r in got) == want


# ---- CLI debugging tools and scan output on s3:// ----------------------------------------

def get_object(endpoint: str, bucket: str, key: str) -> tuple[bytes, dict]:
    r = s3_client(endpoint).get_object(Bucket=bucket, Key=key)
    return r["Body"].read(), r


def test_iceberg_manifest_tools_read_and_write_s3(floe, tmp_path, moto_endpoint, bucket):
    """`floe iceberg manifest [--list]` of the manifest list and manifests of a table on
    s3:// print what pyiceberg (its own S3 FileIO) reads from the same objects; the manifest
    written back to s3:// by `write-manifest` / `write-manifest-list` (entries JSON read from
    s3:// too) is read by pyiceberg with the same entries."""
    from pyiceberg.manifest import read_manifest_list
    env = Env(floe, tmp_path, moto_endpoint, bucket)
    props = [f"--property={k}={v}" for k, v in s3_properties(moto_endpoint).items()]
    env.run("namespace", "create", "m")
    env.run("table", "create", "m.t", "--schema", "id long not null, name string, v int",
            "--partition-by", "bucket(4, id)")
    env.run("table", "append", "m.t", env.jsonl("a.jsonl", rows(0, 100)))
    env.run("table", "append", "m.t", env.jsonl("b.jsonl", rows(100, 50)))
    table = env.pyiceberg().load_table("m.t")
    snapshot = table.current_snapshot()
    assert snapshot.manifest_list.startswith(f"s3://{bucket}/")

    r = floe.run("iceberg", "manifest", snapshot.manifest_list, "--list", "--stats", *props)
    assert r.rc == 0, r.describe()
    listed = json.loads(r.text)["manifests"]
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    assert stats["get"] >= 1 and stats["put"] == 0, stats
    py_manifests = snapshot.manifests(table.io)
    assert [(m["manifest_path"], m["manifest_length"], m["added_snapshot_id"],
             m["sequence_number"], m["added_files_count"], m["added_rows_count"])
            for m in listed] == \
        [(m.manifest_path, m.manifest_length, m.added_snapshot_id, m.sequence_number,
          m.added_files_count, m.added_rows_count) for m in py_manifests]

    for m in py_manifests:
        r = floe.run("iceberg", "manifest", m.manifest_path, "--sequence-number",
                     str(m.sequence_number), "--snapshot-id", str(m.added_snapshot_id), *props)
        assert r.rc == 0, r.describe()
        shown = json.loads(r.text)
        py_entries = m.fetch_manifest_entry(table.io, discard_deleted=False)
        assert [(e["status"], e["snapshot_id"], e["sequence_number"],
                 e["data_file"]["file_path"], e["data_file"]["record_count"],
                 e["data_file"]["file_size_in_bytes"], e["data_file"]["partition"])
                for e in shown["entries"]] == \
            [(int(e.status), e.snapshot_id, e.sequence_number, e.data_file.file_path,
              e.data_file.record_count, e.data_file.file_size_in_bytes,
              list(e.data_file.partition)) for e in py_entries]

    # Write the first manifest's entries back to s3:// and list it in a manifest list there.
    first = py_manifests[0]
    r = floe.run("iceberg", "manifest", first.manifest_path, "--sequence-number",
                 str(first.sequence_number), "--snapshot-id", str(first.added_snapshot_id),
                 *props)
    assert r.rc == 0, r.describe()
    shown = json.loads(r.text)
    s3 = s3_client(moto_endpoint)
    s3.put_object(Bucket=bucket, Key="debug/entries.json",
                  Body=json.dumps({"entries": shown["entries"]}).encode())
    copy = f"s3://{bucket}/debug/copy-m0.avro"
    r = floe.run("iceberg", "write-manifest", copy, "--entries-json",
                 f"s3://{bucket}/debug/entries.json", "--partition-type-json",
                 json.dumps(shown["partition_type"]), "--snapshot-id",
                 str(first.added_snapshot_id), "--schema-json",
                 table.schema().model_dump_json(), "--stats", *props)
    assert r.rc == 0, r.describe()
    written = json.loads(r.text)
    assert written["manifest_length"] == len(get_object(moto_endpoint, bucket,
                                                        "debug/copy-m0.avro")[0])
    (tmp_path / "manifests.json").write_text(json.dumps({"manifests": [written]}))
    copy_list = f"s3://{bucket}/debug/snap-copy.avro"
    r = floe.run("iceberg", "write-manifest-list", copy_list, "--manifests-json",
                 tmp_path / "manifests.json", "--snapshot-id", str(first.added_snapshot_id),
                 "--sequence-number", str(first.sequence_number), *props)
    assert r.rc == 0, r.describe()
    [m] = list(read_manifest_list(table.io.new_input(copy_list)))
    assert m.manifest_path == copy
    got = m.fetch_manifest_entry(table.io, discard_deleted=False)
    want = first.fetch_manifest_entry(table.io, discard_deleted=False)
    assert [(e.data_file.file_path, e.data_file.record_count, list(e.data_file.partition),
             e.sequence_number) for e in got] == \
        [(e.data_file.file_path, e.data_file.record_count, list(e.data_file.partition),
          e.sequence_number) for e in want]


def test_iceberg_writers_and_commit_test_on_s3(floe, tmp_path, moto_endpoint, bucket):
    """`floe iceberg write-data` reads its input from s3:// and writes data files there,
    `write-deletes` a position delete file, `commit-test` a table's metadata: pyarrow and
    pyiceberg read them from the bucket."""
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.table import StaticTable
    from pyiceberg.types import LongType, NestedField, StringType
    props = [f"--property={k}={v}" for k, v in s3_properties(moto_endpoint).items()]
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType(), required=False))
    arrow = pa.schema([pa.field("id", pa.int64(), nullable=False,
                                metadata={b"PARQUET:field_id": b"1"}),
                       pa.field("name", pa.string(), metadata={b"PARQUET:field_id": b"2"})])
    data = [{"id": k, "name": f"n{k % 5}"} for k in range(500)]
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(data, schema=arrow), src)
    s3_client(moto_endpoint).upload_file(str(src), bucket, "in/in.parquet")

    r = floe.run("iceberg", "write-data", "--schema-json", schema.model_dump_json(),
                 "--location", f"s3://{bucket}/wd", "--input", f"s3://{bucket}/in/in.parquet",
                 *props)
    assert r.rc == 0, r.describe()
    files = json.loads(r.text)["data_files"]
    got = []
    for f in files:
        assert f["file_path"].startswith(f"s3://{bucket}/wd/data/"), f
        body, _ = get_object(moto_endpoint, bucket, f["file_path"].split(f"{bucket}/", 1)[1])
        assert f["file_size_in_bytes"] == len(body)
        t = pq.read_table(pa.BufferReader(body))
        assert f["record_count"] == t.num_rows
        got += t.to_pylist()
    assert sorted(got, key=lambda r: r["id"]) == data

    target = files[0]["file_path"]
    (tmp_path / "deletes.json").write_text(json.dumps(
        [{"file_path": target, "positions": [0, 5, 7], "partition": []}]))
    r = floe.run("iceberg", "write-deletes", "--mode", "position", "--schema-json",
                 schema.model_dump_json(), "--location", f"s3://{bucket}/wd", "--deletes-json",
                 tmp_path / "deletes.json", *props)
    assert r.rc == 0, r.describe()
    [d] = json.loads(r.text)["delete_files"]
    body, _ = get_object(moto_endpoint, bucket, d["file_path"].split(f"{bucket}/", 1)[1])
    t = pq.read_table(pa.BufferReader(body))
    assert t.select(["file_path", "pos"]).to_pylist() == \
        [{"file_path": target, "pos": p} for p in (0, 5, 7)]

    r = floe.run("iceberg", "commit-test", f"s3://{bucket}/ct", *props)
    assert r.rc == 0, r.describe()
    out = json.loads(r.text)
    assert out["metadata_location"].startswith(f"s3://{bucket}/ct/metadata/")
    table = StaticTable.from_metadata(out["metadata_location"],
                                      properties=s3_properties(moto_endpoint))
    assert table.current_snapshot().snapshot_id == out["rewrite"]
    assert {s.snapshot_id for s in table.snapshots()} == \
        {out["row_delta"], out["row_delta_2"], out["rewrite"]}


def test_table_scan_output_streams_to_s3(floe, tmp_path, moto_endpoint, bucket):
    """`floe table scan --output s3://...` (and `floe iceberg scan`) write JSON Lines, CSV and
    Parquet objects that pyarrow reads back with the table's rows; an output larger than a
    part (5 MiB here) is a multipart upload (its ETag ends in -<parts>), none left open."""
    import io as pyio
    import pyarrow.csv as pacsv
    env = Env(floe, tmp_path, moto_endpoint, bucket,
              extra_properties=["s3.multipart.size=5242880"])
    env.run("namespace", "create", "o")
    env.run("table", "create", "o.t", "--schema", "id long not null, payload string")
    rnd = random.Random(11)
    data = [{"id": k, "payload": "%064x" % rnd.getrandbits(256)} for k in range(70_000)]
    env.run("table", "append", "o.t", env.jsonl("o.jsonl", data))
    want = sorted((r["id"], r["payload"]) for r in data)

    env.run("table", "scan", "o.t", "--output", f"s3://{bucket}/out/rows.jsonl")
    body, resp = get_object(moto_endpoint, bucket, "out/rows.jsonl")
    assert len(body) > 5 << 20
    assert resp["ETag"].strip('"').endswith("-2"), resp["ETag"]
    got = [json.loads(line) for line in body.decode().splitlines()]
    assert sorted((r["id"], r["payload"]) for r in got) == want

    env.run("table", "scan", "o.t", "--output", f"s3://{bucket}/out/rows.csv")
    t = pacsv.read_csv(pa_buffer(get_object(moto_endpoint, bucket, "out/rows.csv")[0]))
    assert sorted(zip(t.column("id").to_pylist(), t.column("payload").to_pylist())) == want

    env.run("table", "scan", "o.t", "--format", "parquet", "--where", "id < 1000",
            "--output", f"s3a://{bucket}/out/rows.parquet")
    t = pq.read_table(pyio.BytesIO(get_object(moto_endpoint, bucket, "out/rows.parquet")[0]))
    assert sorted(zip(t.column("id").to_pylist(), t.column("payload").to_pylist())) == \
        [w for w in want if w[0] < 1000]

    # `floe iceberg scan` of the metadata file, to s3:// as well.
    metadata = env.pyiceberg().load_table("o.t").metadata_location
    props = [f"--property={k}={v}" for k, v in s3_properties(moto_endpoint).items()]
    r = floe.run("iceberg", "scan", metadata, "--columns", "id", "--format", "parquet",
                 "--output", f"s3://{bucket}/out/ids.parquet", "--stats", *props)
    assert r.rc == 0, r.describe()
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    assert stats["put"] == 1, stats
    t = pq.read_table(pyio.BytesIO(get_object(moto_endpoint, bucket, "out/ids.parquet")[0]))
    assert sorted(t.column("id").to_pylist()) == list(range(70_000))
    uploads = s3_client(moto_endpoint).list_multipart_uploads(Bucket=bucket)
    assert not uploads.get("Uploads"), uploads


def pa_buffer(data: bytes):
    import pyarrow as pa
    return pa.BufferReader(data)

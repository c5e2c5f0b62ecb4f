"""floe's REST catalog client against Iceberg's Java reference REST server (RESTCatalogServer
1.11.0 on a JdbcCatalog in SQLite; rest_server.py), checked with pyiceberg's RestCatalog on
the same server.

Every `floe namespace` / `floe table` command runs with `--catalog rest:http://127.0.0.1:PORT`:
namespaces (create with properties, nested, list, describe, drop, not-empty refusal), tables
(create, append, scan, delete, upsert, list with paging, rename, drop), commits that lose a
race (409 -> retry), tables pyiceberg writes, the error model (404, 409), the OAuth2
client_credentials exchange and bearer tokens, and a commit answered 5xx after the server
committed (unknown outcome: floe must keep its files). A recording proxy in front of the
server shows the requests and injects the faults. One JVM per module: it takes seconds to
start.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

import iceberg_java as ij
from floe_runner import EXIT_ERROR, EXIT_NOT_FOUND
from rest_server import RestServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with RestServer(tmp_path_factory.mktemp("rest-server")) as s:
        yield s


class Proxy:
    """A forwarding HTTP/1.1 proxy in front of the server: records every request (method, path
    with query, headers, body, the server's ETag) and answers the next request matching
    `fault` = (method, path suffix, status, body, forward) with that status instead of the
    server's answer, after forwarding it when `forward` (the server did the work) or without."""

    def __init__(self, backend: str):
        self.backend = urlsplit(backend)
        self.requests: list[dict] = []
        self.fault: tuple | None = None
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                record = {"method": self.command, "path": self.path,
                          "headers": {k.lower(): v for k, v in self.headers.items()},
                          "body": body}
                with proxy.lock:
                    proxy.requests.append(record)
                    fault = proxy.fault
                    if fault and not (fault[0] == self.command
                                      and self.path.split("?")[0].endswith(fault[1])):
                        fault = None
                    if fault:
                        proxy.fault = None
                status, data, etag = None, b"", None
                if fault is None or fault[4]:
                    conn = http.client.HTTPConnection(proxy.backend.hostname,
                                                      proxy.backend.port, timeout=120)
                    headers = {k: v for k, v in self.headers.items()
                               if k.lower() not in ("host", "accept-encoding", "connection")}
                    conn.request(self.command, self.path, body=body or None, headers=headers)
                    resp = conn.getresponse()
                    status, data, etag = resp.status, resp.read(), resp.getheader("ETag")
                    conn.close()
                    record["etag"] = etag
                if fault:
                    status, data, etag = fault[2], fault[3].encode(), None
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if etag:
                    self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_HEAD = handle_one

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.uri = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def proxy(server):
    p = Proxy(server.uri)
    yield p
    p.close()


class Env:
    def __init__(self, floe, server, root, query: str = ""):
        self.floe = floe
        self.server = server
        self.root = root
        self.flags = ["--catalog", f"rest:{server.uri}{query}"]

    def run(self, *args, ok=True, query: str | None = None, catalog: str | None = None):
        flags = self.flags
        if query is not None:
            flags = ["--catalog", f"rest:{self.server.uri}{query}"]
        if catalog is not None:
            flags = ["--catalog", catalog]
        r = self.floe.run(*args, *flags, timeout=300)
        if ok:
            assert r.rc == 0, r.describe()
        return r

    def json(self, *args, **kw):
        return json.loads(self.run(*args, "--json", **kw).stdout)

    def pyiceberg(self) -> RestCatalog:
        return RestCatalog("rest", uri=self.server.uri)

    def jsonl(self, name, rows):
        p = self.root / name
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return p

    def scan(self, table, *args):
        out = self.root / "scan.parquet"
        self.run("table", "scan", table, "--format", "parquet", "--output", out, *args)
        return ij.canonical_rows(pq.read_table(out))

    def py_rows(self, table):
        return ij.canonical_rows(self.pyiceberg().load_table(table).scan().to_arrow())


@pytest.fixture
def env(floe, server, tmp_path):
    return Env(floe, server, tmp_path)


def test_namespaces(env):
    env.run("namespace", "create", "nsa", "--property", "owner=floe", "--property", "k=v 1")
    env.run("namespace", "create", "nsa.child")
    env.run("namespace", "create", "nsb")
    py = env.pyiceberg()
    assert {("nsa",), ("nsb",)} <= set(py.list_namespaces())
    assert py.list_namespaces("nsa") == [("nsa", "child")]
    assert py.load_namespace_properties("nsa")["owner"] == "floe"
    assert py.load_namespace_properties("nsa")["k"] == "v 1"

    top = env.json("namespace", "list")
    assert {"nsa", "nsb"} <= set(top), top
    assert env.json("namespace", "list", "nsa") == ["nsa.child"]
    # Paged: one namespace per page, every page followed.
    paged = env.json("namespace", "list", query="?rest-page-size=1")
    assert paged == top
    described = env.json("namespace", "describe", "nsa")
    assert described["properties"] == py.load_namespace_properties("nsa")

    r = env.run("namespace", "create", "nsa", ok=False)
    assert r.rc == EXIT_ERROR and "already exists" in r.stderr.lower(), r.describe()
    r = env.run("namespace", "drop", "nsa", ok=False)
    assert r.rc == EXIT_ERROR and "not empty" in r.stderr.lower(), r.describe()
    r = env.run("namespace", "describe", "nope", ok=False)
    assert r.rc == EXIT_NOT_FOUND, r.describe()

    # Levels and names that need percent-encoding in paths and the parent parameter (not
    # "%": Jetty 12 refuses %25 in a path with an empty 400, for Java clients too).
    env.run("namespace", "create", "odd ns")
    env.run("namespace", "create", "odd ns.k+2")
    env.run("table", "create", "odd ns.k+2.t x", "--schema", "id long")
    # (pyiceberg 0.12 double-encodes a `parent` with a space: its list_namespaces("odd ns")
    # asks for "odd%20ns"; so only floe lists below it here.)
    assert ("odd ns",) in py.list_namespaces()
    assert "location" in py.load_namespace_properties(("odd ns", "k+2"))
    assert py.list_tables(("odd ns", "k+2")) == [("odd ns", "k+2", "t x")]
    assert env.json("namespace", "list", "odd ns") == ["odd ns.k+2"]
    assert env.json("table", "list", "odd ns.k+2") == ["odd ns.k+2.t x"]
    env.run("table", "drop", "odd ns.k+2.t x")
    env.run("namespace", "drop", "odd ns.k+2")
    env.run("namespace", "drop", "odd ns")

    env.run("namespace", "drop", "nsa.child")
    env.run("namespace", "drop", "nsa")
    assert ("nsa",) not in py.list_namespaces()
    # pyiceberg's namespace, floe drops it.
    py.create_namespace("pyns", {"from": "pyiceberg"})
    assert env.json("namespace", "describe", "pyns")["properties"]["from"] == "pyiceberg"
    env.run("namespace", "drop", "pyns")
    assert ("pyns",) not in py.list_namespaces()


SCHEMA = "id long not null, name string, day date, score double"


def rows(start: int, n: int) -> list[dict]:
    return [{"id": k, "name": None if k % 7 == 3 else f"n{k % 5}",
             "day": f"2024-01-{1 + k % 28:02d}", "score": k / 4} for k in range(start, start + n)]


def canonical(rs: list[dict]) -> list[dict]:
    return [{**r, "score": ij.float_text(r["score"])} for r in rs]


@pytest.mark.parametrize("version", [2, 3])
def test_table_lifecycle(env, version):
    ns = f"life{version}"
    env.run("namespace", "create", ns)
    t = f"{ns}.events"
    env.run("table", "create", t, "--schema", SCHEMA, "--partition-by", "day(day), bucket(4, id)",
            "--sort-by", "id", "--format-version", str(version), "--property", "p=1")
    py = env.pyiceberg().load_table(t)
    assert py.metadata.format_version == version
    assert py.properties["p"] == "1"
    assert [f.name for f in py.schema().fields] == ["id", "name", "day", "score"]
    assert [str(f.transform) for f in py.spec().fields] == ["day", "bucket[4]"]
    assert str(py.sort_order().fields[0].transform) == "identity"
    # The server placed it: the JdbcCatalog's warehouse.
    assert str(env.server.warehouse) in py.location()

    data = rows(0, 150)
    env.run("table", "append", t, env.jsonl("a.jsonl", data[:100]))
    env.run("table", "append", t, env.jsonl("b.jsonl", data[100:]))
    ij.assert_same_rows(canonical(data), env.scan(t), "floe after appends")
    ij.assert_same_rows(canonical(data), env.py_rows(t), "pyiceberg after appends")

    env.run("table", "delete", t, "--where", "name = 'n1' OR id >= 140")
    keep = [r for r in data if not (r["name"] == "n1" or r["id"] >= 140)]
    ij.assert_same_rows(canonical(keep), env.scan(t), "floe after delete")
    ij.assert_same_rows(canonical(keep), env.py_rows(t), "pyiceberg after delete")
    snaps = env.pyiceberg().load_table(t).snapshots()
    assert [s.summary.operation.value for s in snaps] == ["append", "append", "delete"]

    env.run("table", "set-property", t, "q=2", "--unset", "p")
    props = env.pyiceberg().load_table(t).properties
    assert props.get("q") == "2" and "p" not in props

    env.run("table", "rename", t, f"{ns}.renamed")
    with pytest.raises(NoSuchTableError):
        env.pyiceberg().load_table(t)
    ij.assert_same_rows(canonical(keep), env.py_rows(f"{ns}.renamed"), "after rename")
    r = env.run("table", "scan", t, ok=False)
    assert r.rc == EXIT_NOT_FOUND, r.describe()

    # --purge: the server deletes the files (purgeRequested=true).
    files = [Path(t.file.file_path.removeprefix("file:"))
             for t in env.pyiceberg().load_table(f"{ns}.renamed").scan().plan_files()]
    assert files and all(f.exists() for f in files)
    env.run("table", "drop", f"{ns}.renamed", "--purge")
    assert not env.pyiceberg().table_exists(f"{ns}.renamed")
    assert not any(f.exists() for f in files), files
    env.run("namespace", "drop", ns)


def test_upsert(env):
    env.run("namespace", "create", "cdc")
    env.run("table", "create", "cdc.users", "--schema", "id long not null, name string",
            "--identifier", "id")
    env.run("table", "upsert", "cdc.users",
            env.jsonl("u1.jsonl", [{"id": k, "name": f"a{k}"} for k in range(20)]))
    env.run("table", "upsert", "cdc.users",
            env.jsonl("u2.jsonl", [{"id": k, "name": f"b{k}"} for k in range(10, 30)]))
    want = [{"id": k, "name": f"a{k}" if k < 10 else f"b{k}"} for k in range(30)]
    ij.assert_same_rows(want, env.scan("cdc.users"), "upserts")
    md = env.pyiceberg().load_table("cdc.users").metadata
    assert md.schema().identifier_field_ids == [1]
    assert len(md.snapshots) == 2


def test_list_tables_paged_and_errors(env):
    env.run("namespace", "create", "many")
    for i in range(5):
        env.run("table", "create", f"many.t{i}", "--schema", "id long")
    want = [f"many.t{i}" for i in range(5)]
    assert env.json("table", "list", "many") == want
    assert env.json("table", "list", "many", query="?rest-page-size=2") == want
    assert sorted(".".join(i) for i in env.pyiceberg().list_tables("many")) == want

    r = env.run("table", "create", "many.t0", "--schema", "id long", ok=False)
    assert r.rc == EXIT_ERROR and "already exists" in r.stderr.lower(), r.describe()
    # (A table in a missing namespace is the server's call: Java's JdbcCatalog allows it
    # unless jdbc.strict-mode.)
    r = env.run("table", "describe", "many.nope", ok=False)
    assert r.rc == EXIT_NOT_FOUND and "NoSuchTableException" in r.stderr, r.describe()
    r = env.run("table", "rename", "many.t0", "many.t1", ok=False)
    assert r.rc == EXIT_ERROR and "already exists" in r.stderr.lower(), r.describe()
    r = env.run("table", "drop", "many.nope", ok=False)
    assert r.rc == EXIT_NOT_FOUND, r.describe()
    assert r.stderr.count("\n") <= 1, r.stderr


def test_pyiceberg_writes_floe_reads(env):
    py = env.pyiceberg()
    py.create_namespace("frompy")
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType(), required=False))
    table = py.create_table("frompy.t", schema)
    table.append(pa.Table.from_pylist([{"id": k, "name": f"p{k}"} for k in range(40)],
                                      schema=table.schema().as_arrow()))
    ij.assert_same_rows([{"id": k, "name": f"p{k}"} for k in range(40)], env.scan("frompy.t"),
                        "floe reads pyiceberg's append")
    env.run("table", "append", "frompy.t",
            env.jsonl("more.jsonl", [{"id": k, "name": f"f{k}"} for k in range(40, 50)]))
    got = env.py_rows("frompy.t")
    assert sorted(r["id"] for r in got) == list(range(50))


def test_concurrent_appends_retry_conflicts(env):
    """The server answers a stale assert-ref-snapshot-id with 409 CommitFailedException: floe
    refreshes and retries, so every append lands."""
    env.run("namespace", "create", "cc")
    env.run("table", "create", "cc.t", "--schema", "id long not null, writer int")
    inputs = [env.jsonl(f"w{w}.jsonl", [{"id": w * 100 + j, "writer": w} for j in range(3)])
              for w in range(4)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda p: env.floe.run("table", "append", "cc.t", p, *env.flags,
                                                       timeout=300), inputs))
    assert all(r.rc == 0 for r in results), [r.describe() for r in results if r.rc != 0]
    ids = sorted(r["id"] for r in env.py_rows("cc.t"))
    assert ids == sorted(w * 100 + j for w in range(4) for j in range(3))
    assert len(env.pyiceberg().load_table("cc.t").snapshots()) == 4


def test_credential_and_token(env):
    # The reference server's /v1/oauth/tokens grants any client_credentials request.
    env.run("namespace", "create", "authns", query="?credential=floe-client:s3cret")
    assert "authns" in env.json("namespace", "list", query="?token=static-token")
    r = env.floe.run("namespace", "list", "--json", "--catalog", f"rest:{env.server.uri}",
                     timeout=60)
    assert r.rc == 0, r.describe()
    # An unreachable token endpoint fails the open, without echoing the secret.
    r = env.run("namespace", "list", ok=False,
                query="?credential=floe-client:s3cret&oauth2-server-uri=http://127.0.0.1:1/t")
    assert r.rc == EXIT_ERROR and "token request" in r.stderr, r.describe()
    assert "s3cret" not in r.stderr
    env.run("namespace", "drop", "authns")


def test_requests_on_the_wire(env, proxy, monkeypatch):
    """The credential exchange (Java OAuth2Util: form-encoded client_credentials, scope
    catalog), the bearer token on every later request, /v1/config with the catalog name as
    warehouse, and conditional refreshes when the server sends ETags."""
    env.run("namespace", "list", catalog=f"rest:{proxy.uri}?credential=floe-client:s3cret")
    token, config, *rest = proxy.requests
    assert (token["method"], token["path"]) == ("POST", "/v1/oauth/tokens")
    assert token["headers"]["content-type"] == "application/x-www-form-urlencoded"
    form = {k: v[0] for k, v in parse_qs(token["body"].decode()).items()}
    assert form == {"grant_type": "client_credentials", "client_id": "floe-client",
                    "client_secret": "s3cret", "scope": "catalog"}
    assert config["path"] == "/v1/config?warehouse=default"
    for r in [config, *rest]:
        assert r["headers"]["authorization"] == "Bearer client-credentials-token:sub=floe-client"

    proxy.requests.clear()
    env.run("namespace", "list", catalog=f"rest:{proxy.uri}?token=static-token")
    assert {r["headers"]["authorization"] for r in proxy.requests} == {"Bearer static-token"}
    proxy.requests.clear()
    monkeypatch.setenv("FLOE_REST_TOKEN", "env-token")
    env.run("namespace", "create", "wire", "--catalog-name", "wh2", catalog=f"rest:{proxy.uri}")
    assert {r["headers"]["authorization"] for r in proxy.requests} == {"Bearer env-token"}
    assert proxy.requests[0]["path"] == "/v1/config?warehouse=wh2"
    monkeypatch.delenv("FLOE_REST_TOKEN")

    env.run("table", "create", "wire.t", "--schema", "id long", catalog=f"rest:{proxy.uri}")
    proxy.requests.clear()
    env.run("table", "describe", "wire.t", catalog=f"rest:{proxy.uri}")
    loads = [r for r in proxy.requests if r["method"] == "GET" and "/tables/" in r["path"]]
    # describe loads, then refreshes: the refresh is conditional on the server's ETag (the
    # reference server sends them and answers 304).
    assert len(loads) == 2 and loads[0]["etag"], proxy.requests
    assert loads[1]["headers"].get("if-none-match") == loads[0]["etag"]


def error_body(type_: str, code: int, message: str) -> str:
    return json.dumps({"error": {"message": message, "type": type_, "code": code}})


def test_commit_conflict_is_retried(env, proxy):
    """A 409 CommitFailedException (nothing committed) makes floe refresh and commit again."""
    env.run("namespace", "create", "conf")
    env.run("table", "create", "conf.t", "--schema", "id long not null")
    proxy.fault = ("POST", "/namespaces/conf/tables/t", 409,
                   error_body("CommitFailedException", 409, "Requirement failed: injected"), False)
    env.run("table", "append", "conf.t", env.jsonl("a.jsonl", [{"id": 1}, {"id": 2}]),
            catalog=f"rest:{proxy.uri}")
    commits = [r for r in proxy.requests
               if r["method"] == "POST" and r["path"].endswith("/namespaces/conf/tables/t")]
    assert len(commits) == 2, [r["path"] for r in proxy.requests]
    assert sorted(r["id"] for r in env.py_rows("conf.t")) == [1, 2]
    assert len(env.pyiceberg().load_table("conf.t").snapshots()) == 1


@pytest.mark.parametrize("status", [500, 503, 504])
def test_commit_answered_5xx_keeps_its_files(env, proxy, status):
    """The server commits but the client sees 5xx (Java: CommitStateUnknownException): floe
    reports an unknown outcome, does not retry, and deletes nothing the commit may use."""
    ns = f"unk{status}"
    env.run("namespace", "create", ns)
    env.run("table", "create", f"{ns}.t", "--schema", "id long not null")
    proxy.fault = ("POST", f"/namespaces/{ns}/tables/t", status,
                   error_body("CommitStateUnknownException", status, "injected"), True)
    r = env.run("table", "append", f"{ns}.t", env.jsonl("a.jsonl", [{"id": 7}, {"id": 8}]),
                ok=False, catalog=f"rest:{proxy.uri}")
    assert r.rc == EXIT_ERROR and "commit state unknown" in r.stderr, r.describe()
    assert r.stderr.count("\n") <= 1, r.stderr
    commits = [q for q in proxy.requests
               if q["method"] == "POST" and q["path"].endswith(f"/namespaces/{ns}/tables/t")]
    assert len(commits) == 1
    # The commit happened: its data and metadata files are all there.
    assert sorted(row["id"] for row in env.py_rows(f"{ns}.t")) == [7, 8]
    assert sorted(row["id"] for row in env.scan(f"{ns}.t")) == [7, 8]

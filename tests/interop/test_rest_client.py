"""floe's REST catalog client against Iceberg's Java reference REST server (RESTCatalogServer
1.11.0 on a JdbcCatalog in SQLite; rest_server.py), checked with pyiceberg's RestCatalog on
the same server.

Every `floe namespace` / `floe table` command runs with `--catalog rest:http://127.0.0.1:PORT`:
namespaces (create with properties, nested, list, describe, drop, not-empty refusal), tables
(create, append, scan, delete, upsert, list with paging, rename, drop), commits that lose a
race (409 -> retry), tables pyiceberg writes, the error model (404, 409) and the OAuth2
client_credentials exchange. One JVM per module: it takes seconds to start.
"""

from __future__ import annotations

import concurrent.futures
import json

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


class Env:
    def __init__(self, floe, server, root, query: str = ""):
        self.floe = floe
        self.server = server
        self.root = root
        self.flags = ["--catalog", f"rest:{server.uri}{query}"]

    def run(self, *args, ok=True, query: str | None = None):
        flags = self.flags if query is None else ["--catalog", f"rest:{self.server.uri}{query}"]
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

    env.run("table", "drop", f"{ns}.renamed")
    assert not env.pyiceberg().table_exists(f"{ns}.renamed")
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

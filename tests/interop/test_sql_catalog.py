"""floe's SqlCatalogStore and pyiceberg's SqlCatalog on one database, SQLite and PostgreSQL.

floe is driven through floe_catalog_store_tool (built next to the floe binary); pyiceberg
through its public API. Both see the other's namespaces, properties and table pointers, and a
compare-and-swap with a stale location fails. The PostgreSQL server is a throwaway one that
scripts/test-postgres.sh starts; if it cannot start, these tests error (they never skip).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

ROOT = Path(__file__).resolve().parents[2]

# Java's V0 DDL (JdbcUtil.V0_CREATE_CATALOG_SQL and CREATE_NAMESPACE_PROPERTIES_TABLE_SQL).
JAVA_V0_DDL = [
    "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace VARCHAR(255) "
    "NOT NULL,table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),"
    "previous_metadata_location VARCHAR(1000),PRIMARY KEY (catalog_name, table_namespace, "
    "table_name))",
    "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,namespace "
    "VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY "
    "(catalog_name, namespace, property_key))",
]


def store_tool() -> Path:
    explicit = os.environ.get("FLOE_CATALOG_STORE_TOOL")
    if explicit:
        path = Path(explicit)
    else:
        floe_bin = os.environ.get("FLOE_BIN")
        if not floe_bin:
            raise RuntimeError("set FLOE_BIN (or FLOE_CATALOG_STORE_TOOL)")
        # build/<preset>/src/floe/exe/floe -> build/<preset>/src/floe/catalog/
        path = Path(floe_bin).resolve().parents[1] / "catalog" / "floe_catalog_store_tool"
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: build the floe_catalog_store_tool target")
    return path


class FloeStore:
    def __init__(self, uri: str, catalog: str):
        self.tool = store_tool()
        self.uri = uri
        self.catalog = catalog

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([str(self.tool), self.uri, self.catalog, *args],
                              capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"floe {' '.join(args)}: exit {proc.returncode}: {proc.stderr}")
        return proc

    def lines(self, *args: str) -> list[str]:
        return [line for line in self.run(*args).stdout.splitlines() if line]

    def error(self, *args: str) -> str:
        """Runs a command that must fail; returns the status code name."""
        proc = self.run(*args, check=False)
        assert proc.returncode == 1, f"floe {' '.join(args)}: exit {proc.returncode}: {proc.stderr}"
        return proc.stderr.split(":", 1)[0]

    def properties(self, ns: str) -> dict[str, str]:
        return dict(line.split("=", 1) for line in self.lines("properties", ns))


class Backend:
    def __init__(self, name: str, floe_uri: str, sqlalchemy_uri: str, warehouse: Path, sql):
        self.name = name
        self.floe_uri = floe_uri
        self.sqlalchemy_uri = sqlalchemy_uri
        self.warehouse = warehouse
        self.sql = sql  # runs raw SQL on the database: sql(statement, params) -> rows

    def pyiceberg(self, catalog: str, **extra) -> SqlCatalog:
        return SqlCatalog(catalog, uri=self.sqlalchemy_uri,
                          warehouse=f"file://{self.warehouse}", **extra)

    def floe(self, catalog: str) -> FloeStore:
        return FloeStore(self.floe_uri, catalog)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Backend:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    if request.param == "sqlite":
        import sqlite3

        db = tmp_path / "catalog.db"

        def sql(statement, params=()):
            with sqlite3.connect(db) as conn:
                return conn.execute(statement.replace("%s", "?"), params).fetchall()

        # floe reads sqlite:///abs as /abs; SQLAlchemy needs four slashes for an absolute path.
        yield Backend("sqlite", f"sqlite://{db}", f"sqlite:///{db}", warehouse, sql)
        return

    import psycopg2

    server = request.getfixturevalue("postgres_server")
    database = "t_" + uuid.uuid4().hex[:12]
    admin = psycopg2.connect(server)
    admin.autocommit = True
    admin.cursor().execute(f"CREATE DATABASE {database}")
    base = server.rsplit("/", 1)[0]

    def sql(statement, params=()):
        conn = psycopg2.connect(f"{base}/{database}")
        try:
            with conn, conn.cursor() as cur:
                cur.execute(statement, params)
                return cur.fetchall() if cur.description else []
        finally:
            conn.close()

    yield Backend("postgres", f"{base}/{database}",
                  f"postgresql+psycopg2://{base.split('://', 1)[1]}/{database}", warehouse, sql)
    admin.cursor().execute(f"DROP DATABASE {database} WITH (FORCE)")
    admin.close()


SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "name", StringType(), required=False))


def as_set(namespaces) -> set[str]:
    return {".".join(ns) for ns in namespaces}


def test_floe_namespaces_seen_by_pyiceberg(backend):
    floe = backend.floe("cat")
    floe.run("create-namespace", "db", "owner=ana", "comment=it's")
    floe.run("create-namespace", "a.b")
    py = backend.pyiceberg("cat")
    assert as_set(py.list_namespaces()) == {"db", "a"}
    assert as_set(py.list_namespaces("a")) == {"a.b"}
    assert py.namespace_exists("a") and py.namespace_exists("a.b")
    # pyiceberg returns the stored rows, the marker included.
    assert py.load_namespace_properties("db") == {"owner": "ana", "comment": "it's",
                                                  "exists": "true"}
    py.update_namespace_properties("db", removals={"comment"}, updates={"owner": "bo"})
    assert floe.properties("db") == {"owner": "bo", "exists": "true"}
    py.drop_namespace("a.b")
    assert floe.lines("list-namespaces") == ["db"]
    # Another catalog name in the same database sees nothing.
    assert backend.pyiceberg("other").list_namespaces() == []


def test_pyiceberg_namespaces_seen_by_floe(backend):
    py = backend.pyiceberg("cat")  # pyiceberg creates the schema here, floe reuses it
    py.create_namespace("plain")
    py.create_namespace("withprops", {"k": "v"})
    py.create_namespace(("x", "y"))
    floe = backend.floe("cat")
    assert floe.lines("list-namespaces") == ["plain", "withprops", "x"]
    assert floe.lines("list-namespaces", "x") == ["x.y"]
    assert floe.properties("plain") == {"exists": "true"}
    # pyiceberg writes the `exists` marker only when no properties are given.
    assert floe.properties("withprops") == {"k": "v"}
    assert floe.lines("update-properties", "withprops", "-k", "n=1") == ["updated n", "removed k"]
    assert py.load_namespace_properties("withprops") == {"n": "1"}
    assert floe.error("create-namespace", "x") == "AlreadyExists"
    floe.run("drop-namespace", "plain")
    assert not py.namespace_exists("plain")


def test_namespace_existence_and_listing_agree(backend):
    """Both answer from the same LIKE queries; on SQLite LIKE ignores ASCII case, so a namespace
    "A" 'exists' when "a.b" does, in pyiceberg and floe alike."""
    floe = backend.floe("cat")
    for ns in ["a.b", "a_c.d", "ab.e", "q"]:
        floe.run("create-namespace", ns)
    py = backend.pyiceberg("cat")
    for probe in ["a", "A", "a.b", "a_c", "a%", "aXc", "ab", "q.r", "z"]:
        assert floe.lines("namespace-exists", probe) == [str(py.namespace_exists(probe)).lower()], probe
    for parent in ["a", "a_c", "ab"]:
        assert set(floe.lines("list-namespaces", parent)) == as_set(py.list_namespaces(parent))
    assert set(floe.lines("list-namespaces")) == as_set(py.list_namespaces())


def test_pyiceberg_table_loaded_and_swapped_by_floe(backend):
    py = backend.pyiceberg("cat")
    py.create_namespace("db")
    table = py.create_table(("db", "events"), SCHEMA)
    first = table.metadata_location
    floe = backend.floe("cat")
    assert floe.lines("list-tables", "db") == ["events"]
    assert floe.lines("load-table", "db", "events") == [first]

    table.append(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["x", "y"]}))
    second = table.metadata_location
    assert second != first
    assert floe.lines("load-table", "db", "events") == [second, first]

    # A swap from a stale location loses; from the current one it wins, and pyiceberg follows.
    assert floe.error("cas", "db", "events", first, second) == "Conflict"
    floe.run("cas", "db", "events", second, first)
    reloaded = py.load_table(("db", "events"))
    assert reloaded.metadata_location == first
    # pyiceberg's next commit swaps from the location floe set.
    reloaded.append(pa.table({"id": pa.array([3], pa.int64()), "name": ["z"]}))
    assert floe.lines("load-table", "db", "events") == [reloaded.metadata_location, first]
    assert floe.error("drop-namespace", "db") == "FailedPrecondition"


def test_floe_table_pointer_seen_by_pyiceberg(backend):
    py = backend.pyiceberg("cat")
    py.create_namespace("src")
    location = py.create_table(("src", "t"), SCHEMA).metadata_location
    floe = backend.floe("cat")
    floe.run("create-namespace", "db")
    floe.run("create-namespace", "db2")
    floe.run("create-table", "db", "copy", location)
    assert backend.sql("SELECT iceberg_type, previous_metadata_location FROM iceberg_tables "
                       "WHERE table_name = %s", ("copy",)) == [("TABLE", None)]
    assert py.list_tables("db") == [("db", "copy")]
    assert py.load_table(("db", "copy")).metadata_location == location
    assert floe.error("create-table", "src", "t", location) == "AlreadyExists"

    floe.run("rename", "db", "copy", "db2", "renamed")
    assert py.list_tables("db") == []
    assert py.load_table(("db2", "renamed")).metadata_location == location
    py.rename_table(("db2", "renamed"), ("db", "back"))
    assert floe.lines("list-tables", "db") == ["back"]

    floe.run("drop-table", "db", "back")
    with pytest.raises(NoSuchTableError):
        py.load_table(("db", "back"))
    py.drop_table(("src", "t"))
    assert floe.error("load-table", "src", "t") == "NotFound"


def test_floe_upgrades_java_v0_schema_for_pyiceberg(backend):
    for ddl in JAVA_V0_DDL:
        backend.sql(ddl)
    backend.sql("INSERT INTO iceberg_tables VALUES ('cat', 'old', 't', 'file:///m.json', NULL)")
    floe = backend.floe("cat")
    assert floe.lines("list-tables", "old") == ["t"]  # opening upgraded the schema
    py = backend.pyiceberg("cat")  # detects the iceberg_type column: V1 mode
    py.create_namespace("db")
    py.create_table(("db", "new"), SCHEMA)
    assert backend.sql("SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY table_name") \
        == [("new", "TABLE"), ("t", None)]


def test_views_block_tables_of_the_same_name(backend):
    floe = backend.floe("cat")
    floe.run("create-namespace", "db")
    # A view row as Iceberg Java writes it.
    backend.sql("INSERT INTO iceberg_tables VALUES ('cat', 'db', 'v', 'file:///v.json', NULL, "
                "'VIEW')")
    py = backend.pyiceberg("cat")
    assert py.list_tables("db") == [] and floe.lines("list-tables", "db") == []
    assert floe.error("create-table", "db", "v", "file:///t.json") == "AlreadyExists"
    assert floe.error("load-table", "db", "v") == "NotFound"
    assert floe.error("drop-namespace", "db") == "FailedPrecondition"


def test_concurrent_compare_and_swap_processes(backend):
    floe = backend.floe("cat")
    floe.run("create-namespace", "db")
    floe.run("create-table", "db", "counter", "v0")
    workers, each = 4, 20
    procs = [subprocess.Popen([str(floe.tool), floe.uri, "cat", "cas-loop", "db", "counter",
                               str(each)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(workers)]
    done = 0
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        done += int(out.split()[0])
    assert done == workers * each
    assert floe.lines("load-table", "db", "counter")[0] == f"v{workers * each}"


def test_concurrent_table_appends_and_deletes_lose_no_commit(backend, floe, tmp_path):
    """Processes appending to and deleting from one table at once, through `floe table`:
    every append succeeds (appends never conflict), every successful delete's rows are gone,
    every successful append's rows are there, and pyiceberg reads the same rows."""
    import concurrent.futures
    import json

    flags = ["--catalog", backend.floe_uri, "--warehouse", str(backend.warehouse),
             "--catalog-name", "cc"]

    def cli(*args):
        return floe.run(*args, *flags, timeout=300)

    def jsonl(name, ids):
        p = tmp_path / f"{name}.jsonl"
        p.write_text("".join(json.dumps({"id": i, "name": name}) + "\n" for i in ids))
        return str(p)

    assert cli("namespace", "create", "db").rc == 0
    r = cli("table", "create", "db.t", "--schema", "id long not null, name string",
            "--format-version", "2")
    assert r.rc == 0, r.describe()
    # Two seed files, one per deleter, so the deletes touch different data files.
    for k in range(2):
        assert cli("table", "append", "db.t", jsonl(f"seed{k}", range(k * 100, k * 100 + 10))).rc == 0
    jobs = [("append", jsonl(f"a{w}", range(1000 + w * 100, 1000 + w * 100 + 10)))
            for w in range(4)]
    jobs += [("delete", f"id >= {k * 100} and id < {k * 100 + 5}") for k in range(2)]

    def run(job):
        kind, arg = job
        if kind == "append":
            return cli("table", "append", "db.t", arg)
        return cli("table", "delete", "db.t", "--where", arg)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results = list(pool.map(run, jobs))
    expected = set(range(0, 10)) | set(range(100, 110))
    for (kind, _), r in zip(jobs, results):
        if kind == "append":
            assert r.rc == 0, r.describe()
    for w in range(4):
        expected |= set(range(1000 + w * 100, 1000 + w * 100 + 10))
    for k, r in enumerate(results[4:]):
        # A delete may lose a validation race (exit 1, nothing committed); a successful one
        # must have removed exactly its rows.
        assert r.rc in (0, 1), r.describe()
        if r.rc == 0:
            expected -= set(range(k * 100, k * 100 + 5))
    out = tmp_path / "scan.jsonl"
    assert cli("table", "scan", "db.t", "--output", str(out)).rc == 0
    got = sorted(json.loads(line)["id"] for line in out.read_text().splitlines())
    assert got == sorted(expected)
    py = backend.pyiceberg("cc").load_table("db.t").scan().to_arrow()
    assert sorted(py.column("id").to_pylist()) == sorted(expected)
    snapshots = json.loads(cli("table", "snapshots", "db.t", "--json").stdout)
    ok = sum(r.rc == 0 for r in results)
    assert len(snapshots) == 2 + ok, "every successful commit is one snapshot"

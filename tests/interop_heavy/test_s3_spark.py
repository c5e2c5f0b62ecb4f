"""Spark (pyspark 3.5, Iceberg's Spark runtime with its S3FileIO) reads and writes tables of a
`floe server` catalog whose warehouse is in an S3 bucket (moto's S3 server, the fixture of
tests/interop/test_s3.py).

floe writes the tables: appends and a delete (position deletes) on a partitioned v2 table and
upserts (equality deletes) on a table with an identifier field, each then fully optimized by
`floe optimize` (the CLI's optimizer, committing through the server), and records produced to
a table topic, fully optimized by a second server's optimizer (`floe optimize --server`). Spark, pointed at the server as its
Iceberg REST catalog, reads every table at every step with the rows the writes imply (a Python
model) and the rows pyiceberg (its own S3 FileIO) reads. Spark then writes a table of its own
on the same warehouse (INSERT, a merge-on-read DELETE), which `floe table scan` and pyiceberg
read back.

Spark gets the store's endpoint, path-style addressing and region from the server's
`GET /v1/config` defaults (the catalog's s3.* properties); it brings only its own keys.

Jars: scripts/fetch-spark-runtime.sh (the runtime, and `aws-bundle`: Iceberg's AWS bundle,
the AWS SDK v2 for S3FileIO), Maven Central, cached; `make test-interop` fetches both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog

import iceberg_java as ij
from floe_server import FloeServer
# The moto server fixture and the test credentials of the light S3 suite (pytest finds the
# fixture through this import).
from test_s3 import (ACCESS_KEY, REGION, SECRET_KEY, moto_endpoint,  # noqa: F401
                     s3_client, s3_properties)

from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[2]
FETCH = ROOT / "scripts" / "fetch-spark-runtime.sh"
CATALOG = "lake"  # the servers' catalog name, the REST warehouse, and Spark's catalog name
STREAM = "stream"  # Spark's name for the table-topic server's catalog


def fetch_jar(which: str) -> str:
    r = subprocess.run([str(FETCH), which], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{FETCH} {which} failed: {r.stderr[-4000:]}")
    return r.stdout.strip()


# ---------------------------------------------------------------------------------------------
# Fixtures, one each per module: a bucket; a floe server for the tables the CLI writes
# (self-optimizing off, so that every snapshot is the test's own) and one for table topics
# (Kafka and the optimizer on), each with its warehouse in the bucket; a Spark session with a
# catalog on each server.

@pytest.fixture(scope="module")
def bucket(moto_endpoint):  # noqa: F811
    name = "floe-spark-" + uuid.uuid4().hex[:8]
    s3_client(moto_endpoint).create_bucket(Bucket=name)
    return name


def server_config(endpoint: str, warehouse: str) -> dict:
    # Only endpoint, region and keys in the catalog: path-style addressing is floe's default
    # for a custom endpoint, and the server must tell clients so.
    return {"catalogs": {CATALOG: {"warehouse": warehouse,
                                   "properties": s3_properties(endpoint)}},
            "kafka": {"table-catalog": CATALOG}}


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory, moto_endpoint, bucket):  # noqa: F811
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-s3-spark"),
                    config=server_config(moto_endpoint, f"s3://{bucket}/wh")) as s:
        yield s
    assert s.exit_code == 0, s.log_text()


@pytest.fixture(scope="module")
def stream_server(floe, tmp_path_factory, moto_endpoint, bucket):  # noqa: F811
    # The optimizer runs what `floe optimize --server` queues; no scheduled evaluations.
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-s3-stream"), kafka=True,
                    optimizer=True, config=server_config(moto_endpoint, f"s3://{bucket}/stream"),
                    extra_args=["--optimizer-refresh-ms", "3600000"]) as s:
        yield s
    assert s.exit_code == 0, s.log_text()


def start_spark(app: str, work: Path, catalogs: dict[str, str]) -> SparkSession:
    """A local[2] Spark session with Iceberg's runtime and AWS bundle and `catalogs` (Spark
    conf keys and values), started with no AWS_* variable in the JVM's environment: the
    store's settings and keys must come from the catalog, and a later suite in this process
    reuses the JVM and its environment."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    hidden = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("AWS_")}
    conf = {"spark.jars": ",".join([fetch_jar("runtime"), fetch_jar("aws-bundle")]),
            "spark.driver.memory": "1g",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.warehouse.dir": str(work / "spark-warehouse"),
            "spark.local.dir": str(work / "local"),
            "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={work}",
            "spark.sql.extensions":
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            **catalogs}
    builder = SparkSession.builder.master("local[2]").appName(app)
    for k, v in conf.items():
        builder = builder.config(k, v)
    try:
        session = builder.getOrCreate()
    finally:
        os.environ.update(hidden)
    session.sparkContext.setLogLevel("ERROR")
    return session


@pytest.fixture(scope="module")
def spark(server, stream_server, tmp_path_factory):
    catalogs = {}
    for name, s in ((CATALOG, server), (STREAM, stream_server)):
        catalogs.update(spark_catalog_conf(name, s.uri))
    session = start_spark("floe-s3-spark", tmp_path_factory.mktemp("spark"), catalogs)
    try:
        yield session
    finally:
        session.stop()
    check_access_log(server)
    check_access_log(stream_server)


def spark_catalog_conf(name: str, uri: str) -> dict[str, str]:
    """What Spark needs to know of a floe catalog on S3 (docs/storage.md): the rest comes
    from the server's /v1/config."""
    c = f"spark.sql.catalog.{name}"
    return {c: "org.apache.iceberg.spark.SparkCatalog",
            f"{c}.type": "rest",
            f"{c}.uri": uri,
            f"{c}.warehouse": CATALOG,  # the server's catalog name
            # floe writes these tables behind Spark's back: no cached table metadata.
            f"{c}.cache-enabled": "false",
            # The client's own keys: the server never hands out the catalog's.
            f"{c}.s3.access-key-id": ACCESS_KEY,
            f"{c}.s3.secret-access-key": SECRET_KEY}


def check_access_log(server: FloeServer) -> None:
    """No request answered 5xx; 4xx only 404 (Spark loads a table before creating it)."""
    lines = [json.loads(x) for x in (server.data_dir / "access.log").read_text().splitlines()]
    bad = [x for x in lines if x["status"] >= 500 or (400 <= x["status"] < 500
                                                     and x["status"] != 404)]
    assert not bad, bad


def pyiceberg_catalog(server: FloeServer, endpoint: str) -> RestCatalog:
    return RestCatalog(CATALOG, uri=server.uri, warehouse=CATALOG,
                       **{"s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY,
                          "s3.endpoint": endpoint, "s3.region": REGION})


@pytest.fixture(scope="module")
def rest(server, moto_endpoint) -> RestCatalog:  # noqa: F811
    return pyiceberg_catalog(server, moto_endpoint)


class FloeCli:
    """The floe CLI on the server's catalog (REST); it writes data files to the bucket itself."""

    def __init__(self, floe, server, moto, root: Path):
        self.floe = floe
        self.root = root
        self.flags = ["--catalog", f"rest:{server.uri}", "--catalog-name", CATALOG,
                      *[f"--catalog-property={k}={v}" for k, v in s3_properties(moto).items()]]

    def run(self, *args, timeout=300):
        r = self.floe.run(*args, *self.flags, timeout=timeout)
        assert r.rc == 0, r.describe()
        return r

    def jsonl(self, rows: list[dict]) -> Path:
        p = self.root / f"in-{uuid.uuid4().hex[:8]}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return p

    def scan(self, table: str, columns: list[str] | None = None) -> list[dict]:
        out = self.root / f"scan-{uuid.uuid4().hex[:8]}.parquet"
        self.run("table", "scan", table, "--format", "parquet", "--output", out)
        return ij.canonical_rows(pq.read_table(out), columns)


@pytest.fixture(scope="module")
def cli(floe, server, moto_endpoint, tmp_path_factory):  # noqa: F811
    return FloeCli(floe, server, moto_endpoint, tmp_path_factory.mktemp("cli"))


# ---------------------------------------------------------------------------------------------
# Readers

def canon(rows: list[dict]) -> list[dict]:
    """Python rows (the model's, Spark's) in iceberg_java's canonical form (doubles as text),
    which pyiceberg's and floe's Arrow rows are compared in."""
    return ij.canonical_rows(pa.Table.from_pylist(rows)) if rows else []


def same(model: list[dict], actual: list[dict], what: str) -> None:
    """The model's rows and a reader's (canonical) rows are equal as multisets."""
    ij.assert_same_rows(canon(model), actual, what)


def spark_rows(spark, table: str, columns: list[str] | None = None,
               catalog: str = CATALOG) -> list[dict]:
    df = spark.table(f"{catalog}.{table}")
    if columns is not None:
        df = df.select(*columns)
    return canon([r.asDict() for r in df.collect()])


def pyiceberg_rows(rest: RestCatalog, table: str, columns: list[str] | None = None):
    arrow = rest.load_table(table).scan().to_arrow()
    return ij.canonical_rows(arrow, columns)


def spark_files(spark, table: str, catalog: str = CATALOG) -> list[str]:
    return [r["file_path"] for r in spark.sql(
        f"SELECT file_path FROM {catalog}.{table}.files").collect()]


def optimize_full(cli: FloeCli, table: str) -> None:
    """A full optimize run by floe's optimizer (reads and writes the bucket, commits through
    the server's REST catalog)."""
    cli.run("optimize", table, "--mode", "full")


def rows(start: int, n: int) -> list[dict]:
    return [{"id": k, "name": f"n{k % 7}", "v": k * 3 % 101, "x": k / 8}
            for k in range(start, start + n)]


SCHEMA = "id long not null, name string, v int, x double"


# ---------------------------------------------------------------------------------------------

def test_client_settings_come_from_the_catalog(server, moto_endpoint):  # noqa: F811
    """What Spark's S3FileIO is configured with: the catalog's endpoint, path-style access
    (floe's default for a custom endpoint) and region, under Iceberg's property names; never
    the keys."""
    with urllib.request.urlopen(f"{server.uri}/v1/config?warehouse={CATALOG}") as resp:
        served = json.load(resp)
    defaults = served["defaults"]
    assert defaults["s3.endpoint"] == moto_endpoint, served
    assert defaults["s3.path-style-access"] == "true", served
    assert defaults["client.region"] == REGION and defaults["s3.region"] == REGION, served
    assert ACCESS_KEY not in json.dumps(served) and SECRET_KEY not in json.dumps(served)


def test_append_delete_optimize_read_by_spark(spark, rest, cli, bucket):
    cli.run("namespace", "create", "sales")
    cli.run("table", "create", "sales.orders", "--schema", SCHEMA,
            "--partition-by", "bucket(4, id)", "--format-version", "2")
    model = rows(0, 300)
    cli.run("table", "append", "sales.orders", cli.jsonl(model[:200]))
    cli.run("table", "append", "sales.orders", cli.jsonl(model[200:]))
    same(model, spark_rows(spark, "sales.orders"), "Spark after appends")
    same(model, pyiceberg_rows(rest, "sales.orders"), "pyiceberg after appends")

    cli.run("table", "delete", "sales.orders", "--where", "name = 'n3' OR id >= 280")
    model = [r for r in model if not (r["name"] == "n3" or r["id"] >= 280)]
    same(model, spark_rows(spark, "sales.orders"), "Spark after delete")
    same(model, pyiceberg_rows(rest, "sales.orders"), "pyiceberg after delete")
    # Spark's files metadata table: the data files are objects under the table's location.
    assert all(f.startswith(f"s3://{bucket}/wh/sales/orders/data/")
               for f in spark_files(spark, "sales.orders"))

    optimize_full(cli, "sales.orders")
    snap = spark.sql(f"SELECT summary FROM {CATALOG}.sales.orders.snapshots "
                     f"ORDER BY committed_at DESC LIMIT 1").collect()[0]["summary"]
    assert snap.get("snapshot-producer") == "OPTIMIZE", snap
    # A full optimize leaves no delete files: Spark's view of the live delete files.
    deletes = spark.sql(f"SELECT count(*) AS n FROM {CATALOG}.sales.orders.delete_files"
                        ).collect()[0]["n"]
    assert deletes == 0
    # ... and one data file per partition (bucket(4, id)).
    per_partition = spark.sql(f"SELECT count(*) AS n FROM {CATALOG}.sales.orders.files "
                              f"GROUP BY partition").collect()
    assert sorted(r["n"] for r in per_partition) == [1, 1, 1, 1], per_partition
    same(model, spark_rows(spark, "sales.orders"), "Spark after optimize")
    same(model, pyiceberg_rows(rest, "sales.orders"), "pyiceberg after optimize")


def test_upserts_with_equality_deletes_read_by_spark(spark, rest, cli, bucket):
    cli.run("namespace", "create", "cdc")
    cli.run("table", "create", "cdc.users", "--schema", SCHEMA, "--identifier", "id",
            "--format-version", "2")
    cli.run("table", "upsert", "cdc.users", cli.jsonl(rows(0, 100)))
    second = [{"id": k, "name": "b", "v": -k, "x": -k / 4} for k in range(50, 150)]
    cli.run("table", "upsert", "cdc.users", cli.jsonl(second))
    third = [{"id": k, "name": "c", "v": k, "x": None} for k in range(0, 200, 10)]
    cli.run("table", "upsert", "cdc.users", cli.jsonl(third))
    model = {r["id"]: r for r in rows(0, 100)}
    for batch in (second, third):
        model.update({r["id"]: r for r in batch})
    model = list(model.values())
    # The upserts wrote equality deletes (Spark's view of the live delete files: content 2),
    # objects in the bucket.
    deletes = spark.sql(f"SELECT content, file_path FROM {CATALOG}.cdc.users.delete_files"
                        ).collect()
    assert 2 in {r["content"] for r in deletes}, deletes
    assert all(r["file_path"].startswith(f"s3://{bucket}/wh/cdc/users/") for r in deletes)
    # pyiceberg refuses equality deletes: floe's own scan is the second reader here.
    same(model, spark_rows(spark, "cdc.users"), "Spark after upserts")
    same(model, cli.scan("cdc.users"), "floe after upserts")

    optimize_full(cli, "cdc.users")
    assert spark.sql(f"SELECT count(*) AS n FROM {CATALOG}.cdc.users.delete_files"
                     ).collect()[0]["n"] == 0
    same(model, spark_rows(spark, "cdc.users"), "Spark after optimize")
    # No equality deletes left: pyiceberg reads the table too.
    same(model, pyiceberg_rows(rest, "cdc.users"), "pyiceberg after optimize")


def test_table_topic_and_server_full_optimize_read_by_spark(spark, floe, stream_server,
                                                           moto_endpoint, bucket):  # noqa: F811
    """Records produced to a table topic land in a table on S3; the server's optimizer
    rewrites it by a full optimize run; Spark reads the produced records before and after."""
    from confluent_kafka import Producer
    from kafka_topics import JSON_TABLE_TOPIC, create_topic

    rest = pyiceberg_catalog(stream_server, moto_endpoint)
    topic = "orders_" + uuid.uuid4().hex[:8]
    create_topic(stream_server.kafka_bootstrap, topic, partitions=2, config=JSON_TABLE_TOPIC)
    producer = Producer({"bootstrap.servers": stream_server.kafka_bootstrap, "acks": "all",
                         "enable.idempotence": True, "linger.ms": 5})
    sent = [{"id": i, "item": f"sku-{i % 13}", "qty": i % 5} for i in range(300)]
    table = f"kafka.{topic}"
    columns = ["id", "item", "qty"]
    errors = []
    got = []
    # Three batches, each committed before the next is sent: several data files.
    for start in range(0, len(sent), 100):
        for k in range(start, start + 100):
            producer.produce(topic, value=json.dumps(sent[k]).encode(), partition=k % 2,
                             on_delivery=lambda err, msg: errors.append(err) if err else None)
        assert producer.flush(30) == 0 and errors == []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                got = pyiceberg_rows(rest, table, columns)
            except Exception:  # noqa: BLE001 - the table is created with the first commit
                got = []
            if len(got) >= start + 100:
                break
            time.sleep(0.3)
    same(sent, got, "pyiceberg reads the table topic")
    same(sent, spark_rows(spark, table, columns, STREAM), "Spark reads the table topic")
    files = spark_files(spark, table, STREAM)
    assert len(files) > 1 and all(f.startswith(f"s3://{bucket}/stream/") for f in files), files

    r = floe.run("optimize", table, "--server", stream_server.uri, "--catalog-name", CATALOG,
                 "--mode", "full", "--wait", timeout=180)
    assert r.rc == 0, r.describe()
    snap = spark.sql(f"SELECT summary FROM {STREAM}.{table}.snapshots "
                     f"ORDER BY committed_at DESC LIMIT 1").collect()[0]["summary"]
    assert snap.get("snapshot-producer") == "OPTIMIZE", snap
    files = spark_files(spark, table, STREAM)
    assert len(files) == 1 and files[0].startswith(f"s3://{bucket}/stream/"), files
    same(sent, spark_rows(spark, table, columns, STREAM), "Spark after the full optimize")
    same(sent, pyiceberg_rows(rest, table, columns), "pyiceberg after the full optimize")


def spark_writes_and_deletes(spark, catalog: str, ns: str, table: str, count: int,
                             below: int):
    """Spark creates `catalog.ns.table` (v2, merge-on-read deletes, bucket(3, id)), inserts
    rows(0, count) and deletes those with v < below. Returns the rows left (the model) and
    the table's delete files, which are position deletes."""
    t = f"{catalog}.{ns}.{table}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.{ns}")
    spark.sql(f"CREATE TABLE {t} (id BIGINT NOT NULL, name STRING, v INT, x DOUBLE) "
              f"USING iceberg PARTITIONED BY (bucket(3, id)) TBLPROPERTIES "
              f"('format-version'='2', 'write.delete.mode'='merge-on-read')")
    model = rows(0, count)
    values = ", ".join(f"({r['id']}, '{r['name']}', {r['v']}, {r['x']!r})" for r in model)
    spark.sql(f"INSERT INTO {t} VALUES {values}")
    spark.sql(f"DELETE FROM {t} WHERE v < {below}")
    deletes = spark.sql(f"SELECT content, file_path FROM {t}.delete_files").collect()
    assert deletes and {r["content"] for r in deletes} == {1}, deletes
    return [r for r in model if not r["v"] < below], deletes


def test_spark_writes_floe_and_pyiceberg_read(spark, rest, cli, bucket):
    t = f"{CATALOG}.sparkns.events"
    model, deletes = spark_writes_and_deletes(spark, CATALOG, "sparkns", "events", 120, 20)
    # The merge-on-read DELETE wrote position deletes; everything is in the bucket.
    assert all(r["file_path"].startswith(f"s3://{bucket}/wh/sparkns/events/")
               for r in deletes + spark.sql(f"SELECT file_path FROM {t}.files").collect())
    location = rest.load_table("sparkns.events").metadata.location
    assert location == f"s3://{bucket}/wh/sparkns/events", location
    same(model, cli.scan("sparkns.events"), "floe reads Spark's table")
    same(model, pyiceberg_rows(rest, "sparkns.events"), "pyiceberg reads Spark's table")
    same(model, spark_rows(spark, "sparkns.events"), "Spark reads its table")

"""Spark (pyspark 3.5 with Iceberg's Spark runtime, local mode) through `floe server` as its REST
catalog, and floe's CLI and pyiceberg reading the same tables.

Spark creates partitioned merge-on-read tables (format 2: position-delete files; format 3:
deletion vectors) and runs INSERT, DELETE, UPDATE (one moving rows to another partition), MERGE
INTO (matched update, matched delete, not-matched insert), ALTER TABLE ADD COLUMN, then
rewrite_data_files and expire_snapshots. A plain Python model applies the same operations to a
dict keyed by id; at every snapshot Spark (time travel), pyiceberg's RestCatalog and
`floe table scan --catalog rest:...` must each return exactly the model's rows. The snapshot
summaries and Spark's delete_files table show that the row-level commands wrote delete files
(position deletes or deletion vectors) instead of rewriting data files. Further tests cover
what Spark's REST client uses beyond pyiceberg: staged creates (CTAS, REPLACE TABLE AS SELECT),
sort orders, branches and tags, and views. Every request Spark made must have been answered
without a 5xx or an unexpected 4xx (the server's access log).

The runtime jar comes from scripts/fetch-spark-runtime.sh (Maven Central, cached), pyspark
from tests/interop_heavy/requirements.txt; `make test-interop` installs both.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from pyiceberg.catalog.rest import RestCatalog

from floe_server import FloeServer

from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[2]
FETCH_RUNTIME = ROOT / "scripts" / "fetch-spark-runtime.sh"
CATALOG = "floe"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
DAY_MICROS = 86_400_000_000
MOR = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
       "'write.merge.mode'='merge-on-read'")


# ---------------------------------------------------------------------------------------------
# Fixtures: one floe server and one Spark session per module (a session costs ~15 s to start).

@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-spark")) as s:
        yield s
    assert s.exit_code == 0, s.log_text()


def runtime_jar() -> str:
    r = subprocess.run([str(FETCH_RUNTIME)], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{FETCH_RUNTIME} failed: {r.stderr[-4000:]}")
    return r.stdout.strip()


def spark_conf(uri: str) -> dict[str, str]:
    """The catalog settings docs/server.md gives for Spark, plus the Iceberg SQL extensions."""
    return {
        "spark.sql.extensions":
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        f"spark.sql.catalog.{CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{CATALOG}.type": "rest",
        f"spark.sql.catalog.{CATALOG}.uri": uri,
        f"spark.sql.catalog.{CATALOG}.warehouse": "default",
    }


@pytest.fixture(scope="module")
def spark(server, tmp_path_factory):
    work = tmp_path_factory.mktemp("spark")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = (SparkSession.builder.master("local[2]").appName("floe-interop")
               .config("spark.jars", runtime_jar())
               .config("spark.driver.memory", "1g")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", str(work / "spark-warehouse"))
               .config("spark.local.dir", str(work / "local"))
               .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={work}"))
    for k, v in spark_conf(server.uri).items():
        builder = builder.config(k, v)
    # A second catalog on the same server, loading tables with `snapshots=refs` (the client
    # fetches all snapshots when a query needs one outside the refs) and asking for vended
    # credentials, which floe has none to give for a local warehouse.
    for k, v in spark_conf(server.uri).items():
        builder = builder.config(k.replace(f".{CATALOG}", f".{CATALOG}_refs", 1), v)
    builder = (builder.config(f"spark.sql.catalog.{CATALOG}_refs.snapshot-loading-mode", "refs")
               .config(f"spark.sql.catalog.{CATALOG}_refs.header.X-Iceberg-Access-Delegation",
                       "vended-credentials"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
    check_access_log(server)


def check_access_log(server: FloeServer) -> None:
    """Every request of the module answered without 5xx; 4xx only where the client asked
    about something absent (404: Spark probes `ns.t.snapshots` as a table before reading it as
    a metadata table, and loads a table before creating it)."""
    lines = [json.loads(x) for x in (server.data_dir / "access.log").read_text().splitlines()]
    assert lines
    bad = [x for x in lines if x["status"] >= 500 or (400 <= x["status"] < 500
                                                     and x["status"] != 404)]
    assert not bad, bad


@pytest.fixture(scope="module")
def rest(server) -> RestCatalog:
    return RestCatalog("floe", uri=server.uri, warehouse="default")


def sql(spark, text: str) -> list:
    return spark.sql(text).collect()


# ---------------------------------------------------------------------------------------------
# Rows in one canonical form: amount the decimal's text with its scale, ts epoch microseconds.

def micros(value: dt.datetime) -> int:
    assert value.tzinfo is not None, value
    return (value - EPOCH) // dt.timedelta(microseconds=1)


def canon_value(column: str, value):
    if value is None:
        return None
    if column == "amount":
        return str(value) if isinstance(value, (Decimal, str)) else value
    if column == "ts":
        if isinstance(value, str):
            return micros(dt.datetime.fromisoformat(value))
        if isinstance(value, dt.datetime):
            return micros(value)
    return value


def canon_rows(rows: list[dict]) -> list[dict]:
    return sorted(({k: canon_value(k, v) for k, v in r.items()} for r in rows),
                  key=lambda r: r["id"])


def assert_rows(expected: list[dict], actual: list[dict], what: str) -> None:
    """Equal rows by id. A reader may show a column added after the snapshot it reads (with the
    table's current schema); such a column must then be null in every row."""
    actual = canon_rows(actual)
    columns = set(expected[0]) if expected else None
    trimmed = []
    for row in actual:
        extra = {k: v for k, v in row.items() if columns is not None and k not in columns}
        assert all(v is None for v in extra.values()), f"{what}: {row}"
        trimmed.append({k: v for k, v in row.items() if k not in extra})
    exp_ids = [r["id"] for r in expected]
    act_ids = [r["id"] for r in trimmed]
    assert act_ids == exp_ids, (
        f"{what}: missing ids {sorted(set(exp_ids) - set(act_ids))[:20]}, "
        f"unexpected ids {sorted(set(act_ids) - set(exp_ids))[:20]}, "
        f"{len(act_ids)} rows for {len(exp_ids)}")
    for e, a in zip(expected, trimmed):
        assert a == e, f"{what}: id {e['id']}: expected {e}, got {a}"


def spark_rows(spark, table: str, snapshot_id: int | None = None, ref: str | None = None,
               catalog: str = CATALOG):
    source = f"{catalog}.{table}"
    if snapshot_id is not None:
        source += f" VERSION AS OF {snapshot_id}"
    elif ref is not None:
        source += f" VERSION AS OF '{ref}'"
    df = spark.sql(f"SELECT * FROM {source}")
    # Timestamps as epoch micros on the JVM side: collect() would convert them to naive
    # datetimes in this process's time zone.
    exprs = [f"unix_micros(`{c}`) AS `{c}`" if t == "timestamp" else f"`{c}`"
             for c, t in df.dtypes]
    rows = []
    for r in df.selectExpr(*exprs).collect():
        d = r.asDict()
        if "ts" in d and d["ts"] is not None:
            d["ts"] = EPOCH + dt.timedelta(microseconds=d["ts"])
        rows.append(d)
    return rows


def pyiceberg_rows(rest: RestCatalog, table: str, snapshot_id: int | None = None):
    t = rest.load_table(table)
    scan = t.scan(snapshot_id=snapshot_id) if snapshot_id is not None else t.scan()
    return scan.to_arrow().to_pylist()


def floe_rows(floe, server: FloeServer, table: str, *args) -> list[dict]:
    r = floe.ok("table", "scan", table, "--catalog", f"rest:{server.uri}", *args, timeout=300)
    return [json.loads(line) for line in r.text.splitlines() if line]


def check_all_readers(spark, rest, floe, server, table, expected, what, snapshot_id=None):
    args = ["--snapshot", snapshot_id] if snapshot_id is not None else []
    assert_rows(expected, spark_rows(spark, table, snapshot_id), f"Spark, {what}")
    assert_rows(expected, pyiceberg_rows(rest, table, snapshot_id), f"pyiceberg, {what}")
    assert_rows(expected, floe_rows(floe, server, table, *args), f"floe, {what}")


# ---------------------------------------------------------------------------------------------
# The model: the table's rows as a dict keyed by id, changed by the same operations in Python.

BASE_TS = micros(dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc))


def make_rows(rng: random.Random, ids, qty: bool = False) -> list[dict]:
    rows = []
    for i in ids:
        row = {"id": i,
               "category": rng.choice(["a", "b", "c", None]),
               "amount": f"{Decimal(rng.randrange(-50000, 50000)) / 100:.2f}",
               "ts": BASE_TS + rng.randrange(0, 6 * 24 * 3600) * 1_000_000,
               "note": None if rng.random() < 0.15 else f"n{i}"}
        if qty:
            row["qty"] = None if rng.random() < 0.2 else rng.randrange(0, 100)
        rows.append(row)
    return rows


def sql_literal(column: str, value) -> str:
    if value is None:
        return "NULL"
    if column == "amount":
        return f"CAST('{value}' AS DECIMAL(10,2))"
    if column == "ts":
        return f"timestamp_micros({value})"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def values_sql(rows: list[dict], columns: list[str]) -> str:
    return ", ".join("(" + ", ".join(sql_literal(c, r[c]) for c in columns) + ")" for r in rows)


def snapshot_summary(spark, table: str, snapshot_id: int) -> dict:
    rows = sql(spark, f"SELECT operation, summary FROM {CATALOG}.{table}.snapshots "
                      f"WHERE snapshot_id = {snapshot_id}")
    assert len(rows) == 1, rows
    return {"operation": rows[0]["operation"], **rows[0]["summary"]}


def current_snapshot_id(rest: RestCatalog, table: str) -> int:
    return rest.load_table(table).metadata.current_snapshot_id


def count(summary: dict, key: str) -> int:
    return int(summary.get(key, "0"))


@pytest.mark.parametrize("format_version", [2, 3])
def test_row_level_commands_merge_on_read(spark, rest, floe, server, format_version):
    rng = random.Random(format_version)
    ns = f"mor_v{format_version}"
    table = f"{ns}.orders"
    columns = ["id", "category", "amount", "ts", "note"]
    model: dict[int, dict] = {}
    steps: list[tuple[str, int, list[dict], bool]] = []  # (step, snapshot, rows, row-level)

    def record(step: str, row_level: bool = False):
        sid = current_snapshot_id(rest, table)
        assert all(s[1] != sid for s in steps), f"{step} made no snapshot"
        rows = [dict(model[k]) for k in sorted(model)]
        steps.append((step, sid, rows, row_level))
        # Spark's own view after each step, so a failure names the first wrong step.
        assert_rows(rows, spark_rows(spark, table), f"Spark after {step}")

    sql(spark, f"CREATE NAMESPACE {CATALOG}.{ns}")
    sql(spark, f"""CREATE TABLE {CATALOG}.{table} (
                     id bigint NOT NULL, category string, amount decimal(10,2),
                     ts timestamp, note string)
                   USING iceberg PARTITIONED BY (bucket(4, id), days(ts))
                   TBLPROPERTIES ('format-version'='{format_version}', {MOR})""")
    meta = rest.load_table(table).metadata
    assert meta.format_version == format_version
    assert meta.properties["write.update.mode"] == "merge-on-read"

    for ids in (range(0, 200), range(200, 320)):
        rows = make_rows(rng, ids)
        sql(spark, f"INSERT INTO {CATALOG}.{table} VALUES {values_sql(rows, columns)}")
        model.update({r["id"]: r for r in rows})
        record(f"insert {ids.start}..{ids.stop - 1}")

    sql(spark, f"DELETE FROM {CATALOG}.{table} WHERE id % 5 = 0")
    model = {k: v for k, v in model.items() if k % 5 != 0}
    record("delete id % 5 = 0", row_level=True)

    sql(spark, f"DELETE FROM {CATALOG}.{table} WHERE category IS NULL AND amount < 0")
    model = {k: v for k, v in model.items()
             if not (v["category"] is None and Decimal(v["amount"]) < 0)}
    record("delete null category, negative amount")

    sql(spark, f"""UPDATE {CATALOG}.{table}
                   SET amount = amount + 1.25, note = concat('u-', coalesce(note, ''))
                   WHERE category = 'a'""")
    for v in model.values():
        if v["category"] == "a":
            v["amount"] = f"{Decimal(v['amount']) + Decimal('1.25'):.2f}"
            v["note"] = "u-" + (v["note"] or "")
    record("update category a", row_level=True)

    # Moves rows to the next day's partition: a delete in the old one, an insert in the new.
    sql(spark, f"UPDATE {CATALOG}.{table} SET ts = ts + INTERVAL 1 DAY "
               f"WHERE id BETWEEN 100 AND 160")
    for k, v in model.items():
        if 100 <= k <= 160:
            v["ts"] += DAY_MICROS
    record("update moving partitions", row_level=True)

    # MERGE source: existing ids (update or delete), ids deleted above and new ids (insert).
    live = sorted(model)
    source = []
    for i in rng.sample(live, 40) + [k for k in range(0, 320, 5)][:15] + list(range(500, 520)):
        op = "delete" if (i in model and rng.random() < 0.4) else "upsert"
        row = make_rows(rng, [i])[0]
        source.append({"op": op, **row})
    src_columns = ["id", "op", "category", "amount", "ts", "note"]
    spark.sql(f"SELECT * FROM VALUES {values_sql(source, src_columns)} AS s("
              f"{', '.join(src_columns)})").createOrReplaceTempView(f"merge_source_{ns}")
    sql(spark, f"""MERGE INTO {CATALOG}.{table} t USING merge_source_{ns} s ON t.id = s.id
                   WHEN MATCHED AND s.op = 'delete' THEN DELETE
                   WHEN MATCHED THEN UPDATE SET t.amount = s.amount, t.note = s.note
                   WHEN NOT MATCHED AND s.op <> 'delete' THEN
                     INSERT (id, category, amount, ts, note)
                     VALUES (s.id, s.category, s.amount, s.ts, s.note)""")
    for s in source:
        if s["id"] in model:
            if s["op"] == "delete":
                del model[s["id"]]
            else:
                model[s["id"]].update(amount=s["amount"], note=s["note"])
        elif s["op"] != "delete":
            model[s["id"]] = {c: s[c] for c in columns}
    record("merge", row_level=True)

    sql(spark, f"ALTER TABLE {CATALOG}.{table} ADD COLUMN qty int")
    columns.append("qty")
    for v in model.values():
        v["qty"] = None
    rows = make_rows(rng, range(1000, 1040), qty=True)
    sql(spark, f"INSERT INTO {CATALOG}.{table} VALUES {values_sql(rows, columns)}")
    model.update({r["id"]: r for r in rows})
    record("add column qty, insert 1000..1039")

    sql(spark, f"UPDATE {CATALOG}.{table} SET qty = 7 WHERE id < 60 OR id >= 1035")
    for k, v in model.items():
        if k < 60 or k >= 1035:
            v["qty"] = 7
    record("update qty", row_level=True)

    sql(spark, f"DELETE FROM {CATALOG}.{table} WHERE qty IS NULL AND id >= 1000")
    model = {k: v for k, v in model.items() if not (v["qty"] is None and k >= 1000)}
    record("delete null qty")

    # Merge-on-read: the row-level steps added delete files of the format's kind and removed no
    # data file; in v3 a data file's second change replaced its deletion vector.
    removed_dvs = 0
    for step, sid, _, row_level in steps:
        summary = snapshot_summary(spark, table, sid)
        if not row_level:
            continue
        assert count(summary, "added-delete-files") > 0, (step, summary)
        assert count(summary, "deleted-data-files") == 0, (step, summary)
        assert count(summary, "added-equality-delete-files") == 0, (step, summary)
        if format_version == 2:
            assert count(summary, "added-position-delete-files") > 0, (step, summary)
            assert count(summary, "added-dvs") == 0, (step, summary)
        else:
            assert count(summary, "added-dvs") == count(summary, "added-delete-files"), (
                step, summary)
        removed_dvs += count(summary, "removed-dvs")
    if format_version == 3:
        assert removed_dvs > 0
    deletes = sql(spark, f"SELECT content, file_format, referenced_data_file "
                         f"FROM {CATALOG}.{table}.delete_files")
    assert deletes and all(d["content"] == 1 for d in deletes), deletes
    if format_version == 2:
        assert {d["file_format"] for d in deletes} == {"PARQUET"}, deletes
    else:
        assert {d["file_format"] for d in deletes} == {"PUFFIN"}, deletes
        referenced = [d["referenced_data_file"] for d in deletes]
        assert len(referenced) == len(set(referenced)), "two live DVs for one data file"
    floe_files = json.loads(floe.ok("table", "files", table, "--catalog", f"rest:{server.uri}",
                                    "--json").text)
    assert sum(f["content"] == "position_deletes" for f in floe_files) == len(deletes)

    # Every snapshot, read by each of the three.
    for step, sid, rows, _ in steps:
        check_all_readers(spark, rest, floe, server, table, rows, f"after {step}", sid)
    final = steps[-1][2]

    # Maintenance procedures through the catalog: compaction (a replace commit), then expiry.
    out = sql(spark, f"CALL {CATALOG}.system.rewrite_data_files(table => '{table}', "
                     f"options => map('rewrite-all', 'true', 'remove-dangling-deletes', 'true'))")
    assert out[0]["rewritten_data_files_count"] > 0, out
    sid = current_snapshot_id(rest, table)
    assert snapshot_summary(spark, table, sid)["operation"] in ("replace", "delete"), sid
    check_all_readers(spark, rest, floe, server, table, final, "after rewrite_data_files")

    out = sql(spark, f"CALL {CATALOG}.system.expire_snapshots(table => '{table}', "
                     f"older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)")
    assert out[0]["deleted_data_files_count"] > 0, out
    t = rest.load_table(table)
    assert [s.snapshot_id for s in t.metadata.snapshots] == [t.metadata.current_snapshot_id]
    check_all_readers(spark, rest, floe, server, table, final, "after expire_snapshots")
    # The data files Spark's expiry deleted are gone from the disk too, and nothing live is.
    live = {f["file_path"] for f in json.loads(
        floe.ok("table", "files", table, "--catalog", f"rest:{server.uri}", "--json").text)}
    on_disk = {str(p) for p in (server.warehouse / ns / "orders" / "data").rglob("*")
               if p.is_file() and p.suffix in (".parquet", ".puffin")}
    assert on_disk == live, (sorted(on_disk - live)[:5], sorted(live - on_disk)[:5])


def small_rows(ids, tag: str) -> list[dict]:
    return [{"id": i, "kind": ["x", "y", "z"][i % 3], "label": f"{tag}{i}"} for i in ids]


def insert_small(spark, table: str, rows: list[dict]) -> None:
    sql(spark, f"INSERT INTO {CATALOG}.{table} VALUES "
               f"{values_sql(rows, ['id', 'kind', 'label'])}")


def test_staged_create_ctas_and_replace(spark, rest, floe, server):
    """CTAS and RTAS go through the REST staged create (`stage-create`, then one commit with
    assert-create or a replace of schema, spec and properties)."""
    sql(spark, f"CREATE NAMESPACE {CATALOG}.staged")
    sql(spark, f"CREATE TABLE {CATALOG}.staged.src (id bigint, kind string, label string) "
               f"USING iceberg TBLPROPERTIES ('format-version'='2')")
    src = small_rows(range(0, 60), "s")
    insert_small(spark, "staged.src", src)

    sql(spark, f"""CREATE TABLE {CATALOG}.staged.ctas USING iceberg PARTITIONED BY (kind)
                   TBLPROPERTIES ('format-version'='2', 'team'='spark')
                   AS SELECT id, kind, label FROM {CATALOG}.staged.src WHERE id < 40""")
    first = [r for r in src if r["id"] < 40]
    check_all_readers(spark, rest, floe, server, "staged.ctas", first, "CTAS")
    t = rest.load_table("staged.ctas")
    uuid, first_sid = t.metadata.table_uuid, t.metadata.current_snapshot_id
    assert t.metadata.properties["team"] == "spark"
    assert [f.name for f in t.spec().fields] == ["kind"]

    sql(spark, f"""REPLACE TABLE {CATALOG}.staged.ctas USING iceberg
                   PARTITIONED BY (bucket(2, id))
                   AS SELECT id, upper(label) AS label FROM {CATALOG}.staged.src
                   WHERE id >= 30""")
    second = [{"id": r["id"], "label": r["label"].upper()} for r in src if r["id"] >= 30]
    check_all_readers(spark, rest, floe, server, "staged.ctas", second, "REPLACE TABLE AS")
    t = rest.load_table("staged.ctas")
    assert t.metadata.table_uuid == uuid
    assert [f.name for f in t.schema().fields] == ["id", "label"]
    assert [str(f.transform) for f in t.spec().fields] == ["bucket[2]"]
    # The replaced table keeps its history: the CTAS snapshot reads with its own schema.
    assert first_sid in [s.snapshot_id for s in t.metadata.snapshots]
    assert_rows(first, spark_rows(spark, "staged.ctas", first_sid), "Spark, CTAS snapshot")
    assert_rows(first, floe_rows(floe, server, "staged.ctas", "--snapshot", first_sid),
                "floe, CTAS snapshot")

    # CREATE OR REPLACE on a table that does not exist yet is a staged create as well.
    sql(spark, f"""CREATE OR REPLACE TABLE {CATALOG}.staged.fresh USING iceberg
                   TBLPROPERTIES ('format-version'='3')
                   AS SELECT * FROM {CATALOG}.staged.src WHERE kind = 'y'""")
    check_all_readers(spark, rest, floe, server, "staged.fresh",
                      [r for r in src if r["kind"] == "y"], "CREATE OR REPLACE AS (new)")
    assert rest.load_table("staged.fresh").metadata.format_version == 3


def test_sort_order_spec_evolution_branches_tags(spark, rest, floe, server):
    sql(spark, f"CREATE NAMESPACE {CATALOG}.refs")
    table = "refs.events"
    sql(spark, f"CREATE TABLE {CATALOG}.{table} (id bigint, kind string, label string) "
               f"USING iceberg TBLPROPERTIES ('format-version'='2')")
    main = small_rows(range(0, 30), "a")
    insert_small(spark, table, main)
    first_sid = current_snapshot_id(rest, table)

    sql(spark, f"ALTER TABLE {CATALOG}.{table} WRITE ORDERED BY id DESC NULLS LAST")
    order = rest.load_table(table).sort_order()
    assert [(f.direction.name, f.null_order.name) for f in order.fields] == [
        ("DESC", "NULLS_LAST")], order
    sql(spark, f"ALTER TABLE {CATALOG}.{table} ADD PARTITION FIELD kind")
    assert [f.name for f in rest.load_table(table).spec().fields] == ["kind"]
    more = small_rows(range(30, 50), "b")
    insert_small(spark, table, more)
    main += more
    tagged = list(main)
    second_sid = current_snapshot_id(rest, table)

    sql(spark, f"ALTER TABLE {CATALOG}.{table} CREATE TAG t1")
    sql(spark, f"ALTER TABLE {CATALOG}.{table} CREATE BRANCH dev")
    dev_rows = small_rows(range(100, 110), "dev")
    sql(spark, f"INSERT INTO {CATALOG}.{table}.branch_dev VALUES "
               f"{values_sql(dev_rows, ['id', 'kind', 'label'])}")
    sql(spark, f"DELETE FROM {CATALOG}.{table}.branch_dev WHERE id < 10")
    dev = [r for r in tagged + dev_rows if r["id"] >= 10]
    last = small_rows(range(50, 55), "c")
    insert_small(spark, table, last)
    main += last
    third_sid = current_snapshot_id(rest, table)

    t = rest.load_table(table)
    refs = {name: ref.snapshot_id for name, ref in t.metadata.refs.items()}
    assert refs["t1"] == second_sid and refs["main"] == third_sid
    assert set(refs) == {"main", "t1", "dev"}
    floe_refs = json.loads(floe.ok("table", "refs", table, "--catalog", f"rest:{server.uri}",
                                   "--json").text)
    assert {r["name"]: (r["type"], r["snapshot_id"]) for r in floe_refs} == {
        "main": ("branch", third_sid), "t1": ("tag", second_sid),
        "dev": ("branch", refs["dev"])}

    check_all_readers(spark, rest, floe, server, table, main, "main")
    for name, rows in (("dev", dev), ("t1", tagged)):
        assert_rows(rows, spark_rows(spark, table, ref=name), f"Spark, {name}")
        assert_rows(rows, pyiceberg_rows(rest, table, refs[name]), f"pyiceberg, {name}")
        assert_rows(rows, floe_rows(floe, server, table, "--ref", name), f"floe, {name}")
    # Through the catalog that loads only referenced snapshots: the refs read directly, and
    # the first snapshot (on no ref) makes the client fetch the rest.
    assert_rows(dev, spark_rows(spark, table, ref="dev", catalog=f"{CATALOG}_refs"),
                "Spark (snapshots=refs), dev")
    assert_rows(main[:30], spark_rows(spark, table, first_sid, catalog=f"{CATALOG}_refs"),
                "Spark (snapshots=refs), first snapshot")
    status, body, _ = server.request("GET", f"/v1/default/namespaces/refs/tables/events"
                                            f"?snapshots=refs")
    assert status == 200
    assert {s["snapshot-id"] for s in body["metadata"]["snapshots"]} == set(refs.values())

    # Rename through Spark, then every reader finds the table under its new name.
    sql(spark, f"ALTER TABLE {CATALOG}.{table} RENAME TO refs.renamed")  # target: no catalog part
    check_all_readers(spark, rest, floe, server, "refs.renamed", main, "after rename")


def test_views(spark, rest, server):
    sql(spark, f"CREATE NAMESPACE {CATALOG}.views")
    sql(spark, f"CREATE TABLE {CATALOG}.views.base (id bigint, kind string, label string) "
               f"USING iceberg")
    rows = small_rows(range(0, 20), "v")
    insert_small(spark, "views.base", rows)

    sql(spark, f"CREATE VIEW {CATALOG}.views.v1 COMMENT 'small ids' AS "
               f"SELECT id, label FROM {CATALOG}.views.base WHERE id < 8")
    got = sql(spark, f"SELECT * FROM {CATALOG}.views.v1")
    assert sorted((r["id"], r["label"]) for r in got) == [
        (r["id"], r["label"]) for r in rows if r["id"] < 8]
    def catalog_views():  # SHOW VIEWS also lists the session's temporary views
        return {r["viewName"] for r in sql(spark, f"SHOW VIEWS IN {CATALOG}.views")
                if not r["isTemporary"]}
    assert catalog_views() == {"v1"}
    status, body, _ = server.request("GET", "/v1/default/namespaces/views/views/v1")
    assert status == 200, body
    version = next(v for v in body["metadata"]["versions"]
                   if v["version-id"] == body["metadata"]["current-version-id"])
    assert [r["dialect"] for r in version["representations"]] == ["spark"]
    assert "id < 8" in version["representations"][0]["sql"]

    sql(spark, f"CREATE OR REPLACE VIEW {CATALOG}.views.v1 AS "
               f"SELECT id, kind FROM {CATALOG}.views.base WHERE kind = 'z'")
    got = sql(spark, f"SELECT * FROM {CATALOG}.views.v1")
    assert sorted((r["id"], r["kind"]) for r in got) == [
        (r["id"], r["kind"]) for r in rows if r["kind"] == "z"]
    status, body, _ = server.request("GET", "/v1/default/namespaces/views/views/v1")
    assert len(body["metadata"]["versions"]) == 2

    sql(spark, f"ALTER VIEW {CATALOG}.views.v1 SET TBLPROPERTIES ('team'='spark')")
    status, body, _ = server.request("GET", "/v1/default/namespaces/views/views/v1")
    assert body["metadata"]["properties"]["team"] == "spark"
    sql(spark, f"DROP VIEW {CATALOG}.views.v1")
    assert catalog_views() == set()
    status, _, _ = server.request("GET", "/v1/default/namespaces/views/views/v1")
    assert status == 404

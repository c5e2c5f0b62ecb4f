"""`floe table` against pyiceberg 0.12 on one SQLite catalog (Iceberg's JDBC schema).

floe creates tables, appends (JSON Lines, CSV, Parquet), deletes merge-on-read (position
deletes on v2, deletion vectors on v3), upserts (equality deletes), expires and rolls back;
pyiceberg's SqlCatalog on the same database file reads every table floe writes with the rows
expected from the inputs, and floe reads what pyiceberg writes. Concurrent floe processes
appending to one table lose no commit.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import decimal
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from floe_runner import EXIT_NOT_FOUND, EXIT_USAGE, ERROR_EXITS
import iceberg_java as ij

SCHEMA_TEXT = ("id long not null, name string, amount decimal(10, 2), ts timestamp, "
               "tstz timestamptz, day date, flag boolean, score double")


def input_rows(start: int, n: int) -> list[dict]:
    out = []
    for k in range(start, start + n):
        out.append({
            "id": k,
            "name": None if k % 9 == 4 else f"n{k % 6}",
            "amount": f"{(k * 37) % 10000 / 100:.2f}",
            "ts": f"2024-0{1 + k % 3}-{10 + k % 18}T{k % 24:02d}:15:00.000001",
            "tstz": f"2024-05-{1 + k % 28:02d}T{k % 24:02d}:00:00.000000+00:00",
            "day": f"2023-12-{1 + k % 28:02d}",
            "flag": k % 2 == 0,
            "score": k / 8,
        })
    return out


class Env:
    def __init__(self, floe, root):
        self.floe = floe
        self.db = root / "catalog.db"
        self.warehouse = root / "wh"
        self.warehouse.mkdir()
        self.flags = ["--catalog", f"sqlite:{self.db}", "--warehouse", str(self.warehouse)]
        self.root = root

    def run(self, *args, ok=True):
        # Options after the positional table name are accepted by every floe table command.
        r = self.floe.run(*args, *self.flags, timeout=300)
        if ok:
            assert r.rc == 0, r.describe()
        return r

    def pyiceberg(self):
        # floe's default catalog name is pyiceberg's ("default").
        return SqlCatalog("default", uri=f"sqlite:///{self.db}", warehouse=f"file://{self.warehouse}")

    def jsonl(self, name, rows):
        p = self.root / name
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return p

    def scan(self, table, *args):
        out = self.root / "scan.parquet"
        self.run("table", "scan", table, "--format", "parquet", "--output", out, *args)
        return ij.canonical_rows(pq.read_table(out))


@pytest.fixture
def env(floe, tmp_path):
    return Env(floe, tmp_path)


def expected(rows: list[dict], keep=lambda r: True) -> list[dict]:
    """The input rows in canonical form (decimals with scale and timestamps as written,
    doubles as their repr)."""
    out = []
    for r in rows:
        if keep(r):
            c = dict(r)
            if "score" in c:
                c["score"] = ij.float_text(c["score"])
            out.append(c)
    return out


def arrow_rows(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """The input rows as Python values for pyarrow."""
    conv = []
    for r in rows:
        conv.append({**r, "amount": decimal.Decimal(r["amount"]),
                     "ts": dt.datetime.fromisoformat(r["ts"]),
                     "tstz": dt.datetime.fromisoformat(r["tstz"]),
                     "day": dt.date.fromisoformat(r["day"])})
    return pa.Table.from_pylist(conv, schema=schema)


ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()),
                          ("amount", pa.decimal128(10, 2)), ("ts", pa.timestamp("us")),
                          ("tstz", pa.timestamp("us", "UTC")), ("day", pa.date32()),
                          ("flag", pa.bool_()), ("score", pa.float64())])


def py_rows(env, table):
    return ij.canonical_rows(env.pyiceberg().load_table(table).scan().to_arrow())


@pytest.mark.parametrize("version", [2, 3])
def test_create_append_delete_read_by_pyiceberg(env, version):
    env.run("namespace", "create", "sales")
    env.run("table", "create", "sales.orders", "--schema", SCHEMA_TEXT,
            "--partition-by", "day(ts), bucket(4, id)", "--format-version", str(version))
    rows = input_rows(0, 200)
    env.run("table", "append", "sales.orders", env.jsonl("a.jsonl", rows[:120]))
    # A Parquet file from pyarrow (no field ids: matched to the table by name).
    pq.write_table(arrow_rows(rows[120:], ARROW_SCHEMA), env.root / "b.parquet")
    env.run("table", "append", "sales.orders", env.root / "b.parquet")

    ij.assert_same_rows(expected(rows), env.scan("sales.orders"), "floe after appends")
    ij.assert_same_rows(expected(rows), py_rows(env, "sales.orders"), "pyiceberg after appends")

    env.run("table", "delete", "sales.orders", "--where", "name = 'n1' OR id >= 190")
    keep = lambda r: not (r["name"] == "n1" or r["id"] >= 190)
    ij.assert_same_rows(expected(rows, keep), env.scan("sales.orders"), "floe after delete")
    ij.assert_same_rows(expected(rows, keep), py_rows(env, "sales.orders"),
                        "pyiceberg after delete")
    # A second delete of the same files: on v3 the new DV merges the previous one.
    env.run("table", "delete", "sales.orders", "--where", "flag = true AND id < 50")
    keep2 = lambda r: keep(r) and not (r["flag"] and r["id"] < 50)
    ij.assert_same_rows(expected(rows, keep2), env.scan("sales.orders"), "floe after delete 2")
    ij.assert_same_rows(expected(rows, keep2), py_rows(env, "sales.orders"),
                        "pyiceberg after delete 2")

    files = json.loads(env.run("table", "files", "sales.orders", "--json").stdout)
    kinds = {f["content"] for f in files}
    assert "position_deletes" in kinds, kinds
    formats = {f["file_format"] for f in files if f["content"] == "position_deletes"}
    assert formats == ({"PUFFIN"} if version == 3 else {"PARQUET"}), formats
    snaps = json.loads(env.run("table", "snapshots", "sales.orders", "--json").stdout)
    # Java's RowDelta with delete files only is a "delete" snapshot.
    assert [s["summary"]["operation"] for s in snaps] == ["append", "append", "delete",
                                                          "delete"], snaps


def test_upsert_last_write_wins(env):
    env.run("namespace", "create", "cdc")
    env.run("table", "create", "cdc.users", "--schema", "id long not null, name string, v int",
            "--identifier", "id", "--format-version", "2")
    env.run("table", "upsert", "cdc.users",
            env.jsonl("u1.jsonl", [{"id": k, "name": f"a{k}", "v": k} for k in range(100)]))
    env.run("table", "upsert", "cdc.users",
            env.jsonl("u2.jsonl", [{"id": k, "name": f"b{k}", "v": -k} for k in range(50, 150)]))
    env.run("table", "upsert", "cdc.users",
            env.jsonl("u3.jsonl", [{"id": 7, "name": "x", "v": 1}, {"id": 7, "name": "y", "v": 2}]))
    want = {k: {"id": k, "name": f"a{k}", "v": k} for k in range(50)}
    want.update({k: {"id": k, "name": f"b{k}", "v": -k} for k in range(50, 150)})
    want[7] = {"id": 7, "name": "y", "v": 2}
    ij.assert_same_rows(list(want.values()), env.scan("cdc.users"), "upserts")
    files = json.loads(env.run("table", "files", "cdc.users", "--json").stdout)
    eq = [f for f in files if f["content"] == "equality_deletes"]
    assert len(eq) == 3 and all(f["equality_ids"] == [1] for f in eq), eq
    # pyiceberg 0.12 does not read equality deletes (a documented limitation of the peer).
    with pytest.raises(ValueError, match="equality deletes"):
        env.pyiceberg().load_table("cdc.users").scan().to_arrow()


def test_pyiceberg_writes_floe_reads(env):
    env.run("namespace", "create", "py")
    env.run("table", "create", "py.t", "--schema", SCHEMA_TEXT, "--partition-by", "identity(name)")
    table = env.pyiceberg().load_table("py.t")
    rows = input_rows(0, 80)
    table.append(arrow_rows(rows, table.schema().as_arrow()))
    ij.assert_same_rows(expected(rows), env.scan("py.t"), "floe reads pyiceberg's append")
    env.run("table", "append", "py.t", env.jsonl("more.jsonl", input_rows(80, 20)))
    ij.assert_same_rows(expected(input_rows(0, 100)), py_rows(env, "py.t"),
                        "pyiceberg reads floe's append to its table")


def test_time_travel_expire_rollback(env):
    env.run("namespace", "create", "tt")
    env.run("table", "create", "tt.t", "--schema", "id long not null, name string")
    for i in range(4):
        env.run("table", "append", "tt.t",
                env.jsonl(f"p{i}.jsonl", [{"id": i * 10 + j, "name": f"p{i}"} for j in range(10)]))
    snaps = json.loads(env.run("table", "snapshots", "tt.t", "--json").stdout)
    assert len(snaps) == 4
    second = snaps[1]["snapshot_id"]
    ij.assert_same_rows([{"id": k, "name": f"p{k // 10}"} for k in range(20)],
                        env.scan("tt.t", "--snapshot", second), "time travel")
    env.run("table", "rollback", "tt.t", str(second))
    ij.assert_same_rows([{"id": k, "name": f"p{k // 10}"} for k in range(20)],
                        env.scan("tt.t"), "after rollback")
    history = json.loads(env.run("table", "history", "tt.t", "--json").stdout)
    assert history[-1]["snapshot_id"] == second
    # Java's default age (history.expire.max-snapshot-age-ms, 5 days) would keep every
    # snapshot of this test: expire what is older than now.
    now_ms = str(int(__import__("time").time() * 1000) + 1000)
    r = env.run("table", "expire-snapshots", "tt.t", "--older-than", now_ms, "--retain-last", "1",
                "--json")
    out = json.loads(r.stdout)
    # main's head (the rolled-back-to snapshot) stays; its parent and the two snapshots no
    # longer reachable after the rollback expire, with their data files.
    assert out["expired_snapshots"] == 3, out
    assert out["deleted_data_files"] >= 2, out
    ij.assert_same_rows([{"id": k, "name": f"p{k // 10}"} for k in range(20)],
                        py_rows(env, "tt.t"), "pyiceberg after expire")


def test_concurrent_appends_lose_nothing(env):
    env.run("namespace", "create", "cc")
    env.run("table", "create", "cc.t", "--schema", "id long not null, writer int")
    inputs = [env.jsonl(f"w{w}.jsonl", [{"id": w * 1000 + j, "writer": w} for j in range(5)])
              for w in range(6)]

    def append(path):
        return env.floe.run("table", "append", "cc.t", path, *env.flags, timeout=300)

    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(append, inputs))
    ok = [r for r in results if r.rc == 0]
    assert len(ok) == 6, [r.describe() for r in results if r.rc != 0]
    ids = sorted(r["id"] for r in env.scan("cc.t"))
    assert ids == sorted(w * 1000 + j for w in range(6) for j in range(5))


def test_errors_are_one_line(env):
    r = env.run("table", "scan", "nope.t", ok=False)
    assert r.rc == EXIT_NOT_FOUND, r.describe()
    assert r.stderr.count("\n") <= 1, r.stderr
    env.run("namespace", "create", "e")
    env.run("table", "create", "e.t", "--schema", "id long not null")
    r = env.run("table", "delete", "e.t", "--where", "id = ", ok=False)
    assert r.rc in ERROR_EXITS or r.rc == 2, r.describe()
    r = env.run("table", "append", "e.t", env.jsonl("bad.jsonl", [{"id": "x"}]), ok=False)
    assert r.rc != 0 and "line 1" in r.stderr, r.describe()


def test_evolve_matches_pyiceberg(env):
    """`floe table evolve` against pyiceberg's UpdateSchema / UpdateSpec / sort order
    replacement on twin tables: the same evolved schema (field ids, types, order, identifier
    fields), partition spec and sort order; then rows appended after the evolution and before
    it read back through pyiceberg with old files mapped by field id."""
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
    from pyiceberg.types import DoubleType, LongType, StringType
    from pyiceberg.table.sorting import NullOrder

    schema = ("id long not null, name string, qty int, price float, "
              "info struct<a string>, ts timestamp")
    for t in ("ns.f", "ns.p"):
        if t == "ns.f":
            env.run("namespace", "create", "ns")
        env.run("table", "create", t, "--schema", schema, "--partition-by", "bucket(4, id)",
                "--identifier", "id")
    rows = [{"id": k, "name": f"n{k}", "qty": k * 10, "price": k / 4, "info": {"a": f"a{k}"},
             "ts": f"2024-03-0{1 + k % 5}T10:00:00"} for k in range(1, 7)]
    env.run("table", "append", "ns.f", env.jsonl("before.jsonl", rows))

    cat = env.pyiceberg()
    p = cat.load_table("ns.p")
    with p.transaction() as tx:
        with tx.update_schema() as u:
            u.add_column("note", StringType(), doc="free text")
            u.add_column(("info", "b"), LongType())
            u.rename_column("name", "full_name")
            u.update_column("qty", LongType())
            u.update_column("price", DoubleType())
            u.move_after("note", "id")
        with tx.update_spec() as s:
            s.remove_field("id_bucket")
            s.add_field("ts", DayTransform())
            s.add_field("note", BucketTransform(8), "note_b")
        with tx.update_sort_order() as so:
            so.desc("ts", IdentityTransform(), NullOrder.NULLS_LAST)
            # floe's text defaults are Java's (asc nulls first); pyiceberg's API defaults
            # to nulls last, so say it.
            so.asc("id", IdentityTransform(), NullOrder.NULLS_FIRST)

    env.run("table", "evolve", "ns.f",
            "--add-column", "note string comment 'free text'",
            "--add-column", "info.b long",
            "--rename-column", "name=full_name",
            "--widen-column", "qty=long", "--widen-column", "price=double",
            "--move", "note after id",
            "--drop-partition", "id_bucket",
            "--add-partition", "day(ts)", "--add-partition", "bucket(8, note) as note_b",
            "--sort-by", "ts desc nulls last, id")

    f = cat.load_table("ns.f")
    p = cat.load_table("ns.p")
    assert f.schema().model_dump() == p.schema().model_dump()
    assert f.schema().identifier_field_ids == p.schema().identifier_field_ids
    assert f.spec().model_dump() == p.spec().model_dump()
    assert f.metadata.last_partition_id == p.metadata.last_partition_id
    assert f.metadata.last_column_id == p.metadata.last_column_id
    assert f.sort_order().model_dump() == p.sort_order().model_dump()

    after = [{"id": 10, "note": "x", "full_name": "m", "qty": 2**40, "price": 0.1,
              "info": {"a": "z", "b": 7}, "ts": "2024-04-01T00:00:00"}]
    env.run("table", "append", "ns.f", env.jsonl("after.jsonl", after))
    got = ij.canonical_rows(cat.load_table("ns.f").scan().to_arrow())
    expected = [{"id": r["id"], "note": None, "full_name": r["name"], "qty": r["qty"],
                 "price": repr(float(r["price"])), "info": {"a": r["info"]["a"], "b": None},
                 "ts": r["ts"] + ".000000"} for r in rows]
    expected += [{**after[0], "price": repr(0.1), "ts": "2024-04-01T00:00:00.000000"}]
    ij.assert_same_rows(got, expected)
    ij.assert_same_rows(env.scan("ns.f"), got)

    # Each change is checked the way Java checks it: a clear one-line error, no commit.
    before = cat.load_table("ns.f").metadata_location
    # An invalid change is the caller's mistake: exit 2 (docs/cli.md), like a bad flag.
    r = env.run("table", "evolve", "ns.f", "--widen-column", "qty=int", ok=False)
    assert r.rc == EXIT_USAGE and r.stderr.count("\n") == 1, r.describe()
    r = env.run("table", "evolve", "ns.f", "--require", "note", ok=False)
    assert r.rc == EXIT_USAGE and "nullability" in r.stderr, r.describe()
    assert cat.load_table("ns.f").metadata_location == before


def _partition_record(manifest_path: str) -> list[tuple]:
    """(name, field-id, Avro type) of the data_file.partition record of a manifest."""
    import fastavro
    with open(manifest_path.removeprefix("file://"), "rb") as fh:
        schema = fastavro.reader(fh).writer_schema
    data_file = next(f for f in schema["fields"] if f["name"] == "data_file")["type"]
    partition = next(f for f in data_file["fields"] if f["name"] == "partition")["type"]

    def plain(t):
        if isinstance(t, list):
            return [plain(b) for b in t]
        if isinstance(t, dict):
            return {k: v for k, v in t.items() if k in ("type", "logicalType")}
        return t

    return [(f["name"], f.get("field-id"), plain(f["type"])) for f in partition["fields"]]


def test_time_partition_types_in_manifests_match_pyiceberg(env):
    """day() partitions are dates in the manifests (Java's Days.getResultType, pyiceberg's
    DayTransform.result_type); year, month and hour are ints."""
    env.run("namespace", "create", "tp")
    spec_text = "day(ts), month(d), year(t2), hour(t3)"
    schema_text = "id long not null, ts timestamptz, d date, t2 timestamp, t3 timestamptz"
    env.run("table", "create", "tp.floe", "--schema", schema_text, "--partition-by", spec_text)
    env.run("table", "create", "tp.py", "--schema", schema_text, "--partition-by", spec_text)
    row = {"id": 1, "ts": "2024-03-05T10:11:12+00:00", "d": "2024-03-05",
           "t2": "2024-03-05T10:11:12", "t3": "2024-03-05T10:11:12+00:00"}
    env.run("table", "append", "tp.floe", env.jsonl("tp.jsonl", [row]))
    catalog = env.pyiceberg()
    py_table = catalog.load_table("tp.py")
    arrow_schema = py_table.schema().as_arrow()
    py_table.append(pa.Table.from_pylist([{
        "id": 1,
        "ts": dt.datetime(2024, 3, 5, 10, 11, 12, tzinfo=dt.timezone.utc),
        "d": dt.date(2024, 3, 5),
        "t2": dt.datetime(2024, 3, 5, 10, 11, 12),
        "t3": dt.datetime(2024, 3, 5, 10, 11, 12, tzinfo=dt.timezone.utc)}], schema=arrow_schema))
    floe_table = catalog.load_table("tp.floe")
    ours = _partition_record(floe_table.current_snapshot().manifests(floe_table.io)[0].manifest_path)
    theirs = _partition_record(py_table.current_snapshot().manifests(py_table.io)[0].manifest_path)
    assert ours == theirs
    day_type = ours[0][2]
    assert {"type": "int", "logicalType": "date"} in (day_type if isinstance(day_type, list) else [day_type])
    # And pyiceberg reads floe's day partition value back as the date.
    files = floe_table.inspect.files()
    assert files.column("partition")[0].as_py()["ts_day"] == dt.date(2024, 3, 5)


def _run_with_tty_stderr(argv, extra_env=None):
    """Runs argv with stderr on a pseudo-terminal; returns (exit code, what the terminal got)."""
    import os
    import pty
    import subprocess
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=slave, timeout=300,
                              env={**os.environ, **(extra_env or {})})
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not data:
                break
            chunks.append(data)
        return proc.returncode, b"".join(chunks).decode("utf-8", "replace")
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def test_progress_bar_only_on_a_terminal(env):
    env.run("namespace", "create", "pg")
    env.run("table", "create", "pg.t", "--schema", "id long not null, name string")
    files = [env.jsonl(f"p{i}.jsonl", [{"id": i * 100 + j, "name": "x"} for j in range(100)])
             for i in range(3)]
    argv = [str(env.floe.path), "table", "append", "pg.t", *map(str, files), *env.flags]
    rc, tty = _run_with_tty_stderr(argv)
    assert rc == 0, tty
    # The final frame (all files, all rows), then the line is erased.
    assert "append [" in tty and "100% 3/3 files, 300 rows" in tty, repr(tty)
    assert tty.endswith("\r\x1b[K"), repr(tty)
    out = env.root / "all.jsonl"
    n = len(json.loads(env.run("table", "files", "pg.t", "--json").stdout))
    rc, tty = _run_with_tty_stderr([str(env.floe.path), "table", "scan", "pg.t", "--output",
                                    str(out), *env.flags])
    assert rc == 0 and "scan [" in tty and f"100% {n}/{n} files, 300 rows" in tty, repr(tty)
    # Off with FLOE_NO_PROGRESS, and never when stderr is not a terminal.
    rc, tty = _run_with_tty_stderr(argv, {"FLOE_NO_PROGRESS": "1"})
    assert rc == 0 and tty == "", repr(tty)
    r = env.run("table", "scan", "pg.t", "--output", str(out))
    assert "\r" not in r.stderr and "%" not in r.stderr, r.stderr


def test_scan_parquet_codec(env):
    env.run("namespace", "create", "cd")
    env.run("table", "create", "cd.t", "--schema", "id long not null, name string")
    env.run("table", "append", "cd.t",
            env.jsonl("rows.jsonl", [{"id": i, "name": f"n{i % 7}"} for i in range(500)]))
    default_rows = env.scan("cd.t")
    for codec, shown in (("snappy", "SNAPPY"), ("gzip", "GZIP"), ("none", "UNCOMPRESSED"),
                         (None, "ZSTD")):
        out = env.root / f"{codec}.parquet"
        args = ["table", "scan", "cd.t", "--output", out] + (["--codec", codec] if codec else [])
        env.run(*args)
        meta = pq.ParquetFile(out).metadata  # pyarrow names the codec it finds
        assert meta.row_group(0).column(0).compression == shown, (codec, meta)
        assert ij.canonical_rows(pq.read_table(out)) == default_rows
    bad = env.root / "bad.parquet"
    r = env.run("table", "scan", "cd.t", "--output", bad, "--codec", "deflate", ok=False)
    assert r.rc == EXIT_USAGE and "no deflate codec" in r.stderr and not bad.exists(), r.describe()
    r = env.run("table", "scan", "cd.t", "--codec", "snappy", ok=False)  # JSON Lines output
    assert r.rc == EXIT_USAGE and "--format parquet" in r.stderr, r.describe()


def test_scan_csv_read_by_pyarrow(env):
    """`--format csv` (and an output ending in .csv): a header and one record per row that
    pyarrow's CSV reader reads back as the table's rows, nulls as empty cells."""
    import pyarrow.csv as pacsv

    env.run("namespace", "create", "cv")
    env.run("table", "create", "cv.t", "--schema", "id long not null, name string, score double")
    rows = [{"id": i, "name": None if i % 5 == 0 else f'n,"{i}"\n', "score": i / 4}
            for i in range(50)]
    env.run("table", "append", "cv.t", env.jsonl("rows.jsonl", rows))
    want = sorted(((r["id"], r["name"], r["score"]) for r in rows), key=lambda t: t[0])
    convert = pacsv.ConvertOptions(column_types={"id": pa.int64(), "name": pa.string(),
                                                 "score": pa.float64()},
                                   strings_can_be_null=True, quoted_strings_can_be_null=False)
    for args in (["--format", "csv", "--output", env.root / "a.out"],
                 ["--output", env.root / "b.csv"]):
        env.run("table", "scan", "cv.t", *args)
        got = pacsv.read_csv(args[-1], convert_options=convert).to_pylist()
        assert sorted(((r["id"], r["name"], r["score"]) for r in got),
                      key=lambda t: t[0]) == want, args
    r = env.run("table", "scan", "cv.t", "--format", "csv")  # standard output
    assert r.stdout.splitlines()[0] == b"id,name,score", r.describe()

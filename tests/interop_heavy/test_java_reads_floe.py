"""Tables written by `floe table`, read by Iceberg Java 1.10.1 with equal results.

floe creates tables in a SQLite catalog (Iceberg's JDBC schema), appends JSON Lines and
Parquet files, deletes merge-on-read (`floe table delete`: position-delete files on v2,
deletion vectors in Puffin files on v3) and upserts the way a Flink upsert writer commits
(`floe table upsert`: equality deletes on the key plus inserts). The Java harness opens the
same database file with `JdbcCatalog` under floe's catalog name and reads every table with
`IcebergGenerics` (every delete kind applied). For the current snapshot and for every earlier
one, Java's rows must equal `floe table scan`'s, and both must equal the rows computed here
from the inputs (last write per key wins; deleted rows gone). Java's `files` listing must show
the delete files the spec prescribes for each operation (so a write that silently rewrote data
files instead would fail), with the same sequence numbers floe reports; partition values are
checked against the spec's transforms (pyiceberg's implementation), and Java's
partition-pruned scans must find the same rows.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.transforms import BucketTransform
from pyiceberg.types import LongType

import iceberg_java as ij
from test_iceberg_java import ALL_TYPES_SCHEMA, _all_types_rows, _ts_text

# docs/cli.md: floe's default --catalog-name, which Java's JdbcCatalog must be given too.
FLOE_CATALOG_NAME = "default"

# ALL_TYPES_SCHEMA (the schema the Java suites use) in floe's schema text; floe assigns fresh
# ids the way Java's createTable does, which test_position_deletes_v2 checks through Java.
ALL_TYPES_TEXT = ("id long not null, category string, ts timestamp, tstz timestamptz, i int, "
                  "f float, d double, dec decimal(12, 3), day date, tm time, u uuid, "
                  "bin binary, fx fixed[4], flag boolean, s struct<a int, b string>, "
                  "lst list<long>, m map<string, int>")
_NON_FINITE = ("NaN", "Infinity", "-Infinity")


@pytest.fixture(scope="session")
def harness() -> ij.Harness:
    # Missing java/mvn raises here: an error, never a skip.
    return ij.build_harness()


class Env:
    """floe's CLI and Java's JdbcCatalog on one SQLite file and one warehouse."""

    def __init__(self, floe, harness, root: Path):
        self.floe, self.root = floe, root
        self.db, self.warehouse = root / "catalog.db", root / "wh"
        self.warehouse.mkdir()
        self.flags = ["--catalog", f"sqlite:{self.db}", "--warehouse", str(self.warehouse)]
        self.java = harness.catalog(f"jdbc:sqlite:{self.db}", FLOE_CATALOG_NAME,
                                    str(self.warehouse))
        self._n = 0

    def run(self, *args) -> str:
        r = self.floe.run(*args, *self.flags, timeout=300)
        assert r.rc == 0, r.describe()
        return r.text

    def json(self, *args):
        return json.loads(self.run(*args, "--json"))

    def create(self, table: str, *args) -> None:
        self.run("namespace", "create", table.rsplit(".", 1)[0])
        self.run("table", "create", table, *args)
        # Java finds the table only under the catalog name floe recorded in the shared table.
        with sqlite3.connect(self.db) as c:
            names = {n for (n,) in c.execute("SELECT catalog_name FROM iceberg_tables")}
        assert names == {FLOE_CATALOG_NAME}, names

    def _path(self, suffix: str) -> Path:
        self._n += 1
        return self.root / f"input-{self._n}{suffix}"

    def jsonl(self, rows: list[dict]) -> Path:
        p = self._path(".jsonl")
        p.write_text("".join(json.dumps(floe_input(r)) + "\n" for r in rows))
        return p

    def parquet(self, table: pa.Table) -> Path:
        p = self._path(".parquet")
        pq.write_table(table, p)
        return p

    def scan(self, table: str, *args) -> list[dict]:
        out = self._path(".scan.parquet")
        self.run("table", "scan", table, "--format", "parquet", "--output", out, *args)
        return ij.canonical_rows(pq.read_table(out))


@pytest.fixture
def env(floe, harness, tmp_path):
    return Env(floe, harness, tmp_path)


def floe_input(row: dict) -> dict:
    """A canonical row as floe's JSON Lines input: the same text forms, except that floats and
    doubles are JSON numbers (canonical form has them as repr() strings)."""
    out = {}
    for k, v in row.items():
        if isinstance(v, str) and k in ("f", "d", "score") and v not in _NON_FINITE:
            v = float(v)
        out[k] = v
    return out


# ---------------------------------------------------------------------------------------------
# Checks shared by the tests.

def check_reads(env: Env, table: str, expected: list[dict]) -> None:
    """Java's current rows == floe's == expected; then, for every snapshot (Java's list, which
    must be floe's), Java's time travel == floe's."""
    java_rows = env.java.scan(table)
    ij.assert_same_rows(java_rows, env.scan(table), "floe's rows vs Java's")
    ij.assert_same_rows(expected, java_rows, "Java's (and floe's) rows vs expected")
    java_snaps = env.java.snapshots(table)
    floe_snaps = env.json("table", "snapshots", table)
    assert [s["snapshot_id"] for s in java_snaps["snapshots"]] == \
        [s["snapshot_id"] for s in floe_snaps]
    assert java_snaps["current_snapshot_id"] == floe_snaps[-1]["snapshot_id"]
    for snap in java_snaps["snapshots"][:-1]:
        sid = snap["snapshot_id"]
        ij.assert_same_rows(env.java.scan(table, snapshot_id=sid),
                            env.scan(table, "--snapshot", sid),
                            f"snapshot {sid} ({snap['operation']}): floe vs Java")


def java_files(env: Env, table: str) -> list[dict]:
    """Java's live files of the current snapshot, after checking that floe lists the same
    files with the same kinds, record counts and sequence numbers."""
    files = env.java.files(table)
    key = lambda content, path, n, dseq, fseq: (content, path, n, dseq, fseq)  # noqa: E731
    java_view = Counter(key(f["content"], f["path"], f["record_count"],
                            f["data_sequence_number"], f["file_sequence_number"]) for f in files)
    floe_view = Counter(key(f["content"], f["file_path"], f["record_count"],
                            f["data_sequence_number"], f["file_sequence_number"])
                        for f in env.json("table", "files", table))
    assert java_view == floe_view, (java_view, floe_view)
    return files


def by_content(files: list[dict], content: str) -> list[dict]:
    return [f for f in files if f["content"] == content]


def check_merge_on_read(before: list[dict], after: list[dict], deleted_rows: int,
                        version: int) -> None:
    """`after` is `before` plus one merge-on-read delete of `deleted_rows` live rows: every
    data file and equality-delete file kept, new position deletes (Parquet files on v2,
    deletion vectors on v3) holding at least one position per deleted row."""
    paths = lambda files, content: {f["path"] for f in by_content(files, content)}  # noqa: E731
    assert paths(before, "data") == paths(after, "data"), \
        "a delete rewrote data files instead of merge-on-read"
    assert paths(before, "equality_deletes") == paths(after, "equality_deletes")
    new = [f for f in by_content(after, "position_deletes")
           if f["path"] not in paths(before, "position_deletes")]
    assert new, "no new position-delete files after a delete"
    if version >= 3:
        # v3: deletion vectors only, each a blob of a Puffin file located by offset and size,
        # naming its data file, and at most one per data file (a second delete of a file
        # merges the previous vector into a new one that replaces it).
        dvs = by_content(after, "position_deletes")
        assert {f["format"] for f in dvs} == {"puffin"}, dvs
        for f in dvs:
            assert f["referenced_data_file"] in paths(after, "data"), f
            assert f["content_offset"] is not None and f["content_size_in_bytes"], f
        targets = [f["referenced_data_file"] for f in dvs]
        assert len(targets) == len(set(targets)), "two deletion vectors for one data file"
        # A delete only adds positions: every data file keeps at least the deleted positions
        # its previous vector held, touched by this delete or not.
        cardinality = lambda files: {f["referenced_data_file"]: f["record_count"]  # noqa: E731
                                     for f in by_content(files, "position_deletes")}
        old, now = cardinality(before), cardinality(after)
        lost = {d: (n, now.get(d, 0)) for d, n in old.items() if now.get(d, 0) < n}
        assert not lost, ("deletion vectors lost positions (data file: (before, after)): "
                          f"{lost}")
    else:
        assert {f["format"] for f in new} == {"parquet"}, new
    count = lambda files: sum(f["record_count"]  # noqa: E731
                              for f in by_content(files, "position_deletes"))
    assert count(after) - count(before) >= deleted_rows, (count(before), count(after))


def _bucket(n: int):
    return BucketTransform(n).transform(LongType())


def check_partitions(env: Env, table: str, files: list[dict]) -> None:
    """Every row of every data and equality-delete file lies in the partition its manifest
    entry (as Java reads it) names, by the spec's transforms: identity, bucket[N] (pyiceberg's
    Murmur3) and day."""
    desc = env.java.describe(table)
    names = {f["id"]: f["name"] for f in desc["schema"]["fields"]}
    checked = 0
    for f in files:
        if f["content"] not in ("data", "equality_deletes"):
            continue
        data = pq.read_table(f["path"])
        for pf in desc["spec"]["fields"]:
            column = names[pf["source-id"]]
            values = data.column(column)
            transform = pf["transform"]
            if transform == "identity":
                got = ij.canonical_values(values)
            elif transform.startswith("bucket["):
                fn = _bucket(int(transform[len("bucket["):-1]))
                got = [None if v is None else fn(v) for v in values.to_pylist()]
            elif transform == "day":
                micros = values.cast(pa.int64()).to_pylist()
                got = [None if v is None else
                       (dt.date(1970, 1, 1) + dt.timedelta(days=v // 86_400_000_000)).isoformat()
                       for v in micros]
            else:
                raise AssertionError(f"no check for transform {transform}")
            assert set(got) == {f["partition"][pf["name"]]}, (f["path"], pf, set(got))
        checked += 1
    assert checked, "no partitioned files checked"


# ---------------------------------------------------------------------------------------------
# Inputs.

def narrow_ts(rows: list[dict], rng: random.Random) -> list[dict]:
    """The rows with `ts` within a week of 2024-03-01 (a handful of day partitions, nulls
    kept as the null partition)."""
    base = int((dt.datetime(2024, 3, 1) - dt.datetime(1970, 1, 1)).total_seconds()) * 10**6
    for r in rows:
        if r["ts"] is not None:
            r["ts"] = _ts_text(base + rng.randrange(0, 7 * 86_400_000_000))
    return rows


def delete(rows: list[dict], pred) -> tuple[list[dict], int]:
    """`rows` without those where pred holds (pred sees SQL's NULL as not matching)."""
    keep = [r for r in rows if not pred(r)]
    return keep, len(rows) - len(keep)


def eq(column, value):
    return lambda r: r[column] is not None and r[column] == value


# ---------------------------------------------------------------------------------------------
# 1. v2 position deletes.

@pytest.mark.parametrize("partition_by", [None, "category, bucket(4, id)"],
                         ids=["unpartitioned", "identity_bucket"])
def test_position_deletes_v2(env, partition_by):
    rng = random.Random(101)
    table = "mor.v2"
    args = ["--schema", ALL_TYPES_TEXT, "--format-version", "2"]
    if partition_by:
        args += ["--partition-by", partition_by]
    env.create(table, *args)
    # floe's fresh ids are the ones Java's createTable would assign (the Java suites' schema).
    assert env.java.describe(table)["schema"]["fields"] == ALL_TYPES_SCHEMA["fields"]

    rows = _all_types_rows(rng, 0, 300)
    env.run("table", "append", table, env.jsonl(rows[:180]))
    env.run("table", "append", table, env.jsonl(rows[180:]))

    before = java_files(env, table)
    # Hits rows of both appends' files, and nulls in `category` must not match.
    rows, gone = delete(rows, lambda r: eq("category", "red")(r) or r["id"] >= 280)
    env.run("table", "delete", table, "--where", "category = 'red' OR id >= 280")
    after = java_files(env, table)
    check_merge_on_read(before, after, gone, 2)

    more = _all_types_rows(rng, 300, 60)
    env.run("table", "append", table, env.jsonl(more))
    rows += more
    # A second delete over files that already have position deletes, and the new file.
    before = java_files(env, table)
    rows, gone = delete(rows, lambda r: r["flag"] is True and r["i"] is not None and r["i"] < 0)
    env.run("table", "delete", table, "--where", "flag = true AND i < 0")
    files = java_files(env, table)
    check_merge_on_read(before, files, gone, 2)
    check_reads(env, table, rows)
    if partition_by:
        check_partitions(env, table, files)


# ---------------------------------------------------------------------------------------------
# 2. Upserts: equality deletes (+ merge-on-read deletes on top).

UPSERT_SCHEMA = "id long not null, name string, amount decimal(10, 2), ts timestamp, v int"
UPSERT_ARROW = pa.schema([("id", pa.int64()), ("name", pa.string()),
                          ("amount", pa.decimal128(10, 2)), ("ts", pa.timestamp("us")),
                          ("v", pa.int32())])


def upsert_rows(ids, tag: str) -> list[dict]:
    out = []
    for k in ids:
        null = (k + len(tag)) % 7 == 0
        out.append({"id": k, "name": None if null else f"{tag}-{k % 13}",
                    "amount": None if null else f"{(k * 31) % 20000 / 100 - 100:.2f}",
                    "ts": None if null else f"2024-02-{1 + k % 28:02d}T{k % 24:02d}:30:00.{k:06d}",
                    "v": None if null else (k * 17) % 1000 - 500})
    return out


def as_arrow(rows: list[dict]) -> pa.Table:
    conv = [{**r, "amount": None if r["amount"] is None else decimal.Decimal(r["amount"]),
             "ts": None if r["ts"] is None else dt.datetime.fromisoformat(r["ts"])}
            for r in rows]
    return pa.Table.from_pylist(conv, schema=UPSERT_ARROW)


class Keyed:
    """The expected table under upserts: last write per key wins, across and within files."""

    def __init__(self, key: list[str]):
        self.key, self.rows = key, {}

    def upsert(self, rows: list[dict]) -> None:
        for r in rows:
            self.rows[tuple(r[k] for k in self.key)] = r

    def delete(self, pred) -> int:
        gone = [k for k, r in self.rows.items() if pred(r)]
        for k in gone:
            del self.rows[k]
        return len(gone)

    def values(self) -> list[dict]:
        return list(self.rows.values())


@pytest.mark.parametrize("version", [2, 3])
def test_upserts_equality_deletes(env, version):
    table = "cdc.users"
    env.create(table, "--schema", UPSERT_SCHEMA, "--identifier", "id",
               "--format-version", str(version))
    want = Keyed(["id"])

    u1 = upsert_rows(range(0, 200), "a")
    env.run("table", "upsert", table, env.jsonl(u1))
    want.upsert(u1)
    # A Parquet input from pyarrow (columns matched by name) updating half the keys.
    u2 = upsert_rows(range(100, 300), "b")
    env.run("table", "upsert", table, env.parquet(as_arrow(u2)))
    want.upsert(u2)
    # Keys 150..159 updated a third time, 155 twice within one input (the last one wins),
    # and new keys 300..309.
    u3 = upsert_rows(range(150, 160), "c") + upsert_rows([155], "cc") + \
        upsert_rows(range(300, 310), "c")
    env.run("table", "upsert", table, env.jsonl(u3))
    want.upsert(u3)

    # Deleting keys: merge-on-read deletes of the live rows, on top of the equality deletes
    # (the rows of u1 and u2 for keys 5, 150 and 250 are already deleted by equality).
    before = java_files(env, table)
    pred = lambda r: r["id"] in (5, 150, 250) or eq("name", "b-7")(r)  # noqa: E731
    gone = want.delete(pred)
    env.run("table", "delete", table, "--where", "id IN (5, 150, 250) OR name = 'b-7'")
    after = java_files(env, table)
    check_merge_on_read(before, after, gone, version)

    # Deleted keys come back, others are updated again.
    u4 = upsert_rows([5, 150], "d") + upsert_rows(range(0, 10), "d")
    env.run("table", "upsert", table, env.jsonl(u4))
    want.upsert(u4)

    files = java_files(env, table)
    eq_files = by_content(files, "equality_deletes")
    # Every upsert commit (an "overwrite" snapshot to Java) added key-only equality deletes on
    # the key's field id, at its own sequence number (so they hide only older rows).
    upsert_seqs = {s["sequence_number"] for s in env.java.snapshots(table)["snapshots"]
                   if s["operation"] == "overwrite"}
    assert len(upsert_seqs) == 4
    assert {f["data_sequence_number"] for f in eq_files} == upsert_seqs, eq_files
    for f in eq_files:
        assert f["equality_ids"] == [1], f
        assert pq.read_table(f["path"]).column_names == ["id"], f["path"]
    check_reads(env, table, want.values())


# ---------------------------------------------------------------------------------------------
# 3. v3 deletion vectors.

def test_deletion_vectors_v3(env):
    rng = random.Random(303)
    table = "mor.v3"
    env.create(table, "--schema", ALL_TYPES_TEXT, "--partition-by", "day(ts)",
               "--format-version", "3")
    rows = narrow_ts(_all_types_rows(rng, 0, 400), rng)
    env.run("table", "append", table, env.jsonl(rows[:250]))
    env.run("table", "append", table, env.jsonl(rows[250:]))

    before = java_files(env, table)
    rows, gone = delete(rows, eq("category", "green"))
    env.run("table", "delete", table, "--where", "category = 'green'")
    after = java_files(env, table)
    check_merge_on_read(before, after, gone, 3)

    # The same data files again: each file's vector is merged into a new one replacing it.
    rows, gone = delete(rows, eq("flag", False))
    env.run("table", "delete", table, "--where", "flag = false")
    again = java_files(env, table)
    check_merge_on_read(after, again, gone, 3)
    replaced = {f["path"] for f in by_content(after, "position_deletes")} & \
        {f["path"] for f in by_content(again, "position_deletes")}
    assert not replaced, f"deletion vectors not replaced by the merged ones: {replaced}"

    more = narrow_ts(_all_types_rows(rng, 400, 60), rng)
    env.run("table", "append", table, env.jsonl(more))
    rows += more
    before = java_files(env, table)
    rows, gone = delete(rows, lambda r: r["id"] >= 440 or r["d"] == "NaN")
    env.run("table", "delete", table, "--where", "id >= 440 OR d IS NAN")
    files = java_files(env, table)
    check_merge_on_read(before, files, gone, 3)
    # With no other deletes, the vectors' cardinalities are exactly the deleted rows.
    assert sum(f["record_count"] for f in by_content(files, "position_deletes")) == \
        sum(f["record_count"] for f in by_content(files, "data")) - len(rows)

    check_reads(env, table, rows)
    check_partitions(env, table, files)


# ---------------------------------------------------------------------------------------------
# 4. Partitioned upserts and deletes.

def region_rows(rng: random.Random, ids, tag: str) -> list[dict]:
    return [{"id": k, "region": rng.choice(["eu", "us", "ap"]),
             "amount": None if rng.random() < 0.1 else f"{rng.randrange(-99999, 99999) / 100:.2f}",
             "note": None if rng.random() < 0.2 else f"{tag}-{k}"} for k in ids]


@pytest.mark.parametrize("partition_by,key,version", [
    ("bucket(4, id)", "id", 2),
    ("region, bucket(2, id)", "id,region", 3),
], ids=["bucket_v2", "identity_bucket_v3"])
def test_partitioned_upsert_and_delete(env, partition_by, key, version):
    rng = random.Random(404)
    table = "cdc.orders"
    env.create(table, "--schema",
               "id long not null, region string not null, amount decimal(10, 2), note string",
               "--identifier", key, "--partition-by", partition_by,
               "--format-version", str(version))
    want = Keyed(key.split(","))

    def upsert(rows):
        env.run("table", "upsert", table, env.jsonl(rows), "--key", key)
        want.upsert(rows)

    def delete_where(text, pred):
        before = java_files(env, table)
        gone = want.delete(pred)
        env.run("table", "delete", table, "--where", text)
        check_merge_on_read(before, java_files(env, table), gone, version)

    upsert(region_rows(rng, range(0, 200), "a"))
    # With key `id` alone a key may move to another region (not a partition source); with
    # (id, region) that is another key.
    upsert(region_rows(rng, range(100, 250), "b"))
    delete_where("region = 'ap' AND id < 120", lambda r: r["region"] == "ap" and r["id"] < 120)
    upsert(region_rows(rng, range(0, 251, 7), "c"))
    # Again in files the first delete touched (region 'ap', ids >= 240) and in files it did
    # not, while other files with deletes stay untouched.
    delete_where("id IN (14, 21, 200) OR (region = 'ap' AND id >= 240)",
                 lambda r: r["id"] in (14, 21, 200) or (r["region"] == "ap" and r["id"] >= 240))

    files = java_files(env, table)
    ids = [1] if key == "id" else [1, 2]
    eq_files = by_content(files, "equality_deletes")
    assert eq_files and all(f["equality_ids"] == ids for f in eq_files), eq_files
    check_partitions(env, table, files)
    check_reads(env, table, want.values())

    # Java's pruned scans (partition values and column metrics as floe wrote them) find the
    # same rows as floe's and as expected.
    for java_filter, floe_where, pred in [
            ("id = 35", "id = 35", lambda r: r["id"] == 35),
            ("id = 14", "id = 14", lambda r: r["id"] == 14),
            ("region = eu", "region = 'eu'", lambda r: r["region"] == "eu"),
            ("id >= 200", "id >= 200", lambda r: r["id"] >= 200)]:
        expected = [r for r in want.values() if pred(r)]
        java_rows = env.java.scan(table, filter=java_filter)
        ij.assert_same_rows(expected, java_rows, f"Java, {java_filter}")
        ij.assert_same_rows(java_rows, env.scan(table, "--where", floe_where),
                            f"floe vs Java, {floe_where}")

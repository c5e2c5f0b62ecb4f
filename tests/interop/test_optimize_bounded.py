"""`floe optimize` under a memory budget, on sorted tables and across partition spec
evolution, checked with pyiceberg 0.12 and pyarrow on the same SQLite catalog.

- A backlog of equality deletes optimized with `--memory-mb 1`: the deletes spill to runs
  (the command reports the bytes spilled), the spill directory is empty afterwards, and
  pyiceberg reads exactly the model state (key -> latest value).
- A table with a sort order: full optimizing writes files whose rows are in that order
  (read back with pyarrow) and which record the order id (pyiceberg's files table).
- A table whose spec evolved (pyiceberg's update_spec): full optimizing rewrites the files
  of the old spec with the current one, and pyiceberg reads the same rows.
"""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest
from pyiceberg.transforms import IdentityTransform

from test_table_cli import Env


@pytest.fixture
def env(floe, tmp_path):
    return Env(floe, tmp_path)


def live_files(env, table):
    return json.loads(env.run("table", "files", table, "--json").stdout)


def peer_rows(env, table):
    rows = env.pyiceberg().load_table(table).scan().to_arrow().to_pylist()
    return sorted((r["id"], r["v"], r["n"]) for r in rows)


def nullable_key(row):
    return (row[0], row[1] is None, row[1] or "", row[2])


def optimize(env, table, *args):
    return json.loads(env.run("optimize", table, "--json", *args).stdout)


def test_equality_delete_backlog_spills_under_a_tiny_budget(env):
    env.run("namespace", "create", "cdc")
    env.run("table", "create", "cdc.t", "--schema", "id long not null, v string, n long",
            "--identifier", "id", "--partition-by", "bucket(2, id)")
    rng = random.Random(11)
    model = {}
    base = [{"id": k, "v": f"base-{k}", "n": k} for k in range(20000)]
    for r in base:
        model[r["id"]] = (r["v"], r["n"])
    env.run("table", "append", "cdc.t", env.jsonl("base.jsonl", base))
    for i in range(30):
        batch = []
        for k in rng.sample(range(24000), 700):
            batch.append({"id": k, "v": f"u{i}-{k}", "n": i})
            model[k] = (f"u{i}-{k}", i)
        env.run("table", "upsert", "cdc.t", env.jsonl(f"u{i}.jsonl", batch))
    assert sum(f["content"] == "equality_deletes" for f in live_files(env, "cdc.t")) >= 30

    spill = env.root / "spill"
    r = optimize(env, "cdc.t", "--mode", "full", "--memory-mb", "1", "--spill-dir", str(spill))
    assert r["snapshot_id"] is not None, r
    assert r["spilled_bytes"] > 0, r
    assert r["equality_delete_keys_read"] >= 30 * 700, r
    assert list(spill.iterdir()) == [], "spill runs left behind"

    after = live_files(env, "cdc.t")
    assert not [f for f in after if f["content"] != "data"], after
    want = sorted((k, v, n) for k, (v, n) in model.items())
    assert peer_rows(env, "cdc.t") == want


def test_sorted_table_gets_sorted_files(env):
    env.run("namespace", "create", "s")
    env.run("table", "create", "s.t", "--schema", "id long not null, v string, n long",
            "--sort-by", "v desc nulls last, id")
    rng = random.Random(3)
    for i in range(6):
        rows = []
        for _ in range(500):
            k = rng.randrange(100000)
            v = None if rng.random() < 0.05 else f"{rng.choice('abcxyz')}{rng.randrange(1000)}"
            rows.append({"id": k, "v": v, "n": i})
        env.run("table", "append", "s.t", env.jsonl(f"a{i}.jsonl", rows))
    expected_rows = sorted(
        ((r["id"], r["v"], r["n"])
         for r in env.pyiceberg().load_table("s.t").scan().to_arrow().to_pylist()),
        key=nullable_key)

    r = optimize(env, "s.t", "--mode", "full")
    assert r["snapshot_id"] is not None, r

    table = env.pyiceberg().load_table("s.t")
    files = table.inspect.files().to_pylist()
    assert files
    order_id = table.metadata.default_sort_order_id
    assert order_id != 0
    for f in files:
        assert f["sort_order_id"] == order_id, f
        t = pq.read_table(f["file_path"].removeprefix("file://"), columns=["id", "v"])
        rows = list(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))
        # v descending with nulls last, then id ascending (Python compares str by code
        # point, which is UTF-8 byte order).
        nonnull = [(k, v) for k, v in rows if v is not None]
        assert rows == nonnull + [(k, v) for k, v in rows if v is None]
        for (k1, v1), (k2, v2) in zip(nonnull, nonnull[1:]):
            assert v1 > v2 or (v1 == v2 and k1 <= k2), (k1, v1, k2, v2)
        nulls = [k for k, v in rows if v is None]
        assert nulls == sorted(nulls)
    got = sorted(((r["id"], r["v"], r["n"]) for r in table.scan().to_arrow().to_pylist()),
                 key=nullable_key)
    assert got == expected_rows


def test_full_optimizing_moves_data_to_the_current_spec(env):
    env.run("namespace", "create", "p")
    env.run("table", "create", "p.t", "--schema", "id long not null, v string, n long",
            "--partition-by", "bucket(4, id)")
    model = {}
    rows = [{"id": k, "v": f"r{k % 3}", "n": k} for k in range(3000)]
    for r in rows:
        model[r["id"]] = (r["v"], r["n"])
    env.run("table", "append", "p.t", env.jsonl("a.jsonl", rows))
    old_spec = env.pyiceberg().load_table("p.t").metadata.default_spec_id

    # The peer evolves the spec: identity(v) is added.
    with env.pyiceberg().load_table("p.t").update_spec() as update:
        update.add_field("v", IdentityTransform(), "v")
    table = env.pyiceberg().load_table("p.t")
    new_spec = table.metadata.default_spec_id
    assert new_spec != old_spec
    more = [{"id": k, "v": f"r{k % 3}", "n": k} for k in range(3000, 3500)]
    for r in more:
        model[r["id"]] = (r["v"], r["n"])
    env.run("table", "append", "p.t", env.jsonl("b.jsonl", more))
    specs = {f["spec_id"] for f in table.refresh().inspect.files().to_pylist()}
    assert specs == {old_spec, new_spec}

    r = optimize(env, "p.t", "--mode", "full")
    assert r["snapshot_id"] is not None, r

    table = env.pyiceberg().load_table("p.t")
    files = table.inspect.files().to_pylist()
    assert {f["spec_id"] for f in files} == {new_spec}, files
    # Every file holds one value of v, as the new spec's identity field says.
    for f in files:
        values = set(pq.read_table(f["file_path"].removeprefix("file://"),
                                   columns=["v"]).column("v").to_pylist())
        assert values == {f["partition"]["v"]}, (f["file_path"], values, f["partition"])
    want = sorted((k, v, n) for k, (v, n) in model.items())
    assert peer_rows(env, "p.t") == want

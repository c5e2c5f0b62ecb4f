"""`floe optimize` (self-optimizing run in-process) checked with pyiceberg 0.12 on the same
SQLite catalog.

An upsert workload (floe table upsert: equality deletes + inserts, as a Flink upsert job
commits) leaves small data files and equality-delete files. pyiceberg cannot read equality
deletes, so before optimizing it refuses the table; after minor optimizing no equality
delete is left (the large files keep their data, their deleted rows become position
deletes on v2 or deletion vectors on v3, the small files are compacted) and pyiceberg and
floe both read exactly the model state (key -> latest value). A second run finds nothing to
do.
"""

from __future__ import annotations

import hashlib
import json
import random

import pyarrow.parquet as pq
import pytest

from test_table_cli import Env


@pytest.fixture
def env(floe, tmp_path):
    return Env(floe, tmp_path)


def files(env, table):
    return json.loads(env.run("table", "files", table, "--json").stdout)


def pyiceberg_table(env, table):
    return env.pyiceberg().load_table(table).scan().to_arrow()


def rows_of(table) -> list[tuple]:
    return sorted((r["id"], r["v"], r["n"]) for r in table.to_pylist())


@pytest.mark.parametrize("version", [2, 3])
def test_minor_optimizing_removes_equality_deletes(env, version):
    env.run("namespace", "create", "cdc")
    # Small sizes so that the base files are target-size segments (> 0.75 x 8 KiB) and the
    # upserts' files are fragments (<= 1 KiB).
    env.run("table", "create", "cdc.t", "--schema", "id long not null, v string, n long",
            "--identifier", "id", "--partition-by", "bucket(2, id)",
            "--format-version", str(version),
            "--property", "self-optimizing.target-size=8192",
            "--property", "self-optimizing.max-task-size-bytes=8192",
            "--property", "self-optimizing.minor.trigger.file-count=4")
    rng = random.Random(7)
    model = {}
    base = []
    for k in range(3000):
        v = f"base-{k}-" + hashlib.sha1(str(k).encode()).hexdigest()[:24]
        base.append({"id": k, "v": v, "n": k})
        model[k] = (v, k)
    env.run("table", "append", "cdc.t", env.jsonl("base.jsonl", base))
    base_files = {f["file_path"] for f in files(env, "cdc.t")}
    assert len(base_files) == 2
    assert all(f["file_size_in_bytes"] > 6144 for f in files(env, "cdc.t"))

    for i in range(5):
        batch = []
        for k in rng.sample(range(3200), 40):  # updates, and a few new keys
            v = f"u{i}-{k}"
            batch.append({"id": k, "v": v, "n": i})
            model[k] = (v, i)
        env.run("table", "upsert", "cdc.t", env.jsonl(f"u{i}.jsonl", batch))

    before = files(env, "cdc.t")
    assert sum(f["content"] == "equality_deletes" for f in before) == 10
    # The peer cannot read equality deletes: this is what optimizing fixes.
    with pytest.raises(Exception, match="(?i)equality"):
        pyiceberg_table(env, "cdc.t")

    r = json.loads(env.run("optimize", "cdc.t", "--json").stdout)
    assert r["type"] == "minor", r
    assert r["snapshot_id"] is not None, r
    assert r["converted_data_files"] == 2, r  # the two base files keep their data
    assert r["removed_delete_files"] == 10, r

    after = files(env, "cdc.t")
    assert not [f for f in after if f["content"] == "equality_deletes"], after
    data_paths = {f["file_path"] for f in after if f["content"] == "data"}
    assert base_files <= data_paths, "minor optimizing must not rewrite target-size files"
    deletes = [f for f in after if f["content"] == "position_deletes"]
    assert len(deletes) == 2, deletes  # one per base file
    assert {f["file_format"] for f in deletes} == {"PUFFIN" if version == 3 else "PARQUET"}

    want = sorted((k, v, n) for k, (v, n) in model.items())
    assert rows_of(pyiceberg_table(env, "cdc.t")) == want, "pyiceberg after optimize"
    out = env.root / "scan.parquet"
    env.run("table", "scan", "cdc.t", "--format", "parquet", "--output", out)
    assert rows_of(pq.read_table(out)) == want, "floe after optimize"

    again = json.loads(env.run("optimize", "cdc.t", "--json").stdout)
    assert again["tasks"] == 0 and again["snapshot_id"] is None, again

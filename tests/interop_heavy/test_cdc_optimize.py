"""A CDC workload written by Iceberg Java while `floe server` optimizes continuously.

Iceberg Java 1.10.1 (the harness's `cdc-loop`, tests/interop/java/iceberg-harness) commits
Flink-style upserts and deletes through floe's REST catalog: per commit and touched
partition one key-only equality-delete file and one data file in one unvalidated RowDelta,
over a key space spread on four identity partitions. The server's local optimizer group
optimizes the table as it goes (minor trigger at a few files, no plan interval). Checked:

- after every writer commit, Java's IcebergGenerics reader returns exactly the model (key ->
  latest row): a deleted key never comes back, whatever the optimizer committed meanwhile;
- every snapshot the writer did not commit (floe's rewrites, summary
  `floe.optimizing.process-id`) reads, with Java and with `floe table scan --snapshot`,
  exactly the model of its newest writer ancestor;
- in steady state (once the optimizer has committed) no partition holds more equality-delete
  files than `self-optimizing.minor.trigger.file-count`;
- after the writer stops and a final minor optimizing (through the management API), no
  equality delete is left, and pyiceberg (which refuses equality deletes), Java and floe read
  the final model: position deletes on v2, deletion vectors on v3.

Expected rows come from the model the writer keeps, never from floe's output.
"""

from __future__ import annotations

import json
import time

import pytest
from pyiceberg.catalog.rest import RestCatalog

import iceberg_java as ij
from floe_server import FloeServer

SCHEMA = {
    "type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2], "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "part", "required": True, "type": "int"},
        {"id": 3, "name": "v", "required": False, "type": "string"},
        {"id": 4, "name": "seq", "required": False, "type": "long"},
    ]}
SPEC = {"fields": [{"name": "part", "transform": "identity", "source-id": 2}]}
TRIGGER_FILES = 8
PARTITIONS = 4
COMMITS = 36
TABLE = "cdc.t"
TABLE_PATH = "/api/v1/catalogs/default/namespaces/cdc/tables/t"
WAIT_SECONDS = 60


@pytest.fixture(scope="module")
def harness() -> ij.Harness:
    return ij.build_harness()


@pytest.fixture
def server(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    extra_args=["--optimizer-refresh-ms", "500"]) as s:
        yield s


def model_rows(path) -> list[tuple]:
    return sorted((r["id"], r["part"], r["v"], r["seq"])
                  for r in map(json.loads, path.read_text().splitlines()))


def as_tuples(rows) -> list[tuple]:
    return sorted((int(r["id"]), int(r["part"]), r["v"], int(r["seq"])) for r in rows)


def floe_scan(floe, server, snapshot_id=None) -> list[tuple]:
    args = ["table", "scan", TABLE, "--catalog", f"rest:{server.uri}", "--format", "jsonl"]
    if snapshot_id is not None:
        args += ["--snapshot", str(snapshot_id)]
    out = floe.ok(*args, timeout=300).text
    return as_tuples(json.loads(line) for line in out.splitlines() if line.strip())


def processes(server) -> list[dict]:
    code, page, _ = server.request("GET", TABLE_PATH + "/optimizing-processes")
    assert code == 200, page
    return page["items"]


def wait_idle(server):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if all(p["status"] != "running" for p in processes(server)):
            return
        time.sleep(0.2)
    raise AssertionError(f"optimizing still running after {WAIT_SECONDS}s:\n{server.log_text()}")


def final_minor(server) -> dict | None:
    """Queues a minor optimizing and returns its process once ended (None: none came)."""
    before = {p["process-id"] for p in processes(server)}
    code, body, _ = server.request("POST", TABLE_PATH + "/optimize", {"mode": "minor"})
    assert code == 202, body
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        new = [p for p in processes(server) if p["process-id"] not in before]
        if new and new[0]["status"] != "running":
            return new[0]
        time.sleep(0.3)
    return None


@pytest.mark.parametrize("version", [2, 3])
def test_cdc_upserts_while_optimizing(floe, harness, server, tmp_path, version):
    java = harness.rest_catalog(server.uri)
    java.create(TABLE, SCHEMA, SPEC, format_version=version, properties={
        "self-optimizing.minor.trigger.file-count": str(TRIGGER_FILES),
        "self-optimizing.minor.trigger.interval": "-1",
        "self-optimizing.min-plan-interval": "0"})
    models = tmp_path / "models"
    started = time.monotonic()
    out = java.run("cdc-loop", TABLE, "--keys", 1500, "--partitions", PARTITIONS,
                   "--commits", COMMITS, "--ops-per-commit", 160, "--delete-ratio", "0.25",
                   "--pause-ms", 250, "--seed", version, "--model-dir", models, timeout=900)
    loop_seconds = time.monotonic() - started
    result = json.loads(out)
    commits, foreign = result["commits"], result["foreign_snapshots"]
    rewrites = [s for s in foreign if s["process_id"] is not None]
    print(f"v{version}: {COMMITS} writer commits in {loop_seconds:.1f}s, "
          f"{len(rewrites)} optimizer commits during the run, {result['rows']} rows")
    assert len(rewrites) >= 2, (foreign, server.log_text())

    # Steady state: the writer commits after the first optimizer commit it saw.
    steady = [max(c["equality_deletes_per_partition"].values(), default=0)
              for c in commits if c["foreign_snapshots_seen"] > 0] + \
             [max(s["equality_deletes_per_partition"].values(), default=0) for s in rewrites]
    print(f"v{version}: equality-delete files per partition in steady state: max {max(steady)}")
    assert max(steady) <= TRIGGER_FILES, steady

    # floe's own reader at every optimizer commit the run saw.
    snaps = {s["snapshot_id"]: s for s in java.snapshots(TABLE)["snapshots"]}

    def writer_model(sid):
        while sid is not None:
            path = models / f"{sid}.jsonl"
            if path.exists():
                return model_rows(path)
            sid = snaps[sid]["parent_id"]
        raise AssertionError("no writer ancestor")

    for s in rewrites:
        assert floe_scan(floe, server, s["snapshot_id"]) == writer_model(s["snapshot_id"]), s

    # The writer has stopped: let the optimizer finish, then a final minor optimizing.
    # (A process the last commits started may still be on its way: look again after it.)
    for _ in range(3):
        wait_idle(server)
        if not any(f["content"] == "equality_deletes" for f in java.files(TABLE)):
            break
        p = final_minor(server)
        assert p is None or p["status"] == "success", (p, server.log_text())
    files = java.files(TABLE)
    assert not [f for f in files if f["content"] == "equality_deletes"], files
    if version == 3:
        assert not [f for f in files
                    if f["content"] == "position_deletes" and f["content_offset"] is None], files
    final = model_rows(models / "final.jsonl")
    assert as_tuples(java.scan(TABLE)) == final
    assert floe_scan(floe, server) == final
    t = RestCatalog("floe", uri=server.uri).load_table(TABLE)
    assert as_tuples(t.scan().to_arrow().to_pylist()) == final
    # Every optimizer commit after the loop (the final ones) also reads its writer's model.
    snaps = {s["snapshot_id"]: s for s in java.snapshots(TABLE)["snapshots"]}
    after = [s for s in snaps.values()
             if s["summary"].get("floe.optimizing.process-id")
             and s["snapshot_id"] not in {r["snapshot_id"] for r in rewrites}]
    for s in after:
        assert as_tuples(java.scan(TABLE, snapshot_id=s["snapshot_id"])) == \
            writer_model(s["snapshot_id"]), s

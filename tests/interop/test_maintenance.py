"""Table maintenance in `floe server`: snapshots older than the table's
snapshot.keep.duration are expired (Amoro's table-expire.* keys) and the files only they
reached are deleted, while pyiceberg keeps reading the current rows; gc.enabled=false and
table-expire.enabled=false leave everything alone."""

from __future__ import annotations

import os
import time
from urllib.parse import urlparse

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog

from floe_server import FloeServer
from managed_table import SCHEMA, rows
from metrics_scrape import one, scrape


def local_path(location: str) -> str:
    return urlparse(location).path if location.startswith("file:") else location


@pytest.fixture
def server(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    config={"optimizer": {"maintenance-interval-ms": 0}},
                    extra_args=["--optimizer-refresh-ms", "3600000"]) as s:
        yield s


def wait_for(predicate, what, server, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen; server log:\n{server.log_text()[-4000:]}")


def test_old_snapshots_expire_and_their_files_go(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    props = {"snapshot.keep.duration": "1s", "snapshot.keep.min-count": "1",
             # Optimizing off: only maintenance acts on the table.
             "self-optimizing.enabled": "false"}
    t = cat.create_table("db.t", SCHEMA, properties=props)
    t.append(rows(0, 10))
    first = t.current_snapshot().snapshot_id
    first_files = [local_path(task.file.file_path) for task in t.scan().plan_files()]
    t.overwrite(rows(100, 10))
    assert all(os.path.exists(p) for p in first_files)
    time.sleep(1.5)
    # The commit event makes the optimizer evaluate the table, and maintenance is due.
    t.append(rows(200, 5))
    # pyiceberg's overwrite commits a delete and an append: every snapshot but the newest
    # is older than a second by the time the optimizer looks.
    before = len(t.metadata.snapshots)
    assert before >= 3

    # The expiry commits first and deletes the files after; its log line comes last.
    def expired():
        return (len(cat.load_table("db.t").metadata.snapshots) == 1
                and '"event":"snapshots-expired"' in server.log_text())

    wait_for(expired, "snapshot expiry", server)
    t = cat.load_table("db.t")
    assert t.current_snapshot().snapshot_id != first
    assert sorted(r["id"] for r in t.scan().to_arrow().to_pylist()) == \
        list(range(100, 110)) + list(range(200, 205))
    # The first append's file was reachable only from expired snapshots.
    assert not any(os.path.exists(p) for p in first_files)
    # Files of the current snapshot stay.
    assert all(os.path.exists(local_path(task.file.file_path)) for task in t.scan().plan_files())
    families = scrape(server)
    assert one(families, "floe_maintenance_expired_snapshots_total", group="local") == before - 1
    assert one(families, "floe_maintenance_deleted_files_total", group="local") >= 3
    assert '"event":"snapshots-expired"' in server.log_text()


@pytest.mark.parametrize("switch", [{"gc.enabled": "false"}, {"table-expire.enabled": "false"}])
def test_expiry_can_be_switched_off(server, switch):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    props = {"snapshot.keep.duration": "1ms", "self-optimizing.enabled": "false", **switch}
    t = cat.create_table("db.t", SCHEMA, properties=props)
    for i in range(3):
        t.append(rows(i * 10, 10))
    time.sleep(1.0)
    t.append(rows(100, 1))
    # A table whose expiry is on, evaluated after it, shows the server got that far.
    probe = cat.create_table("db.probe", SCHEMA, properties={
        "snapshot.keep.duration": "1ms", "self-optimizing.enabled": "false"})
    probe.append(rows(0, 1))
    probe.append(rows(1, 1))
    wait_for(lambda: len(cat.load_table("db.probe").metadata.snapshots) == 1,
             "the probe table's expiry", server)
    assert len(cat.load_table("db.t").metadata.snapshots) == 4


def test_bad_duration_is_refused_by_the_api(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    cat.create_table("db.t", SCHEMA)
    code, body, _ = server.request(
        "POST", "/api/v1/catalogs/default/namespaces/db/tables/t/properties",
        {"updates": {"snapshot.keep.duration": "12 fortnights"}})
    assert code == 400 and "snapshot.keep.duration" in body["error"]["message"]


def test_orphan_files_older_than_the_bound_are_deleted(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    props = {"clean-orphan-file.enabled": "true",
             "clean-orphan-file.min-existing-time-minutes": "60",
             "self-optimizing.enabled": "false", "table-expire.enabled": "false"}
    t = cat.create_table("db.t", SCHEMA, properties=props)
    t.append(rows(0, 10))
    t.append(rows(10, 10))
    root = local_path(t.location())
    two_hours_ago = time.time() - 7200
    old_orphans = [os.path.join(root, "data", "failed-writer-00001.parquet"),
                   os.path.join(root, "metadata", "lost-commit-m0.avro")]
    young_orphan = os.path.join(root, "data", "in-flight-00002.parquet")
    outside = os.path.join(root, "data-archive", "keep.parquet")
    for path in old_orphans + [young_orphan, outside]:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"not referenced by the table")
    for path in old_orphans + [outside]:
        os.utime(path, (two_hours_ago, two_hours_ago))
    # What pyiceberg says the table references, all older than the bound too, so that only
    # the references keep them.
    referenced = [local_path(t.metadata_location)]
    referenced += [local_path(entry.metadata_file) for entry in t.metadata.metadata_log]
    for snapshot in t.metadata.snapshots:
        referenced.append(local_path(snapshot.manifest_list))
        for manifest in snapshot.manifests(t.io):
            referenced.append(local_path(manifest.manifest_path))
    referenced += [local_path(task.file.file_path) for task in t.scan().plan_files()]
    for path in referenced:
        os.utime(path, (two_hours_ago, two_hours_ago))

    t.append(rows(20, 5))  # the commit event: the optimizer evaluates the table
    wait_for(lambda: not any(os.path.exists(p) for p in old_orphans), "orphan cleaning", server)
    assert os.path.exists(young_orphan)
    assert os.path.exists(outside)
    assert all(os.path.exists(p) for p in referenced)
    t = cat.load_table("db.t")
    assert sorted(r["id"] for r in t.scan().to_arrow().to_pylist()) == list(range(25))
    assert '"event":"orphan-files-cleaned"' in server.log_text()

"""`kill -9` of `floe server` while it optimizes: during a task (its first output data file
has just appeared), between the rewrite's manifest list and the catalog swap (a new
snap-*.avro), and around the swap itself (a new metadata.json). After every crash the table,
read by pyiceberg's own SqlCatalog straight from floe.db (the server is down), holds exactly
the rows written so far, and every file its current snapshot names exists. After the last
restart optimizing resumes: a later rewrite commits, no process is left "running", and a
rewrite committed just before a crash is recorded as the success it was.

Between rounds pyiceberg appends more small files from outside the server, so every restart
finds fragments to merge again (minor trigger at 4 files, evaluated by the refresh at start).
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import urlparse

from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

from floe_server import FloeServer
from managed_table import SCHEMA, rows

WAIT_SECONDS = 60
PROCESSES = "/api/v1/catalogs/default/namespaces/db/tables/t/optimizing-processes"
PROPERTIES = {
    "self-optimizing.minor.trigger.file-count": "4",
    "self-optimizing.minor.trigger.interval": "-1",
    "self-optimizing.full.trigger.interval": "-1",
    # Each restart may plan at once, however recently the crashed process started.
    "self-optimizing.min-plan-interval": "0",
}
# What appears on disk at the moment of each crash, in round order.
CRASH_POINTS = ["data", "manifest-list", "metadata", "manifest-list", "metadata", "data"]


def local(location: str) -> Path:
    return Path(urlparse(location).path if location.startswith("file:") else location)


def direct_catalog(data_dir: Path) -> SqlCatalog:
    return SqlCatalog("default", uri=f"sqlite:///{data_dir / 'floe.db'}",
                      warehouse=f"file://{data_dir / 'warehouse'}")


def listing(directory: Path) -> set[str]:
    try:
        return set(os.listdir(directory))
    except FileNotFoundError:
        return set()


def is_crash_point(name: str, point: str) -> bool:
    if point == "data":
        return name.endswith(".parquet")
    if point == "manifest-list":
        return name.startswith("snap-") and name.endswith(".avro")
    return name.endswith(".metadata.json")


def kill_at(server: FloeServer, directory: Path, point: str) -> bool:
    """Starts the server and SIGKILLs it as soon as a new file of kind `point` shows in
    `directory` (polled in a tight loop: the crash lands within a millisecond or so of the
    write). Returns False when the server optimized nothing within the wait."""
    before = listing(directory)
    server.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if any(is_crash_point(n, point) for n in listing(directory) - before):
            server.kill()
            return True
    server.kill()
    return False


def check_consistent(data_dir: Path, expected: list) -> int:
    """The table as pyiceberg reads it from the catalog database: its rows are `expected` and
    every file of its current snapshot exists. Returns the number of data files."""
    table = direct_catalog(data_dir).load_table("db.t")
    got = sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == expected
    tasks = list(table.scan().plan_files())
    for task in tasks:
        assert local(task.file.file_path).exists(), task.file.file_path
        for d in task.delete_files:
            assert local(d.file_path).exists(), d.file_path
    return len(tasks)


def append_fragments(data_dir: Path, start: int, files: int, per_file: int) -> list:
    table = direct_catalog(data_dir).load_table("db.t")
    for i in range(files):
        table.append(rows(start + i * per_file, per_file))
    table.refresh()
    return sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())


def test_server_killed_while_optimizing_keeps_tables_consistent(floe, tmp_path):
    data_dir = tmp_path / "data"
    server = FloeServer(floe.path, data_dir, optimizer=True,
                        config={"optimizer": {"threads": 1, "refresh-interval-ms": 200}})
    # The table is created through the server, then written from outside while it is down.
    with server:
        RestCatalog("floe", uri=server.uri, warehouse="default").create_namespace("db")
        RestCatalog("floe", uri=server.uri, warehouse="default").create_table(
            "db.t", SCHEMA, properties=PROPERTIES)
    location = local(direct_catalog(data_dir).load_table("db.t").location())

    next_id = 0
    expected: list = []
    crashes = 0
    for point in CRASH_POINTS:
        expected = append_fragments(data_dir, next_id, files=5, per_file=40)
        next_id += 5 * 40
        watched = location / ("data" if point == "data" else "metadata")
        if kill_at(server, watched, point):
            crashes += 1
        check_consistent(data_dir, expected)
    # Every round found fragments and got as far as its crash point.
    assert crashes == len(CRASH_POINTS), server.log_text()

    # After the last restart optimizing resumes and commits.
    before = {s.snapshot_id for s in direct_catalog(data_dir).load_table("db.t").snapshots()}
    server.start()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        committed = []
        while time.monotonic() < deadline and not committed:
            t = direct_catalog(data_dir).load_table("db.t")
            committed = [s for s in t.snapshots() if s.snapshot_id not in before and
                         (s.summary or {}).get("snapshot-producer") == "OPTIMIZE"]
            time.sleep(0.1)
        assert committed, server.log_text()
        files = check_consistent(data_dir, expected)
        assert files < 4
        # Processes the crashes interrupted are closed as failed, not left running.
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            code, out, _ = server.request("GET", PROCESSES)
            assert code == 200, out
            if out["items"] and all(p["status"] != "running" for p in out["items"]):
                break
            time.sleep(0.1)
        statuses = [p["status"] for p in out["items"]]
        assert "running" not in statuses, statuses
        assert "success" in statuses, statuses
        # Every committed rewrite names its process, and that process is recorded as a
        # success with that snapshot, also when the crash came between the two.
        processes = {p["process-id"]: p for p in out["items"]}
        t = direct_catalog(data_dir).load_table("db.t")
        for snap in t.snapshots():
            process_id = (snap.summary or {}).get("floe.optimizing.process-id")
            if process_id is None:
                continue
            p = processes.get(int(process_id))
            assert p is not None, (process_id, sorted(processes))
            assert p["status"] == "success", p
            assert p["committed-snapshot-id"] == snap.snapshot_id, p
        # The same rows through the restarted server's REST catalog.
        t = RestCatalog("floe", uri=server.uri, warehouse="default").load_table("db.t")
        assert sorted(tuple(r.values()) for r in t.scan().to_arrow().to_pylist()) == expected
    finally:
        server.stop()

    # The narrowest window, made exact: a crash after the catalog swap but before the process
    # record was updated leaves the metastore saying "running" beside a committed rewrite.
    # The restarted server must find the commit and record the success, not a failure.
    last = committed[-1]
    process_id = int(last.summary.get("floe.optimizing.process-id"))
    with sqlite3.connect(data_dir / "floe.db") as db:
        changed = db.execute(
            "UPDATE floe_optimizing_processes SET status = 'running', "
            "committed_snapshot_id = NULL WHERE process_id = ?", (process_id,)).rowcount
    assert changed == 1
    server.start()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            _, out, _ = server.request("GET", PROCESSES)
            p = next(p for p in out["items"] if p["process-id"] == process_id)
            if p["status"] == "success":
                break
            time.sleep(0.1)
        assert p["status"] == "success", (p, server.log_text())
        assert p["committed-snapshot-id"] == last.snapshot_id, p
    finally:
        server.stop()

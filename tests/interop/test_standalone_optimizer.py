"""Optimizer groups and standalone `floe optimizer` workers over the task protocol: a server
with no local threads, a group `remote` served only by separate optimizer processes, tables
written by pyiceberg and read back by pyiceberg (the expected rows are what pyiceberg read
before any optimizing). A `kill -9` of an optimizer in the middle of its task: the task is
handed to a second optimizer after the heartbeat timeout and nothing of the dead attempt is
committed. Pause, resume and cancel through the management API.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from floe_server import FloeServer

WAIT_SECONDS = 60
SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "v", StringType(), required=False))
ARROW = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
TABLES = "/api/v1/catalogs/default/namespaces/db/tables"


@pytest.fixture
def server(floe, tmp_path):
    # No local threads: only standalone optimizers run tasks. Short protocol timeouts so a
    # dead optimizer's task comes back within the test.
    config = {"optimizer": {"threads": 0, "heartbeat-timeout-ms": 2000,
                            "ack-timeout-ms": 2000, "refresh-interval-ms": 500}}
    with FloeServer(floe.path, tmp_path / "data", optimizer=True, config=config) as s:
        yield s


def ok(server, method, path, body=None, status=200, headers=None):
    code, out, _ = server.request(method, path, body, headers)
    assert code == status, (method, path, code, out)
    return out


def wait_for(predicate, what, server, timeout=WAIT_SECONDS):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {timeout}s; server log:\n"
                         f"{server.log_text()[-4000:]}")


def rows(start, n):
    return pa.Table.from_pydict({"id": list(range(start, start + n)),
                                 "v": [f"value-{i}" for i in range(start, start + n)]},
                                schema=ARROW)


def make_table(server, name, appends, rows_per_append, group="remote"):
    """db.<name> in `group`, written by pyiceberg; returns it and its rows as pyiceberg reads
    them before any optimizing."""
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    if ("db",) not in cat.list_namespaces():
        cat.create_namespace("db")
    t = cat.create_table(f"db.{name}", SCHEMA, properties={
        "self-optimizing.group": group,
        # Only manual runs: the test decides when a process starts.
        "self-optimizing.minor.trigger.file-count": "1000",
        "self-optimizing.minor.trigger.interval": "-1",
        "self-optimizing.full.trigger.interval": "-1"})
    for i in range(appends):
        t.append(rows(i * rows_per_append, rows_per_append))
    t.refresh()
    expected = sorted(tuple(r.values()) for r in t.scan().to_arrow().to_pylist())
    assert len(expected) == appends * rows_per_append
    return t, expected


def read_rows(table):
    table.refresh()
    return sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())


def optimize_snapshots(table):
    table.refresh()
    return [s for s in table.metadata.snapshots
            if (s.summary or {}).get("snapshot-producer") == "OPTIMIZE"]


def start_optimizer(floe, server, tmp_path, name, threads=1):
    log = open(tmp_path / f"{name}.log", "wb")
    proc = subprocess.Popen([str(floe.path), "optimizer", "--server", server.uri,
                             "--group", "remote", "--threads", str(threads),
                             "--memory-mb", "512", "--heartbeat-ms", "300"],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return proc


def optimizers(server):
    return ok(server, "GET", "/api/v1/optimizers?group=remote")["items"]


def latest_process(server, table):
    items = ok(server, "GET", f"{TABLES}/{table}/optimizing-processes")["items"]
    return items[0] if items else None


def finished_process(server, table):
    p = latest_process(server, table)
    return p if p and p["status"] != "running" else None


def test_group_lifecycle_and_standalone_optimizer(server, floe, tmp_path):
    r = floe.run("group", "create", "remote", "--server", server.uri,
                 "--scheduling-policy", "balanced")
    assert r.rc == 0, r.describe()
    r = floe.run("group", "create", "remote", "--server", server.uri)
    assert r.rc != 0 and "already exists" in r.stderr, r.describe()
    code, _, _ = server.request("POST", "/api/v1/optimizer-groups",
                                {"name": "bad", "scheduling-policy": "fifo"})
    assert code == 400
    groups = {g["name"]: g for g in ok(server, "GET", "/api/v1/optimizer-groups")["items"]}
    assert set(groups) == {"local", "remote"}
    assert groups["remote"]["scheduling-policy"] == "balanced"
    assert groups["remote"]["threads"] == 0

    t, expected = make_table(server, "t", appends=6, rows_per_append=200)
    # Nobody serves the group yet: the table waits, and says why.
    ok(server, "POST", f"{TABLES}/t/optimize", {"mode": "full"}, status=202)
    details = wait_for(
        lambda: (lambda d: d if d["optimizing"]["status"] == "pending" else None)(
            ok(server, "GET", f"{TABLES}/t?health=false")),
        "the table waiting for an optimizer", server)
    assert details["optimizing"]["status-reason"] == "no optimizer in group remote"
    assert details["optimizing"]["optimizer-group"] == "remote"
    assert latest_process(server, "t") is None

    worker = start_optimizer(floe, server, tmp_path, "worker", threads=2)
    try:
        registered = wait_for(lambda: optimizers(server), "the optimizer's registration", server)
        assert registered[0]["kind"] == "standalone" and registered[0]["threads"] == 2
        assert registered[0]["memory-mb"] == 512
        assert "token" not in registered[0]
        # The group is in use: it cannot be dropped.
        code, body, _ = server.request("DELETE", "/api/v1/optimizer-groups/remote")
        assert code == 409, body

        r = floe.run("optimize", "db.t", "--server", server.uri, "--mode", "full", "--wait",
                     "--json")
        assert r.rc == 0, r.describe() + server.log_text()
        p = finished_process(server, "t")
        assert p["status"] == "success" and p["type"] == "full", p
        assert read_rows(t) == expected
        snaps = optimize_snapshots(t)
        assert len(snaps) == 1 and snaps[0].snapshot_id == p["committed-snapshot-id"]
        assert len(t.inspect.files()) < 6

        tasks = ok(server, "GET", f"{TABLES}/t/optimizing-processes/{p['process-id']}/tasks")
        assert tasks["total"] == p["task-count"] >= 1
        for task in tasks["items"]:
            assert task["status"] == "success" and task["attempt"] == 1, task
            assert task["optimizer"] == registered[0]["id"]
            assert task["rows"] > 0 and task["output-files"] >= 1 and task["input-bytes"] > 0
        assert sum(task["rows"] for task in tasks["items"]) == len(expected)
        group = ok(server, "GET", "/api/v1/optimizer-groups/remote")
        assert group["completed-tasks"] == tasks["total"] and group["tables"] == 1
        r = floe.run("group", "list", "--server", server.uri)
        assert r.rc == 0 and "remote" in r.stdout.decode(), r.describe()

        # SIGTERM: drains and unregisters.
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
        assert optimizers(server) == []
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    # Still used by the table (self-optimizing.group) after the optimizer left.
    code, _, _ = server.request("DELETE", "/api/v1/optimizer-groups/remote")
    assert code == 409
    code, _, _ = server.request("DELETE", "/api/v1/optimizer-groups/local")
    assert code == 409
    code, _, _ = server.request("DELETE", "/api/v1/optimizer-groups/nope")
    assert code == 404
    ok(server, "POST", "/api/v1/optimizer-groups", {"name": "spare"}, status=201)
    r = floe.run("group", "drop", "spare", "--server", server.uri)
    assert r.rc == 0, r.describe()
    assert "spare" not in {g["name"] for g in ok(server, "GET", "/api/v1/optimizer-groups")["items"]}


def test_killed_optimizer_task_is_retried_elsewhere(server, floe, tmp_path):
    ok(server, "POST", "/api/v1/optimizer-groups", {"name": "remote"}, status=201)
    # Large enough that the rewrite is still running when the test sees it acked.
    t, expected = make_table(server, "big", appends=8, rows_per_append=250_000)
    first = start_optimizer(floe, server, tmp_path, "first")
    second = None
    try:
        first_id = wait_for(lambda: optimizers(server), "registration", server)[0]["id"]
        ok(server, "POST", f"{TABLES}/big/optimize", {"mode": "full"}, status=202)
        process = wait_for(lambda: latest_process(server, "big"), "a process", server)
        tasks_path = f"{TABLES}/big/optimizing-processes/{process['process-id']}/tasks"

        def acked():
            items = ok(server, "GET", tasks_path)["items"]
            return any(x["status"] == "acked" for x in items)

        wait_for(acked, "the first optimizer acking its task", server)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        items = ok(server, "GET", tasks_path)["items"]
        assert not any(x["status"] == "success" for x in items), \
            "the task finished before the kill; the table is too small for this test"

        # Nothing committed meanwhile; the task waits for the heartbeat timeout.
        assert optimize_snapshots(t) == []
        second = start_optimizer(floe, server, tmp_path, "second")
        p = wait_for(lambda: finished_process(server, "big"), "the process ending", server,
                     timeout=120)
        assert p["status"] == "success", (p, server.log_text())
        items = ok(server, "GET", tasks_path)["items"]
        second_id = [o["id"] for o in optimizers(server)]
        assert first_id not in second_id
        for task in items:
            assert task["status"] == "success"
            assert task["optimizer"] in second_id
        killed = [x for x in items if x["attempt"] >= 2]
        assert killed, items
        assert all(x["retries"] == 0 for x in items)  # a lost optimizer is not a failure
        snaps = optimize_snapshots(t)
        assert len(snaps) == 1
        # Only the second attempt's files: the commit added exactly what its tasks wrote.
        assert int(snaps[0].summary["added-data-files"]) == sum(x["output-files"] for x in items)
        assert read_rows(t) == expected
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)


class FakeOptimizer:
    """An optimizer driven by the test: it registers and heartbeats (on a thread, well within
    the server's 2 s timeout) but polls only when told to."""

    def __init__(self, server):
        self.server = server
        info = ok(server, "POST", "/api/v1/optimizers", {"group": "remote", "threads": 1},
                  status=201)
        self.id = info["id"]
        self.headers = {"X-Floe-Optimizer-Token": info["token"]}
        self.stop = threading.Event()
        self.draining = None
        self.thread = threading.Thread(target=self._beat, daemon=True)
        self.thread.start()

    def _beat(self):
        while not self.stop.wait(0.3):
            code, body, _ = self.server.request(
                "POST", f"/api/v1/optimizers/{self.id}/heartbeat", {}, self.headers)
            if code == 200:
                self.draining = body["draining"]

    def call(self, action, body):
        return self.server.request("POST", f"/api/v1/optimizers/{self.id}/{action}", body,
                                   self.headers)

    def close(self):
        self.stop.set()
        self.thread.join()


def test_pause_resume_and_cancel(server, floe, tmp_path):
    ok(server, "POST", "/api/v1/optimizer-groups", {"name": "remote"}, status=201)
    t, expected = make_table(server, "c", appends=4, rows_per_append=50)
    fake = FakeOptimizer(server)
    # The task protocol needs the optimizer's own token.
    code, _, _ = server.request("POST", f"/api/v1/optimizers/{fake.id}/heartbeat", {})
    assert code == 401
    code, _, _ = server.request("POST", f"/api/v1/optimizers/{fake.id}/heartbeat", {},
                                {"X-Floe-Optimizer-Token": "wrong"})
    assert code == 401
    try:
        pause_resume_cancel(server, t, expected, fake)
    finally:
        fake.close()


def pause_resume_cancel(server, t, expected, fake):
    # Paused: a trigger starts nothing.
    paused = ok(server, "POST", f"{TABLES}/c/pause")
    assert paused["paused"] is True
    ok(server, "POST", f"{TABLES}/c/optimize", {"mode": "full"}, status=202)
    wait_for(lambda: ok(server, "GET", f"{TABLES}/c?health=false")["optimizing"]["status-reason"]
             == "paused", "the paused state", server)
    time.sleep(1)
    assert latest_process(server, "c") is None
    assert ok(server, "GET", f"{TABLES}/c?health=false")["optimizing"]["paused"] is True

    # Resumed: the table is evaluated again and its process queued for the group.
    assert ok(server, "POST", f"{TABLES}/c/resume")["paused"] is False
    ok(server, "POST", f"{TABLES}/c/optimize", {"mode": "full"}, status=202)
    p = wait_for(lambda: latest_process(server, "c"), "a process after resume", server)
    assert p["status"] == "running"

    # The fake optimizer takes a task and acks it, then the process is canceled.
    code, handout, _ = fake.call("poll", {"thread": 0})
    assert code == 200 and handout["process-id"] == p["process-id"], handout
    assert handout["task"]["metadata"]["format-version"] == 2
    assert handout["task"]["snapshot-id"] == p["planned-snapshot-id"]
    ids = {k: handout[k] for k in ("process-id", "task-id", "attempt")}
    code, _, _ = fake.call("ack", ids)
    assert code == 204
    cancel = f"{TABLES}/c/optimizing-processes/{p['process-id']}/cancel"
    ok(server, "POST", cancel, status=202)
    ended = wait_for(lambda: finished_process(server, "c"), "the canceled process", server)
    assert ended["status"] == "canceled", ended
    # Its late completion is stale: refused, and nothing is committed.
    code, body, _ = fake.call("complete", {**ids, "error": "too late"})
    assert code == 409, body
    tasks = ok(server, "GET", f"{TABLES}/c/optimizing-processes/{p['process-id']}/tasks")
    assert {x["status"] for x in tasks["items"]} == {"canceled"}
    assert optimize_snapshots(t) == []
    assert read_rows(t) == expected
    details = ok(server, "GET", f"{TABLES}/c?health=false")["optimizing"]
    assert details["status"] == "idle"
    assert details["status-reason"] == f"process {p['process-id']} was canceled"
    code, _, _ = server.request("POST", cancel)
    assert code == 404
    code, _, _ = server.request("POST", f"{TABLES}/nope/pause")
    assert code == 404

    # Draining the fake optimizer: its heartbeat says so.
    ok(server, "POST", f"/api/v1/optimizers/{fake.id}/drain", status=202)
    wait_for(lambda: fake.draining, "the heartbeat telling the optimizer to drain", server)
    code, _, _ = fake.call("poll", {"thread": 0})
    assert code == 204


def test_task_protocol_needs_auth_when_auth_is_on(floe, tmp_path):
    """With auth on, an optimizer authenticates as a principal with write access to every
    catalog (it commits into any of them), and then with its own registration token."""
    import hashlib

    def sha(text):
        return hashlib.sha256(text.encode()).hexdigest()

    config = {"optimizer": {"threads": 0},
              "auth": {"enabled": True, "principals": {
                  "optimizer": {"tokens-sha256": [sha("opt-token")], "catalogs": {"*": "write"}},
                  "writer": {"tokens-sha256": [sha("writer-token")],
                             "catalogs": {"default": "write"}}}}}
    with FloeServer(floe.path, tmp_path / "data", optimizer=True, config=config) as server:
        body = {"group": "local", "threads": 1}
        code, _, _ = server.request("POST", "/api/v1/optimizers", body)
        assert code == 401
        code, _, _ = server.request("POST", "/api/v1/optimizers", body,
                                    {"Authorization": "Bearer writer-token"})
        assert code == 403
        code, _, _ = server.request("POST", "/api/v1/optimizer-groups", {"name": "g"},
                                    {"Authorization": "Bearer writer-token"})
        assert code == 403
        principal = {"Authorization": "Bearer opt-token"}
        code, info, _ = server.request("POST", "/api/v1/optimizers", body, principal)
        assert code == 201, info
        beat = f"/api/v1/optimizers/{info['id']}/heartbeat"
        code, _, _ = server.request("POST", beat, {}, principal)
        assert code == 401  # the registration token is missing
        code, out, _ = server.request("POST", beat, {},
                                      {**principal, "X-Floe-Optimizer-Token": info["token"]})
        assert code == 200 and out == {"draining": False}
        # A standalone optimizer with the principal's token works against this server.
        t, expected = make_table_auth(server, principal)
        proc = subprocess.Popen([str(floe.path), "optimizer", "--server", server.uri,
                                 "--group", "local", "--token", "opt-token"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ok(server, "POST", f"{TABLES}/a/optimize", {"mode": "full"}, status=202,
               headers=principal)

            def done():
                code, page, _ = server.request("GET", f"{TABLES}/a/optimizing-processes", None,
                                               principal)
                items = page["items"] if code == 200 else []
                return items[0] if items and items[0]["status"] != "running" else None

            p = wait_for(done, "the process", server)
            assert p["status"] == "success", p
            assert read_rows(t) == expected
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0


def make_table_auth(server, principal):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default", token="opt-token")
    cat.create_namespace("db")
    t = cat.create_table("db.a", SCHEMA, properties={
        "self-optimizing.minor.trigger.file-count": "1000",
        "self-optimizing.minor.trigger.interval": "-1"})
    for i in range(3):
        t.append(rows(i * 10, 10))
    t.refresh()
    return t, sorted(tuple(r.values()) for r in t.scan().to_arrow().to_pylist())

"""The web dashboard: floe server's static file handler over HTTP, the dashboard's read
routes (files, file sizes, table stats) against pyiceberg's view of the same tables, the
overview's history samples against pyiceberg's totals, the producer's counts and the kernel's
view of the server process, and the browser test (tests/e2e/dashboard.mjs: Playwright from
web/node_modules driving Debian's Chromium) against a server with real tables, a running table
topic fed by confluent-kafka, an optimizing process and a second server with authentication
on. Screenshots go to tests/artifacts/screenshots/.

The dashboard's files must have been built (the floe_web CMake target, part of `make build`;
it needs npm) and Chromium installed (scripts/install-deps.sh): missing either is a failure."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import threading

import pytest
from confluent_kafka import Producer
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

import managed_table
from floe_server import FloeServer
from kafka_topics import create_topic

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
SECRET = "dashboard-e2e-secret"
# The history sampler's interval on the test server (floe.yaml history.interval-ms).
HISTORY_INTERVAL_MS = 300
TOPIC = "orders_e2e"
TOPIC_CONFIG = {"floe.table.topic.enable": "true",
                "floe.table.topic.commit.interval.ms": "1000",
                "floe.table.topic.convert.value.type": "json",
                "floe.table.topic.transform.value.type": "flatten"}
GOOD_RECORDS = 40
BAD_RECORDS = [b"not json {", b"[1, 2]"]
# A topic with produce-time schema validation that refused two records (issue 26).
CHECKED_TOPIC = "checked_e2e"


def order(i: int) -> bytes:
    # The browser checks a sample record against this rule (n = 7 * id).
    return json.dumps({"id": i, "src": "e2e", "n": 7 * i, "name": f"order-{i}"}).encode()


def produce(bootstrap: str, values: list[bytes]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    errors = []
    for v in values:
        p.produce(TOPIC, value=v, on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(30) == 0 and errors == []


def peer_totals(server) -> dict:
    """Tables, data files, records and bytes over every table of the default catalog, as
    pyiceberg reads them."""
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    totals = {"tables": 0, "data-files": 0, "delete-files": 0, "records": 0, "total-bytes": 0}
    for ns in cat.list_namespaces():
        for ident in cat.list_tables(ns):
            t = cat.load_table(ident)
            if t.current_snapshot() is None:
                continue
            totals["tables"] += 1
            for f in t.inspect.files().to_pylist():
                totals["data-files" if f["content"] == 0 else "delete-files"] += 1
                totals["records"] += f["record_count"] if f["content"] == 0 else 0
                totals["total-bytes"] += f["file_size_in_bytes"]
    return totals


def web_dir() -> Path:
    # floe is build/<preset>/src/floe/exe/floe; the floe_web target writes build/<preset>/web.
    return Path(os.environ["FLOE_BIN"]).resolve().parents[3] / "web"


def fetch(url: str, headers: dict | None = None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    assert (web_dir() / "index.html").is_file(), (
        f"the dashboard is not built in {web_dir()}: build the floe_web target (needs npm)")
    # No --web-dir: the server finds the files beside its binary.
    config = {"history": {"interval-ms": HISTORY_INTERVAL_MS}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("dash") / "data", optimizer=True,
                    kafka=True, config=config) as s:
        cat = managed_table.four_fragment_table(s, rows_per_append=50)
        t = cat.load_table("db.t")
        # A table topic with good and bad records: its table and dead-letter table.
        create_topic(s.kafka_bootstrap, TOPIC, config=TOPIC_CONFIG)
        produce(s.kafka_bootstrap, [order(i) for i in range(GOOD_RECORDS)] + BAD_RECORDS)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            _, topic, _ = s.request("GET", f"/api/v1/topics/{TOPIC}")
            if topic.get("rows-committed") == GOOD_RECORDS and topic.get("dlq-records") == 2:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"the table topic did not commit: {topic}")
        create_topic(s.kafka_bootstrap, CHECKED_TOPIC,
                     config={"floe.table.topic.value.validation": "schema_id"})
        refused = []
        p = Producer({"bootstrap.servers": s.kafka_bootstrap, "acks": "all", "linger.ms": 0})
        for v in (b"no header", b"\x00\x00\x01\xe2\x40{}"):  # the second: schema id 123456
            p.produce(CHECKED_TOPIC, value=v, on_delivery=lambda err, msg: refused.append(err))
            p.flush(30)
        assert [e.code() for e in refused] == [87, 87]
        # Wait until the optimizer evaluated every table's last commit (what the overview
        # counts).
        s.peer_totals = peer_totals(s)
        while time.monotonic() < deadline:
            _, storage, _ = s.request("GET", "/api/v1/storage")
            if all(storage[k] == s.peer_totals[k]
                   for k in ("data-files", "delete-files", "records", "total-bytes")):
                break
            time.sleep(0.1)
        s.pyiceberg_table = t
        yield s


def test_static_files_types_caching_and_fallback(server):
    status, headers, body = fetch(server.uri + "/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Cache-Control"] == "no-cache"
    scripts = re.findall(rb'src="(/assets/[^"]+\.js)"', body)
    styles = re.findall(rb'href="(/assets/[^"]+\.css)"', body)
    assert scripts and styles, body
    status, headers, js = fetch(server.uri + scripts[0].decode())
    assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert js == (web_dir() / scripts[0].decode().lstrip("/")).read_bytes()
    status, headers, _ = fetch(server.uri + styles[0].decode())
    assert headers["Content-Type"] == "text/css; charset=utf-8"
    # RFC 9110 §13.1.2: revalidation with the ETag.
    _, headers, _ = fetch(server.uri + "/")
    status, _, body304 = fetch(server.uri + "/", {"If-None-Match": headers["ETag"]})
    assert status == 304 and body304 == b""
    # Client routes get the app; missing files and escapes do not.
    status, headers, routed = fetch(server.uri + "/tables/default/db/t")
    assert status == 200 and routed == (web_dir() / "index.html").read_bytes()
    assert fetch(server.uri + "/assets/missing-1234.js")[0] == 404
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fCMakeCache.txt"):
        status, _, body = fetch(server.uri + path)
        assert b"root:" not in body and b"CMAKE" not in body, path
    # The API, the REST catalog and metrics keep their routes.
    status, headers, _ = fetch(server.uri + "/api/v1/overview")
    assert status == 200 and headers["Content-Type"] == "application/json"
    status, _, body = fetch(server.uri + "/api/v1/no-such-route")
    assert status == 404 and json.loads(body)["error"]["type"] == "NotFoundException"
    assert fetch(server.uri + "/v1/config")[0] == 200
    status, headers, _ = fetch(server.uri + "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")


def test_files_and_sizes_match_pyiceberg(server):
    t = server.pyiceberg_table
    t.refresh()
    files = t.inspect.files().to_pylist()
    base = managed_table.TABLE_PATH
    _, page, _ = server.request("GET", base + "/files?page-size=1000")
    assert page["total"] == len(files)
    assert {(f["path"], f["file-size-bytes"], f["record-count"]) for f in page["items"]} == {
        (f["file_path"], f["file_size_in_bytes"], f["record_count"]) for f in files}
    assert {f["content"] for f in page["items"]} == {"data"}
    _, hist, _ = server.request("GET", base + "/file-sizes")
    assert sum(b["data-files"] for b in hist["buckets"]) == len(files)
    assert sum(b["data-bytes"] for b in hist["buckets"]) == sum(
        f["file_size_in_bytes"] for f in files)
    for b in hist["buckets"]:
        for f in files:
            if b["data-files"] and b["lower-bytes"] <= f["file_size_in_bytes"] and (
                    b["upper-bytes"] is None or f["file_size_in_bytes"] < b["upper-bytes"]):
                break
        else:
            assert b["data-files"] == 0, b
    # Self-optimizing's default target size (Amoro: self-optimizing.target-size 128 MiB).
    assert hist["target-file-size-bytes"] == 134217728
    _, stats, _ = server.request("GET", "/api/v1/table-stats?sort=-total-bytes")
    [row] = [r for r in stats["items"] if r["identifier"] == "db.t"]
    assert row["data-files"] == len(files)
    assert row["records"] == sum(f["record_count"] for f in files)
    assert row["total-bytes"] == sum(f["file_size_in_bytes"] for f in files)
    _, storage, _ = server.request("GET", "/api/v1/storage")
    totals = server.peer_totals
    assert storage["data-files"] == totals["data-files"]
    assert storage["evaluated-tables"] == totals["tables"] == 3  # db.t, the topic's, its DLQ
    assert sum(b["tables"] for b in storage["health-distribution"]) == 3
    code, body, _ = server.request("GET", base + "/files?content=nope")
    assert code == 400, body


def history(floe_server, **params) -> dict:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    code, body, _ = floe_server.request("GET", "/api/v1/overview/history?" + query)
    assert code == 200, body
    return body


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_history_samples_follow_the_live_totals(server):
    totals = server.peer_totals
    # The sampler runs every HISTORY_INTERVAL_MS: samples keep coming, and the newest one
    # holds pyiceberg's totals.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        body = history(server)
        last = body["points"][-1] if body["points"] else {}
        if all(last.get(k) == totals[k] for k in totals) and len(body["points"]) >= 3:
            break
        time.sleep(HISTORY_INTERVAL_MS / 1000)
    assert body["interval-ms"] == HISTORY_INTERVAL_MS
    assert {k: last.get(k) for k in totals} == totals
    times = [p["timestamp-ms"] for p in body["points"]]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert abs(times[-1] - time.time() * 1000) < 10_000
    # Everything since the server started in one step: what the producer sent and what
    # the table topic committed (the good records; pyiceberg counts them in its table).
    whole = history(server, **{"from": 0, "step": 1 << 45})
    assert len(whole["points"]) == 1
    assert whole["points"][0]["records-produced"] == GOOD_RECORDS + len(BAD_RECORDS)
    topic_rows = len(RestCatalog("floe", uri=server.uri, warehouse="default")
                     .load_table(f"kafka.{TOPIC}").scan().to_arrow())
    assert whole["points"][0]["rows-ingested"] == topic_rows == GOOD_RECORDS
    assert any(p["produce-records-per-second"] > 0 for p in body["points"])
    assert any(p["ingest-rows-per-second"] > 0 for p in body["points"])
    # The process's own figures, against the kernel's view of it.
    kernel_rss = rss_bytes(server.proc.pid)
    assert 0.5 * kernel_rss < last["resident-memory-bytes"] < 2 * kernel_rss
    assert all(0 <= p["cpu-cores"] <= (os.cpu_count() or 1) + 0.5 for p in body["points"])
    assert last["optimizer-threads"] >= 1  # the local group's thread
    # A coarser step: fewer points, each ending at its step's last sample.
    coarse = history(server, **{"from": times[0], "to": times[-1],
                                "step": HISTORY_INTERVAL_MS * 4})
    assert 0 < len(coarse["points"]) < len(body["points"])
    assert coarse["points"][-1]["timestamp-ms"] == times[-1]
    for bad in ("from=5&to=4", "step=0", "to=-1", "from=x", "from=0&to=100000000&step=1"):
        code, err, _ = server.request("GET", "/api/v1/overview/history?" + bad)
        assert code == 400 and err["error"]["type"] == "BadRequestException", bad


def test_history_of_two_servers_on_one_metastore(floe, tmp_path):
    """Two servers sharing one metastore keep one series each; the merged points add up
    their memory and threads, and `server` picks one series."""
    metastore = f"sqlite:{tmp_path / 'metastore.db'}"
    servers = {}
    try:
        for name in ("alpha", "beta"):
            servers[name] = FloeServer(
                floe.path, tmp_path / name, metastore=metastore, optimizer=True,
                config={"history": {"server-id": name, "interval-ms": HISTORY_INTERVAL_MS}})
            servers[name].start()
        alpha, beta = servers["alpha"], servers["beta"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if all(len(history(alpha, server=n)["points"]) >= 8 for n in servers):
                break
            time.sleep(HISTORY_INTERVAL_MS / 1000)
        # A closed span a second in the past, so that no sample lands in it between the
        # requests below; 10 ms steps hold one sample each.
        to = int(time.time() * 1000) - 1000
        span = {"from": to - 30_000, "to": to}
        own = {n: history(alpha, server=n, step=10, **span)["points"] for n in servers}
        both = history(beta, **span)  # either server answers for both
        assert both["servers"] == ["alpha", "beta"]
        for name, points in own.items():
            assert len(points) >= 3, name
            assert all(p["servers"] == 1 for p in points)
            times = [p["timestamp-ms"] for p in points]
            assert times == sorted(times) and len(set(times)) == len(times)
            kernel_rss = rss_bytes(servers[name].proc.pid)
            assert 0.5 * kernel_rss < points[-1]["resident-memory-bytes"] < 2 * kernel_rss
            assert points[-1]["optimizer-threads"] >= 1
        # One step over the whole span: both servers in the point.
        merged = history(alpha, step=30_001, **span)
        assert len(merged["points"]) == 1
        point = merged["points"][0]
        assert point["servers"] == 2
        assert point["timestamp-ms"] == max(own[n][-1]["timestamp-ms"] for n in own)
        assert point["optimizer-threads"] == sum(own[n][-1]["optimizer-threads"] for n in own)
        peaks = {n: max(p["resident-memory-bytes"] for p in own[n]) for n in own}
        assert point["resident-memory-bytes"] == sum(peaks.values())
        # The unmerged view of one server never holds the other's samples.
        assert history(alpha, server="nobody")["points"] == []
    finally:
        for s in servers.values():
            s.stop()


def run_browser(server, expect) -> tuple[str, str, int]:
    """Runs tests/e2e/dashboard.mjs. When it prints `phase: topics` (the pages whose
    figures must hold still are done), records start trickling into the table topic, so
    the topic page shows a running topic: a produce rate and a record sample."""
    proc = subprocess.Popen(["node", str(REPO / "tests" / "e2e" / "dashboard.mjs")],
                            env={**os.environ, "FLOE_E2E": json.dumps(expect),
                                 "FLOE_E2E_SCREENSHOTS": str(SCREENSHOTS)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    stderr: list[str] = []
    drain = threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True)
    drain.start()

    def trickle():
        p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
        i = GOOD_RECORDS + 1000
        while not stop.is_set():
            p.produce(TOPIC, value=order(i))
            p.flush(5)
            i += 1
            stop.wait(0.05)

    producer = threading.Thread(target=trickle, daemon=True)
    out: list[str] = []
    timer = threading.Timer(240, proc.kill)
    timer.start()
    try:
        for line in proc.stdout:
            out.append(line)
            if line.strip() == "phase: topics" and not producer.is_alive():
                producer.start()
        proc.wait()
    finally:
        timer.cancel()
        stop.set()
        if producer.is_alive():
            producer.join(10)
        drain.join(10)
    return "".join(out), "".join(stderr), proc.returncode


def test_browser(server, floe, tmp_path):
    assert shutil.which("node"), "node is needed (scripts/install-deps.sh)"
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (scripts/install-deps.sh)"
    assert (REPO / "web" / "node_modules" / "playwright-core").is_dir(), (
        "web/node_modules is missing: the floe_web target runs npm ci")
    t = server.pyiceberg_table
    t.refresh()
    # A pyiceberg SqlCatalog for the attach form.
    lake = tmp_path / "lake"
    lake.mkdir()
    sql = SqlCatalog("lake_src", uri=f"sqlite:///{lake}/lake.db", warehouse=f"file://{lake}/wh")
    sql.create_namespace("sales")
    sql.create_table("sales.orders", managed_table.SCHEMA)
    auth_config = {"auth": {"enabled": True, "principals": {
        "ops": {"secret-sha256": hashlib.sha256(SECRET.encode()).hexdigest(),
                "catalogs": {"*": "write"}}}}}
    with FloeServer(floe.path, tmp_path / "auth", config=auth_config) as auth:
        expect = {
            "url": server.uri, "auth_url": auth.uri, "client_id": "ops", "secret": SECRET,
            "secret_sha256": hashlib.sha256(SECRET.encode()).hexdigest(),
            "port": server.port, "chromium": CHROMIUM, "web_src": str(REPO / "web"),
            "table": "db.t", "namespace": "db", "name": "t",
            "tables": server.peer_totals["tables"],
            "total_data_files": server.peer_totals["data-files"],
            "data_files": len(t.inspect.files()),
            "topic": TOPIC, "topic_table": f"kafka.{TOPIC}", "dlq_records": len(BAD_RECORDS),
            "good_records": GOOD_RECORDS, "group": "e2e-group",
            "checked_topic": CHECKED_TOPIC,
            "snapshot_ids": [str(s.snapshot_id) for s in t.snapshots()],
            "fields": [{"name": f.name, "type": str(f.field_type)} for f in t.schema().fields],
            "property": ["owner", "dashboard-e2e"],
            "sql": {"name": "lake", "uri": f"sqlite:{lake}/lake.db", "warehouse": str(lake / "wh"),
                    "catalog_name": "lake_src", "namespace": "sales", "table": "orders",
                    "property": ["team", "ops"]},
        }
        stdout, stderr, returncode = run_browser(server, expect)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert returncode == 0 and lines, (
        f"{stdout[-4000:]}\n{stderr[-4000:]}\n{server.log_text()[-2000:]}")
    result = json.loads(lines[-1])
    assert result["ok"], result
    # What the browser did, read back through the peers and the API.
    t = RestCatalog("floe", uri=server.uri, warehouse="default").load_table("db.t")
    assert t.properties["owner"] == "dashboard-e2e"
    assert len(t.snapshots()) == len(expect["snapshot_ids"]) + 1
    assert len(t.inspect.files()) == 1  # the full optimize merged the four files
    _, lake_record, _ = server.request("GET", "/api/v1/catalogs/lake")
    assert lake_record["properties"] == {"catalog-name": "lake_src", "team": "ops"}
    # The group the browser created, and the table it paused and resumed.
    assert server.request("GET", "/api/v1/optimizer-groups/e2e-group")[0] == 200
    assert result["seen"]["paused"] == [True, False]
    # The sample the topic page showed is a record the producer sent.
    sample = json.loads(result["seen"]["topicSample"])
    assert sample == json.loads(order(sample["id"]))
    for name in ("overview", "tables", "table", "table-after-optimize", "table-tasks",
                 "catalogs", "catalog", "table-attached-empty", "optimizers", "topics", "topic",
                 "topic-table", "settings", "login", "settings-auth"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000, name

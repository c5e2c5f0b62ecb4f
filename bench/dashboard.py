#!/usr/bin/env python3
"""The dashboard's lists at 10,000 tables: latency of the management API routes the overview
and tables pages call, against a `floe server` whose default catalog holds TABLES tables.

The fixture is built fast and directly: one real table (`bench.seed`, created and appended
by pyiceberg through the REST API) is the template; TABLES - 1 copies of its metadata.json,
each with its own uuid, location and snapshot-summary totals (so that sorting by size or
file count has something to sort), are written beside it and registered in the metastore's
JDBC catalog table (`iceberg_tables`) with one SQL transaction, together with each table's
optimizer state (`floe_table_runtime`, already evaluated at that snapshot, as after a
restart). The server is then restarted and the bench waits until the optimizer has
evaluated every table (its statistics are what the tables page and overview show).

Timed (sequential keep-alive requests, REQUESTS each after a warm-up, then the same with
THREADS concurrent clients):

  tables page 1        GET /api/v1/tables?page-size=200                (the tables page)
  tables stats page 1  GET /api/v1/table-stats?page-size=200
  sorted by size       GET /api/v1/table-stats?sort=-total-bytes&page-size=200
  filtered             GET /api/v1/tables?q=t0042&page-size=200
  overview             GET /api/v1/overview
  storage              GET /api/v1/storage
  top 10 by files      GET /api/v1/table-stats?sort=-data-files&page-size=10
  namespace listing    GET /api/v1/catalogs/default/namespaces/bench/tables?page-size=200
  history              GET /api/v1/overview/history

Printed: p50 / p99 / max per route, and whether every p99 of the one-client run (a person
on the dashboard) is under the bound (--bound-ms, default 200 ms); the script exits 1 when
one is not. The concurrent run is printed for information: its clients share the server's
cores with each other (and with whatever else the machine runs). With --browser, Playwright (from
web/node_modules) with Debian's Chromium also times the tables page from navigation to its
first 200 rows drawn.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))

from floe_server import FloeServer  # noqa: E402

ROUTES = [
    ("tables page 1", "/api/v1/tables?page-size=200"),
    ("tables stats page 1", "/api/v1/table-stats?page-size=200"),
    ("sorted by size", "/api/v1/table-stats?sort=-total-bytes&page-size=200"),
    ("filtered", "/api/v1/tables?q=t0042&page-size=200"),
    ("overview", "/api/v1/overview"),
    ("storage", "/api/v1/storage"),
    ("top 10 by files", "/api/v1/table-stats?sort=-data-files&page-size=10"),
    ("namespace listing", "/api/v1/catalogs/default/namespaces/bench/tables?page-size=200"),
    ("history", "/api/v1/overview/history"),
]


def seed_table(server: FloeServer) -> tuple[str, dict]:
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    cat = RestCatalog("bench", uri=server.uri, warehouse="default")
    cat.create_namespace("bench")
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "name", StringType(), required=False))
    t = cat.create_table("bench.seed", schema)
    t.append(pa.table({"id": pa.array(range(100), pa.int64()),
                       "name": pa.array([f"n{i}" for i in range(100)])}))
    t = cat.load_table("bench.seed")
    return t.metadata_location, json.loads(Path(t.metadata_location.removeprefix("file://"))
                                           .read_text())


def build_fixture(server: FloeServer, tables: int) -> None:
    location, seed = seed_table(server)
    snapshot_id = seed["current-snapshot-id"]
    root = Path(location.removeprefix("file://")).parent.parent.parent
    rows, runtimes = [], []
    now_ms = int(time.time() * 1000)
    for i in range(1, tables):
        name = f"t{i:05d}"
        table_dir = root / name / "metadata"
        table_dir.mkdir(parents=True, exist_ok=True)
        meta = json.loads(json.dumps(seed))
        meta["table-uuid"] = str(uuid.uuid4())
        meta["location"] = str(root / name)
        files = 1 + i % 97
        for snap in meta["snapshots"]:
            if snap["snapshot-id"] == snapshot_id:
                snap["summary"]["total-data-files"] = str(files)
                snap["summary"]["total-records"] = str(files * 1000 + i)
                snap["summary"]["total-files-size"] = str(files * 65536 + i * 13)
        path = table_dir / f"00000-{meta['table-uuid']}.metadata.json"
        path.write_text(json.dumps(meta))
        rows.append(("default", "bench", name, str(path), None, "TABLE"))
        runtimes.append(("default", "bench", name, "idle", None, snapshot_id, 0, 0, 0, now_ms,
                         now_ms, 0, "local"))
    server.stop()
    db = sqlite3.connect(server.data_dir / "floe.db")
    with db:
        db.executemany("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                       "metadata_location, previous_metadata_location, iceberg_type) "
                       "VALUES (?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO floe_table_runtime (catalog_name, table_namespace, "
                       "table_name, status, status_reason, last_optimized_snapshot_id, "
                       "last_minor_ms, last_major_ms, last_full_ms, last_plan_ms, "
                       "updated_at_ms, paused, optimizer_group) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", runtimes)
    db.close()


def get(conn: http.client.HTTPConnection, path: str) -> tuple[float, dict]:
    start = time.perf_counter()
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    elapsed = (time.perf_counter() - start) * 1000
    if resp.status != 200:
        raise RuntimeError(f"GET {path}: {resp.status} {body[:300]!r}")
    return elapsed, json.loads(body)


def wait_evaluated(server: FloeServer, tables: int, timeout: float) -> float:
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    while time.monotonic() - start < timeout:
        _, storage = get(conn, "/api/v1/storage")
        _, overview = get(conn, "/api/v1/overview")
        if storage["evaluated-tables"] >= tables and overview["optimizer"]["queued-tables"] == 0:
            return time.monotonic() - start
        time.sleep(0.5)
    raise RuntimeError(f"the optimizer did not evaluate {tables} tables in {timeout}s: "
                       f"{storage['evaluated-tables']} so far")


def measure(port: int, path: str, requests: int, threads: int) -> list[float]:
    times: list[float] = []
    lock = threading.Lock()

    def client(n: int):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(3):
            get(conn, path)  # warm-up
        mine = [get(conn, path)[0] for _ in range(n)]
        with lock:
            times.extend(mine)

    workers = [threading.Thread(target=client, args=(requests // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return times


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def browser_page_ms(server: FloeServer) -> float | None:
    web = ROOT.parent / "web"
    if not (web / "node_modules" / "playwright-core").is_dir() or not Path("/usr/bin/chromium").exists():
        print("browser check skipped: web/node_modules or /usr/bin/chromium missing")
        return None
    script = """
import { createRequire } from "node:module";
const require = createRequire(process.env.WEB + "/package.json");
const { chromium } = require("playwright-core");
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu"] });
const p = await b.newPage();
const times = [];
for (let i = 0; i < 4; i++) {
  const t0 = Date.now();
  await p.goto(process.env.URL + "/tables");
  await p.waitForSelector('main[aria-busy="false"] tbody tr:nth-child(200)');
  times.push(Date.now() - t0);
}
await b.close();
console.log(JSON.stringify(times));
"""
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as f:
        f.write(script)
    try:
        out = subprocess.run(["node", f.name], env={**os.environ, "WEB": str(web), "URL": server.uri},
                             capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    times = json.loads(out.stdout.strip().splitlines()[-1])
    return statistics.median(times[1:])  # the first load fetches and compiles the assets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--bound-ms", type=float, default=200.0)
    ap.add_argument("--browser", action="store_true", help="also time the tables page in Chromium")
    args = ap.parse_args()
    floe = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))
    with tempfile.TemporaryDirectory(prefix="floe-dash-bench.") as tmp:
        server = FloeServer(floe, Path(tmp) / "data", optimizer=True, access_log=False)
        server.start()
        try:
            t0 = time.monotonic()
            build_fixture(server, args.tables)
            fixture_s = time.monotonic() - t0
            server.start()
            evaluated_s = wait_evaluated(server, args.tables, timeout=600)
            print(f"fixture: {args.tables} tables in {fixture_s:.1f} s; the restarted server "
                  f"evaluated them in {evaluated_s:.1f} s")
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            _, page = get(conn, "/api/v1/tables?page-size=200")
            assert page["total"] == args.tables and len(page["items"]) == 200, page["total"]
            _, top = get(conn, "/api/v1/table-stats?sort=-total-bytes&page-size=3")
            sizes = [t["total-bytes"] for t in top["items"]]
            assert sizes == sorted(sizes, reverse=True) and top["total"] == args.tables, top
            failed = []
            for threads in (1, args.threads):
                print(f"\n{threads} client(s), {args.requests} requests per route")
                print(f"{'route':22} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
                for name, path in ROUTES:
                    times = measure(server.port, path, args.requests, threads)
                    p50, p99 = pct(times, 0.5), pct(times, 0.99)
                    print(f"{name:22} {p50:8.1f} {p99:8.1f} {max(times):8.1f}")
                    if threads == 1 and p99 >= args.bound_ms:
                        failed.append(f"{name} ({threads} clients): p99 {p99:.1f} ms")
            if args.browser:
                ms = browser_page_ms(server)
                if ms is not None:
                    print(f"\nbrowser: tables page 1 of {args.tables} drawn in {ms:.0f} ms (median)")
                    if ms >= 2000:
                        failed.append(f"browser tables page {ms:.0f} ms")
        finally:
            server.stop()
    if failed:
        print(f"\nBOUND FAILED (p99 < {args.bound_ms:.0f} ms): " + "; ".join(failed))
        return 1
    print(f"\nbound held: every p99 < {args.bound_ms:.0f} ms with {args.tables} tables "
          f"(one client; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

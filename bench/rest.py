#!/usr/bin/env python3
"""REST catalog serving: `floe server` versus Iceberg's Java reference server
(org.apache.iceberg.rest.RESTCatalogServer 1.11.0: a JdbcCatalog on SQLite behind Jetty,
tests/rck/java_server.py), same machine, same table, same load, one run.

Both servers get the same content through pyiceberg's RestCatalog: namespace `bench` with a
table `t` (20 columns, 3 partition fields, SNAPSHOTS appends, so its metadata is a realistic
size) and TABLES more tables to list. Then wrk (Debian) drives each server in turn, with the
same threads and connections, after a warm-up (the JVM's JIT gets one too):

  loadTable    GET  /v1/{prefix}/namespaces/bench/tables/t
  listTables   GET  /v1/{prefix}/namespaces/bench/tables
  commit       POST /v1/{prefix}/namespaces/bench/tables/t  set-properties with a new value
               each request (every request writes a metadata file and swaps the pointer)

Printed per endpoint: requests/s and p99 latency of each server, the floe/java throughput
ratio (target >= 10 for loadTable and listTables) and p99 ratio (target < 1), and the peak
RSS of both servers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))
sys.path.insert(0, str(ROOT.parent / "tests" / "rck"))

from floe_server import FloeServer, free_port  # noqa: E402
from java_server import JavaRestServer  # noqa: E402

COMMIT_LUA = r"""
counter = 0
request = function()
  counter = counter + 1
  local body = '{"requirements":[],"updates":[{"action":"set-properties","updates":' ..
               '{"bench.counter":"' .. tostring(counter) .. '-' .. tostring(math.random(1e9)) .. '"}}]}'
  return wrk.format("POST", wrk.path, {["Content-Type"] = "application/json"}, body)
end
"""


def populate(uri: str, warehouse: str | None, snapshots: int, tables: int) -> None:
    import datetime as dt

    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
    from pyiceberg.types import LongType, NestedField, StringType, TimestampType

    props = {"uri": uri}
    if warehouse:
        props["warehouse"] = warehouse
    cat = RestCatalog("bench", **props)
    fields = [NestedField(1, "id", LongType(), required=False),
              NestedField(2, "region", StringType(), required=False),
              NestedField(3, "ts", TimestampType(), required=False)]
    fields += [NestedField(4 + i, f"c{i}", StringType(), required=False) for i in range(17)]
    schema = Schema(*fields)
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region"),
                         PartitionField(3, 1001, DayTransform(), "ts_day"),
                         PartitionField(1, 1002, BucketTransform(16), "id_bucket"))
    cat.create_namespace("bench")
    t = cat.create_table("bench.t", schema, partition_spec=spec)
    arrow_schema = t.schema().as_arrow()
    for k in range(snapshots):
        n = 50
        cols = {"id": pa.array(range(k * n, (k + 1) * n), pa.int64()),
                "region": pa.array([f"r{i % 4}" for i in range(n)]),
                "ts": pa.array([dt.datetime(2026, 11, 1 + i % 3) for i in range(n)],
                               pa.timestamp("us"))}
        for i in range(17):
            cols[f"c{i}"] = pa.array([f"v{i}-{j}" for j in range(n)])
        t.append(pa.Table.from_pydict(cols, schema=arrow_schema))
    for i in range(tables):
        cat.create_table(f"bench.more{i:03d}", schema)


def prefix_of(uri: str, warehouse: str | None) -> str:
    url = uri.rstrip("/") + "/v1/config" + (f"?warehouse={warehouse}" if warehouse else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        config = json.load(r)
    prefix = config.get("overrides", {}).get("prefix") or config.get("defaults", {}).get("prefix")
    return f"/v1/{prefix}" if prefix else "/v1"


def parse_latency(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value if unit == "ms" else value * 1000


def wrk(url: str, seconds: int, threads: int, connections: int, script: Path | None = None):
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout",
           "10s"]
    if script:
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = parse_latency(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p99_ms": p99,
            "non2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1) if socket_errors else ""}


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--snapshots", type=int, default=30)
    ap.add_argument("--tables", type=int, default=50)
    args = ap.parse_args()
    floe_bin = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))
    work = Path(tempfile.mkdtemp(prefix="floe-bench-rest."))
    commit_script = work / "commit.lua"
    commit_script.write_text(COMMIT_LUA)
    results: dict[str, dict] = {}
    try:
        servers = [
            ("floe", lambda: FloeServer(floe_bin, work / "floe", access_log=False), None),
            ("java", lambda: JavaRestServer(free_port(), work / "java"), None),
        ]
        for name, make, warehouse in servers:
            with make() as server:
                uri = server.uri.rstrip("/")
                t0 = time.monotonic()
                populate(uri, warehouse, args.snapshots, args.tables)
                print(f"[{name}] populated in {time.monotonic() - t0:.1f}s", file=sys.stderr)
                base = uri + prefix_of(uri, warehouse)
                endpoints = {
                    "loadTable": (base + "/namespaces/bench/tables/t", None),
                    "listTables": (base + "/namespaces/bench/tables", None),
                    "commit": (base + "/namespaces/bench/tables/t", commit_script),
                }
                for endpoint, (url, script) in endpoints.items():
                    wrk(url, args.warmup, args.threads, args.connections, script)
                    results.setdefault(endpoint, {})[name] = wrk(
                        url, args.seconds, args.threads, args.connections, script)
                    r = results[endpoint][name]
                    print(f"[{name}] {endpoint}: {r['rps']:.0f} req/s, p99 {r['p99_ms']:.2f} ms"
                          f"{', non-2xx ' + str(r['non2xx']) if r['non2xx'] else ''}",
                          file=sys.stderr)
                results.setdefault("rss", {})[name] = peak_rss_mib(server.proc.pid)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nREST catalog, wrk -t{args.threads} -c{args.connections} -d{args.seconds}s "
          f"(warm-up {args.warmup}s); table with {args.snapshots} snapshots, "
          f"{args.tables + 1} tables listed")
    print(f"{'endpoint':<11} {'floe req/s':>11} {'java req/s':>11} {'floe/java':>9} "
          f"{'floe p99':>9} {'java p99':>9} {'p99 f/j':>8}")
    for endpoint in ("loadTable", "listTables", "commit"):
        f, j = results[endpoint]["floe"], results[endpoint]["java"]
        print(f"{endpoint:<11} {f['rps']:>11.0f} {j['rps']:>11.0f} {f['rps'] / j['rps']:>9.1f} "
              f"{f['p99_ms']:>7.2f}ms {j['p99_ms']:>7.2f}ms {f['p99_ms'] / j['p99_ms']:>8.2f}")
        for n, r in (("floe", f), ("java", j)):
            if r["non2xx"] or r["socket_errors"]:
                print(f"  {n}: non-2xx {r['non2xx']}, socket errors {r['socket_errors']}")
    print(f"peak RSS: floe {results['rss']['floe']:.0f} MiB, java {results['rss']['java']:.0f} MiB "
          f"(floe/java {results['rss']['floe'] / results['rss']['java']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Table scans: `floe table scan` against pyiceberg and Iceberg Java on the same tables.

Two Iceberg v2 tables in one SQLite catalog (the JDBC catalog schema all three read), built
once with floe and cached under bench/.data/scan-<rows>/:

  events   ROWS rows (default 10M) appended as 10 Parquet files, then
           `floe table delete --where "user_id < 500"`: position deletes on ~10% of the rows
           of every data file.
  upserts  BASE rows (default 2M) with identifier `id`, then UPSERTS (default 100)
           `floe table upsert` commits of 2,000 rows each: one equality-delete file per
           commit (what a Flink upsert writer leaves behind).

Timed, each in its own process:
  floe     `floe table scan T --format parquet --output F`, whole process wall clock (it
           plans, applies the deletes and also writes the rows as Parquet).
  pyiceberg  `catalog.load_table(T).scan().to_arrow()` inside the process (interpreter start
           and imports excluded, in its favour; pyiceberg's default thread pool).
  java     IcebergGenerics.read(table) iterating every record (the harness's bench-scan),
           inside one JVM with the JIT on: the median of --java-reps passes, JVM start
           excluded, in its favour.
Results are checked: the row counts and the sum of `id` must agree between the tools.
Targets (issue 3): floe/pyiceberg time <= 1.0 on events, java/floe >= 5 on upserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))

from run import log, run_measured  # noqa: E402  (bench/run.py: launcher measuring peak RSS)

GENERATOR_VERSION = 1
CATALOG_NAME = "floe"
SCHEMA = "id long not null, user_id long, amount double, category string, ts timestamptz"
EVENTS_SQL = """
SELECT i AS id,
       (hash(i) % 5000)::BIGINT AS user_id,
       ((hash(i * 7) % 1000000) / 100.0)::DOUBLE AS amount,
       ['books', 'games', 'music', 'garden', 'tools', 'food', 'toys', 'sports',
        'health', 'beauty', 'auto', 'office'][1 + (i % 12)::INTEGER] AS category,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) AS ts
FROM range({start}, {end}) t(i)
"""

PYICEBERG_SCRIPT = """
import json, sys, time
from pyiceberg.catalog.sql import SqlCatalog
root, name, table, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
catalog = SqlCatalog(name, uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/wh")
seconds = []
for _ in range(reps):
    start = time.perf_counter()
    arrow = catalog.load_table(table).scan().to_arrow()
    seconds.append(time.perf_counter() - start)
import pyarrow.compute as pc
print(json.dumps({"seconds": seconds, "rows": arrow.num_rows,
                  "sum": pc.sum(arrow["id"]).as_py() or 0}))
"""


def catalog_env(root: Path) -> dict[str, str]:
    return dict(os.environ, FLOE_CATALOG=f"sqlite:{root}/catalog.db",
                FLOE_WAREHOUSE=str(root / "wh"), FLOE_CATALOG_NAME=CATALOG_NAME)


def floe_cli(floe: str, root: Path, *args: str) -> str:
    argv = [floe, *args]
    r = subprocess.run(argv, capture_output=True, text=True, env=catalog_env(root))
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()[:2000]}")
    return r.stdout


def build_tables(floe: str, root: Path, rows: int, base: int, upserts: int) -> None:
    marker = root / f"ready-v{GENERATOR_VERSION}"
    if marker.exists():
        return
    import duckdb
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    (root / "src").mkdir(parents=True)
    con = duckdb.connect()
    log(f"scan bench: generating {rows:,} + {base:,} rows and {upserts} upsert files in {root}")
    floe_cli(floe, root, "namespace", "create", "bench")

    files = []
    for k in range(10):
        f = root / "src" / f"events-{k}.parquet"
        sql = EVENTS_SQL.format(start=k * rows // 10, end=(k + 1) * rows // 10)
        con.execute(f"COPY ({sql}) TO '{f}' (FORMAT parquet)")
        files.append(str(f))
    floe_cli(floe, root, "table", "create", "bench.events", "--schema", SCHEMA,
             "--format-version", "2")
    floe_cli(floe, root, "table", "append", "bench.events", *files)
    floe_cli(floe, root, "table", "delete", "bench.events", "--where", "user_id < 500")

    f = root / "src" / "base.parquet"
    con.execute(f"COPY ({EVENTS_SQL.format(start=0, end=base)}) TO '{f}' (FORMAT parquet)")
    floe_cli(floe, root, "table", "create", "bench.upserts", "--schema", SCHEMA,
             "--identifier", "id", "--format-version", "2")
    floe_cli(floe, root, "table", "append", "bench.upserts", str(f))
    for k in range(upserts):
        f = root / "src" / f"upsert-{k}.parquet"
        # 2,000 existing keys spread over the table, new amounts: every data file so far is
        # hit by each equality-delete file.
        sql = (f"SELECT id, user_id, amount + {k + 1} AS amount, category, ts "
               f"FROM ({EVENTS_SQL.format(start=0, end=base)}) "
               f"WHERE hash(id + {k * 1000003}) % {max(1, base // 2000)} = 0 LIMIT 2000")
        con.execute(f"COPY ({sql}) TO '{f}' (FORMAT parquet)")
        floe_cli(floe, root, "table", "upsert", "bench.upserts", str(f))
    marker.write_text("ok\n")


def parquet_rows_and_sum(path: Path) -> tuple[int, int]:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    t = pq.read_table(path, columns=["id"])
    return t.num_rows, pc.sum(t["id"]).as_py() or 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--base", type=int, default=2_000_000)
    ap.add_argument("--upserts", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--java-reps", type=int, default=3)
    ap.add_argument("--tools", default="floe,pyiceberg,java")
    args = ap.parse_args()
    floe = os.environ.get("FLOE_BIN", "")
    if not (floe and os.access(floe, os.X_OK)):
        log("FLOE_BIN must name the floe binary (make bench sets it)")
        return 2
    floe = os.path.abspath(floe)
    tools = args.tools.split(",")
    root = ROOT / ".data" / f"scan-{args.rows}-{args.base}-{args.upserts}"
    build_tables(floe, root, args.rows, args.base, args.upserts)

    results: dict[tuple[str, str], tuple[float, float, int, int]] = {}
    failures = []
    with tempfile.TemporaryDirectory(prefix="floe-scan-bench-") as work:
        for table in ("events", "upserts"):
            ident = f"bench.{table}"
            if "floe" in tools:
                out = Path(work) / f"{table}.parquet"
                times, rss = [], []
                for rep in range(args.reps):
                    argv = [floe, "table", "scan", ident, "--catalog", f"sqlite:{root}/catalog.db",
                            "--catalog-name", CATALOG_NAME, "--format", "parquet",
                            "--output", str(out)]
                    wall, peak, _ = run_measured(argv, work)
                    times.append(wall)
                    rss.append(peak)
                    log(f"{table:8} floe      run {rep + 1}: {wall:.3f}s, {peak:.0f} MiB")
                n, s = parquet_rows_and_sum(out)
                results[(table, "floe")] = (statistics.median(times), max(rss), n, s)
            if table == "events" and "pyiceberg" in tools:
                wall, peak, out = run_measured(
                    [sys.executable, "-c", PYICEBERG_SCRIPT, str(root), CATALOG_NAME, ident,
                     str(args.reps)], work)
                r = json.loads(out)
                for i, t in enumerate(r["seconds"]):
                    log(f"{table:8} pyiceberg run {i + 1}: {t:.3f}s")
                results[(table, "pyiceberg")] = (statistics.median(r["seconds"]), peak,
                                                 r["rows"], r["sum"])
            if table == "upserts" and "java" in tools:
                import iceberg_java
                harness = iceberg_java.build_harness()
                java = harness.catalog(f"jdbc:sqlite:{root}/catalog.db", CATALOG_NAME,
                                       str(root / "wh"))
                argv = harness.command("bench-scan", ident, *java.common, "--repeat",
                                       args.java_reps, "--sum-column", "id",
                                       jvm_options=iceberg_java.BENCH_JVM)
                wall, peak, out = run_measured(argv, work)
                r = json.loads(out)
                for i, t in enumerate(r["seconds"]):
                    log(f"{table:8} java      run {i + 1}: {t:.3f}s")
                results[(table, "java")] = (statistics.median(r["seconds"]), peak, r["rows"],
                                            r["sum"])

    print()
    print("floe table scan vs peers -- median seconds, largest peak RSS")
    print(f"{'table':8} {'tool':10} {'seconds':>8} {'peak RSS MiB':>13} {'rows':>12} {'sum(id)':>18}")
    for (table, tool), (sec, rss, rows, total) in results.items():
        print(f"{table:8} {tool:10} {sec:8.3f} {rss:13.0f} {rows:12,} {total:18,}")
    for table, peer in (("events", "pyiceberg"), ("upserts", "java")):
        if (table, "floe") in results and (table, peer) in results:
            f, p = results[(table, "floe")], results[(table, peer)]
            if f[2:] != p[2:]:
                failures.append(f"{table}: floe has {f[2]} rows / sum {f[3]}, "
                                f"{peer} {p[2]} / {p[3]}")
    print()
    print(f"{'table':8} {'ratio':22} {'time':>6} {'peak RSS':>9}   target")
    if ("events", "floe") in results and ("events", "pyiceberg") in results:
        f, p = results[("events", "floe")], results[("events", "pyiceberg")]
        ratio = f[0] / p[0]
        print(f"{'events':8} {'floe/pyiceberg':22} {ratio:6.2f} {f[1] / p[1]:9.2f}   "
              f"time <= 1.00  {'ok' if ratio <= 1.0 else 'SLOWER'}")
    if ("upserts", "floe") in results and ("upserts", "java") in results:
        f, p = results[("upserts", "floe")], results[("upserts", "java")]
        speedup = p[0] / f[0]
        print(f"{'upserts':8} {'java/floe (speed-up)':22} {speedup:6.2f} {f[1] / p[1]:9.2f}   "
              f"speed-up >= 5  {'ok' if speedup >= 5 else 'SHORT'}")
    if failures:
        print("\nRESULT CHECKS FAILED")
        for f in failures:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

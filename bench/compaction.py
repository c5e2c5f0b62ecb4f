#!/usr/bin/env python3
"""Compaction: one full optimize by floe against Spark's rewrite_data_files, on identical
copies of a CDC table, plus an equality-delete backlog under a 1 GiB budget.

Tables (Iceberg v2, built once with floe and cached under bench/.data/compaction-*/, in a
filesystem catalog: Iceberg Java's HadoopCatalog layout, which Spark opens as `type=hadoop`):

  cdc_floe, cdc_spark   the same CDC history twice (deterministic DuckDB SQL): BASE rows
           (default 2M) with identifier `id`, partitioned by bucket(4, id), then COMMITS
           (default 200) `floe table upsert` commits of UPSERT_ROWS (default 2,000) rows each,
           new amounts for existing keys: one equality-delete file per bucket per commit
           (800), as a Flink upsert job leaves behind.
  backlog  BACKLOG_BASE rows (default 1M) and BACKLOG_COMMITS (default 1,000) upserts of
           200 rows: 4,000 equality-delete files.

Timed, each in its own process tree, peak RSS = the largest sum of the tree's resident sets
(sampled every 20 ms from /proc; Spark's driver is a Python process plus its JVM):
  floe   `floe optimize bench.cdc_floe --mode full --threads <cores>` (in-process, target
         size 128 MiB), whole process wall clock.
  spark  pyspark 3.5 + iceberg-spark-runtime, local[*], `CALL system.rewrite_data_files(
         table => 'bench.cdc_spark', options => map('rewrite-all', 'true',
         'target-file-size-bytes', '134217728', 'remove-dangling-deletes', 'true'))`,
         whole process wall clock including the JVM start (also printed: the CALL alone).
  backlog `floe optimize bench.backlog --mode full --memory-mb 1024 --threads 1`.
Checked: after each run `floe table scan` of the table equals the model (key -> latest
amount, computed by DuckDB from the generated inputs); a mismatch exits 1.
Targets (issue 5): spark/floe time >= 10, floe/spark peak RSS <= 0.1; the backlog completes
under 1 GiB.

  make bench                                   # (heavy-deps for Spark)
  FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/compaction.py --base 200000 \\
      --commits 20 --backlog-commits 100       # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
sys.path.insert(0, str(ROOT))

from run import log  # noqa: E402

GENERATOR_VERSION = 1
SCHEMA = "id long not null, user_id long, amount double, category string, ts timestamptz"
BASE_SQL = """
SELECT i AS id,
       (hash(i) % 5000)::BIGINT AS user_id,
       ((hash(i * 7) % 1000000) / 100.0)::DOUBLE AS amount,
       ['books', 'games', 'music', 'garden', 'tools', 'food', 'toys', 'sports',
        'health', 'beauty', 'auto', 'office'][1 + (i % 12)::INTEGER] AS category,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) AS ts
FROM range(0, {base}) t(i)
"""
# Commit k updates `rows` existing keys spread over the table: amount + k + 1.
UPSERT_SQL = """
SELECT id, user_id, amount + {k} + 1 AS amount, category, ts
FROM ({base_sql}) WHERE hash(id + {k} * 1000003) % {modulo} = 0 LIMIT {rows}
"""

SPARK_SCRIPT = r"""
import json, os, sys, time
from pyspark.sql import SparkSession
warehouse, table, jar, target = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
spark = (SparkSession.builder.master("local[*]").appName("floe-bench-compaction")
         .config("spark.jars", jar)
         .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "8g"))
         .config("spark.sql.extensions",
                 "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.h", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.h.type", "hadoop")
         .config("spark.sql.catalog.h.warehouse", "file://" + warehouse)
         .config("spark.ui.enabled", "false")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
start = time.perf_counter()
r = spark.sql(f"CALL h.system.rewrite_data_files(table => '{table}', options => map("
              f"'rewrite-all', 'true', 'target-file-size-bytes', '{target}', "
              f"'remove-dangling-deletes', 'true'))").collect()
seconds = time.perf_counter() - start
print(json.dumps({"call_seconds": seconds, "result": [list(x) for x in r]}))
spark.stop()
"""


def catalog_env(root: Path) -> dict[str, str]:
    return dict(os.environ, FLOE_CATALOG=f"file:{root}/wh", FLOE_WAREHOUSE=str(root / "wh"))


def floe_cli(floe: str, root: Path, *args: str) -> str:
    argv = [floe, *args]
    r = subprocess.run(argv, capture_output=True, text=True, env=catalog_env(root))
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()[:2000]}")
    return r.stdout


def build(floe: str, root: Path, tables: list[str], base: int, commits: int, rows: int,
          target_size: int) -> None:
    """Writes the inputs once and commits the same history to each of `tables`."""
    marker = root / f"ready-v{GENERATOR_VERSION}"
    if marker.exists():
        return
    if (root / "pristine").exists():
        shutil.rmtree(root / "pristine")
    import duckdb
    if root.exists():
        shutil.rmtree(root)
    (root / "src").mkdir(parents=True)
    (root / "wh").mkdir()
    con = duckdb.connect()
    base_sql = BASE_SQL.format(base=base)
    log(f"compaction bench: {tables}: {base:,} rows and {commits} upserts of {rows:,} in {root}")
    con.execute(f"COPY ({base_sql}) TO '{root}/src/base.parquet' (FORMAT parquet)")
    for k in range(commits):
        sql = UPSERT_SQL.format(k=k, base_sql=base_sql, modulo=max(1, base // rows), rows=rows)
        con.execute(f"COPY ({sql}) TO '{root}/src/upsert-{k}.parquet' (FORMAT parquet)")
    floe_cli(floe, root, "namespace", "create", "bench")
    for t in tables:
        floe_cli(floe, root, "table", "create", f"bench.{t}", "--schema", SCHEMA,
                 "--identifier", "id", "--partition-by", "bucket(4, id)",
                 "--format-version", "2",
                 "--property", f"self-optimizing.target-size={target_size}")
        floe_cli(floe, root, "table", "append", f"bench.{t}", str(root / "src" / "base.parquet"))
        started = time.perf_counter()
        for k in range(commits):
            floe_cli(floe, root, "table", "upsert", f"bench.{t}",
                     str(root / "src" / f"upsert-{k}.parquet"))
            if k % 100 == 99:
                log(f"  {t}: {k + 1} upserts ({time.perf_counter() - started:.0f}s)")
    marker.write_text("ok\n")


def model_check(floe: str, root: Path, table: str, commits: int, work: Path) -> str:
    """'' when `floe table scan` of the table equals key -> latest amount."""
    import duckdb
    out = work / f"{table}.parquet"
    floe_cli(floe, root, "table", "scan", f"bench.{table}", "--format", "parquet",
             "--output", str(out))
    upserts = " UNION ALL ".join(
        f"SELECT id, amount, {k} AS k FROM '{root}/src/upsert-{k}.parquet'" for k in range(commits))
    sql = f"""
    WITH base AS (SELECT id, amount, -1 AS k FROM '{root}/src/base.parquet'),
         every AS (SELECT * FROM base {'UNION ALL ' + upserts if commits else ''}),
         model AS (SELECT id, arg_max(amount, k) AS amount FROM every GROUP BY id),
         got AS (SELECT id, amount FROM '{out}')
    SELECT (SELECT count(*) FROM model), (SELECT count(*) FROM got),
           (SELECT count(*) FROM (SELECT * FROM model EXCEPT ALL SELECT * FROM got)),
           (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM model))
    """
    want, got, missing, extra = duckdb.connect().execute(sql).fetchone()
    if want == got and missing == 0 and extra == 0:
        return ""
    return f"{table}: model {want} rows, scan {got}; {missing} missing, {extra} unexpected"


def tree_rss_bytes(pid: int) -> int:
    """The resident bytes of `pid` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ppid = int(fields[1])
            rss[int(d)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, []))
    return total


def run_measured(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Runs argv; returns (wall seconds, peak RSS of its process tree in MiB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_bytes(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {err.decode()[-3000:]}")
    return wall, peak[0] / (1 << 20), out.decode()


def spark_jar() -> str:
    r = subprocess.run([str(REPO / "scripts" / "fetch-spark-runtime.sh")], capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"fetch-spark-runtime.sh failed: {r.stderr[-2000:]}")
    return r.stdout.strip()


def restore(root: Path) -> None:
    """Puts the table directory back as built: metadata names files by absolute path, so
    the pristine copy goes back to the same place rather than a copy being used."""
    wh, pristine = root / "wh", root / "pristine"
    if not pristine.exists():
        shutil.copytree(wh, pristine)
    else:
        shutil.rmtree(wh)
        shutil.copytree(pristine, wh)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=int, default=2_000_000)
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--upsert-rows", type=int, default=2_000)
    ap.add_argument("--backlog-base", type=int, default=1_000_000)
    ap.add_argument("--backlog-commits", type=int, default=1_000)
    ap.add_argument("--backlog-rows", type=int, default=200)
    ap.add_argument("--target-size", type=int, default=134_217_728)
    ap.add_argument("--tools", default="floe,spark,backlog")
    args = ap.parse_args()
    floe = os.environ.get("FLOE_BIN", str(REPO / "build" / "release" / "src" / "floe" / "exe" / "floe"))
    tools = args.tools.split(",")
    failures: list[str] = []
    results: dict[str, tuple[float, float]] = {}
    extra: dict[str, str] = {}

    if "floe" in tools or "spark" in tools:
        cdc = ROOT / ".data" / f"compaction-{args.base}-{args.commits}-{args.upsert_rows}"
        build(floe, cdc, ["cdc_floe", "cdc_spark"], args.base, args.commits, args.upsert_rows,
              args.target_size)
        restore(cdc)
        live = cdc
        work = cdc / "work"
        if work.exists():
            shutil.rmtree(work)
        work.mkdir()
        if "floe" in tools:
            argv = [floe, "optimize", "bench.cdc_floe", "--mode", "full", "--json",
                    "--threads", str(os.cpu_count() or 1),
                    "--catalog", f"file:{live}/wh", "--warehouse", str(live / "wh")]
            wall, rss, out = run_measured(argv, dict(os.environ))
            results["floe"] = (wall, rss)
            r = json.loads(out)
            extra["floe"] = (f"tasks {r['tasks']}, rewrote {r['rewritten_data_files']} data files, "
                             f"removed {r['removed_delete_files']} delete files, wrote "
                             f"{r['new_data_files']} files")
            failures += [f for f in [model_check(floe, live, "cdc_floe", args.commits, work)] if f]
        if "spark" in tools:
            jar = spark_jar()
            argv = [sys.executable, "-c", SPARK_SCRIPT, str(live / "wh"), "bench.cdc_spark", jar,
                    str(args.target_size)]
            wall, rss, out = run_measured(argv, dict(os.environ))
            results["spark"] = (wall, rss)
            r = json.loads(out.strip().splitlines()[-1])
            extra["spark"] = f"CALL alone {r['call_seconds']:.1f}s, result {r['result']}"
            failures += [f for f in [model_check(floe, live, "cdc_spark", args.commits, work)] if f]

    if "backlog" in tools:
        bl = ROOT / ".data" / f"compaction-backlog-{args.backlog_base}-{args.backlog_commits}"
        build(floe, bl, ["backlog"], args.backlog_base, args.backlog_commits, args.backlog_rows,
              args.target_size)
        restore(bl)
        live = bl
        work = bl / "work"
        if work.exists():
            shutil.rmtree(work)
        work.mkdir()
        argv = [floe, "optimize", "bench.backlog", "--mode", "full", "--json", "--memory-mb",
                "1024", "--spill-dir", str(work / "spill"), "--threads", "1",
                "--catalog", f"file:{live}/wh", "--warehouse", str(live / "wh")]
        wall, rss, out = run_measured(argv, dict(os.environ))
        results["backlog"] = (wall, rss)
        r = json.loads(out)
        extra["backlog"] = (f"{r['removed_delete_files']} delete files removed, keys read "
                            f"{r['equality_delete_keys_read']:,}, kept "
                            f"{r['equality_delete_keys_kept']:,}, spilled {r['spilled_bytes']:,} B")
        failures += [f for f in [model_check(floe, live, "backlog", args.backlog_commits, work)] if f]
        if rss > 1024:
            failures.append(f"backlog: peak RSS {rss:.0f} MiB over the 1 GiB budget")

    print(f"\n{'run':8} {'seconds':>9} {'peak RSS MiB':>13}   notes")
    for name, (wall, rss) in results.items():
        print(f"{name:8} {wall:9.2f} {rss:13.1f}   {extra.get(name, '')}")
    if "floe" in results and "spark" in results:
        f, s = results["floe"], results["spark"]
        print(f"\nspark/floe time {s[0] / f[0]:.1f}x (target >= 10), "
              f"floe/spark peak RSS {f[1] / s[1]:.3f} (target <= 0.1)")
    if failures:
        print("\nMODEL CHECKS FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("\nmodel checks: every result equals key -> latest amount")
    return 0


if __name__ == "__main__":
    sys.exit(main())

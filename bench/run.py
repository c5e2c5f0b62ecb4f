"""`make bench`: floe parquet rewrite versus pyarrow and DuckDB on the same inputs.

Not a test: it prints figures and ratios (see bench/README.md). Each tool rewrites the same
input file with the same codec and with dictionary encoding on, single-threaded, in its own
process so that its peak RSS can be read from the kernel (wait4 rusage, ru_maxrss, taken by
a minimal launcher process):
  floe     floe parquet rewrite IN OUT --codec C
  pyarrow  pa.set_cpu_count(1); pa.set_io_thread_count(1)
           pq.write_table(pq.read_table(IN, use_threads=False), OUT, compression=C,
                          use_dictionary=True)
  duckdb   SET threads=1; COPY (SELECT * FROM read_parquet(IN)) TO OUT (FORMAT parquet,
           COMPRESSION C)
Each run is repeated (default 3) and the median reported. Every output is checked: readable
by pyarrow with the input's row count, and floe's output equal to the input table.

Inputs are generated once and cached under bench/.data/ (gitignored), written by pyarrow with
snappy (and zstd for --codec zstd):
  wide     ~2M rows, 16 mixed columns: ints, longs, doubles, decimals, dates, timestamps,
           booleans, short repetitive strings (dictionary-friendly), some nulls
  strings  500k rows of long, high-cardinality strings
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DATA = ROOT / ".data"
GENERATOR_VERSION = 1

WIDE_SQL = """
SELECT
  i AS id,
  (h % 1000000)::INTEGER AS customer_id,
  (h >> 3)::BIGINT AS order_key,
  (i % 50 + 1)::INTEGER AS quantity,
  round((h % 10000000) / 100.0, 2)::DOUBLE AS price,
  CASE WHEN i % 13 = 0 THEN NULL ELSE ((h >> 7) % 100) / 1000.0 END AS discount,
  ((h % 99999999) / 100)::DECIMAL(12,2) AS amount,
  ((h >> 11) % 999999999999 / 1000000)::DECIMAL(24,6) AS balance,
  DATE '1992-01-01' + ((h >> 5) % 2500)::INTEGER AS order_date,
  TIMESTAMP '2020-01-01' + to_microseconds((h >> 13) % 100000000000000) AS created_at,
  (TIMESTAMP '2020-01-01' + to_microseconds((h >> 17) % 100000000000000))::TIMESTAMPTZ AS updated_at,
  (h % 3 = 0) AS is_priority,
  ['OPEN', 'SHIPPED', 'DELIVERED', 'RETURNED', 'CANCELLED'][(h % 5 + 1)::INTEGER] AS status,
  CASE WHEN i % 17 = 0 THEN NULL ELSE 'city-' || ((h >> 19) % 1000) END AS city,
  'segment-' || ((h >> 23) % 20) AS segment,
  CASE WHEN i % 29 = 0 THEN NULL ELSE 'note ' || ((h >> 29) % 5000) END AS note
FROM (SELECT i, (hash(i) >> 1)::BIGINT AS h FROM range({rows}) r(i))
"""

STRINGS_SQL = """
SELECT
  i AS id,
  md5(i::VARCHAR) || '/' || md5((i * 7)::VARCHAR) || '/' || repeat(md5((i * 13)::VARCHAR), 1 + (i % 4)::INTEGER) AS path,
  'https://example.invalid/' || md5((i * 3)::VARCHAR) || '?q=' || md5((i * 5)::VARCHAR) AS url,
  CASE WHEN i % 11 = 0 THEN NULL ELSE repeat(chr(65 + (i % 26)::INTEGER), 20) || md5((i * 17)::VARCHAR) || md5((i * 19)::VARCHAR) END AS body
FROM range({rows}) r(i)
"""

INPUTS = {"wide": (WIDE_SQL, 2_000_000), "strings": (STRINGS_SQL, 500_000)}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def input_path(name: str, rows: int, codec: str) -> Path:
    return DATA / f"{name}-{rows}-{codec}-g{GENERATOR_VERSION}.parquet"


def generate(name: str, rows: int, codec: str) -> Path:
    import duckdb
    import pyarrow.parquet as pq
    path = input_path(name, rows, codec)
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    log(f"generating {path.name} ...")
    sql, _ = INPUTS[name]
    con = duckdb.connect(config={"threads": 2})
    table = con.sql(sql.format(rows=rows)).to_arrow_table()
    con.close()
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp, compression=codec, use_dictionary=True)
    tmp.rename(path)
    return path


PYARROW_SCRIPT = """
import sys, time
import pyarrow as pa, pyarrow.parquet as pq
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
src, dst, codec = sys.argv[1:4]
t = time.perf_counter()
table = pq.read_table(src, use_threads=False)
pq.write_table(table, dst, compression=codec, use_dictionary=True)
print(time.perf_counter() - t)
"""

DUCKDB_SCRIPT = """
import sys, time
import duckdb
src, dst, codec = sys.argv[1:4]
con = duckdb.connect(config={"threads": 1})
q = lambda s: "'" + s.replace("'", "''") + "'"
t = time.perf_counter()
con.execute(f"COPY (SELECT * FROM read_parquet({q(src)})) TO {q(dst)} (FORMAT parquet, COMPRESSION {codec})")
print(time.perf_counter() - t)
"""


# Peak RSS must be read for the measured process alone. A child forked from this process
# (which holds pyarrow and DuckDB) would inherit its resident set until exec, and Linux keeps
# that high-water mark in ru_maxrss; so a minimal interpreter forks the tool and reports the
# tool's rusage. Its own footprint (under 10 MiB) is the floor of the figure.
LAUNCHER = """
import os, sys
result, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(result, "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def run_measured(argv: list[str], work: str) -> tuple[float, float, str]:
    """Run argv; return (wall seconds, peak RSS MiB of that process, stdout)."""
    result = os.path.join(work, "rusage")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, result] + argv,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    with open(result) as f:
        code, maxrss_kib = map(int, f.read().split())
    if proc.returncode != 0 or code != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({code}): {proc.stderr.decode()[:2000]}")
    return wall, maxrss_kib / 1024.0, proc.stdout.decode()


def tool_argv(tool: str, floe: str, src: Path, dst: Path, codec: str) -> list[str]:
    if tool == "floe":
        return [floe, "parquet", "rewrite", str(src), str(dst), "--codec", codec]
    script = PYARROW_SCRIPT if tool == "pyarrow" else DUCKDB_SCRIPT
    return [sys.executable, "-c", script, str(src), str(dst), codec]


def verify(tool: str, src: Path, dst: Path, expected_rows: int, check_values: bool) -> str:
    import pyarrow.parquet as pq
    rows = pq.read_metadata(dst).num_rows
    if rows != expected_rows:
        return f"{tool}: {rows} rows written, input has {expected_rows}"
    table = pq.read_table(dst)
    if table.num_rows != expected_rows:
        return f"{tool}: {table.num_rows} rows read back, input has {expected_rows}"
    if check_values and not table.equals(pq.read_table(src)):
        return f"{tool}: output values differ from the input"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--codec", default="snappy", choices=["snappy", "zstd"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--inputs", default="wide,strings")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the row counts (e.g. 0.05 for a quick look)")
    ap.add_argument("--tools", default="floe,pyarrow,duckdb")
    args = ap.parse_args()

    floe = os.environ.get("FLOE_BIN", "")
    tools = args.tools.split(",")
    if "floe" in tools and not (floe and os.access(floe, os.X_OK)):
        log("FLOE_BIN must name the floe binary (make bench sets it)")
        return 2

    import pyarrow.parquet as pq
    results = {}
    failures = []
    with tempfile.TemporaryDirectory(prefix="floe-bench-", dir=os.environ.get("TMPDIR")) as work:
        for name in args.inputs.split(","):
            rows = max(1, int(INPUTS[name][1] * args.scale))
            src = generate(name, rows, args.codec)
            size_mb = src.stat().st_size / 2**20
            in_rows = pq.read_metadata(src).num_rows
            for tool in tools:
                times, rss = [], []
                dst = Path(work) / f"{name}-{tool}.parquet"
                for rep in range(args.reps):
                    if dst.exists():
                        dst.unlink()
                    wall, peak, out = run_measured(tool_argv(tool, floe, src, dst, args.codec), work)
                    # Peers report the time of the work itself, without interpreter start-up
                    # and imports; floe's is its whole process.
                    seconds = wall if tool == "floe" else float(out.strip().splitlines()[-1])
                    times.append(seconds)
                    rss.append(peak)
                    if rep == 0:
                        problem = verify(tool, src, dst, in_rows, check_values=(tool == "floe"))
                        if problem:
                            failures.append(f"{name}: {problem}")
                    log(f"{name:8s} {tool:8s} run {rep + 1}: {seconds:.3f}s, {peak:.0f} MiB")
                results[(name, tool)] = (statistics.median(times), max(rss), dst.stat().st_size / 2**20)
            results[(name, "_input")] = (in_rows, size_mb)

    print()
    print(f"floe parquet rewrite vs peers -- codec {args.codec}, dictionary on, 1 thread, "
          f"median of {args.reps} runs")
    print(f"{'input':10s} {'rows':>10s} {'in MiB':>8s} {'tool':8s} {'seconds':>9s} {'peak RSS MiB':>13s} "
          f"{'out MiB':>8s} {'rows/s':>12s}")
    for name in args.inputs.split(","):
        in_rows, size_mb = results[(name, "_input")]
        for tool in tools:
            sec, peak, out_mb = results[(name, tool)]
            print(f"{name:10s} {in_rows:>10d} {size_mb:>8.1f} {tool:8s} {sec:>9.3f} {peak:>13.0f} "
                  f"{out_mb:>8.1f} {in_rows / sec:>12,.0f}")
    if "floe" in tools:
        print()
        print(f"{'input':10s} {'ratio':18s} {'time':>8s} {'peak RSS':>9s}   (target time ratio <= 1.00)")
        for name in args.inputs.split(","):
            f_sec, f_rss, _ = results[(name, "floe")]
            for peer in (t for t in tools if t != "floe"):
                p_sec, p_rss, _ = results[(name, peer)]
                verdict = "ok" if f_sec <= p_sec else "SLOWER"
                print(f"{name:10s} {'floe/' + peer:18s} {f_sec / p_sec:>8.2f} {f_rss / p_rss:>9.2f}   {verdict}")
    if failures:
        print()
        print("OUTPUT CHECKS FAILED:")
        for f in failures:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

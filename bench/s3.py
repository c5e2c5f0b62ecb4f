#!/usr/bin/env python3
"""Object storage (issue 8): what floe's reads cost on an S3-compatible store, against moto's
S3 server (PyPI moto[server]) started here on a loopback port. Not a test: it prints figures
and ratios (the S3 figures are floe's own request counts, `--stats` / the optimize's `s3`).

  optimize    a table on s3:// (SQLite catalog) of --files appends (default 40) of --rows rows
              (default 20,000), 24 columns; `floe optimize --mode full`: GETs and bytes read
              per task, against reading every input whole (one HEAD and one GET of the whole
              object each, i.e. file_size_in_bytes) and against a reader that sends one GET
              per column chunk (footer reads + row groups x columns per file, from the
              inputs' footers read by pyarrow).
  projection  `floe iceberg scan METADATA --columns id` of the table before the optimize:
              bytes read against the table's data bytes.
  throughput  `floe text convert FILE - --format none` (decode every column, write nothing)
              of one --big-rows (default 2,000,000) row Parquet file from moto and from local
              disk, best of --reps (default 3): MB/s and the ratio.
  parallel    the same scan from moto with a row group's coalesced ranges fetched one at a
              time (`s3.read-concurrency=1`) and concurrently (the default, 8): seconds,
              MB/s, the ratio, and the GETs and bytes of both (equal by design).

  make bench
  FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/s3.py --files 10 \\
      --big-rows 200000 --reps 1                      # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from run import log  # noqa: E402

ACCESS_KEY = "bench-key"
SECRET_KEY = "bench-secret"
REGION = "us-east-1"
BUCKET = "floe-bench"
COLUMNS = 24


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto(work: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log_file = open(work / "moto.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                             str(port)], stdout=log_file, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("moto did not start")


def properties(endpoint: str) -> list[str]:
    props = {"s3.endpoint": endpoint, "s3.access-key-id": ACCESS_KEY,
             "s3.secret-access-key": SECRET_KEY, "s3.region": REGION}
    return [f"--property={k}={v}" for k, v in props.items()]


def run(argv: list[str]) -> subprocess.CompletedProcess:
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])}...: exit {r.returncode}: {r.stderr[-2000:]}")
    return r


def stats_of(r: subprocess.CompletedProcess) -> dict:
    return json.loads(r.stderr.strip().splitlines()[-1])


def wide_table(rows: int, seed: int):
    import pyarrow as pa
    ids = pa.array(range(seed * rows, (seed + 1) * rows), pa.int64())
    cols = {"id": ids}
    for c in range(1, COLUMNS):
        if c % 3 == 0:
            cols[f"s{c}"] = pa.array([f"v{(i * c) % 997}" for i in range(rows)])
        else:
            cols[f"x{c}"] = pa.array([((i + seed) * (c + 7)) % 1000003 for i in range(rows)],
                                     pa.int64())
    return pa.table(cols)


def schema_arg() -> str:
    parts = ["id long not null"]
    for c in range(1, COLUMNS):
        parts.append(f"s{c} string" if c % 3 == 0 else f"x{c} long")
    return ", ".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--big-rows", type=int, default=2_000_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    floe = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))

    import boto3
    import pyarrow.parquet as pq
    from pyiceberg.catalog.sql import SqlCatalog

    with tempfile.TemporaryDirectory(prefix="floe-s3-bench-") as tmp:
        work = Path(tmp)
        moto, endpoint = start_moto(work)
        try:
            s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY,
                              aws_secret_access_key=SECRET_KEY, region_name=REGION)
            s3.create_bucket(Bucket=BUCKET)
            props = properties(endpoint)
            catalog = ["--catalog", f"sqlite:{work}/catalog.db", "--warehouse",
                       f"s3://{BUCKET}/wh", *[p.replace("--property", "--catalog-property")
                                              for p in props]]

            log(f"s3 bench: {args.files} appends of {args.rows:,} rows, {COLUMNS} columns")
            run([floe, "namespace", "create", "bench", *catalog])
            run([floe, "table", "create", "bench.wide", "--schema", schema_arg(), *catalog])
            for k in range(args.files):
                f = work / f"in-{k}.parquet"
                pq.write_table(wide_table(args.rows, k), f)
                run([floe, "table", "append", "bench.wide", str(f), *catalog])
                f.unlink()

            py = SqlCatalog("default", uri=f"sqlite:///{work}/catalog.db",
                            warehouse=f"s3://{BUCKET}/wh", **{
                                "s3.endpoint": endpoint, "s3.access-key-id": ACCESS_KEY,
                                "s3.secret-access-key": SECRET_KEY, "s3.region": REGION})
            table = py.load_table("bench.wide")
            files = table.inspect.files().to_pylist()
            data_bytes = sum(f["file_size_in_bytes"] for f in files)
            # An uncoalesced reader: footer reads (HEAD, tail, head magic) + one GET per chunk.
            chunk_gets = 0
            for f in files:
                key = f["file_path"].split(f"{BUCKET}/", 1)[1]
                local = work / "footer.parquet"
                s3.download_file(BUCKET, key, str(local))
                md = pq.read_metadata(local)
                chunk_gets += 2 + md.num_row_groups * md.num_columns

            r = run([floe, "iceberg", "scan", table.metadata_location, "--columns", "id",
                     "--output", str(work / "ids.jsonl"), "--stats", *props])
            proj = stats_of(r)

            r = run([floe, "optimize", "bench.wide", "--mode", "full", "--json", *catalog])
            opt = json.loads(r.stdout)
            tasks = max(1, opt["tasks"])
            o3 = opt.get("s3", {})

            big = work / "big.parquet"
            pq.write_table(wide_table(args.big_rows, 0), big, row_group_size=1 << 20)
            s3.upload_file(str(big), BUCKET, "big.parquet")
            size_mb = big.stat().st_size / 1e6
            timings = {}
            fetch_stats = {}
            remote = f"s3://{BUCKET}/big.parquet"
            for where, location, extra in (
                    ("local", str(big), []),
                    ("moto, sequential fetch", remote, ["--property=s3.read-concurrency=1"]),
                    ("moto", remote, [])):
                best = float("inf")
                for _ in range(args.reps):
                    start = time.perf_counter()
                    r = run([floe, "text", "convert", location, "-", "--format", "none",
                             "--stats", *props, *extra])
                    best = min(best, time.perf_counter() - start)
                timings[where] = best
                fetch_stats[where] = stats_of(r)
        finally:
            moto.terminate()
            moto.wait(timeout=10)

    print(f"\n## floe on S3 (moto {endpoint}), {len(files)} input files, "
          f"{data_bytes / 1e6:.1f} MB, {COLUMNS} columns")
    print("\n| figure | floe | whole files | ratio |")
    print("|---|---|---|---|")
    print(f"| optimize: bytes read per task | {o3.get('bytes_read', 0) / tasks / 1e6:.2f} MB | "
          f"{data_bytes / tasks / 1e6:.2f} MB | "
          f"{o3.get('bytes_read', 0) / max(1, data_bytes):.2f} |")
    print(f"| optimize: GET requests per task | {o3.get('get', 0) / tasks:.1f} | "
          f"{len(files) / tasks:.1f} | {o3.get('get', 0) / max(1, len(files)):.2f} |")
    print(f"| optimize: GETs, against one per column chunk | {o3.get('get', 0)} | "
          f"{chunk_gets} | {o3.get('get', 0) / max(1, chunk_gets):.3f} |")
    print(f"| projection `id`: bytes read | {proj['bytes_read'] / 1e6:.2f} MB | "
          f"{data_bytes / 1e6:.2f} MB | {proj['bytes_read'] / max(1, data_bytes):.3f} |")
    print(f"| projection `id`: GETs | {proj['get']} | {len(files)} | "
          f"{proj['get'] / max(1, len(files)):.2f} |")
    print(f"\noptimize: {opt['tasks']} tasks, {opt['rewritten_data_files']} files rewritten, "
          f"S3 requests {o3.get('operations', {})}")
    print(f"\n| scan of {size_mb:.0f} MB ({args.big_rows:,} rows) | seconds | MB/s |")
    print("|---|---|---|")
    for where in ("local", "moto, sequential fetch", "moto"):
        print(f"| {where} | {timings[where]:.2f} | {size_mb / timings[where]:.0f} |")
    print(f"\nmoto / local time: {timings['moto'] / timings['local']:.2f}x")
    seq, par = fetch_stats["moto, sequential fetch"], fetch_stats["moto"]
    print(f"parallel range fetch: {timings['moto, sequential fetch'] / timings['moto']:.2f}x "
          f"the sequential throughput; GETs {seq['get']} -> {par['get']}, bytes read "
          f"{seq['bytes_read']:,} -> {par['bytes_read']:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

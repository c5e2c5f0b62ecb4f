"""Text reader throughput: `floe text convert IN - --format none` (read, check, count)
against pyarrow.json.read_json and pyarrow.csv.read_csv with an explicit schema, on the same
1M-row file with 8 mixed columns. Not a test: prints rows/s, MB/s, wall and CPU seconds.

  FLOE_BIN=build/release/src/floe/exe/floe /work/main/.venv/bin/python bench/text_bench.py

pyarrow is multithreaded by default; it is run both with its default thread pool and with
one thread (use_threads=False). CPU time is the process's user + system time (for floe,
of the child process, from wait4; for pyarrow, resource.getrusage around the call).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.json as pjson

ROWS = int(os.environ.get("ROWS", "1000000"))
DATA = Path(__file__).resolve().parent / ".data"

ICEBERG = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "qty", "required": False, "type": "int"},
    {"id": 3, "name": "price", "required": False, "type": "double"},
    {"id": 4, "name": "amount", "required": False, "type": "decimal(12, 2)"},
    {"id": 5, "name": "created", "required": False, "type": "timestamp"},
    {"id": 6, "name": "ts", "required": False, "type": "timestamptz"},
    {"id": 7, "name": "name", "required": False, "type": "string"},
    {"id": 8, "name": "flag", "required": False, "type": "boolean"},
]}
ARROW = pa.schema([("id", pa.int64()), ("qty", pa.int32()), ("price", pa.float64()),
                   ("amount", pa.decimal128(12, 2)), ("created", pa.timestamp("us")),
                   ("ts", pa.timestamp("us", tz="UTC")), ("name", pa.string()),
                   ("flag", pa.bool_())])
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def generate():
    DATA.mkdir(exist_ok=True)
    jsonl, csv = DATA / f"text2_{ROWS}.jsonl", DATA / f"text2_{ROWS}.csv"
    if jsonl.exists() and csv.exists():
        return jsonl, csv
    rnd = random.Random(7)
    with open(jsonl, "w") as fj, open(csv, "w") as fc:
        fc.write("id,qty,price,amount,created,ts,name,flag\n")
        for i in range(ROWS):
            qty = rnd.randrange(1000) if rnd.random() > 0.05 else None
            price = round(rnd.uniform(0, 10000), 4)
            amount = f"{rnd.randrange(-10**9, 10**9) / 100:.2f}"
            day = f"20{rnd.randrange(10, 30)}-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}"
            created = f"{day} {rnd.randrange(24):02d}:{rnd.randrange(60):02d}:{rnd.randrange(60):02d}"
            ts = f"{day}T{rnd.randrange(24):02d}:{rnd.randrange(60):02d}:{rnd.randrange(60):02d}.{rnd.randrange(10**6):06d}+00:00"
            name = f"{rnd.choice(WORDS)} {rnd.randrange(100000)}"
            flag = rnd.random() < 0.5
            fj.write(json.dumps({"id": i, "qty": qty, "price": price, "amount": amount, "created": created,
                                 "ts": ts, "name": name, "flag": flag}) + "\n")
            fc.write(f"{i},{'' if qty is None else qty},{price},{amount},{created},{ts},{name},"
                     f"{'true' if flag else 'false'}\n")
    return jsonl, csv


def run_floe(floe, path):
    start = time.monotonic()
    p = subprocess.Popen([floe, "text", "convert", str(path), "-", "--format", "none",
                          "--schema-json", json.dumps(ICEBERG)], stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    assert os.waitstatus_to_exitcode(status) == 0 and out.startswith(f"{ROWS} rows".encode()), out
    return wall, ru.ru_utime + ru.ru_stime


def run_pyarrow(fn, path, threads):
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.monotonic()
    t = fn(path, threads)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert t.num_rows == ROWS
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pa_json(path, threads):
    return pjson.read_json(path, read_options=pjson.ReadOptions(use_threads=threads),
                           parse_options=pjson.ParseOptions(explicit_schema=ARROW))


def pa_csv(path, threads):
    return pcsv.read_csv(path, read_options=pcsv.ReadOptions(use_threads=threads),
                         convert_options=pcsv.ConvertOptions(column_types=ARROW,
                                                             strings_can_be_null=True))


def main():
    floe = os.environ.get("FLOE_BIN", "build/release/src/floe/exe/floe")
    jsonl, csv = generate()
    print(f"{ROWS} rows, 8 columns; pyarrow {pa.__version__}, cpu_count {pa.cpu_count()}")
    print(f"{'reader':<28}{'wall s':>8}{'cpu s':>8}{'rows/s':>12}{'MB/s':>8}")
    for label, path, fn in (("jsonl", jsonl, pa_json), ("csv", csv, pa_csv)):
        mb = path.stat().st_size / 1e6
        results = [("floe " + label, min((run_floe(floe, path) for _ in range(3)), key=lambda r: r[0]))]
        for threads in (True, False):
            name = f"pyarrow {label} {'mt' if threads else '1t'}"
            results.append((name, min((run_pyarrow(fn, path, threads) for _ in range(3)),
                                      key=lambda r: r[0])))
        for name, (wall, cpu) in results:
            print(f"{name:<28}{wall:>8.3f}{cpu:>8.3f}{ROWS / wall:>12,.0f}{mb / wall:>8.1f}")
        print(f"  file {mb:.1f} MB")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Many CDC table topics on one `floe server` with its defaults, under a steady load. Not a
test: it prints a table per sample, slopes and costs, and checks every table at the end.

What a CDC user with thousands of tables runs (issue "10,000 CDC tables"):
1. TABLES keyed table topics (`id.columns=[id]`, `cdc.field=op`: I / U / D; --delete-mode
   position, the default, or equality), one partition each, committed every
   --commit-interval-ms; an initial load of --keys keys per table;
2. a steady mixed load of --rate records/s per table for --minutes minutes: --delete-share
   of them delete a live key, the rest upsert a random key of the key space (a deleted key
   comes back as an insert later, as in a real CDC stream);
3. every --sample-seconds, one row per sample: per table (the maximum over the tables) the
   live equality-delete, position-delete (files and deletion vectors), data and small
   (< --small-bytes) files, live files, manifests of the current snapshot, snapshots,
   metadata.json bytes and the metadata folder (files, bytes), read straight from the
   warehouse (the JDBC catalog's `iceberg_tables`, the metadata JSON, the manifest list and
   manifests with fastavro; manifests are immutable, so each is read once); the topics'
   translation lag (management API); floe's RSS and CPU (from /proc), the optimizer's task
   CPU (`floe_optimizer_cpu_seconds_total`) and the CPU of each thread family (/proc tasks);
4. the least-squares slopes of RSS (MiB/min) and CPU (% of a core per minute, per minute)
   over the last --slope-minutes, CPU seconds per table-hour (all of floe, and the
   optimizer's), and the maxima against the targets;
5. every table read by Iceberg Java (IcebergGenerics, all deletes applied, one JVM) against
   the model the load generator kept; without the Java harness, by `floe table scan`.

With --registered N, N further tables (copies of one real table's metadata, registered in
the metastore as bench/dashboard.py does) sit beside the active ones, and the dashboard
routes of bench/dashboard.py are timed under the load (one client; p99 against --bound-ms).

    FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/scale.py \
        --tables 200 --rate 10 --minutes 15
    ... --tables 1000 --rate 10 --minutes 30                       # the issue's target run
    ... --tables 1000 --registered 9000 --minutes 10               # 10,000 tables, 1,000 active

The generator and the checks run in this process, on the same cores as floe: its own CPU
is printed beside floe's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))
sys.path.insert(1, str(ROOT))

import fastavro  # noqa: E402
from confluent_kafka import Producer  # noqa: E402

from floe_server import FloeServer  # noqa: E402
from kafka_topics import create_topic  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = 1000
NAMESPACE = "kafka"


# ---- the model ---------------------------------------------------------------------------

def next_version(current: int) -> int:
    """The versions array holds v >= 0 for a live key, -1 for a key never written and -2 - v
    for a key deleted at version v: an upsert after a delete takes version v + 1."""
    if current >= 0:
        return current + 1
    if current == -1:
        return 0
    return -2 - current + 1


class Model:
    """Each table's keys as one array of versions (see next_version). A row's other columns are a function of (table, key, version), so
    the model of 1,000 tables x 5,000 keys is 20 MB, not millions of dicts."""

    def __init__(self, tables: int, keys: int):
        self.keys = keys
        self.versions = [array("i", [-1]) * keys for _ in range(tables)]
        self.live = [[] for _ in range(tables)]  # live keys, for picking a delete
        self.slot = [array("i", [-1]) * keys for _ in range(tables)]  # key -> index in live

    @staticmethod
    def row(table: int, key: int, version: int) -> dict:
        return {"id": key, "v": f"t{table}k{key}v{version}", "n": (key * 31 + version) % 1000}

    def upsert(self, table: int, key: int) -> dict:
        versions = self.versions[table]
        versions[key] = next_version(versions[key])
        if self.slot[table][key] < 0:
            self.slot[table][key] = len(self.live[table])
            self.live[table].append(key)
        return self.row(table, key, versions[key])

    def delete(self, table: int, rng: random.Random) -> int | None:
        live = self.live[table]
        if not live:
            return None
        i = rng.randrange(len(live))
        key = live[i]
        last = live.pop()
        if i < len(live):
            live[i] = last
            self.slot[table][last] = i
        self.slot[table][key] = -1
        # Keep the version (negated, below -1) so a later insert continues the sequence.
        self.versions[table][key] = -2 - self.versions[table][key]
        return key

    def expected(self, table: int) -> dict[int, dict]:
        out = {}
        for key, version in enumerate(self.versions[table]):
            if version >= 0:
                out[key] = self.row(table, key, version)
        return out




# ---- the load ----------------------------------------------------------------------------

class Load:
    """Produces to the topics: the initial load, then --rate records/s per table, in slices
    of 100 ms, on a thread of its own."""

    def __init__(self, bootstrap: str, topics: list[str], model: Model, rate: float,
                 delete_share: float, seed: int):
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                  "enable.idempotence": True, "linger.ms": 20,
                                  "batch.num.messages": 10000,
                                  "queue.buffering.max.messages": 1_000_000})
        self.topics, self.model, self.rate = topics, model, rate
        self.delete_share = delete_share
        self.rng = random.Random(seed)
        self.produced = 0
        self.failed = 0
        self.behind_s = 0.0  # how far the generator fell behind its schedule, at most
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _delivered(self, err, _msg):
        if err is not None:
            self.failed += 1

    def send(self, table: int, value: dict) -> None:
        payload = json.dumps(value).encode()
        key = str(value["id"]).encode()
        while True:
            try:
                self.producer.produce(self.topics[table], key=key, value=payload,
                                      on_delivery=self._delivered)
                break
            except BufferError:
                self.producer.poll(0.05)
        self.produced += 1

    def initial(self, keys: int) -> None:
        for table in range(len(self.topics)):
            for key in range(keys):
                self.send(table, {**self.model.upsert(table, key), "op": "I"})
            self.producer.poll(0)
        if self.producer.flush(600) != 0:
            raise RuntimeError("the initial load was not acknowledged")

    def one(self) -> None:
        table = self.rng.randrange(len(self.topics))
        if self.rng.random() < self.delete_share:
            key = self.model.delete(table, self.rng)
            if key is not None:
                self.send(table, {"id": key, "op": "D"})
                return
        key = self.rng.randrange(self.model.keys)
        op = "U" if self.model.versions[table][key] >= 0 else "I"
        self.send(table, {**self.model.upsert(table, key), "op": op})

    def _run(self) -> None:
        per_slice = self.rate * len(self.topics) / 10
        start = time.monotonic()
        owed = 0.0
        slices = 0
        while not self.stop.is_set():
            owed += per_slice
            while owed >= 1:
                self.one()
                owed -= 1
            self.producer.poll(0)
            slices += 1
            wait = start + slices / 10 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            else:
                self.behind_s = max(self.behind_s, -wait)

    def finish(self) -> None:
        self.stop.set()
        self.thread.join()
        unacked = self.producer.flush(600)
        self.producer = None  # closes its connections before the server stops
        if unacked != 0:
            raise RuntimeError(f"{unacked} records were not acknowledged")
        if self.failed:
            raise RuntimeError(f"{self.failed} records failed delivery")


# ---- reading the tables ------------------------------------------------------------------

class TableFiles:
    """A table's live files, manifests and metadata, read from the warehouse."""

    def __init__(self, small_bytes: int):
        self.small_bytes = small_bytes
        self.manifests: dict[str, tuple[int, int, int, int, int]] = {}

    def manifest_counts(self, path: str) -> tuple[int, int, int, int, int]:
        """(data, small data, position deletes incl. DVs, equality deletes, bytes) of the
        live entries."""
        cached = self.manifests.get(path)
        if cached is not None:
            return cached
        data = small = pos = eq = size = 0
        with open(path.removeprefix("file:").removeprefix("//"), "rb") as f:
            for entry in fastavro.reader(f):
                if entry["status"] == 2:  # DELETED
                    continue
                df = entry["data_file"]
                content = df.get("content", 0)
                if content == 0:
                    data += 1
                    if df["file_size_in_bytes"] < self.small_bytes:
                        small += 1
                elif content == 1:
                    pos += 1
                else:
                    eq += 1
        size = os.path.getsize(path.removeprefix("file:").removeprefix("//"))
        self.manifests[path] = (data, small, pos, eq, size)
        return self.manifests[path]

    def read(self, metadata_location: str) -> dict:
        path = metadata_location.removeprefix("file:").removeprefix("//")
        meta_bytes = os.path.getsize(path)
        with open(path, "rb") as f:
            meta = json.load(f)
        folder = Path(path).parent
        folder_files = folder_bytes = 0
        for e in os.scandir(folder):
            if e.is_file():
                folder_files += 1
                folder_bytes += e.stat().st_size
        out = {"snapshots": len(meta.get("snapshots", [])), "metadata_bytes": meta_bytes,
               "folder_files": folder_files, "folder_bytes": folder_bytes,
               "data": 0, "small": 0, "pos": 0, "eq": 0, "manifests": 0, "manifest_bytes": 0}
        current = meta.get("current-snapshot-id")
        snap = next((s for s in meta.get("snapshots", []) if s["snapshot-id"] == current), None)
        if snap is None:
            return out
        ml = snap["manifest-list"].removeprefix("file:").removeprefix("//")
        with open(ml, "rb") as f:
            manifests = [m["manifest_path"] for m in fastavro.reader(f)]
        out["manifests"] = len(manifests)
        for m in manifests:
            data, small, pos, eq, size = self.manifest_counts(m)
            out["data"] += data
            out["small"] += small
            out["pos"] += pos
            out["eq"] += eq
            out["manifest_bytes"] += size
        return out


def metadata_locations(db_path: Path, names: set[str]) -> dict[str, str]:
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute("SELECT table_name, metadata_location FROM iceberg_tables "
                          "WHERE table_namespace = ?", (NAMESPACE,)).fetchall()
    finally:
        db.close()
    return {name: loc for name, loc in rows if name in names}


# ---- process figures ---------------------------------------------------------------------

def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def thread_cpu(pid: int) -> tuple[dict[str, float], int]:
    """CPU seconds per thread family (the name without its trailing number) and the number
    of threads."""
    families: dict[str, float] = {}
    count = 0
    for task in os.scandir(f"/proc/{pid}/task"):
        try:
            stat = Path(task.path, "stat").read_text()
        except OSError:
            continue
        count += 1
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        family = re.sub(r"[-_]?\d+$", "", name) or name
        families[family] = families.get(family, 0.0) + (int(fields[11]) + int(fields[12])) / CLK_TCK
    return families, count


def metric_sum(text: str, name: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and (line[len(name)] in " {"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and its standard error."""
    n = len(xs)
    if n < 3:
        return float("nan"), float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    resid = sum((y - my - b * (x - mx)) ** 2 for x, y in zip(xs, ys))
    se = (resid / (n - 2) / sxx) ** 0.5
    return b, se


# ---- the run -----------------------------------------------------------------------------

class Api:
    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def get(self, path: str):
        for attempt in range(3):
            try:
                self.conn.request("GET", path)
                resp = self.conn.getresponse()
                body = resp.read()
                if resp.status != 200:
                    raise RuntimeError(f"GET {path}: {resp.status} {body[:300]!r}")
                return json.loads(body) if path != "/metrics" else body.decode()
            except (http.client.HTTPException, OSError):
                if attempt == 2:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def topics(self) -> list[dict]:
        items, token = [], ""
        while True:
            page = self.get(f"/api/v1/topics?page-size={PAGE}" + (f"&page-token={token}" if token else ""))
            items += page["items"]
            token = page.get("next-page-token")
            if not token:
                return items


def wait_translated(api: Api, topics: set[str], produced: int, timeout: float) -> float:
    start = time.monotonic()
    while True:
        items = [t for t in api.topics() if t["name"] in topics]
        records = sum(t["records"] for t in items)
        lag = sum(t["translation-lag-offsets"] or 0 for t in items)
        committed = all(t.get("last-commit-at-ms") is not None for t in items)
        if len(items) == len(topics) and records >= produced and lag == 0 and committed:
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"not translated after {timeout:.0f} s: {records}/{produced} "
                               f"records in the logs, lag {lag} offsets")
        time.sleep(1)


def check_tables(server: FloeServer, names: list[str], model: Model) -> tuple[str, list[str]]:
    """Every table against the model: by Iceberg Java when its harness is built, else by
    `floe table scan`. Returns (reader, mismatches)."""
    rows_by_table: dict[str, list[dict]] = {}
    try:
        import iceberg_java
        harness = iceberg_java.build_harness()
        java = harness.rest_catalog(server.uri)
        reader = "Iceberg Java (IcebergGenerics)"
        for start in range(0, len(names), 100):
            chunk = names[start:start + 100]
            lines = harness.batch([java.argv("scan", f"{NAMESPACE}.{n}", "--columns", "id,v,n")
                                   for n in chunk], timeout=3600)
            # The batch prints the rows of every scan one after the other; a row's `v`
            # ("t<table>k<key>v<version>") names its table.
            for line in lines:
                row = json.loads(line)
                m = re.match(r"t(\d+)k", str(row.get("v")))
                owner = names[int(m.group(1))] if m and int(m.group(1)) < len(names) else "?"
                rows_by_table.setdefault(owner, []).append(row)
    except Exception as e:  # noqa: BLE001 - fall back to floe's own reader, said in the output
        print(f"Iceberg Java not available ({type(e).__name__}: {str(e)[:200]}); "
              "checking with `floe table scan`")
        reader = "floe table scan"
        rows_by_table = {}
        for n in names:
            out = subprocess.run([server.floe_bin, "table", "scan", "--catalog",
                                  f"rest:{server.uri}", f"{NAMESPACE}.{n}"],
                                 capture_output=True, text=True, timeout=600)
            if out.returncode != 0:
                raise RuntimeError(out.stderr[-2000:])
            rows_by_table[n] = [json.loads(line) for line in out.stdout.splitlines() if line]
    bad = []
    if rows_by_table.get("?"):
        bad.append(f"{len(rows_by_table['?'])} rows of no table")
    for i, n in enumerate(names):
        rows = rows_by_table.get(n, [])
        got = {r["id"]: {"id": r["id"], "v": r["v"], "n": r["n"]} for r in rows}
        want = model.expected(i)
        if len(rows) != len(got):
            bad.append(f"{n}: {len(rows) - len(got)} keys live twice")
        elif got != want:
            missing = len(want.keys() - got.keys())
            extra = len(got.keys() - want.keys())
            differ = sum(1 for k in want.keys() & got.keys() if want[k] != got[k])
            bad.append(f"{n}: {missing} missing, {extra} extra, {differ} differ")
    return reader, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--rate", type=float, default=10.0, help="records/s per table")
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--keys", type=int, default=5000)
    ap.add_argument("--delete-share", type=float, default=0.1)
    ap.add_argument("--commit-interval-ms", type=int, default=10_000)
    ap.add_argument("--sample-seconds", type=float, default=60.0)
    ap.add_argument("--slope-minutes", type=float, default=20.0)
    ap.add_argument("--small-bytes", type=int, default=16 << 20)
    ap.add_argument("--registered", type=int, default=0,
                    help="inactive tables registered beside the active ones")
    ap.add_argument("--bound-ms", type=float, default=200.0)
    ap.add_argument("--no-check", action="store_true", help="skip reading every table at the end")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--delete-mode", choices=("position", "equality"), default="position",
                    help="the topics' floe.table.topic.delete.mode (run both to compare the "
                         "optimizer CPU per table-hour)")
    ap.add_argument("--keep", help="keep the data directory here instead of a temporary one")
    args = ap.parse_args()
    floe = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))

    tmp = None
    if args.keep:
        base = Path(args.keep)
        base.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="floe-scale-bench.")
        base = Path(tmp.name)
    server = FloeServer(floe, base / "data", optimizer=True, access_log=False, kafka=True)
    server.start()
    failed: list[str] = []
    try:
        if args.registered:
            import dashboard
            t0 = time.monotonic()
            dashboard.build_fixture(server, args.registered)  # stops the server
            server.start()
            print(f"registered {args.registered} inactive tables in {time.monotonic() - t0:.1f} s")
        api = Api(server.port)
        pid = server.proc.pid
        names = [f"cdc_{i:05d}" for i in range(args.tables)]
        config = {"floe.table.topic.enable": "true",
                  "floe.table.topic.commit.interval.ms": str(args.commit_interval_ms),
                  "floe.table.topic.convert.value.type": "json",
                  "floe.table.topic.transform.value.type": "flatten",
                  "floe.table.topic.id.columns": "[id]",
                  "floe.table.topic.cdc.field": "op",
                  "floe.table.topic.delete.mode": args.delete_mode}
        t0 = time.monotonic()
        for n in names:
            create_topic(server.kafka_bootstrap, n, partitions=1, config=config)
        print(f"{args.tables} table topics created in {time.monotonic() - t0:.1f} s")

        model = Model(args.tables, args.keys)
        load = Load(server.kafka_bootstrap, names, model, args.rate, args.delete_share, args.seed)
        t0 = time.monotonic()
        load.initial(args.keys)
        produced_s = time.monotonic() - t0
        translated_s = wait_translated(api, set(names), load.produced, timeout=1800)
        print(f"initial load: {load.produced} records produced in {produced_s:.1f} s, "
              f"translated {translated_s:.1f} s later")

        files = TableFiles(args.small_bytes)
        header = (f"{'min':>5} {'eq':>3} {'pos':>4} {'data':>4} {'small':>5} {'live':>4} "
                  f"{'mani':>4} {'snaps':>5} {'meta KB':>8} {'dir files':>9} {'dir MB':>7} "
                  f"{'lag s':>6} {'RSS MiB':>8} {'CPU %':>6} {'opt %':>6} {'bench %':>7} "
                  f"{'threads':>7} {'read s':>6}")
        print(f"\nsteady load: {args.rate:g} records/s per table ({args.rate * args.tables:g}/s "
              f"in all), {args.delete_share:.0%} deletes, commits every "
              f"{args.commit_interval_ms / 1000:g} s; maxima over the tables per sample\n")
        print(header)
        samples = []
        worst = {"eq": 0, "live": 0, "manifests": 0, "folder_files": 0, "folder_bytes": 0,
                 "metadata_bytes": 0, "lag": 0.0}
        load.thread.start()
        t_start = time.monotonic()
        cpu0, opt0 = proc_cpu_seconds(pid), metric_sum(api.get("/metrics"),
                                                      "floe_optimizer_cpu_seconds_total")
        bench0 = time.process_time()
        families0, _ = thread_cpu(pid)
        last = (t_start, cpu0, opt0, bench0)
        dashboard_times: dict[str, list[float]] = {}
        end = t_start + args.minutes * 60
        next_sample = t_start + args.sample_seconds
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if args.registered:
                import dashboard
                for name, path in dashboard.ROUTES:
                    t = time.perf_counter()
                    api.get(path)
                    dashboard_times.setdefault(name, []).append((time.perf_counter() - t) * 1000)
            time.sleep(max(0.0, min(next_sample, end) - time.monotonic()) if not args.registered
                       else 1.0)
            if time.monotonic() < next_sample:
                continue
            next_sample += args.sample_seconds
            read_t0 = time.monotonic()
            locations = metadata_locations(server.data_dir / "floe.db", set(names))
            per = [files.read(locations[n]) for n in names if n in locations]
            read_s = time.monotonic() - read_t0
            topics = [t for t in api.topics() if t["name"] in set(names)]
            lag = max((t["translation-lag-seconds"] or 0) for t in topics) if topics else 0
            t_now = time.monotonic()
            cpu, opt = proc_cpu_seconds(pid), metric_sum(api.get("/metrics"),
                                                        "floe_optimizer_cpu_seconds_total")
            bench_cpu = time.process_time()
            _, threads = thread_cpu(pid)
            dt = t_now - last[0]
            row = {"minute": (t_now - t_start) / 60,
                   "eq": max(p["eq"] for p in per), "pos": max(p["pos"] for p in per),
                   "data": max(p["data"] for p in per), "small": max(p["small"] for p in per),
                   "live": max(p["data"] + p["pos"] + p["eq"] for p in per),
                   "manifests": max(p["manifests"] for p in per),
                   "snapshots": max(p["snapshots"] for p in per),
                   "metadata_bytes": max(p["metadata_bytes"] for p in per),
                   "folder_files": max(p["folder_files"] for p in per),
                   "folder_bytes": max(p["folder_bytes"] for p in per),
                   "lag": lag, "rss": proc_rss_mib(pid),
                   "cpu": 100 * (cpu - last[1]) / dt, "opt": 100 * (opt - last[2]) / dt,
                   "bench": 100 * (bench_cpu - last[3]) / dt, "threads": threads,
                   "read_s": read_s}
            last = (t_now, cpu, opt, bench_cpu)
            samples.append(row)
            for k in worst:
                worst[k] = max(worst[k], row[k])
            print(f"{row['minute']:5.1f} {row['eq']:3d} {row['pos']:4d} {row['data']:4d} "
                  f"{row['small']:5d} {row['live']:4d} {row['manifests']:4d} "
                  f"{row['snapshots']:5d} {row['metadata_bytes'] / 1024:8.1f} "
                  f"{row['folder_files']:9d} {row['folder_bytes'] / 2**20:7.1f} "
                  f"{row['lag']:6.1f} {row['rss']:8.1f} {row['cpu']:6.1f} {row['opt']:6.1f} "
                  f"{row['bench']:7.1f} {row['threads']:7d} {row['read_s']:6.1f}", flush=True)
        load.finish()
        elapsed_h = (time.monotonic() - t_start) / 3600
        cpu_total = proc_cpu_seconds(pid) - cpu0
        opt_total = metric_sum(api.get("/metrics"), "floe_optimizer_cpu_seconds_total") - opt0
        families1, _ = thread_cpu(pid)

        print(f"\nproduced {load.produced} records; the generator fell behind its schedule by "
              f"{load.behind_s:.2f} s at most")
        tail = [s for s in samples if s["minute"] >= samples[-1]["minute"] - args.slope_minutes] \
            if samples else []
        for key, unit in (("rss", "MiB/min"), ("cpu", "% of a core per minute, per minute")):
            b, se = slope([s["minute"] for s in tail], [s[key] for s in tail])
            flat = abs(b) <= 2 * se if se == se else False
            print(f"slope of {key.upper()} over the last {len(tail)} samples: {b:+.3f} ± {se:.3f} "
                  f"{unit} ({'flat' if flat else 'NOT flat'} at 2 standard errors)")
        table_hours = args.tables * elapsed_h
        print(f"CPU per table-hour: floe {cpu_total / table_hours:.2f} s, optimizer tasks "
              f"{opt_total / table_hours:.2f} s ({args.tables} tables, {elapsed_h * 60:.1f} min)")
        top = sorted(((families1.get(f, 0) - families0.get(f, 0), f) for f in families1),
                     reverse=True)[:8]
        print("CPU by thread family over the load: " +
              ", ".join(f"{f} {s:.1f} s" for s, f in top if s > 0.05))
        print(f"maxima: equality-delete files {worst['eq']}, live files {worst['live']}, "
              f"manifests per snapshot {worst['manifests']}, metadata.json "
              f"{worst['metadata_bytes'] / 1024:.0f} KB, metadata folder {worst['folder_files']} "
              f"files / {worst['folder_bytes'] / 2**20:.1f} MB, lag {worst['lag']:.1f} s "
              f"({worst['lag'] * 1000 / args.commit_interval_ms:.1f} commit intervals)")
        targets = [("lag <= 2 commit intervals", worst["lag"] * 1000 <= 2 * args.commit_interval_ms),
                   ("<= 12 equality-delete files per table", worst["eq"] <= 12),
                   *([("no equality-delete file (delete.mode position)", worst["eq"] == 0)]
                     if args.delete_mode == "position" else []),
                   ("<= 20 live files per table", worst["live"] <= 20),
                   ("<= 20 manifests per snapshot", worst["manifests"] <= 20),
                   ("floe CPU <= 5 s per table-hour", cpu_total / table_hours <= 5),
                   ("optimizer CPU <= 1.5 s per table-hour", opt_total / table_hours <= 1.5)]
        for name, held in targets:
            print(f"  {'held  ' if held else 'MISSED'} {name}")
            if not held:
                failed.append(name)
        if dashboard_times:
            print(f"\ndashboard routes under the load ({args.tables + args.registered} tables, "
                  "one client):")
            print(f"{'route':22} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
            for name, times in dashboard_times.items():
                ordered = sorted(times)
                p50 = ordered[len(ordered) // 2]
                p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
                print(f"{name:22} {p50:8.1f} {p99:8.1f} {ordered[-1]:8.1f}")
                if p99 >= args.bound_ms:
                    failed.append(f"{name} p99 {p99:.0f} ms")

        if not args.no_check:
            wait_translated(api, set(names), load.produced, timeout=1800)
            time.sleep(args.commit_interval_ms / 1000 + 2)  # and committed
            t0 = time.monotonic()
            reader, bad = check_tables(server, names, model)
            print(f"\n{len(names) - len(bad)} of {len(names)} tables equal the model, read by "
                  f"{reader} in {time.monotonic() - t0:.0f} s")
            for line in bad[:20]:
                print(f"  {line}")
            if bad:
                failed.append(f"{len(bad)} tables differ from the model")
    finally:
        server.stop()
        if tmp is not None:
            tmp.cleanup()
    if failed:
        print("\nMISSED: " + "; ".join(failed))
        return 1
    print("\nevery target held")
    return 0


if __name__ == "__main__":
    sys.exit(main())

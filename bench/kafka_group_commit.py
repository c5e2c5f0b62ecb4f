#!/usr/bin/env python3
"""Kafka group commit (issue 20, "10,000 CDC tables"): many producers on many partitions
against `floe server` with its default `kafka.fsync: batch`. Not a test: it prints figures.

Creates --topics plain topics of one partition each (a CDC table topic per table, without
the translator, so that only the broker is measured), then runs --producers confluent-kafka
(librdkafka) producers on threads for --seconds, each sending --record-bytes records
round-robin over every topic (acks=all, idempotence on, linger.ms 5), from 4 processes. Measured over
that window:

- produce throughput: records acknowledged per second, and the delivery latency p50 / p99
  (librdkafka's per-message latency, produce() to acknowledgement);
- the CPU of floe's busiest thread (the Kafka io thread: `kafka-io` where threads are named,
  otherwise the thread with the most CPU), and the whole process's, from /proc;
- fdatasyncs: with --strace a second run of the same load under `strace -f -c -e
  trace=fdatasync` counts them (strace slows every system call, so throughput is taken from
  the first run); without, the group-commit counters of /metrics when the binary has them.

Run it once per binary (before and after) on the same machine:

    FLOE_BIN=/work/main/build/release/src/floe/exe/floe .venv/bin/python \\
        bench/kafka_group_commit.py --strace
    FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/kafka_group_commit.py --strace
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# bench/kafka/ would shadow the kafka-python package: bench/ stays off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from floe_server import FloeServer  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """tid -> (name, CPU seconds) of every thread of `pid`."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
            name = (task / "comm").read_text().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(task.name)] = (name, (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


def metrics(server: FloeServer) -> dict[str, float]:
    text = urllib.request.urlopen(server.uri + "/metrics", timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(floe_kafka_log_\w+) ([0-9.e+]+)$", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def producer_process(bootstrap: str, topics: list[str], first: int, count: int,
                     seconds: float, record: bytes, out) -> None:
    """`count` producers on threads of one process (librdkafka does the I/O on its own
    threads; the Python loop only enqueues); sends (acked, failed, latencies) to `out`."""
    acked = [0] * count
    failed = [0] * count
    latencies: list[list[float]] = [[] for _ in range(count)]
    deadline = time.monotonic() + seconds

    def produce(i: int) -> None:
        p = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                      "enable.idempotence": True, "linger.ms": 5,
                      "queue.buffering.max.messages": 2000,
                      "client.id": f"bench-{first + i}"})

        def delivered(err, msg):
            if err is None:
                acked[i] += 1
                if acked[i] % 16 == 0:
                    latencies[i].append(msg.latency())
            else:
                failed[i] += 1

        n = first + i
        while time.monotonic() < deadline:
            for _ in range(100):
                try:
                    p.produce(topics[n % len(topics)], value=record, on_delivery=delivered)
                    n += 1
                except BufferError:
                    p.poll(0.002)
            p.poll(0)
        p.flush(60)

    threads = [threading.Thread(target=produce, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.send((sum(acked), sum(failed), [x for lat in latencies for x in lat]))


def run_load(bootstrap: str, topics: list[str], producers: int, seconds: float,
             record: bytes, processes: int = 4) -> tuple[int, int, list[float]]:
    """Produces for `seconds` from `producers` producers spread over `processes` processes
    (one Python interpreter would be the bottleneck); returns (acknowledged records,
    failed, latencies in s)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    procs = []
    per = -(-producers // processes)
    for first in range(0, producers, per):
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=producer_process,
                           args=(bootstrap, topics, first, min(per, producers - first),
                                 seconds, record, send))
        proc.start()
        procs.append((proc, recv))
    acked = failed = 0
    latencies: list[float] = []
    for proc, recv in procs:
        a, f, lat = recv.recv()
        proc.join()
        acked += a
        failed += f
        latencies += lat
    return acked, failed, sorted(latencies)


def percentile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--producers", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup-seconds", type=float, default=5)
    ap.add_argument("--record-bytes", type=int, default=200)
    ap.add_argument("--strace", action="store_true", help="also count fdatasyncs with strace")
    args = ap.parse_args()
    floe_bin = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))
    record = (b"{\"op\":\"u\",\"id\":0,\"payload\":\"" +
              b"x" * max(0, args.record_bytes - 30) + b"\"}")[:args.record_bytes]

    with tempfile.TemporaryDirectory(prefix="floe-gc-bench.") as tmp, \
            FloeServer(floe_bin, Path(tmp) / "data", kafka=True) as server:
        bootstrap = server.kafka_bootstrap
        topics = [f"cdc.table{i:05d}" for i in range(args.topics)]
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for f in admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)
                                      for t in topics]).values():
            f.result(timeout=60)
        del admin  # the producers' processes are forked: no client threads to inherit
        pid = server.proc.pid
        run_load(bootstrap, topics, args.producers, args.warmup_seconds, record)

        m0 = metrics(server)
        cpu0 = thread_cpu(pid)
        t0 = time.monotonic()
        acked, failed, lat = run_load(bootstrap, topics, args.producers, args.seconds, record)
        wall = time.monotonic() - t0
        cpu1 = thread_cpu(pid)
        m1 = metrics(server)

        per_thread = sorted(((cpu1[t][1] - cpu0.get(t, ("", 0.0))[1], cpu1[t][0], t)
                             for t in cpu1), reverse=True)
        io = next((x for x in per_thread if x[1] == "kafka-io"), per_thread[0])
        total_cpu = sum(x[0] for x in per_thread)
        print(f"binary: {floe_bin}")
        print(f"load: {args.producers} producers, {args.topics} topics x 1 partition, "
              f"{args.record_bytes}-byte records, acks=all, idempotent, linger.ms=5, "
              f"{wall:.1f} s")
        print(f"throughput: {acked / wall:,.0f} records/s acknowledged ({failed} failed), "
              f"{acked * args.record_bytes / wall / 2**20:.1f} MiB/s")
        print(f"delivery latency: p50 {percentile(lat, 0.5) * 1000:.1f} ms, "
              f"p99 {percentile(lat, 0.99) * 1000:.1f} ms")
        print(f"io thread ({io[1]}, tid {io[2]}): {io[0] / wall * 100:.0f}% of a core; "
              f"process: {total_cpu / wall * 100:.0f}%")
        busiest = ", ".join(f"{name}:{c / wall * 100:.0f}%" for c, name, _ in per_thread[:4])
        print(f"busiest threads: {busiest}")
        if m1:
            syncs = m1.get("floe_kafka_log_syncs_total", 0) - m0.get("floe_kafka_log_syncs_total", 0)
            rounds = (m1.get("floe_kafka_log_sync_rounds_total", 0) -
                      m0.get("floe_kafka_log_sync_rounds_total", 0))
            batches = (m1.get("floe_kafka_log_synced_batches_total", 0) -
                       m0.get("floe_kafka_log_synced_batches_total", 0))
            print(f"group commit (/metrics): {syncs / wall:,.0f} fdatasyncs/s in "
                  f"{rounds / wall:,.0f} rounds/s, {batches / max(syncs, 1):.2f} batches "
                  f"per fdatasync")

        if args.strace:
            trace = Path(tmp) / "strace.txt"
            st = subprocess.Popen(["strace", "-f", "-c", "-e", "trace=fdatasync", "-o",
                                   str(trace), "-p", str(pid)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)  # attached to every thread
            t0 = time.monotonic()
            acked_s, _, _ = run_load(bootstrap, topics, args.producers, args.seconds, record)
            wall_s = time.monotonic() - t0
            st.terminate()
            st.wait(30)
            calls = 0
            for line in trace.read_text().splitlines():
                if line.rstrip().endswith("fdatasync"):
                    calls = int(line.split()[3])
            print(f"strace run: {calls:,} fdatasyncs for {acked_s:,} records in {wall_s:.1f} s: "
                  f"{calls / wall_s:,.0f} fdatasyncs/s, {acked_s / max(calls, 1):.1f} records "
                  f"per fdatasync (throughput under strace: {acked_s / wall_s:,.0f} records/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

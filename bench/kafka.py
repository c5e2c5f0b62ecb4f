#!/usr/bin/env python3
"""Kafka produce: `floe server` versus an Apache Kafka 4.0 broker (KRaft, broker and
controller in one JVM, started from the Maven Central jars of bench/kafka/pom.xml), same
machine, one run. Not a test: it prints figures and ratios.

1. Throughput: Kafka's own producer benchmark (org.apache.kafka.tools.ProducerPerformance,
   what kafka-producer-perf-test.sh runs) sends the same records (JSON objects of exactly
   --record-size bytes, from a payload file) with the same producer settings (acks=all,
   idempotence on, batch.size, linger.ms, no compression) to a one-partition topic of
   - Kafka,
   - floe with table topics off (a plain topic),
   - floe with a table topic on (JSON, flatten; translated while the producer runs).
   Ratios: floe records/s over Kafka's (targets: >= 1.0 plain, >= 0.7 table topic).
   floe runs with its default `fsync: batch` (every batch fdatasynced before the ack);
   Kafka with its default (no fsync; the page cache and replication are its durability).
   A second floe run with `fsync: interval` shows the same durability model as Kafka's.
2. Translation: --translate-records JSON records are produced to a topic whose table-topic
   config is off; turning it on starts the translator, and the floe process's CPU time
   (utime + stime) until everything is committed gives MiB/s per core (target >= 50).
   The same events as Avro and as Protobuf values of the same size (confluent-kafka's
   AvroSerializer / ProtobufSerializer through floe's registry, by_schema_id) give the Avro
   and Protobuf figures. --translation-only measures just these, without the Kafka broker.
   With them, produce-time schema validation (issue 26): the same Avro values produced to
   a plain topic with validation off, schema id and payload; ratios of records/s over off
   (targets: >= 0.95 schema id, >= 0.8 payload) and floe's CPU per record.
3. Freshness: a record every 20 ms for a few commit intervals; each record's latency from
   its produce call to the commit timestamp of the first snapshot holding its offset
   (snapshot summary floe.ingest.offsets). p50 / p99 (target p99 <= interval + 2 s).
4. Peak RSS (VmHWM) of both servers.
5. Keyed translation (issue 21): the same Debezium-style CDC stream (JSON envelopes, 90%
   creates/updates over a key space of a fifth of the records, 10% deletes) translated by a
   keyed topic in delete.mode equality and in delete.mode position (the key index), with a
   commit every 8 MiB of backlog (kafka.lag-throttle-bytes 16 MiB) so that most keys replace
   rows of earlier commits: MiB/s per core of both and their ratio (target position >= 0.7x
   equality); then --index-keys distinct keys inserted into a position-mode topic: the key
   index's memory (bounded by kafka.key-index.memory-bytes) and disk bytes per million keys.

    make bench
    FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/kafka.py --records 200000
    FLOE_BIN=build/release/src/floe/exe/floe .venv/bin/python bench/kafka.py --translation-only
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# This file and bench/kafka/ would shadow the kafka-python package: bench/ stays off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
sys.path.insert(0, str(ROOT.parent / "tests" / "interop"))

from floe_server import FloeServer, free_port  # noqa: E402
from kafka_topics import create_topic  # noqa: E402

PEERS_POM = ROOT / "kafka" / "pom.xml"
CACHE = ROOT / ".data" / "kafka-peers"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def peers_classpath() -> str:
    """Resolves the Kafka jars once (mvn package copies them to target/lib)."""
    lib = CACHE / "target" / "lib"
    stamp = CACHE / "pom.xml"
    if not lib.is_dir() or not stamp.exists() or stamp.read_bytes() != PEERS_POM.read_bytes():
        CACHE.mkdir(parents=True, exist_ok=True)
        shutil.copy(PEERS_POM, stamp)
        subprocess.run(["mvn", "-q", "-B", "package"], cwd=CACHE, check=True, timeout=1800)
    return f"{lib}/*"


def wait_port(port: int, timeout: float, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited {proc.returncode}: {log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"port {port} not open after {timeout}s: {log.read_text()[-3000:]}")


class KafkaBroker:
    """Apache Kafka in KRaft combined mode: storage formatted with kafka-storage
    (kafka.tools.StorageTool), then kafka.Kafka with broker and controller roles."""

    def __init__(self, cp: str, workdir: Path, heap: str = "1G"):
        self.cp = cp
        self.workdir = workdir
        self.heap = heap
        self.port = free_port()
        self.controller_port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> "KafkaBroker":
        self.workdir.mkdir(parents=True, exist_ok=True)
        props = self.workdir / "server.properties"
        props.write_text("\n".join([
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{self.controller_port}",
            f"listeners=PLAINTEXT://127.0.0.1:{self.port},"
            f"CONTROLLER://127.0.0.1:{self.controller_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"log.dirs={self.workdir / 'logs'}",
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "group.initial.rebalance.delay.ms=0",
        ]) + "\n")
        java = ["java", f"-Xms{self.heap}", f"-Xmx{self.heap}", "-XX:+UseG1GC", "-cp", self.cp]
        cluster = subprocess.run(java + ["kafka.tools.StorageTool", "random-uuid"], check=True,
                                 capture_output=True, text=True).stdout.strip()
        subprocess.run(java + ["kafka.tools.StorageTool", "format", "-t", cluster, "-c",
                               str(props)], check=True, capture_output=True, text=True)
        log = self.workdir / "kafka.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(java + ["kafka.Kafka", str(props)], stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        wait_port(self.port, 120, self.proc, log)
        # The listener opens before the broker is registered: wait until it serves metadata.
        from confluent_kafka.admin import AdminClient
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                md = AdminClient({"bootstrap.servers": self.bootstrap}).list_topics(timeout=5)
                if md.brokers:
                    return self
            except Exception:  # noqa: BLE001 - not ready yet
                pass
            time.sleep(0.5)
        raise RuntimeError(f"Kafka did not serve metadata: {log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
         "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]


def event_doc(i: int) -> dict:
    """An event-like mix of 46 fields (integers, doubles, booleans, strings of varied text,
    a nested object, a list) and an empty `pad` string."""
    import random

    rnd = random.Random(i)
    doc = {"id": i, "ts": 1_700_000_000_000 + i * 37, "user": f"user-{rnd.randrange(10**6)}",
           "ok": rnd.random() < 0.5,
           "geo": {"lat": rnd.uniform(-90, 90), "lon": rnd.uniform(-180, 180),
                   "city": rnd.choice(WORDS)},
           "tags": [rnd.choice(WORDS) for _ in range(3)]}
    for f in range(40):
        kind = f % 4
        doc[f"f{f}"] = (rnd.randrange(-10**9, 10**9) if kind == 0 else
                        round(rnd.uniform(0, 10**6), 3) if kind == 1 else
                        " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(2, 5)))
                        if kind == 2 else rnd.random() < 0.5)
    doc["pad"] = ""
    return doc


# The Avro schema of event_doc's records (ts a timestamp-millis).
EVENT_AVRO = {"type": "record", "name": "Event", "namespace": "floe.bench", "fields": [
    {"name": "id", "type": "long"},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "user", "type": "string"}, {"name": "ok", "type": "boolean"},
    {"name": "geo", "type": {"type": "record", "name": "Geo", "fields": [
        {"name": "lat", "type": "double"}, {"name": "lon", "type": "double"},
        {"name": "city", "type": "string"}]}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    *[{"name": f"f{f}", "type": ["long", "double", "string", "boolean"][f % 4]}
      for f in range(40)],
    {"name": "pad", "type": "string"}]}


def payload_file(path: Path, record_size: int, count: int = 1000) -> Path:
    """JSON objects of exactly record_size bytes, one per line (ProducerPerformance picks
    one at random per record): event_doc()s padded to the size with the `pad` string."""
    lines = []
    for i in range(count):
        doc = event_doc(i)
        base = len(json.dumps(doc, separators=(",", ":")))
        if base > record_size:
            raise ValueError(f"--record-size {record_size} is below the {base} B of the fields")
        doc["pad"] = "x" * (record_size - base)
        line = json.dumps(doc, separators=(",", ":"))
        assert len(line) == record_size, (len(line), record_size)
        lines.append(line)
    path.write_text("\n".join(lines))
    return path


PERF_LINE = re.compile(
    r"(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, "
    r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th")


def progress(text: str) -> None:
    print(f"[kafka bench] {text}", file=sys.stderr, flush=True)


def producer_perf(cp: str, bootstrap: str, topic: str, payload: Path, records: int,
                  props: dict[str, str]) -> dict:
    cmd = ["java", "-Xmx1G", "-cp", cp, "org.apache.kafka.tools.ProducerPerformance",
           "--topic", topic, "--num-records", str(records), "--throughput", "-1",
           "--payload-file", str(payload), "--producer-props",
           f"bootstrap.servers={bootstrap}", *[f"{k}={v}" for k, v in props.items()]]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800)
    m = None
    for line in done.stdout.splitlines():
        m = PERF_LINE.search(line) or m
    if m is None:
        raise RuntimeError(f"no summary from ProducerPerformance: {done.stdout[-2000:]}"
                           f"{done.stderr[-2000:]}")
    result = {"records": int(m.group(1)), "records_per_s": float(m.group(2)),
              "mb_per_s": float(m.group(3)), "avg_ms": float(m.group(4)),
              "p99_ms": float(m.group(8))}
    progress(f"{bootstrap} {topic}: {result}")
    return result


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def topic_state(server: FloeServer, topic: str) -> dict:
    with urllib.request.urlopen(f"{server.uri}/api/v1/topics/{topic}", timeout=10) as r:
        return json.load(r)


def table_topic_config(interval_ms: int, enable: bool = True) -> dict:
    return {"floe.table.topic.enable": "true" if enable else "false",
            "floe.table.topic.commit.interval.ms": str(interval_ms),
            "floe.table.topic.convert.value.type": "json",
            "floe.table.topic.transform.value.type": "flatten"}


def wait_translated(server: FloeServer, topic: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = topic_state(server, topic)
        if s.get("state") == "failed":
            raise RuntimeError(f"translator failed: {s.get('last-error')}")
        # Committed up to the log end on every partition (the details exist once the
        # translator has started).
        parts = s.get("partition-details") or []
        if parts and all(p["log-end-offset"] > 0 and p["committed-offset"] == p["log-end-offset"]
                         for p in parts):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{topic} not translated after {timeout}s: {topic_state(server, topic)}")


def translation_throughput(cp: str, server: FloeServer, payload: Path, records: int,
                           record_size: int) -> dict:
    topic = f"translate_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config=table_topic_config(1000, enable=False))
    if cp:
        producer_perf(cp, server.kafka_bootstrap, topic, payload, records,
                      {"acks": "all", "batch.size": "262144", "linger.ms": "5"})
    else:
        lines = [line.encode() for line in payload.read_text().splitlines()]
        python_produce(server.kafka_bootstrap, topic, lines, records)
    return measure_translation(server, topic, records, record_size)


def python_produce(bootstrap: str, topic: str, values: list[bytes], records: int) -> None:
    """`records` records cycling through `values` (confluent-kafka, acks=all)."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                  "batch.size": 262144, "queue.buffering.max.messages": 1_000_000})
    for i in range(records):
        while True:
            try:
                p.produce(topic, value=values[i % len(values)])
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(120) == 0


def avro_payloads(server: FloeServer, topic: str, record_size: int,
                  count: int = 1000) -> list[bytes]:
    """event_doc()s as Confluent-framed Avro values (confluent-kafka's AvroSerializer, the
    schema registered in floe's registry) of exactly record_size bytes each."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    ser = AvroSerializer(SchemaRegistryClient({"url": server.schema_registry_uri}),
                         json.dumps(EVENT_AVRO))
    ctx = SerializationContext(topic, MessageField.VALUE)

    def varint_len(n: int) -> int:  # a string's length: a zig-zag varint of 2n
        z, k = 2 * n, 1
        while z >= 0x80:
            z, k = z >> 7, k + 1
        return k

    out = []
    for i in range(count):
        doc = event_doc(i)
        free = record_size - (len(ser(doc, ctx)) - 1)  # bytes for pad's length and text
        pad = next((n for n in range(max(0, free - 4), free + 1) if n + varint_len(n) == free),
                   None)
        if pad is None:
            raise ValueError(f"--record-size {record_size} does not fit an Avro event")
        doc["pad"] = "x" * pad
        value = ser(doc, ctx)
        assert len(value) == record_size, (len(value), record_size)
        out.append(value)
    return out


def avro_translation_throughput(server: FloeServer, records: int, record_size: int) -> dict:
    """The JSON measure with the same events as Avro (by_schema_id, flatten)."""
    topic = f"translate_avro_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config={
        **table_topic_config(1000, enable=False),
        "floe.table.topic.convert.value.type": "by_schema_id"})
    python_produce(server.kafka_bootstrap, topic, avro_payloads(server, topic, record_size),
                   records)
    return measure_translation(server, topic, records, record_size)


def event_proto_class():
    """A Protobuf message class for event_doc()'s records (built from a descriptor)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="floe_bench_event.proto", package="floe.bench",
                                            syntax="proto3")
    geo = fd.message_type.add(name="Geo")
    for number, (name, kind) in enumerate(
            [("lat", F.TYPE_DOUBLE), ("lon", F.TYPE_DOUBLE), ("city", F.TYPE_STRING)], 1):
        geo.field.add(name=name, number=number, type=kind, label=F.LABEL_OPTIONAL)
    event = fd.message_type.add(name="Event")
    kinds = [F.TYPE_INT64, F.TYPE_DOUBLE, F.TYPE_STRING, F.TYPE_BOOL]
    fields = [("id", F.TYPE_INT64), ("ts", F.TYPE_INT64), ("user", F.TYPE_STRING),
              ("ok", F.TYPE_BOOL), ("geo", F.TYPE_MESSAGE), ("tags", F.TYPE_STRING),
              *[(f"f{f}", kinds[f % 4]) for f in range(40)], ("pad", F.TYPE_STRING)]
    for number, (name, kind) in enumerate(fields, 1):
        f = event.field.add(name=name, number=number, type=kind,
                            label=F.LABEL_REPEATED if name == "tags" else F.LABEL_OPTIONAL)
        if kind == F.TYPE_MESSAGE:
            f.type_name = ".floe.bench.Geo"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("floe.bench.Event"))


def protobuf_payloads(server: FloeServer, topic: str, record_size: int,
                      count: int = 1000) -> list[bytes]:
    """event_doc()s as Confluent-framed Protobuf values (ProtobufSerializer through floe's
    registry) of exactly record_size bytes each."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    Event = event_proto_class()
    ser = ProtobufSerializer(Event, SchemaRegistryClient({"url": server.schema_registry_uri}),
                             {"use.deprecated.format": False})
    ctx = SerializationContext(topic, MessageField.VALUE)
    out = []
    for i in range(count):
        doc = event_doc(i)
        geo, tags = doc.pop("geo"), doc.pop("tags")
        m = Event(**doc)
        m.geo.lat, m.geo.lon, m.geo.city = geo["lat"], geo["lon"], geo["city"]
        m.tags.extend(tags)
        need = record_size - len(ser(m, ctx))
        for n in range(max(0, need - 5), need + 1):
            m.pad = "x" * n
            value = ser(m, ctx)
            if len(value) == record_size:
                break
        else:
            raise ValueError(f"--record-size {record_size} does not fit a Protobuf event")
        out.append(value)
    return out


def protobuf_translation_throughput(server: FloeServer, records: int, record_size: int) -> dict:
    """The JSON measure with the same events as Protobuf (by_schema_id, flatten)."""
    topic = f"translate_proto_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config={
        **table_topic_config(1000, enable=False),
        "floe.table.topic.convert.value.type": "by_schema_id"})
    python_produce(server.kafka_bootstrap, topic, protobuf_payloads(server, topic, record_size),
                   records)
    return measure_translation(server, topic, records, record_size)


def measure_translation(server: FloeServer, topic: str, records: int, record_size: int) -> dict:
    """Turns the table topic on and takes the floe process's CPU time until everything in
    the topic is committed: MiB of record values (and records) per CPU second."""
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry,
                                       ConfigResource)
    admin = AdminClient({"bootstrap.servers": server.kafka_bootstrap})
    pid = server.proc.pid
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry("floe.table.topic.enable", "true",
                    incremental_operation=AlterConfigOpType.SET)])
    for f in admin.incremental_alter_configs([resource]).values():
        f.result(30)
    wait_translated(server, topic, 900)
    cpu = cpu_seconds(pid) - cpu0
    wall = time.monotonic() - t0
    mib = records * record_size / (1 << 20)
    progress(f"translated {mib:.0f} MiB: {cpu:.1f} s CPU, {wall:.1f} s wall")
    return {"mib": mib, "cpu_s": cpu, "wall_s": wall, "mib_per_cpu_s": mib / cpu,
            "mib_per_s": mib / wall, "records_per_cpu_s": records / cpu}


def freshness(server: FloeServer, interval_ms: int, seconds: float) -> dict:
    from confluent_kafka import Producer
    topic = f"fresh_{uuid.uuid4().hex[:6]}"
    create_topic(server.kafka_bootstrap, topic, config=table_topic_config(interval_ms))
    sent_ms: dict[int, float] = {}
    p = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all", "linger.ms": 0})
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        t = time.time() * 1000

        def on_delivery(err, msg, t=t):
            if err is None:
                sent_ms[msg.offset()] = t
        p.produce(topic, value=json.dumps({"i": i}).encode(), partition=0,
                  on_delivery=on_delivery)
        p.poll(0)
        i += 1
        time.sleep(0.02)
    p.flush(30)
    wait_translated(server, topic, interval_ms / 1000 + 60)
    with urllib.request.urlopen(f"{server.uri}/v1/namespaces/kafka/tables/{topic}") as r:
        md = json.load(r)["metadata"]
    visible: dict[int, float] = {}
    for snap in sorted(md.get("snapshots", []), key=lambda s: s["timestamp-ms"]):
        ranges = snap.get("summary", {}).get("floe.ingest.offsets")
        if not ranges:
            continue
        for part in ranges.split(","):
            _, span = part.split(":")
            a, b = (int(x) for x in span.split("-"))
            for o in range(a, b):
                visible.setdefault(o, snap["timestamp-ms"])
    lat = sorted(visible[o] - t for o, t in sent_ms.items() if o in visible)
    missing = len(sent_ms) - len(lat)
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] / 1000  # noqa: E731
    progress(f"freshness: {len(lat)} records")
    return {"records": len(sent_ms), "missing": missing, "p50_s": pick(0.50),
            "p99_s": pick(0.99), "max_s": lat[-1] / 1000}


def cdc_records(records: int, record_size: int, seed: int = 21) -> list[tuple[bytes, bytes]]:
    """(key, Debezium envelope) pairs of about record_size bytes: 90% creates / updates of
    keys in a space of records // 5, 10% deletes of live keys."""
    import random

    rnd = random.Random(seed)
    keys = max(1, records // 5)
    live: dict[int, dict] = {}
    out = []
    for i in range(records):
        key = rnd.randrange(keys)
        before = live.get(key)
        if before is not None and rnd.random() < 0.1:
            env = {"before": before, "after": None, "op": "d"}
            del live[key]
        else:
            doc = event_doc(i)
            doc["id"] = key
            doc["pad"] = ""
            base = len(json.dumps({"before": None, "after": doc, "op": "c"},
                                  separators=(",", ":")))
            doc["pad"] = "x" * max(0, record_size - base)
            env = {"before": None, "after": doc, "op": "u" if before is not None else "c"}
            live[key] = doc
        out.append((str(key).encode(), json.dumps(env, separators=(",", ":")).encode()))
    return out


def produce_keyed(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]]) -> None:
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                  "batch.size": 262144, "queue.buffering.max.messages": 1_000_000})
    for key, value in records:
        while True:
            try:
                p.produce(topic, key=key, value=value)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(300) == 0


def metric_value(server: FloeServer, name: str) -> float:
    with urllib.request.urlopen(server.uri + "/metrics") as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise RuntimeError(f"{name} not in /metrics")


def keyed_translation(floe_bin: str, work: Path, args) -> dict:
    """Equality versus position delete mode on one CDC stream, then the key index's size."""
    results: dict = {}
    records = cdc_records(args.translate_records, args.record_size)
    mib = sum(len(v) for _, v in records) / (1 << 20)
    config = {"kafka": {"lag-throttle-bytes": 16 << 20}}
    with FloeServer(floe_bin, work / "keyed" / "data", kafka=True, access_log=False,
                    config=config) as server:
        for mode in ("equality", "position"):
            topic = f"cdc_{mode}_{uuid.uuid4().hex[:6]}"
            create_topic(server.kafka_bootstrap, topic, config={
                **table_topic_config(2_000, enable=False),
                "floe.table.topic.transform.value.type": "flatten_debezium",
                "floe.table.topic.id.columns": "[id]",
                "floe.table.topic.delete.mode": mode})
            produce_keyed(server.kafka_bootstrap, topic, records)
            r = measure_translation(server, topic, len(records), args.record_size)
            r["mib"] = mib
            r["mib_per_cpu_s"] = mib / r["cpu_s"]
            r["commits"] = topic_state(server, topic).get("commits")
            results[mode] = r
    # The index's size: --index-keys inserts of small rows.
    n = args.index_keys
    limit = 64 << 20
    config = {"kafka": {"key-index": {"memory-bytes": limit}}}
    with FloeServer(floe_bin, work / "index" / "data", kafka=True, access_log=False,
                    config=config) as server:
        topic = f"keys_{uuid.uuid4().hex[:6]}"
        create_topic(server.kafka_bootstrap, topic, config={
            **table_topic_config(5_000, enable=False),
            "floe.table.topic.upsert.enable": "true", "floe.table.topic.id.columns": "[id]"})
        produce_keyed(server.kafka_bootstrap, topic,
                      [(str(i).encode(), json.dumps({"id": i, "v": i * 7}).encode())
                       for i in range(n)])
        measure_translation(server, topic, n, 20)
        # One more commit that replaces a key in every file: the index is read, not just
        # written.
        produce_keyed(server.kafka_bootstrap, topic,
                      [(str(i).encode(), json.dumps({"id": i, "v": -i}).encode())
                       for i in range(0, n, max(1, n // 1000))])
        wait_translated(server, topic, 600)
        results["index"] = {
            "keys": n, "limit": limit,
            "memory": metric_value(server, "floe_key_index_memory_bytes"),
            "disk": metric_value(server, "floe_key_index_disk_bytes"),
            "entries": metric_value(server, "floe_key_index_entries"),
            "rss_mib": peak_rss_mib(server.proc.pid)}
    return results


def print_keyed(results: dict) -> None:
    eq, pos = results["equality"], results["position"]
    for mode, r in (("equality", eq), ("position", pos)):
        print(f"keyed translation (Debezium JSON, delete.mode {mode}): {r['mib']:.0f} MiB in "
              f"{r['commits']} commits, {r['cpu_s']:.1f} s CPU: {r['mib_per_cpu_s']:.1f} MiB/s "
              f"per core, {r['records_per_cpu_s'] / 1000:.0f}k records/s per core")
    print(f"position / equality: {pos['mib_per_cpu_s'] / eq['mib_per_cpu_s']:.2f}x "
          f"(target >= 0.70x)")
    ix = results["index"]
    per_m = 1_000_000 / ix["keys"]
    print(f"key index, {ix['keys']} keys: memory {ix['memory'] / (1 << 20):.1f} MiB "
          f"(bound {ix['limit'] / (1 << 20):.0f} MiB), disk {ix['disk'] * per_m / (1 << 20):.1f} "
          f"MiB per million keys, {ix['entries']:.0f} entries; floe peak RSS "
          f"{ix['rss_mib']:.0f} MiB")


VALIDATION_MODES = ("off", "schema_id", "payload")


def validation_throughput(server: FloeServer, records: int, record_size: int,
                          runs: int = 3) -> dict:
    """Produce throughput of Confluent-framed Avro values (confluent-kafka, acks=all) to a
    plain topic with produce-time schema validation off, in schema-id mode and in payload
    mode (issue 26); the modes alternate `runs` times and each keeps its best run. Besides
    records/s, the floe process's CPU time per record shows what validation costs the broker
    even where the Python producer bounds the wall clock."""
    best: dict = {}
    pid = server.proc.pid
    for run in range(runs):
        for mode in VALIDATION_MODES:
            topic = f"validate_{mode}_{run}_{uuid.uuid4().hex[:6]}"
            config = {} if mode == "off" else {"floe.table.topic.value.validation": mode}
            create_topic(server.kafka_bootstrap, topic, config=config)
            values = avro_payloads(server, topic, record_size)
            cpu0, t0 = cpu_seconds(pid), time.monotonic()
            python_produce(server.kafka_bootstrap, topic, values, records)
            wall, cpu = time.monotonic() - t0, cpu_seconds(pid) - cpu0
            if topic_state(server, topic).get("validation-rejected"):
                raise AssertionError(f"{mode}: valid records were refused")
            r = {"records_per_s": records / wall, "cpu_us_per_record": cpu / records * 1e6}
            if mode not in best or r["records_per_s"] > best[mode]["records_per_s"]:
                best[mode] = r
    return best


def print_validation(v: dict, records: int, record_size: int) -> None:
    off = v["off"]
    print(f"produce-time validation ({records} Avro records of {record_size} B, confluent-kafka, "
          f"acks=all, a plain topic):")
    for mode, label, target in (("off", "validation off", None), ("schema_id", "schema id", 0.95),
                                ("payload", "payload", 0.8)):
        r = v[mode]
        ratio = r["records_per_s"] / off["records_per_s"]
        tail = "" if target is None else f"; {ratio:.2f}x of off (target >= {target})"
        print(f"  {label}: {r['records_per_s'] / 1000:.0f}k records/s, "
              f"{r['cpu_us_per_record']:.2f} us floe CPU per record{tail}")


def print_translation(results: dict) -> None:
    for key, label in (("translate", "JSON, flatten"), ("translate_avro", "Avro, flatten"),
                       ("translate_proto", "Protobuf, flatten")):
        t = results[key]
        print(f"translation ({label}): {t['mib']:.0f} MiB in {t['wall_s']:.1f} s wall, "
              f"{t['cpu_s']:.1f} s CPU of the floe process: {t['mib_per_cpu_s']:.1f} MiB/s per "
              f"core, {t['records_per_cpu_s'] / 1000:.0f}k records/s per core "
              f"({t['mib_per_s']:.1f} MiB/s wall; target >= 50 MiB/s per core)")


def translation_only(floe_bin: str, args) -> int:
    """The translation figures alone: records produced by confluent-kafka instead of
    ProducerPerformance (the producer runs before the measured span either way)."""
    work = Path(tempfile.mkdtemp(prefix="floe-bench-translate-"))
    results: dict = {}
    try:
        payload = payload_file(work / "payload.json", args.record_size)
        with FloeServer(floe_bin, work / "data", kafka=True, access_log=False) as server:
            results["translate"] = translation_throughput(
                "", server, payload, args.translate_records, args.record_size)
            results["translate_avro"] = avro_translation_throughput(
                server, args.translate_records, args.record_size)
            results["translate_proto"] = protobuf_translation_throughput(
                server, args.translate_records, args.record_size)
            results["validation"] = validation_throughput(
                server, args.translate_records, args.record_size)
        keyed = keyed_translation(floe_bin, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_translation(results)
    print_validation(results["validation"], args.translate_records, args.record_size)
    print_keyed(keyed)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=300_000)
    ap.add_argument("--record-size", type=int, default=1024)
    ap.add_argument("--batch-size", type=int, default=262_144)
    ap.add_argument("--linger-ms", type=int, default=5)
    ap.add_argument("--translate-records", type=int, default=100_000)
    ap.add_argument("--index-keys", type=int, default=1_000_000)
    ap.add_argument("--commit-interval-ms", type=int, default=5_000)
    ap.add_argument("--freshness-seconds", type=float, default=20)
    ap.add_argument("--translation-only", action="store_true",
                    help="only the translation figures (no Kafka broker, no Java)")
    ap.add_argument("--validation-only", action="store_true",
                    help="only the produce-time validation rows (no Kafka broker, no Java)")
    args = ap.parse_args()
    floe_bin = os.environ.get("FLOE_BIN", str(ROOT.parent / "build/release/src/floe/exe/floe"))
    if args.validation_only:
        # On tmpfs where there is one: the disk's write-back of gigabytes of log otherwise
        # drowns the broker CPU that validation costs (and the comparison is harsher there).
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        work = Path(tempfile.mkdtemp(prefix="floe-bench-validate-", dir=shm))
        try:
            with FloeServer(floe_bin, work / "data", kafka=True, access_log=False) as server:
                v = validation_throughput(server, args.translate_records, args.record_size)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print_validation(v, args.translate_records, args.record_size)
        return 0
    if args.translation_only:
        return translation_only(floe_bin, args)

    cp = peers_classpath()
    work = Path(tempfile.mkdtemp(prefix="floe-bench-kafka-"))
    payload = payload_file(work / "payload.json", args.record_size)
    props = {"acks": "all", "enable.idempotence": "true", "batch.size": str(args.batch_size),
             "linger.ms": str(args.linger_ms), "compression.type": "none"}
    results: dict = {}
    try:
        kafka = KafkaBroker(cp, work / "kafka").start()
        try:
            create_topic(kafka.bootstrap, "bench", 1)
            producer_perf(cp, kafka.bootstrap, "bench", payload, args.records // 10, props)
            create_topic(kafka.bootstrap, "bench2", 1)
            results["kafka"] = producer_perf(cp, kafka.bootstrap, "bench2", payload,
                                             args.records, props)
            results["kafka_rss"] = peak_rss_mib(kafka.proc.pid)
        finally:
            kafka.stop()

        for name, config in (("floe", None), ("floe_interval", {"kafka": {"fsync": "interval"}})):
            with FloeServer(floe_bin, work / name / "data", kafka=True, access_log=False,
                            config=config) as server:
                create_topic(server.kafka_bootstrap, "warmup", 1)
                producer_perf(cp, server.kafka_bootstrap, "warmup", payload, args.records // 10,
                              props)
                create_topic(server.kafka_bootstrap, "plain", 1)
                results[name] = producer_perf(cp, server.kafka_bootstrap, "plain", payload,
                                              args.records, props)
                create_topic(server.kafka_bootstrap, "tabled", 1,
                             config=table_topic_config(args.commit_interval_ms))
                results[name + "_table"] = producer_perf(cp, server.kafka_bootstrap, "tabled",
                                                         payload, args.records, props)
                wait_translated(server, "tabled", 900)
                if name == "floe":
                    results["translate"] = translation_throughput(
                        cp, server, payload, args.translate_records, args.record_size)
                    results["translate_avro"] = avro_translation_throughput(
                        server, args.translate_records, args.record_size)
                    results["translate_proto"] = protobuf_translation_throughput(
                        server, args.translate_records, args.record_size)
                    results["validation"] = validation_throughput(
                        server, args.translate_records, args.record_size)
                    results["fresh"] = freshness(server, args.commit_interval_ms,
                                                 args.freshness_seconds)
                results[name + "_rss"] = peak_rss_mib(server.proc.pid)
        keyed = keyed_translation(floe_bin, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    k = results["kafka"]
    print(f"\nKafka produce, {args.records} records of {args.record_size} B, acks=all, "
          f"idempotent, batch.size={args.batch_size}, linger.ms={args.linger_ms}, no compression")
    print(f"{'broker':<34}{'records/s':>12}{'MB/s':>9}{'p99 ms':>9}{'ratio':>8}")
    rows = [("kafka 4.0 (KRaft)", k), ("floe, plain topic", results["floe"]),
            ("floe, table topic", results["floe_table"]),
            ("floe fsync=interval, plain", results["floe_interval"]),
            ("floe fsync=interval, table topic", results["floe_interval_table"])]
    for label, r in rows:
        print(f"{label:<34}{r['records_per_s']:>12.0f}{r['mb_per_s']:>9.1f}{r['p99_ms']:>9.0f}"
              f"{r['records_per_s'] / k['records_per_s']:>7.2f}x")
    print("targets: plain >= 1.00x, table topic >= 0.70x")
    print()
    print_translation(results)
    print_validation(results["validation"], args.translate_records, args.record_size)
    f = results["fresh"]
    print(f"freshness (commit.interval.ms={args.commit_interval_ms}): {f['records']} records, "
          f"p50 {f['p50_s']:.2f} s, p99 {f['p99_s']:.2f} s, max {f['max_s']:.2f} s "
          f"(target p99 <= {args.commit_interval_ms / 1000 + 2:.1f} s)"
          + (f", {f['missing']} not found in a snapshot" if f["missing"] else ""))
    print(f"peak RSS: kafka {results['kafka_rss']:.0f} MiB, floe {results['floe_rss']:.0f} MiB, "
          f"floe fsync=interval {results['floe_interval_rss']:.0f} MiB")
    print()
    print_keyed(keyed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

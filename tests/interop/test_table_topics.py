"""Table topics (issue 6): JSON records produced by confluent-kafka (librdkafka) and
kafka-python land in Iceberg tables, read back by pyiceberg and by `floe table scan` and
compared exactly with what was produced; configs are validated through the admin clients;
bad records go to the dead-letter table; kill -9 during acks=all production leaves every
acked record in the table exactly once; the management API and /metrics report topics.
"""
from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
kafka = pytest.importorskip("kafka")
pytest.importorskip("pyiceberg")

from confluent_kafka import KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry,  # noqa: E402
                                   ConfigResource, NewTopic)
from pyiceberg.catalog.rest import RestCatalog  # noqa: E402

from floe_server import FloeServer  # noqa: E402
import kafka_topics  # noqa: E402
from kafka_topics import create_topic, produce_through_crashes, wait_for_table_rows  # noqa: E402

DEADLINE_SECONDS = 60
JSON_TOPIC = {"floe.table.topic.enable": "true",
              "floe.table.topic.commit.interval.ms": "1000",
              "floe.table.topic.convert.value.type": "json",
              "floe.table.topic.transform.value.type": "flatten"}


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("tt") / "data", kafka=True) as s:
        yield s


def topic_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def produce_confluent(bootstrap, topic, values, partition=None, key=None):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5, "compression.type": "zstd"})
    errors = []
    for i, v in enumerate(values):
        kwargs = {"value": v, "key": (key or f"k{i}").encode(),
                  "headers": [("src", b"confluent")],
                  "on_delivery": lambda err, msg: errors.append(err) if err else None}
        if partition is not None:
            kwargs["partition"] = partition
        p.produce(topic, **kwargs)
    assert p.flush(30) == 0
    assert errors == []


def produce_kafka_python(bootstrap, topic, values, partition=0):
    p = kafka.KafkaProducer(bootstrap_servers=bootstrap, acks="all", compression_type="gzip")
    for i, v in enumerate(values):
        p.send(topic, value=v, key=f"kp{i}".encode(), partition=partition,
               headers=[("src", b"kafka-python")])
    p.flush(30)
    p.close()


def catalog(server) -> RestCatalog:
    return RestCatalog("floe", uri=server.uri, warehouse="default")


def wait_for_rows(server, table: str, n: int):
    return wait_for_table_rows(server.uri, table, n, DEADLINE_SECONDS, server.log_text)


def floe_scan(floe, server, table: str):
    return kafka_topics.floe_scan(floe, server.uri, table)


def test_json_from_two_clients_lands_exactly(floe, server):
    topic = topic_name("events")
    create_topic(server.kafka_bootstrap, topic, partitions=2, config=JSON_TOPIC)
    from_confluent = [json.dumps({"id": i, "name": f"n{i}", "score": i / 4,
                                  "tags": [f"t{i}"], "addr": {"city": f"c{i % 3}"}}).encode()
                      for i in range(50)]
    # kafka-python's records add a column and leave others out (evolution: add, optional).
    from_kafka_python = [json.dumps({"id": 1000 + i, "extra": True}).encode() for i in range(30)]
    produce_confluent(server.kafka_bootstrap, topic, from_confluent, partition=0)
    produce_kafka_python(server.kafka_bootstrap, topic, from_kafka_python, partition=1)

    rows = wait_for_rows(server, f"kafka.{topic}", 80)
    assert len(rows) == 80
    by_id = {r["id"]: r for r in rows}
    assert len(by_id) == 80
    for i in range(50):
        r = by_id[i]
        assert (r["name"], r["score"], r["tags"], r["addr"]) == \
            (f"n{i}", i / 4, [f"t{i}"], {"city": f"c{i % 3}"})
        assert r["extra"] is None
        assert r["_kafka"]["partition"] == 0
        assert r["_kafka"]["key"] == f"k{i}"
        assert dict(r["_kafka"]["headers"]) == {"src": b"confluent"}
    for i in range(30):
        r = by_id[1000 + i]
        assert r["extra"] is True and r["name"] is None
        assert r["_kafka"]["partition"] == 1 and r["_kafka"]["key"] == f"kp{i}"
    # Offsets are each partition's 0..n-1, once each.
    assert sorted(r["_kafka"]["offset"] for r in rows if r["_kafka"]["partition"] == 0) == \
        list(range(50))
    assert sorted(r["_kafka"]["offset"] for r in rows if r["_kafka"]["partition"] == 1) == \
        list(range(30))

    # floe reads the same rows.
    scanned = floe_scan(floe, server, f"kafka.{topic}")
    assert sorted((r["id"], r["name"], r["extra"]) for r in scanned) == \
        sorted((r["id"], r["name"], r["extra"]) for r in rows)

    # Every snapshot is attributed to the topic with its offset ranges; the property holds
    # the committed ends.
    table = catalog(server).load_table(f"kafka.{topic}")
    assert table.properties["floe.ingest.offsets"] == "0:50,1:30"
    ranges = [s.summary.additional_properties.get("floe.ingest.offsets")
              for s in table.snapshots()]
    covered = {0: [], 1: []}
    for r in filter(None, ranges):
        for part in r.split(","):
            p, span = part.split(":")
            a, b = span.split("-")
            covered[int(p)].extend(range(int(a), int(b)))
    assert covered == {0: list(range(50)), 1: list(range(30))}


def test_schema_evolution_int_to_long_and_optional(server):
    topic = topic_name("evolve")
    create_topic(server.kafka_bootstrap, topic, config=JSON_TOPIC)
    produce_confluent(server.kafka_bootstrap, topic,
                      [json.dumps({"a": 1, "b": "x"}).encode(),
                       json.dumps({"a": 2}).encode(),
                       json.dumps({"a": 3, "b": "z", "c": 1.5}).encode()])
    rows = wait_for_rows(server, f"kafka.{topic}", 3)
    assert sorted((r["a"], r["b"], r["c"]) for r in rows) == \
        [(1, "x", None), (2, None, None), (3, "z", 1.5)]
    schema = catalog(server).load_table(f"kafka.{topic}").schema()
    assert str(schema.find_field("a").field_type) == "long"
    assert str(schema.find_field("c").field_type) == "double"
    assert not schema.find_field("b").required


def test_configs_validated_with_automq_aliases(server):
    admin = AdminClient({"bootstrap.servers": server.kafka_bootstrap})
    bad = topic_name("bad")
    futures = admin.create_topics([NewTopic(bad, 1, 1, config={
        "automq.table.topic.errors.tolerance": "sometimes"})])
    with pytest.raises(KafkaException) as e:
        futures[bad].result(timeout=30)
    assert e.value.args[0].code() == confluent_kafka.KafkaError.INVALID_CONFIG
    assert "errors.tolerance" in e.value.args[0].str()
    futures = admin.create_topics([NewTopic(bad, 1, 1, config={
        "automq.table.topic.commit.interval.ms": "500"})])
    with pytest.raises(KafkaException):
        futures[bad].result(timeout=30)

    good = topic_name("alias")
    create_topic(server.kafka_bootstrap, good, config={
        "automq.table.topic.enable": "true", "automq.table.topic.commit.interval.ms": "1000",
        "automq.table.topic.convert.value.type": "string"})
    # IncrementalAlterConfigs checks the resulting set as a whole.
    res = ConfigResource(ConfigResource.Type.TOPIC, good, incremental_configs=[
        ConfigEntry("floe.table.topic.transform.value.type", "flatten",
                    incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as e:
        admin.incremental_alter_configs([res])[res].result(timeout=30)
    assert "convert.value.type json" in e.value.args[0].str()
    described = admin.describe_configs(
        [ConfigResource(ConfigResource.Type.TOPIC, good)])
    configs = list(described.values())[0].result(timeout=30)
    assert configs["floe.table.topic.enable"].value == "true"
    assert configs["floe.table.topic.convert.value.type"].value == "string"
    assert configs["floe.table.topic.commit.interval.ms"].value == "1000"
    produce_confluent(server.kafka_bootstrap, good, [b"plain text", "héllo".encode()])
    rows = wait_for_rows(server, f"kafka.{good}", 2)
    assert sorted(r["value"] for r in rows) == ["héllo", "plain text"]


def test_bad_records_go_to_the_dead_letter_table(server):
    topic = topic_name("dirty")
    create_topic(server.kafka_bootstrap, topic, config=JSON_TOPIC)
    values = [b'{"n": 1}', b"not json", b'[1, 2]', b'\xff\xfe', b'{"n": 2}']
    produce_confluent(server.kafka_bootstrap, topic, values)
    rows = wait_for_rows(server, f"kafka.{topic}", 2)
    assert sorted(r["n"] for r in rows) == [1, 2]
    dlq = wait_for_rows(server, f"kafka.{topic}_dlq", 3)
    assert sorted((r["offset"], r["value"]) for r in dlq) == \
        [(1, b"not json"), (2, b"[1, 2]"), (3, b"\xff\xfe")]
    assert all(r["partition"] == 0 and r["reason"] for r in dlq)

    status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
    assert status == 200
    assert body["table-topic"] is True
    assert body["dlq-records"] == 3
    assert body["table"] == f"kafka.{topic}"
    assert body["dlq-table"] == f"kafka.{topic}_dlq"


def test_topics_api_and_metrics(server):
    topic = topic_name("api")
    create_topic(server.kafka_bootstrap, topic, config=JSON_TOPIC)
    plain = topic_name("plain")
    create_topic(server.kafka_bootstrap, plain)
    produce_confluent(server.kafka_bootstrap, topic,
                      [json.dumps({"i": i}).encode() for i in range(5)])
    wait_for_rows(server, f"kafka.{topic}", 5)
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        status, body, _ = server.request("GET", f"/api/v1/topics?q={topic}")
        assert status == 200
        item = body["items"][0]
        if item["translation-lag-offsets"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert body["total"] == 1
    assert item["name"] == topic and item["partitions"] == 1 and item["records"] == 5
    assert item["table-topic"] is True and item["state"] == "running"
    assert item["translation-lag-offsets"] == 0
    assert item["last-commit-latency-ms"] >= 0
    assert item["dlq-records"] == 0

    status, body, _ = server.request("GET", "/api/v1/topics?table-topic=false&q=plain_")
    assert status == 200
    assert plain in [i["name"] for i in body["items"]]
    assert all(i["table-topic"] is False for i in body["items"])

    status, body, _ = server.request("GET", f"/api/v1/topics/{topic}/records?limit=3")
    assert status == 200
    assert [r["offset"] for r in body["items"]] == [4, 3, 2]
    assert body["items"][0]["value"] == json.dumps({"i": 4})
    assert body["items"][0]["headers"] == [{"key": "src", "value": "confluent"}]

    status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
    assert status == 200
    assert body["configs"]["floe.table.topic.enable"] == "true"
    assert body["partition-details"][0]["committed-offset"] == 5
    assert server.request("GET", "/api/v1/topics/nope")[0] == 404
    assert server.request("GET", f"/api/v1/topics/{topic}/records?limit=0")[0] == 400
    assert server.request("POST", "/api/v1/topics")[0] == 405

    import urllib.request
    with urllib.request.urlopen(server.uri + "/metrics") as r:
        text = r.read().decode()
    assert f'floe_table_topic_rows_committed_total{{topic="{topic}"}} 5' in text
    assert f'floe_table_topic_translation_lag_records{{topic="{topic}"}} 0' in text
    assert f'floe_topic_produced_records{{topic="{plain}"}} 0' in text


def test_lag_counts_every_record_a_translator_has_not_committed(server):
    """A table topic whose translator cannot start (its table exists with a schema that is
    not a table topic's) has committed nothing: the topics API and /metrics report every
    produced record as lag, the partition details show nothing translated, and the state
    says why. (A lag of 0 here would tell a reader waiting for "lag 0" that the records
    are in the table when none is.)"""
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField
    topic = topic_name("stuck")
    cat = catalog(server)
    try:
        cat.create_namespace("kafka")
    except Exception:  # noqa: BLE001 - created by another test
        pass
    cat.create_table(f"kafka.{topic}", Schema(NestedField(1, "id", LongType(), required=False)))
    create_topic(server.kafka_bootstrap, topic, partitions=2, config=JSON_TOPIC)
    produce_confluent(server.kafka_bootstrap, topic,
                      [json.dumps({"i": i}).encode() for i in range(7)])
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
        assert status == 200
        if body["state"] == "failed" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert body["state"] == "failed", body
    assert "_kafka" in body["last-error"]
    assert body["records"] == 7
    assert body["translation-lag-offsets"] == 7
    assert body["translation-lag-bytes"] > 0
    details = body["partition-details"]
    assert [d["partition"] for d in details] == [0, 1]
    assert sum(d["log-end-offset"] for d in details) == 7
    assert all(d["committed-offset"] == 0 and d["translated-offset"] == 0 for d in details)
    assert sum(d["lag-offsets"] for d in details) == 7
    status, listing, _ = server.request("GET", f"/api/v1/topics?q={topic}")
    assert status == 200 and listing["items"][0]["translation-lag-offsets"] == 7

    import urllib.request
    with urllib.request.urlopen(server.uri + "/metrics") as r:
        text = r.read().decode()
    assert f'floe_table_topic_translation_lag_records{{topic="{topic}"}} 7' in text
    assert cat.load_table(f"kafka.{topic}").scan().to_arrow().num_rows == 0


def test_kill_9_every_acked_record_exactly_once(floe, tmp_path):
    """Producers with acks=all while the server is killed with SIGKILL three times: after
    the restarts the table holds every acked record exactly once (count and checksum)."""
    s = FloeServer(floe.path, tmp_path / "data", kafka=True)
    s.start()
    try:
        topic = topic_name("crash")
        create_topic(s.kafka_bootstrap, topic, partitions=2, config=JSON_TOPIC)
        acked = set()
        errors = []
        p = Producer({"bootstrap.servers": s.kafka_bootstrap, "enable.idempotence": True,
                      "acks": "all", "linger.ms": 2, "message.timeout.ms": 120000,
                      "reconnect.backoff.max.ms": 200})

        def on_delivery(err, msg):
            if err is None:
                acked.add(json.loads(msg.value())["seq"])
            else:
                errors.append(err)

        # Long enough per round that some commits (1 s interval) land between the crashes.
        produce_through_crashes(
            s, p, topic, lambda i: json.dumps({"seq": i, "pad": "x" * (i % 40)}).encode(),
            on_delivery, acked, per_round=3000, settle_s=1.5)
        assert p.flush(120) == 0
        assert errors == []
        assert len(acked) >= 9000
        # Unacked records sent before a crash may be stored too: wait for the whole log.
        status, body, _ = s.request("GET", f"/api/v1/topics/{topic}")
        total = body["records"]
        rows = wait_for_rows(s, f"kafka.{topic}", total)
        seqs = [r["seq"] for r in rows]
        assert len(seqs) == total
        assert len(seqs) == len(set(seqs)), "a record is in the table twice"
        assert acked <= set(seqs)
        assert sum(seqs) == sum(set(seqs))
        offsets = sorted((r["_kafka"]["partition"], r["_kafka"]["offset"]) for r in rows)
        assert len(offsets) == len(set(offsets))
    finally:
        s.stop()


def test_debezium_cdc_table_equals_the_model_read_by_iceberg_java(server):
    """A Debezium-style stream (creates, updates, deletes over a key space, keyed by id so a
    key stays in one partition) in several commits: the table Iceberg Java reads equals the
    source model, and so does pyiceberg's read (position mode, the default: no equality
    delete for it to refuse)."""
    import random
    iceberg_java = pytest.importorskip("iceberg_java")
    topic = topic_name("cdc")
    create_topic(server.kafka_bootstrap, topic, partitions=2, config={
        **JSON_TOPIC, "floe.table.topic.transform.value.type": "flatten_debezium",
        "floe.table.topic.id.columns": "[id]"})
    rng = random.Random(6)
    model: dict[int, dict] = {}
    produced = 0
    for round_ in range(3):
        p = Producer({"bootstrap.servers": server.kafka_bootstrap, "enable.idempotence": True,
                      "acks": "all", "linger.ms": 5})
        for _ in range(300):
            key = rng.randrange(40)
            before = model.get(key)
            if before is not None and rng.random() < 0.3:
                env = {"before": before, "after": None, "op": "d"}
                del model[key]
            else:
                after = {"id": key, "v": f"r{round_}-{rng.randrange(10**6)}",
                         "n": rng.randrange(1000)}
                env = {"before": before, "after": after, "op": "u" if before else "c"}
                model[key] = after
            # Half of them in the envelope with a schema, as the JSON converter writes it.
            value = {"schema": {}, "payload": env} if rng.random() < 0.5 else env
            p.produce(topic, key=str(key).encode(), value=json.dumps(value).encode())
            produced += 1
        assert p.flush(30) == 0
        # Let the round land in its own commit(s).
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            status, body, _ = server.request("GET", f"/api/v1/topics/{topic}")
            if status == 200 and body["translation-lag-offsets"] == 0 and body["records"] == produced:
                break
            time.sleep(0.2)
        assert body["translation-lag-offsets"] == 0, body

    harness = iceberg_java.build_harness()
    java = harness.rest_catalog(server.uri)
    rows = java.scan(f"kafka.{topic}", columns=["id", "v", "n"])
    got = {r["id"]: {"id": r["id"], "v": r["v"], "n": r["n"]} for r in rows}
    assert len(rows) == len(got), "a key is live twice"
    assert got == model
    scanned = floe_scan_rows(server, f"kafka.{topic}")
    assert {r["id"]: {"id": r["id"], "v": r["v"], "n": r["n"]} for r in scanned} == model
    table = catalog(server).load_table(f"kafka.{topic}")
    read = table.scan(selected_fields=("id", "v", "n")).to_arrow().to_pylist()
    assert {r["id"]: r for r in read} == model and len(read) == len(model)
    assert table.schema().identifier_field_ids == [table.schema().find_field("id").field_id]
    assert table.format_version == 2


def floe_scan_rows(server, table):
    import floe_runner
    return floe_scan(floe_runner.floe_from_env(), server, table)


def test_many_table_topics_share_the_ingest_executor(floe, tmp_path):
    """Table topics are rounds on the `ingest` executor (kafka.translator-threads), not a
    thread each: 30 topics translate while the server's thread count stays put, and
    /metrics shows the executor's work."""
    from metrics_scrape import one, scrape

    config = {"kafka": {"translator-threads": 2}}
    with FloeServer(floe.path, tmp_path / "data", kafka=True, config=config) as s:
        def threads() -> int:
            return len(list(Path(f"/proc/{s.proc.pid}/task").iterdir()))

        before = threads()
        topics = [topic_name("many") for _ in range(30)]
        for topic in topics:
            create_topic(s.kafka_bootstrap, topic, config=JSON_TOPIC)
        for topic in topics:
            produce_confluent(s.kafka_bootstrap, topic,
                              [json.dumps({"i": i}).encode() for i in range(3)])
        deadline = time.monotonic() + DEADLINE_SECONDS
        pending = set(topics)
        while pending:
            for topic in sorted(pending):
                status, body, _ = s.request("GET", f"/api/v1/topics/{topic}")
                assert status == 200
                if body["partition-details"][0]["committed-offset"] == 3:
                    pending.discard(topic)
            assert time.monotonic() < deadline, (sorted(pending), s.log_text())
            time.sleep(0.2)
        # A thread per topic would have added 30.
        assert threads() <= before + 2, (before, threads())
        families = scrape(s)
        assert one(families, "floe_executor_threads", executor="ingest") == 2
        assert one(families, "floe_executor_completed_tasks_total", executor="ingest") >= 30
        assert one(families, "floe_executor_busy_seconds_total", executor="ingest") > 0
        assert one(families, "floe_executor_rejected_tasks_total", executor="ingest") == 0
        assert one(families, "floe_table_topic_deferred_rounds_total") == 0

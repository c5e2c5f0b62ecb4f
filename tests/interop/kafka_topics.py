"""Topic helpers shared by the tests of floe's Kafka endpoint (confluent-kafka's admin client)."""

from __future__ import annotations

import threading
import time

from confluent_kafka.admin import AdminClient, NewTopic


# A table topic of flattened JSON values, committed every second.
JSON_TABLE_TOPIC = {"floe.table.topic.enable": "true",
                    "floe.table.topic.commit.interval.ms": "1000",
                    "floe.table.topic.convert.value.type": "json",
                    "floe.table.topic.transform.value.type": "flatten"}


def create_topic(bootstrap: str, name: str, partitions: int = 1, config: dict | None = None):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions,
                                            replication_factor=1, config=config or {})])
    futures[name].result(timeout=30)


def produce_through_crashes(server, producer, topic: str, make_value, on_delivery, acked,
                            per_round: int, rounds: int = 3, settle_s: float = 0.0,
                            partition: int | None = None) -> None:
    """Produces make_value(i) for i = 0, 1, ... on a thread while the server is killed with
    SIGKILL and restarted `rounds` times, each after `acked` grew by `per_round` (or 30 s) and
    `settle_s` more; then stops producing. The client queues and retries while the broker
    is down, so a full queue only means waiting."""
    stop = threading.Event()
    extra = {} if partition is None else {"partition": partition}

    def run():
        i = 0
        while not stop.is_set():
            try:
                producer.produce(topic, value=make_value(i), on_delivery=on_delivery, **extra)
                i += 1
            except BufferError:
                pass
            producer.poll(0.001)

    t = threading.Thread(target=run)
    t.start()
    try:
        for _ in range(rounds):
            deadline = time.monotonic() + 30
            start = len(acked)
            while len(acked) < start + per_round and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(settle_s)
            server.kill()
            time.sleep(0.3)
            server.start()
    finally:
        stop.set()
        t.join()


def wait_for_table_rows(uri: str, table: str, n: int, deadline_s: float = 60,
                        context=lambda: "") -> list[dict]:
    """The rows of `table` read by pyiceberg through floe's REST catalog at `uri`, once it
    holds at least `n` (the table appears with the first commit)."""
    from pyiceberg.catalog.rest import RestCatalog

    cat = RestCatalog("floe", uri=uri, warehouse="default")
    deadline = time.monotonic() + deadline_s
    rows: list[dict] = []
    while time.monotonic() < deadline:
        try:
            rows = cat.load_table(table).scan().to_arrow().to_pylist()
        except Exception:  # noqa: BLE001 - not created yet
            rows = []
        if len(rows) >= n:
            return rows
        time.sleep(0.2)
    raise AssertionError(f"{table}: {len(rows)} rows after {deadline_s}s, wanted {n}; "
                         f"{context()}")


def floe_scan(floe, uri: str, table: str) -> list[dict]:
    """`floe table scan` of `table` through floe's REST catalog, one dict per row."""
    import json

    out = floe.run("table", "scan", "--catalog", f"rest:{uri}", table)
    assert out.rc == 0, out.stderr
    return [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]

"""Loads demo tables into a running `floe server` (make run) through its Iceberg REST catalog
with pyiceberg, so the dashboard has something real to show and the optimizer work to do:

  demo.orders     partitioned by region; 15 small appends -> fragments in every partition,
                  which self-optimizing merges on its own (watch the table page)
  demo.customers  a few appends and a delete (snapshots from different operations)
  demo_cdc        only when the server's Kafka endpoint is on (its settings say so): a CDC
                  table topic (Debezium envelopes keyed by id, upserts and deletes) that
                  confluent-kafka produces into for DEMO_CDC_ROUNDS rounds (default 20, one a
                  second), landing in kafka.demo_cdc with equality deletes for the optimizer
                  to work on (watch the topic and table pages and the overview's charts)

    make demo                  # against http://127.0.0.1:8181
    FLOE_URL=http://host:port .venv/bin/python scripts/demo-data.py
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import urllib.request

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import (CommitFailedException, NamespaceAlreadyExistsError,
                                  TableAlreadyExistsError, ValidationException)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType

URL = os.environ.get("FLOE_URL", "http://127.0.0.1:8181")
REGIONS = ["eu", "us", "apac"]

ORDERS = Schema(NestedField(1, "order_id", LongType(), required=True),
                NestedField(2, "region", StringType(), required=True),
                NestedField(3, "customer", StringType()),
                NestedField(4, "amount", DoubleType()))
CUSTOMERS = Schema(NestedField(1, "id", LongType(), required=True),
                   NestedField(2, "name", StringType()),
                   identifier_field_ids=[1])


CDC_TOPIC = "demo_cdc"
CDC_CONFIG = {"floe.table.topic.enable": "true",
              "floe.table.topic.commit.interval.ms": "2000",
              "floe.table.topic.convert.value.type": "json",
              "floe.table.topic.transform.value.type": "flatten_debezium",
              "floe.table.topic.id.columns": "[id]"}


def kafka_bootstrap() -> str | None:
    """host:port of the server's Kafka endpoint, None when it is off."""
    with urllib.request.urlopen(URL + "/api/v1/settings", timeout=10) as r:
        kafka = json.load(r).get("kafka", {})
    if not kafka.get("enabled"):
        return None
    host = kafka.get("advertised-host") or kafka.get("host") or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"{host}:{kafka['port']}"


def cdc_topic(bootstrap: str, rounds: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    if CDC_TOPIC not in admin.list_topics(timeout=10).topics:
        admin.create_topics([NewTopic(CDC_TOPIC, num_partitions=2, replication_factor=1,
                                      config=CDC_CONFIG)])[CDC_TOPIC].result(timeout=30)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    rng = random.Random(11)
    live: dict[int, dict] = {}
    for round_ in range(rounds):
        for _ in range(200):
            key = rng.randrange(500)
            before = live.get(key)
            if before is not None and rng.random() < 0.2:
                env = {"before": before, "after": None, "op": "d"}
                del live[key]
            else:
                after = {"id": key, "status": rng.choice(["new", "paid", "shipped"]),
                         "amount": round(rng.uniform(1, 500), 2)}
                env = {"before": before, "after": after, "op": "u" if before else "c"}
                live[key] = after
            producer.produce(CDC_TOPIC, key=str(key).encode(), value=json.dumps(env).encode())
        producer.flush(30)
        print(f"{CDC_TOPIC}: round {round_ + 1}/{rounds} ({len(live)} live keys)", flush=True)
        time.sleep(1)


def main() -> int:
    cat = RestCatalog("floe", uri=URL, warehouse="default")
    try:
        cat.create_namespace("demo")
    except NamespaceAlreadyExistsError:
        pass
    rng = random.Random(7)
    try:
        orders = cat.create_table(
            "demo.orders", ORDERS,
            partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region")))
    except TableAlreadyExistsError:
        orders = cat.load_table("demo.orders")
    arrow = orders.schema().as_arrow()
    next_id = 0
    for batch in range(15):
        n = 200
        rows = {"order_id": list(range(next_id, next_id + n)),
                "region": [REGIONS[(next_id + i) % 3] for i in range(n)],
                "customer": [f"c{rng.randrange(500)}" for _ in range(n)],
                "amount": [round(rng.uniform(1, 500), 2) for _ in range(n)]}
        next_id += n
        orders.append(pa.Table.from_pydict(rows, schema=arrow))
        print(f"demo.orders: append {batch + 1}/15", flush=True)
    try:
        customers = cat.create_table("demo.customers", CUSTOMERS)
    except TableAlreadyExistsError:
        customers = cat.load_table("demo.customers")
    arrow = customers.schema().as_arrow()
    for batch in range(3):
        ids = list(range(batch * 100, batch * 100 + 100))
        customers.append(pa.Table.from_pydict({"id": ids, "name": [f"c{i}" for i in ids]},
                                              schema=arrow))
    # The optimizer may merge the appends meanwhile; pyiceberg's delete then refuses to
    # commit over the rewrite (its conflict check), and a retry on the new snapshot succeeds.
    for attempt in range(5):
        try:
            customers.delete("id < 20")
            break
        except (ValidationException, CommitFailedException):
            if attempt == 4:
                raise
            customers = cat.load_table("demo.customers")
    bootstrap = kafka_bootstrap()
    if bootstrap is None:
        print("the server's Kafka endpoint is off: no CDC table topic (start the server "
              "without --no-kafka for one)")
        print(f"done: open {URL}/ (tables demo.orders and demo.customers)")
        return 0
    cdc_topic(bootstrap, int(os.environ.get("DEMO_CDC_ROUNDS", "20")))
    print(f"done: open {URL}/ (tables demo.orders, demo.customers and kafka.{CDC_TOPIC}; "
          f"topic {CDC_TOPIC})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

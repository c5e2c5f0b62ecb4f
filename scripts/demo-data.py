"""Loads demo tables into a running `floe server` (make run) through its Iceberg REST catalog
with pyiceberg, so the dashboard has something real to show and the optimizer work to do:

  demo.orders     partitioned by region; 15 small appends -> fragments in every partition,
                  which self-optimizing merges on its own (watch the table page)
  demo.customers  a few appends and a delete (snapshots from different operations)

    make demo                  # against http://127.0.0.1:8181
    FLOE_URL=http://host:port .venv/bin/python scripts/demo-data.py
"""

from __future__ import annotations

import os
import random
import sys

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
    print(f"done: open {URL}/ (tables demo.orders and demo.customers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

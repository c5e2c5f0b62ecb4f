"""A small table written by pyiceberg through floe server's REST catalog, and a full optimize
of it run through the management API: shared by the management API and metrics suites."""

from __future__ import annotations

import time

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "name", StringType(), required=False))
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False),
                          pa.field("name", pa.string())])
TABLE_PATH = "/api/v1/catalogs/default/namespaces/db/tables/t"


def rows(start: int, n: int) -> pa.Table:
    return pa.Table.from_pydict({"id": list(range(start, start + n)),
                                 "name": [f"n{i}" for i in range(start, start + n)]},
                                schema=ARROW_SCHEMA)


def four_fragment_table(server, rows_per_append: int):
    """db.t with four small appends. Without the minor interval trigger, four fragments stay
    under the file-count trigger (12): the optimizer leaves the table alone until asked."""
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    t = cat.create_table("db.t", SCHEMA,
                         properties={"self-optimizing.minor.trigger.interval": "-1"})
    for i in range(4):
        t.append(rows(i * 100, rows_per_append))
    return cat


def optimize_and_wait(server, mode: str = "full", timeout: float = 60) -> dict:
    """Triggers an optimize of db.t through the API and returns its process record once it
    has ended."""
    code, body, _ = server.request("POST", TABLE_PATH + "/optimize", {"mode": mode})
    assert code == 202 and body["queued"] is True, body
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, page, _ = server.request("GET", TABLE_PATH + "/optimizing-processes")
        if page["items"] and page["items"][0]["status"] != "running":
            return page["items"][0]
        time.sleep(0.2)
    raise AssertionError(f"no optimizing process ended within {timeout}s:\n"
                         f"{server.log_text()[-4000:]}")

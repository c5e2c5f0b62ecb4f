"""Data expiration and automatic tags in `floe server`, with Amoro's table properties
(`data-expire.*`, `tag.auto-create.*`): pyiceberg writes through the REST catalog, the
server's maintenance removes the partitions older than the retention time with a real
Iceberg delete commit, and tags the table's first snapshot of the hour. pyiceberg reads the
rows it expects from its own writes and sees the tag as a ref.
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

# The maintenance suite's server (maintenance on every evaluation) and its wait helper.
from metrics_scrape import one, scrape
from test_maintenance import server, wait_for  # noqa: F401

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "dt", StringType(), required=False))
SPEC = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                    name="dt"))
BASE = "/api/v1/catalogs/default/namespaces/db/tables"


def runs(server, table, kind):
    code, page, _ = server.request("GET", f"{BASE}/{table}/maintenance-runs")
    assert code == 200, page
    return [r for r in page["items"] if r["kind"] == kind]


def test_partitions_older_than_the_retention_are_deleted(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    t = cat.create_table("db.events", SCHEMA, partition_spec=SPEC,
                         properties={"self-optimizing.enabled": "false"})
    today = dt.datetime.now(dt.timezone.utc).date()
    days = {age: (today - dt.timedelta(days=age)).isoformat() for age in (30, 10, 1, 0)}
    kept = []
    for n, (age, day) in enumerate(days.items()):
        rows = [{"id": n * 100 + k, "dt": day} for k in range(5)]
        if age < 7:
            kept += rows
        t.append(pa.Table.from_pylist(rows, schema=SCHEMA.as_arrow()))
    # Switched on once every partition is there, so one run sees them all.
    with t.transaction() as tx:
        tx.set_properties({"data-expire.enabled": "true",
                           "data-expire.field": "dt",
                           "data-expire.retention-time": "7d",
                           "data-expire.base-on-rule": "CURRENT_TIME"})

    def expired():
        return len(cat.load_table("db.events").scan().to_arrow()) == len(kept)

    wait_for(expired, "data expiry", server)
    t = cat.load_table("db.events")
    got = sorted((r["id"], r["dt"]) for r in t.scan().to_arrow().to_pylist())
    assert got == sorted((r["id"], r["dt"]) for r in kept)
    # A real Iceberg delete: the files of the two old partitions are gone from the table.
    snap = t.current_snapshot()
    assert snap.summary.operation.value == "delete"
    assert snap.summary["snapshot-producer"] == "DATA_EXPIRATION"
    assert snap.summary["deleted-data-files"] == "2"
    # The snapshots API and the dashboard's timeline name it maintenance, not an outside writer.
    code, page, _ = server.request("GET", f"{BASE}/events/snapshots?producer=maintenance")
    assert code == 200, page
    assert snap.snapshot_id in [s["snapshot-id"] for s in page["items"]], page
    assert sorted({f["partition"]["dt"] for f in t.inspect.files().to_pylist()}) == \
        sorted([days[1], days[0]])
    done = runs(server, "events", "expire-data")
    assert [(r["status"], r["deleted-files"]) for r in done] == [("success", 2)], done
    # The two expired partitions' files and rows (pyiceberg wrote 5 rows per partition).
    families = scrape(server)
    assert one(families, "floe_maintenance_expired_data_files_total", group="local") == 2
    assert one(families, "floe_maintenance_expired_records_total", group="local") == 10
    assert '"event":"data-expired"' in server.log_text()


def test_bad_data_expire_property_is_refused(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    cat.create_table("db.t", SCHEMA)
    code, body, _ = server.request("POST", f"{BASE}/t/properties",
                                   {"updates": {"data-expire.level": "row"}})
    assert code == 400 and "data-expire.level" in body["error"]["message"], body


def test_hourly_tag_on_the_first_snapshot_of_the_hour(server):
    cat = RestCatalog("floe", uri=server.uri, warehouse="default")
    cat.create_namespace("db")
    t = cat.create_table("db.tagged", SCHEMA, properties={
        "tag.auto-create.enabled": "true",
        "tag.auto-create.trigger.period": "hourly",
        "tag.auto-create.max-age-ms": "86400000",
        "self-optimizing.enabled": "false"})
    started = dt.datetime.now(dt.timezone.utc)
    t.append(pa.Table.from_pylist([{"id": 1, "dt": "x"}], schema=SCHEMA.as_arrow()))
    t.append(pa.Table.from_pylist([{"id": 2, "dt": "x"}], schema=SCHEMA.as_arrow()))

    def names(at):
        hour = at.replace(minute=0, second=0, microsecond=0)
        return hour, "tag-" + (hour - dt.timedelta(hours=1)).strftime("%Y%m%d%H")

    def tags():
        return {name: ref for name, ref in cat.load_table("db.tagged").metadata.refs.items()
                if ref.snapshot_ref_type.value == "tag"}

    wait_for(lambda: tags(), "an automatic tag", server)
    # The hour may have turned during the test: the tag names the hour before the trigger.
    expected = dict([names(started), names(dt.datetime.now(dt.timezone.utc))])
    (name, ref), = tags().items()
    assert name in expected.values(), (name, expected)
    trigger_ms = int(next(h for h, n in expected.items() if n == name).timestamp() * 1000)
    t = cat.load_table("db.tagged")
    after = sorted((s.timestamp_ms, s.snapshot_id) for s in t.metadata.snapshots
                   if s.timestamp_ms > trigger_ms)
    assert ref.snapshot_id == after[0][1]
    assert ref.max_ref_age_ms == 86400000
    assert [r["status"] for r in runs(server, "tagged", "auto-create-tags")] == ["success"]
    assert one(scrape(server), "floe_maintenance_tags_created_total", group="local") == 1

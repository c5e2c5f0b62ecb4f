"""Server-side scan planning through Iceberg Java 1.11's RESTCatalog client (the rest-peer,
java/rest-peer) against `floe server`.

Tables are written through floe's REST catalog by Iceberg Java itself (the iceberg-harness
with `--catalog-type rest`): appends, Flink-style upserts (equality deletes), and merge-on-read
deletes (position-delete files on v2, deletion vectors on v3). The rest-peer then opens two
RESTCatalogs on floe: one with `scan-planning-mode=server` (RESTSessionCatalog returns a
RESTTable whose scans are RESTTableScans: POST .../plan and .../tasks) and one with
`scan-planning-mode=client` (BaseTable, Java plans from the manifests itself). For every
snapshot, time-travel and incremental-append scan and filter, the tasks Java receives from
floe must equal the tasks Java plans locally (data file, start/length, counts, delete files
with their kind, residual), and the rows IcebergGenerics reads through both must be equal and
equal to the rows the writes leave (computed here).
"""

from __future__ import annotations

import json

import pytest

import iceberg_java
from floe_server import FloeServer

SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "cat", "required": True, "type": "string"},
    {"id": 3, "name": "v", "required": False, "type": "long"}]}
SPEC = {"spec-id": 0, "fields": [
    {"name": "cat", "transform": "identity", "source-id": 2, "field-id": 1000}]}
CATS = ["a", "b", "c"]

FILTERS = [
    None,
    {"type": "eq", "term": "cat", "value": "a"},
    {"type": "gt-eq", "term": "id", "value": 12},
    {"type": "and", "left": {"type": "in", "term": "cat", "values": ["b", "c"]},
     "right": {"type": "lt", "term": "v", "value": 150}},
]


def row(i: int, v: int | None = None) -> dict:
    return {"id": i, "cat": CATS[i % 3], "v": i * 10 if v is None else v}


def write_rows(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-plan-java")) as s:
        yield s


@pytest.fixture(scope="module")
def tables(server, tmp_path_factory):
    """Both tables written by Iceberg Java through floe, in one JVM; returns, per table, the
    live rows after each commit (the expected contents of each snapshot, in order)."""
    tmp = tmp_path_factory.mktemp("plan-java-rows")
    harness = iceberg_java.build_harness()
    java = harness.rest_catalog(server.uri)
    argvs, states = [], {}
    for version in (2, 3):
        t = f"jplan.t{version}"
        live: dict[int, dict] = {}
        history = []

        def commit(*argv):
            argvs.append(java.argv(*argv))
            history.append(sorted(live.values(), key=lambda r: r["id"]))

        # The v3 table's plans are answered with plan tasks of one data file each (floe's
        # thresholds), so Java fetches its tasks with POST .../tasks.
        props = [] if version == 2 else [
            "--property", "floe.scan-planning.inline-files=0",
            "--property", "floe.scan-planning.files-per-task=1"]
        argvs.append(java.argv("create", t, "--schema-json", json.dumps(SCHEMA), "--spec-json",
                               json.dumps(SPEC), "--format-version", version, *props))
        for start in (0, 10):
            batch = [row(i) for i in range(start, start + 10)]
            live.update({r["id"]: r for r in batch})
            commit("append", t, "--rows-json", write_rows(tmp / f"{version}-{start}.jsonl", batch))
        # Equality deletes: ids 2 and 12 rewritten with new values (v2 and v3).
        upserts = [row(2, 999), row(12, 555)]
        live.update({r["id"]: r for r in upserts})
        commit("upsert", t, "--key", "id,cat", "--rows-json",
               write_rows(tmp / f"{version}-upsert.jsonl", upserts))
        # Position deletes (v2) or deletion vectors (v3): rows with v = 50 and v = 130.
        for v in (50, 130):
            live = {k: r for k, r in live.items() if r["v"] != v}
            commit("delete-where", t, "--column", "v", "--value", v)
        batch = [row(i) for i in range(20, 25)]
        live.update({r["id"]: r for r in batch})
        commit("append", t, "--rows-json", write_rows(tmp / f"{version}-20.jsonl", batch))
        states[t] = history
    harness.batch(argvs)
    return states


def matches(r: dict, f) -> bool:
    if f is None:
        return True
    kind = f["type"]
    if kind == "and":
        return matches(r, f["left"]) and matches(r, f["right"])
    value = r[f["term"]]
    return {"eq": lambda: value == f["value"], "gt-eq": lambda: value >= f["value"],
            "lt": lambda: value is not None and value < f["value"],
            "in": lambda: value in f["values"]}[kind]()


def sorted_rows(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def rest_tasks(server, table: str, request: dict) -> list[dict]:
    """The file-scan-tasks of a plan request over raw HTTP, plan tasks followed."""
    ns, name = table.split(".")
    base = f"/v1/default/namespaces/{ns}/tables/{name}"
    status, body, _ = server.request("POST", f"{base}/plan", request)
    assert status == 200 and body["status"] == "completed", body
    tasks = list(body.get("file-scan-tasks", []))
    for token in body.get("plan-tasks", []):
        status, more, _ = server.request("POST", f"{base}/tasks", {"plan-task": token})
        assert status == 200, more
        tasks += more.get("file-scan-tasks", [])
    # The plan id answers the same plan again (the spec's fetchPlanningResult).
    status, again, _ = server.request("GET", f"{base}/plan/{body['plan-id']}")
    assert status == 200 and again["status"] == "completed", again
    assert again.get("plan-tasks", []) == body.get("plan-tasks", [])
    assert len(again.get("file-scan-tasks", [])) == len(body.get("file-scan-tasks", []))
    return tasks


METRIC_MAPS = ("value-counts", "null-value-counts", "nan-value-counts", "column-sizes",
               "lower-bounds", "upper-bounds")


def comparable(tasks: list[dict]) -> list[dict]:
    """Tasks with an empty column-metric map and an absent one made alike: floe's DataFile
    does not tell them apart (it omits empty maps from the REST ContentFile, Java's parser then
    gives null), while Java's client-side planning keeps a manifest's empty map; Java's metric
    evaluators treat both as "no metrics"."""
    return [{k: ({} if k in METRIC_MAPS and v is None else v) for k, v in t.items()}
            for t in tasks]


def task_difference(server: list[dict], client: list[dict]) -> str:
    """The first difference between two task lists, as a short text."""
    server_files = [t["data-file"] for t in server]
    client_files = [t["data-file"] for t in client]
    if server_files != client_files:
        return f"data files {server_files} != {client_files}"
    for s, c in zip(server, client):
        keys = sorted(k for k in s.keys() | c.keys() if s.get(k) != c.get(k))
        if keys:
            return f"{s['data-file']}: " + "; ".join(f"{k}: {s.get(k)} != {c.get(k)}" for k in keys)
    return "equal"


def test_java_server_side_planning_equals_client_side(server, tables):
    peer = iceberg_java.build_rest_peer()
    base = {"uri": server.uri, "warehouse": "default"}
    opens = [{"op": "open", "catalog": "server",
              "properties": {**base, "scan-planning-mode": "server"}},
             {"op": "open", "catalog": "client",
              "properties": {**base, "scan-planning-mode": "client"}}]
    steps = list(opens)
    for t in tables:
        steps += [{"op": "snapshots", "catalog": "client", "table": t},
                  {"op": "table-class", "catalog": "server", "table": t},
                  {"op": "table-class", "catalog": "client", "table": t}]
    first = peer.run(steps)
    assert all(r["ok"] for r in first), first
    snapshots = {t: first[2 + 3 * i]["value"] for i, t in enumerate(tables)}
    # A tag on the third snapshot, for scans by ref.
    tags = peer.run(opens + [{"op": "create-tag", "catalog": "client", "table": t, "name": "v3rd",
                              "snapshot-id": snapshots[t][2]["snapshot-id"]} for t in tables])
    assert all(r["ok"] for r in tags), tags
    for i, t in enumerate(tables):
        assert first[3 + 3 * i]["value"] == "RESTTable"
        assert first[4 + 3 * i]["value"] == "BaseTable"
        assert len(snapshots[t]) == len(tables[t])

    # (table, scan options, expected rows or None when only server == client is checked)
    scans = []
    for t, history in tables.items():
        snaps = snapshots[t]
        for k, snap in enumerate(snaps):
            for f in FILTERS:
                scan = {"snapshot-id": snap["snapshot-id"]}
                if f is not None:
                    scan["filter"] = f
                want = [r for r in history[k] if matches(r, f)]
                scans.append((t, scan, want))
        # Time travel by timestamp and by tag, and the head with a projection.
        scans.append((t, {"as-of-time": snaps[2]["timestamp-ms"]}, history[2]))
        scans.append((t, {"ref": "v3rd", "filter": FILTERS[3]},
                      [r for r in history[2] if matches(r, FILTERS[3])]))
        scans.append((t, {"select": ["id", "v"], "filter": FILTERS[2]},
                      [{"id": r["id"], "v": r["v"]} for r in history[-1] if r["id"] >= 12]))
        # Column metrics for some columns (stats-fields), and a case-insensitive filter.
        scans.append((t, {"stats": ["id", "cat"], "filter": FILTERS[3]},
                      [r for r in history[-1] if matches(r, FILTERS[3])]))
        scans.append((t, {"case-sensitive": False,
                          "filter": {"type": "eq", "term": "CAT", "value": "a"}},
                      [r for r in history[-1] if r["cat"] == "a"]))

    steps = list(opens)
    for t, scan, _ in scans:
        for mode in ("server", "client"):
            steps.append({"op": "plan", "catalog": mode, "table": t, **scan})
            steps.append({"op": "read", "catalog": mode, "table": t, **scan})
    results = peer.run(steps, timeout=600)[len(opens):]

    kinds = set()
    for n, (t, scan, want) in enumerate(scans):
        plan_s, read_s, plan_c, read_c = results[4 * n:4 * n + 4]
        what = (t, scan)
        assert plan_c["ok"] and read_c["ok"], (what, plan_c, read_c)
        assert plan_s["ok"], (what, plan_s)
        assert read_s["ok"], (what, read_s)
        assert plan_s["value"]["scan-class"] == "RESTTableScan", what
        server_tasks = comparable(plan_s["value"]["tasks"])
        client_tasks = comparable(plan_c["value"]["tasks"])
        assert server_tasks == client_tasks, (what, task_difference(server_tasks, client_tasks))
        if "stats" in scan:
            assert all(t["lower-bounds"] and t["value-counts"] for t in server_tasks), what
        assert read_s["value"] == read_c["value"], ("server != client", what)
        if want is not None:
            assert sorted_rows(read_c["value"]) == sorted_rows(want), ("client != expected", what)
        for task in plan_s["value"]["tasks"]:
            kinds.update((d["content"], d["format"]) for d in task["deletes"])
    assert {("equality_deletes", "parquet"), ("position_deletes", "parquet"),
            ("position_deletes", "puffin")} <= kinds, kinds
    # Java fetched the v3 table's tasks through plan tasks, and released its plans.
    calls = [f"{e['method']} {e['path']}" for e in
             map(json.loads, (server.data_dir / "access.log").read_text().splitlines())]
    base = "/v1/default/namespaces/jplan/tables"
    assert f"POST {base}/t3/tasks" in calls and f"POST {base}/t2/plan" in calls
    assert any(c.startswith(f"DELETE {base}/t3/plan/") for c in calls)

    # Incremental append scans. Java 1.11's RESTTableScan would send start/end-snapshot-id,
    # but TableScan.appendsBetween returns an IncrementalDataTableScan (DataTableScan), which
    # plans on the client even in server mode, and RESTTable has no server-side
    # IncrementalAppendScan. So floe's answer to a plan request with start/end-snapshot-id is
    # compared with Java's own Table.newIncrementalAppendScan() plan of the same range.
    steps = list(opens)
    ranges = []
    for t in tables:
        snaps = [s["snapshot-id"] for s in snapshots[t]]
        steps.append({"op": "plan", "catalog": "server", "table": t,
                      "appends-between": [snaps[0], snaps[1]]})
    for t in tables:
        snaps = [s["snapshot-id"] for s in snapshots[t]]
        for start, end in ((snaps[0], snaps[1]), (snaps[0], snaps[-1]), (snaps[1], snaps[-2]),
                           (snaps[2], snaps[-1])):
            for f in (None, FILTERS[1]):
                ranges.append((t, start, end, f))
                steps.append({"op": "plan", "catalog": "client", "table": t,
                              "incremental-append": [start, end],
                              **({} if f is None else {"filter": f})})
    results = peer.run(steps)[len(opens):]
    for i in range(len(tables)):
        assert results[i]["ok"], results[i]
        assert results[i]["value"]["scan-class"] == "IncrementalDataTableScan"
    appended_somewhere = False
    for (t, start, end, f), r in zip(ranges, results[len(tables):]):
        assert r["ok"], r
        assert r["value"]["scan-class"] == "BaseIncrementalAppendScan"
        want = {task["data-file"]: task["deletes"] for task in r["value"]["tasks"]}
        request = {"start-snapshot-id": start, "end-snapshot-id": end}
        if f is not None:
            request["filter"] = f
        got = {task["data-file"]["file-path"]: task.get("delete-file-references", [])
               for task in rest_tasks(server, t, request)}
        assert got == want, (t, start, end, f)
        appended_somewhere |= bool(got)
    assert appended_somewhere

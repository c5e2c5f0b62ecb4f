"""The web dashboard: floe server's static file handler over HTTP, the dashboard's read
routes (files, file sizes, table stats) against pyiceberg's view of the same table, and the
browser test (tests/e2e/dashboard.mjs: Playwright from web/node_modules driving Debian's
Chromium) against a server with real tables, an optimizing process and a second server with
authentication on. Screenshots go to tests/artifacts/screenshots/.

The dashboard's files must have been built (the floe_web CMake target, part of `make build`;
it needs npm) and Chromium installed (scripts/install-deps.sh): missing either is a failure."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

import managed_table
from floe_server import FloeServer

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
SECRET = "dashboard-e2e-secret"


def web_dir() -> Path:
    # floe is build/<preset>/src/floe/exe/floe; the floe_web target writes build/<preset>/web.
    return Path(os.environ["FLOE_BIN"]).resolve().parents[3] / "web"


def fetch(url: str, headers: dict | None = None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    assert (web_dir() / "index.html").is_file(), (
        f"the dashboard is not built in {web_dir()}: build the floe_web target (needs npm)")
    # No --web-dir: the server finds the files beside its binary.
    with FloeServer(floe.path, tmp_path_factory.mktemp("dash") / "data", optimizer=True) as s:
        cat = managed_table.four_fragment_table(s, rows_per_append=50)
        t = cat.load_table("db.t")
        # Wait until the optimizer evaluated the last append (what the overview counts).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            _, page, _ = s.request("GET", "/api/v1/table-stats?catalog=default")
            if page["items"] and page["items"][0]["data-files"] == 4:
                break
            time.sleep(0.1)
        s.pyiceberg_table = t
        yield s


def test_static_files_types_caching_and_fallback(server):
    status, headers, body = fetch(server.uri + "/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Cache-Control"] == "no-cache"
    scripts = re.findall(rb'src="(/assets/[^"]+\.js)"', body)
    styles = re.findall(rb'href="(/assets/[^"]+\.css)"', body)
    assert scripts and styles, body
    status, headers, js = fetch(server.uri + scripts[0].decode())
    assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert js == (web_dir() / scripts[0].decode().lstrip("/")).read_bytes()
    status, headers, _ = fetch(server.uri + styles[0].decode())
    assert headers["Content-Type"] == "text/css; charset=utf-8"
    # RFC 9110 §13.1.2: revalidation with the ETag.
    _, headers, _ = fetch(server.uri + "/")
    status, _, body304 = fetch(server.uri + "/", {"If-None-Match": headers["ETag"]})
    assert status == 304 and body304 == b""
    # Client routes get the app; missing files and escapes do not.
    status, headers, routed = fetch(server.uri + "/tables/default/db/t")
    assert status == 200 and routed == (web_dir() / "index.html").read_bytes()
    assert fetch(server.uri + "/assets/missing-1234.js")[0] == 404
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fCMakeCache.txt"):
        status, _, body = fetch(server.uri + path)
        assert b"root:" not in body and b"CMAKE" not in body, path
    # The API, the REST catalog and metrics keep their routes.
    status, headers, _ = fetch(server.uri + "/api/v1/overview")
    assert status == 200 and headers["Content-Type"] == "application/json"
    status, _, body = fetch(server.uri + "/api/v1/no-such-route")
    assert status == 404 and json.loads(body)["error"]["type"] == "NotFoundException"
    assert fetch(server.uri + "/v1/config")[0] == 200
    status, headers, _ = fetch(server.uri + "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")


def test_files_and_sizes_match_pyiceberg(server):
    t = server.pyiceberg_table
    t.refresh()
    files = t.inspect.files().to_pylist()
    base = managed_table.TABLE_PATH
    _, page, _ = server.request("GET", base + "/files?page-size=1000")
    assert page["total"] == len(files)
    assert {(f["path"], f["file-size-bytes"], f["record-count"]) for f in page["items"]} == {
        (f["file_path"], f["file_size_in_bytes"], f["record_count"]) for f in files}
    assert {f["content"] for f in page["items"]} == {"data"}
    _, hist, _ = server.request("GET", base + "/file-sizes")
    assert sum(b["data-files"] for b in hist["buckets"]) == len(files)
    assert sum(b["data-bytes"] for b in hist["buckets"]) == sum(
        f["file_size_in_bytes"] for f in files)
    for b in hist["buckets"]:
        for f in files:
            if b["data-files"] and b["lower-bytes"] <= f["file_size_in_bytes"] and (
                    b["upper-bytes"] is None or f["file_size_in_bytes"] < b["upper-bytes"]):
                break
        else:
            assert b["data-files"] == 0, b
    # Self-optimizing's default target size (Amoro: self-optimizing.target-size 128 MiB).
    assert hist["target-file-size-bytes"] == 134217728
    _, stats, _ = server.request("GET", "/api/v1/table-stats?sort=-total-bytes")
    [row] = [r for r in stats["items"] if r["identifier"] == "db.t"]
    assert row["data-files"] == len(files)
    assert row["records"] == sum(f["record_count"] for f in files)
    assert row["total-bytes"] == sum(f["file_size_in_bytes"] for f in files)
    _, storage, _ = server.request("GET", "/api/v1/storage")
    assert storage["data-files"] == len(files) and storage["evaluated-tables"] == 1
    assert sum(b["tables"] for b in storage["health-distribution"]) == 1
    code, body, _ = server.request("GET", base + "/files?content=nope")
    assert code == 400, body


def test_browser(server, floe, tmp_path):
    assert shutil.which("node"), "node is needed (scripts/install-deps.sh)"
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (scripts/install-deps.sh)"
    assert (REPO / "web" / "node_modules" / "playwright-core").is_dir(), (
        "web/node_modules is missing: the floe_web target runs npm ci")
    t = server.pyiceberg_table
    t.refresh()
    # A pyiceberg SqlCatalog for the attach form.
    lake = tmp_path / "lake"
    lake.mkdir()
    sql = SqlCatalog("lake_src", uri=f"sqlite:///{lake}/lake.db", warehouse=f"file://{lake}/wh")
    sql.create_namespace("sales")
    sql.create_table("sales.orders", managed_table.SCHEMA)
    auth_config = {"auth": {"enabled": True, "principals": {
        "ops": {"secret-sha256": hashlib.sha256(SECRET.encode()).hexdigest(),
                "catalogs": {"*": "write"}}}}}
    with FloeServer(floe.path, tmp_path / "auth", config=auth_config) as auth:
        expect = {
            "url": server.uri, "auth_url": auth.uri, "client_id": "ops", "secret": SECRET,
            "secret_sha256": hashlib.sha256(SECRET.encode()).hexdigest(),
            "port": server.port, "chromium": CHROMIUM, "web_src": str(REPO / "web"),
            "table": "db.t", "namespace": "db", "name": "t", "tables": 1,
            "data_files": len(t.inspect.files()),
            "snapshot_ids": [str(s.snapshot_id) for s in t.snapshots()],
            "fields": [{"name": f.name, "type": str(f.field_type)} for f in t.schema().fields],
            "property": ["owner", "dashboard-e2e"],
            "sql": {"name": "lake", "uri": f"sqlite:{lake}/lake.db", "warehouse": str(lake / "wh"),
                    "catalog_name": "lake_src", "namespace": "sales", "table": "orders",
                    "property": ["team", "ops"]},
        }
        proc = subprocess.run(["node", str(REPO / "tests" / "e2e" / "dashboard.mjs")],
                              env={**os.environ, "FLOE_E2E": json.dumps(expect),
                                   "FLOE_E2E_SCREENSHOTS": str(SCREENSHOTS)},
                              capture_output=True, text=True, timeout=240)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and lines, (
        f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}\n{server.log_text()[-2000:]}")
    result = json.loads(lines[-1])
    assert result["ok"], result
    # What the browser did, read back through the peers and the API.
    t = RestCatalog("floe", uri=server.uri, warehouse="default").load_table("db.t")
    assert t.properties["owner"] == "dashboard-e2e"
    assert len(t.snapshots()) == len(expect["snapshot_ids"]) + 1
    assert len(t.inspect.files()) == 1  # the full optimize merged the four files
    _, lake_record, _ = server.request("GET", "/api/v1/catalogs/lake")
    assert lake_record["properties"] == {"catalog-name": "lake_src", "team": "ops"}
    for name in ("overview", "tables", "table", "table-after-optimize", "catalogs", "catalog",
                 "table-attached-empty", "optimizers", "topics", "settings", "login", "settings-auth"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000, name

"""`floe server`'s /metrics, parsed by prometheus_client's text-format parser (what a
Prometheus scrape accepts), with the per-table figures checked against what pyiceberg reads
from the same tables and the optimizer figures against the management API's process record.
"""

from __future__ import annotations

import hashlib
import time

import pytest

from floe_server import FloeServer
from managed_table import four_fragment_table, optimize_and_wait, rows
from metrics_scrape import one, samples, scrape


def test_metrics_agree_with_pyiceberg_and_the_api(floe, tmp_path):
    with FloeServer(floe.path, tmp_path / "data", optimizer=True,
                    extra_args=["--optimizer-refresh-ms", "3600000"]) as server:
        cat = four_fragment_table(server, rows_per_append=25)
        process = optimize_and_wait(server, "full")
        assert process["status"] == "success", server.log_text()
        # One more append: the commit event makes the optimizer look at the table again.
        t = cat.load_table("db.t")
        t.append(rows(1000, 5))

        labels = {"catalog": "default", "namespace": "db", "table": "t"}
        deadline = time.monotonic() + 60
        while True:
            t = cat.load_table("db.t")
            summary = t.current_snapshot().summary
            families = scrape(server)
            data_files = samples(families, "floe_table_data_files", **labels)
            if data_files == [float(summary["total-data-files"])]:
                break
            assert time.monotonic() < deadline, (data_files, summary)
            time.sleep(0.3)
        assert one(families, "floe_table_records", **labels) == float(summary["total-records"])
        assert one(families, "floe_table_size_bytes", **labels) == \
            float(summary["total-files-size"])
        assert one(families, "floe_table_delete_files", **labels) == \
            float(summary["total-delete-files"])
        assert one(families, "floe_table_snapshots", **labels) == len(t.metadata.snapshots)
        assert 0 <= one(families, "floe_table_health_score", **labels) <= 100

        assert one(families, "floe_optimizing_processes_total", type="full",
                   status="success", **labels) == 1
        assert one(families, "floe_optimizer_bytes_written_total", group="local") == \
            process["bytes-written"]
        assert one(families, "floe_optimizer_files_rewritten_total", group="local") == \
            process["rewritten-data-files"] == 4
        assert one(families, "floe_optimizer_threads", group="local") == 1
        assert one(families, "floe_table_last_optimized_timestamp_seconds", type="full",
                   **labels) == pytest.approx(process["plan-time-ms"] / 1000)
        status = samples(families, "floe_table_optimizing_status", **labels)
        assert status == [1.0]

        # HTTP: every request so far was counted; histogram buckets are cumulative and end
        # at the count.
        rest_ok = one(families, "floe_http_requests_total", route="iceberg_rest", code="2xx")
        assert rest_ok >= 8
        buckets = samples(families, "floe_http_request_duration_seconds_bucket",
                          route="iceberg_rest")
        assert buckets == sorted(buckets)
        count = one(families, "floe_http_request_duration_seconds_count", route="iceberg_rest")
        assert buckets[-1] == count == sum(
            samples(families, "floe_http_requests_total", route="iceberg_rest"))
        assert one(families, "floe_catalogs") == 1
        assert one(families, "process_resident_memory_bytes") > 1 << 20
        assert len(samples(families, "floe_build_info")) == 1


def test_metrics_need_a_token_when_auth_is_on(floe, tmp_path):
    token = "scraper-token-7"
    config = {"auth": {"enabled": True, "principals": {
        "prometheus": {"tokens-sha256": [hashlib.sha256(token.encode()).hexdigest()],
                       "catalogs": {"*": "read"}}}}}
    with FloeServer(floe.path, tmp_path / "data", config=config) as server:
        code, _, _ = server.request("GET", "/metrics")
        assert code == 401
        families = scrape(server, token)
        assert one(families, "floe_catalogs") == 1

"""Scrapes floe server's /metrics and parses it with prometheus_client (what a Prometheus
scrape accepts); shared by the metrics and maintenance suites."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def scrape(server, token: str | None = None):
    req = urllib.request.Request(server.uri + "/metrics",
                                 headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    return families


def samples(families, name: str, **labels):
    """Values of samples called `name` whose labels include `labels`."""
    out = []
    for family in families.values():
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                out.append(s.value)
    return out


def one(families, name: str, **labels) -> float:
    values = samples(families, name, **labels)
    assert len(values) == 1, (name, labels, values)
    return values[0]

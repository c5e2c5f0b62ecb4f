"""Posting a schema to floe's schema registry as a Confluent client does."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def register(server, subject: str, body: dict, headers: dict | None = None):
    """POST /subjects/{subject}/versions with `body`; (status, parsed answer)."""
    req = urllib.request.Request(
        f"{server.schema_registry_uri}/subjects/{subject}/versions",
        data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())

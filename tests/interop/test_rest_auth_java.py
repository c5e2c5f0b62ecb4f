"""`floe server` with authentication on, driven by Iceberg Java 1.11's RESTCatalog (the
rest-peer, java/rest-peer): OAuth2 client credentials through `credential`,
`oauth2-server-uri` and `scope`, token refresh by token exchange (`token-refresh-enabled`)
under a 6-second `token-lifetime-seconds`, a static `token`, a read-only principal (which
may still plan scans on the server), a wrong secret. Expected outcomes are Iceberg Java's
own exception types (ErrorHandlers map 401 to NotAuthorizedException and 403 to
ForbiddenException); one JVM runs the whole script.
"""

from __future__ import annotations

import hashlib
import json

import pytest

import iceberg_java
from floe_server import FloeServer

SECRETS = {"etl": "etl-secret-51", "reader": "reader-secret-52"}
STATIC_TOKEN = "java-static-token-53"
# Java refreshes at 90% of the lifetime, so its refresh thread has 0.6 s to get its exchange
# in before the token lapses, even on a loaded machine.
LIFETIME_SECONDS = 6
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"}]}
ROWS = [{"id": 1, "name": "a"}, {"id": 2, "name": None}, {"id": 3, "name": "c"}]
MORE = [{"id": 4, "name": "d"}]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def rest_peer():
    return iceberg_java.build_rest_peer()


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    config = {"auth": {"enabled": True, "token-lifetime-seconds": LIFETIME_SECONDS,
                       "principals": {
        "etl": {"secret-sha256": sha256(SECRETS["etl"]), "catalogs": {"default": "write"}},
        "reader": {"secret-sha256": sha256(SECRETS["reader"]), "catalogs": {"default": "read"}},
        "dash": {"tokens-sha256": [sha256(STATIC_TOKEN)], "catalogs": {"*": "read"}},
    }}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-auth-java"), config=config) as s:
        yield s


def props(server, **extra) -> dict:
    return {"uri": server.uri, "warehouse": "default", **extra}


def oauth(server, client: str, secret: str, **extra) -> dict:
    return props(server, credential=f"{client}:{secret}",
                 **{"oauth2-server-uri": f"{server.uri}/v1/oauth/tokens", "scope": "catalog"},
                 **extra)


def token_requests(server) -> list[dict]:
    lines = (server.data_dir / "access.log").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("path") == "/v1/oauth/tokens"]


def test_java_oauth2_roles_static_token_wrong_secret_and_refresh(server, rest_peer):
    t = "jauth.orders"
    steps = [
        # 0-3: client credentials with refresh on; a second session that never refreshes
        {"op": "open", "catalog": "etl",
         "properties": oauth(server, "etl", SECRETS["etl"], **{"token-refresh-enabled": "true"})},
        {"op": "open", "catalog": "stale",
         "properties": oauth(server, "etl", SECRETS["etl"], **{"token-refresh-enabled": "false"})},
        {"op": "create-namespace", "catalog": "etl", "namespace": "jauth"},
        {"op": "create-table", "catalog": "etl", "table": t, "schema": SCHEMA},
        {"op": "append", "catalog": "etl", "table": t, "rows": ROWS},
        # 5-10: the read-only principal reads and is refused every write
        {"op": "open", "catalog": "reader",
         "properties": oauth(server, "reader", SECRETS["reader"])},
        {"op": "list-namespaces", "catalog": "reader"},
        {"op": "read", "catalog": "reader", "table": t},
        {"op": "create-table", "catalog": "reader", "table": "jauth.mine", "schema": SCHEMA},
        {"op": "append", "catalog": "reader", "table": t, "rows": MORE},
        {"op": "create-namespace", "catalog": "reader", "namespace": "readers"},
        # 11-13: a static bearer token with read on every catalog
        {"op": "open", "catalog": "dash", "properties": props(server, token=STATIC_TOKEN)},
        {"op": "list-tables", "catalog": "dash", "namespace": "jauth"},
        {"op": "drop-table", "catalog": "dash", "table": t},
        # 14-15: a wrong secret, and no credential at all, fail in initialize()
        {"op": "open", "catalog": "wrong", "properties": oauth(server, "etl", "not-the-secret")},
        {"op": "open", "catalog": "anonymous", "properties": props(server)},
        # 16-19: outlive the first token (and the next ones): the refreshing session keeps
        # working, the one without refresh is refused with its expired token
        {"op": "sleep", "ms": LIFETIME_SECONDS * 2500},
        {"op": "append", "catalog": "etl", "table": t, "rows": MORE},
        {"op": "read", "catalog": "etl", "table": t},
        {"op": "list-namespaces", "catalog": "stale"},
        # 20-22: server-side scan planning with a token: the read role may plan
        {"op": "open", "catalog": "reader-plan",
         "properties": oauth(server, "reader", SECRETS["reader"],
                             **{"scan-planning-mode": "server"})},
        {"op": "table-class", "catalog": "reader-plan", "table": t},
        {"op": "read", "catalog": "reader-plan", "table": t},
    ]
    before = len(token_requests(server))
    r = rest_peer.run(steps)

    for i in (0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 16, 17, 18, 20, 21, 22):
        assert r[i]["ok"], (i, steps[i]["op"], r[i])
    assert "jauth" in r[6]["value"]
    assert r[7]["value"] == ROWS
    for i in (8, 9, 10, 13):
        assert r[i] == {"ok": False, "error": "ForbiddenException",
                        "message": r[i]["message"]}, (i, r[i])
    assert r[12]["value"] == [t]
    assert not r[14]["ok"] and r[14]["error"] == "NotAuthorizedException", r[14]
    assert not r[15]["ok"] and r[15]["error"] == "NotAuthorizedException", r[15]
    assert r[18]["value"] == ROWS + MORE
    assert not r[19]["ok"] and r[19]["error"] == "NotAuthorizedException", r[19]
    assert r[21]["value"] == "RESTTable" and r[22]["value"] == ROWS + MORE

    # The access log: the two client-credentials grants of steps 0 and 1, then the refreshing
    # session's token exchanges (one per ~0.9 lifetime: at least two in the sleep), all
    # answered; the wrong secret's request refused.
    requests = token_requests(server)[before:]
    etl = [(e["grant"], e["status"]) for e in requests if e.get("principal") == "etl"]
    assert etl[:2] == [("client_credentials", 200)] * 2, requests
    assert etl[2:] == [("token-exchange", 200)] * len(etl[2:]) and len(etl) >= 4, requests
    assert any(e["status"] == 401 and "principal" not in e for e in requests), requests
    assert not any(e["status"] == 400 for e in requests), f"a refresh came too late: {requests}"
    entries = [json.loads(line) for line in
               (server.data_dir / "access.log").read_text().splitlines()]
    assert any(e["path"] == "/v1/default/namespaces/jauth/tables/orders/plan"
               and e["status"] == 200 and e.get("principal") == "reader" for e in entries)
    log = (server.data_dir / "access.log").read_text() + server.log_text()
    for secret in (*SECRETS.values(), STATIC_TOKEN, "not-the-secret"):
        assert secret not in log

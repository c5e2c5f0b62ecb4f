"""Authentication and authorization on every listener of `floe server` (issue 19 §2), tried as
an anonymous, a wrong-password and a wrong-role client would: the REST catalog, the management
API, /metrics, the schema registry (Confluent's HTTP Basic convention and bearer tokens) and
the Kafka endpoint (SASL PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER through
librdkafka, and kcat). Each test asserts the refusal *and* that the victim (topic, subject,
table) is intact and the server still answers the principals allowed in."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from floe_server import FloeServer
from scram import scram_credential

SECRETS = {"writer": "writer-secret-51", "reader": "reader-secret-52",
           "stranger": "stranger-secret-53", "ops": "ops-secret-54"}
SCRAM_PASSWORDS = {"writer": "scram-writer-pw-61", "reader": "scram-reader-pw-62"}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    principals = {
        "writer": {"secret-sha256": sha256(SECRETS["writer"]),
                   "scram-sha-256": scram_credential(floe.path, "SCRAM-SHA-256",
                                                     SCRAM_PASSWORDS["writer"]),
                   "scram-sha-512": scram_credential(floe.path, "SCRAM-SHA-512",
                                                     SCRAM_PASSWORDS["writer"]),
                   "catalogs": {"default": "write"}},
        "reader": {"secret-sha256": sha256(SECRETS["reader"]),
                   "scram-sha-512": scram_credential(floe.path, "SCRAM-SHA-512",
                                                     SCRAM_PASSWORDS["reader"]),
                   "catalogs": {"default": "read"}},
        "stranger": {"secret-sha256": sha256(SECRETS["stranger"]),
                     "catalogs": {"elsewhere": "write"}},
        "ops": {"secret-sha256": sha256(SECRETS["ops"]), "catalogs": {"*": "read"}},
    }
    # Every client here comes from 127.0.0.1, and librdkafka retries a failed login every
    # 50-100 ms: a generous throttle, so that the wrong-password tests do not lock the right
    # ones out (test_kafka_failures_are_throttled has its own server).
    config = {"auth": {"enabled": True, "principals": principals,
                       "throttle": {"client-burst": 100000, "peer-burst": 100000}}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("listener-auth"), kafka=True,
                    config=config) as s:
        yield s


def basic(user: str, password: str) -> dict:
    raw = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def token_for(server, user: str) -> str:
    status, body, _ = server.request(
        "POST", "/v1/oauth/tokens",
        urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": user,
                                "client_secret": SECRETS[user], "scope": "catalog"}),
        {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200, body
    return body["access_token"]


def bearer(server, user: str) -> dict:
    return {"Authorization": f"Bearer {token_for(server, user)}"}


def http(url: str, method: str = "GET", body=None, headers: dict | None = None):
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/vnd.schemaregistry.v1+json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, raw, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


# --- REST catalog and management API ----------------------------------------------------------

def test_rest_anonymous_and_wrong_role_are_refused(server):
    writer = bearer(server, "writer")
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["ra"]},
                          writer)[0] == 200
    status, body, headers = server.request("GET", "/v1/default/namespaces")
    assert status == 401 and body["error"]["type"] == "NotAuthorizedException"
    assert headers["WWW-Authenticate"].startswith("Bearer")
    status, body, _ = server.request("POST", "/v1/default/namespaces", {"namespace": ["rb"]},
                                     bearer(server, "reader"))
    assert status == 403 and body["error"]["type"] == "ForbiddenException"
    status, _, _ = server.request("GET", "/v1/default/namespaces", None,
                                  bearer(server, "stranger"))
    assert status == 403
    # Nothing was created, and the writer still sees its namespace.
    status, body, _ = server.request("GET", "/v1/default/namespaces", None, writer)
    assert status == 200 and body["namespaces"] == [["ra"]]


def test_management_api_anonymous_and_wrong_role(server):
    writer = bearer(server, "writer")
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["mg"]},
                          writer)[0] == 200
    status, body, _ = server.request("GET", "/api/v1/catalogs/default/namespaces")
    assert status == 401 and body["error"]["type"] == "NotAuthorizedException"
    status, _, _ = server.request("GET", "/api/v1/catalogs/default/namespaces", None,
                                  bearer(server, "stranger"))
    assert status == 403
    status, body, _ = server.request("GET", "/api/v1/catalogs/default/namespaces", None,
                                     bearer(server, "reader"))
    assert status == 200 and ["mg"] in [n["levels"] for n in body["items"]]
    # Creating an optimizer group changes the server: refused to a reader, the group absent.
    status, _, _ = server.request("POST", "/api/v1/optimizer-groups",
                                  {"name": "g-reader", "scheduling-policy": "quota"},
                                  bearer(server, "reader"))
    assert status == 403
    status, body, _ = server.request("GET", "/api/v1/optimizer-groups", None, writer)
    assert status == 200
    assert "g-reader" not in json.dumps(body)


def test_idempotency_keys_are_per_principal(server):
    writer = bearer(server, "writer")
    key = str(uuid.uuid4())
    status, _, _ = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]},
                                  {**writer, "Idempotency-Key": key})
    assert status == 200
    # The reader replaying the writer's key and request runs it itself: refused, never the
    # writer's stored 200.
    status, body, _ = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]},
                                     {**bearer(server, "reader"), "Idempotency-Key": key})
    assert status == 403, body
    # The writer's own retry is replayed.
    status, _, _ = server.request("POST", "/v1/default/namespaces", {"namespace": ["idem"]},
                                  {**writer, "Idempotency-Key": key})
    assert status == 200


def test_wrong_json_types_are_400_without_internals(server):
    writer = bearer(server, "writer")
    assert server.request("POST", "/v1/default/namespaces", {"namespace": ["types"]},
                          writer)[0] == 200
    bodies = [
        {"name": 5, "schema": {"type": "struct", "fields": []}},
        {"name": "t", "schema": {"type": "struct", "fields": "nope"}},
        {"name": "t", "schema": {"type": "struct", "fields": [{"id": "x", "name": "a",
                                                               "type": "int", "required": 1}]}},
        {"name": "t", "schema": [], "properties": {"a": 1}},
    ]
    for body in bodies:
        status, answer, _ = server.request("POST", "/v1/default/namespaces/types/tables", body,
                                           writer)
        assert 400 <= status < 500, (body, status, answer)
        text = json.dumps(answer)
        assert "json.exception" not in text and "type_error" not in text, text
    status, answer, _ = server.request("POST", "/api/v1/optimizer-groups",
                                       {"name": 7, "scheduling-policy": ["quota"]}, writer)
    assert 400 <= status < 500 and "json.exception" not in json.dumps(answer)
    assert server.request("GET", "/v1/default/namespaces", None, writer)[0] == 200


# --- /metrics ---------------------------------------------------------------------------------

def test_metrics_need_read_on_every_catalog(server):
    url = server.uri + "/metrics"
    status, _, headers = http(url)
    assert status == 401 and "WWW-Authenticate" in headers
    assert http(url, headers=basic("ops", "wrong"))[0] == 401
    # Read on one catalog only: the figures name every catalog's tables.
    assert http(url, headers=basic("reader", SECRETS["reader"]))[0] == 403
    status, body, _ = http(url, headers=basic("ops", SECRETS["ops"]))
    assert status == 200 and b"floe_" in body
    status, body, _ = http(url, headers=bearer(server, "ops"))
    assert status == 200 and b"floe_" in body


# --- schema registry --------------------------------------------------------------------------

AVRO = json.dumps({"type": "record", "name": "V", "fields": [{"name": "id", "type": "long"}]})


def test_registry_basic_auth_and_roles(server):
    base = server.schema_registry_uri
    subject = f"{base}/subjects/orders-value/versions"
    assert http(base + "/subjects")[0] == 401
    status, body, headers = http(subject, "POST", {"schema": AVRO})
    assert status == 401 and json.loads(body)["error_code"] == 40101
    assert headers["WWW-Authenticate"].startswith("Basic")
    assert http(subject, "POST", {"schema": AVRO}, basic("writer", "wrong"))[0] == 401
    status, body, _ = http(subject, "POST", {"schema": AVRO}, basic("reader", SECRETS["reader"]))
    assert status == 403 and json.loads(body)["error_code"] == 40301
    assert http(base + "/subjects", headers=basic("stranger", SECRETS["stranger"]))[0] == 403
    assert json.loads(http(base + "/subjects", headers=basic("writer", SECRETS["writer"]))[1]) \
        == []
    # The writer registers (Basic), the reader reads and looks the schema up (a POST that
    # only reads), and a bearer token works as Confluent's bearer.auth.token does.
    status, body, _ = http(subject, "POST", {"schema": AVRO}, basic("writer", SECRETS["writer"]))
    assert status == 200, body
    schema_id = json.loads(body)["id"]
    reader = basic("reader", SECRETS["reader"])
    assert json.loads(http(base + "/subjects", headers=reader)[1]) == ["orders-value"]
    status, body, _ = http(f"{base}/subjects/orders-value", "POST", {"schema": AVRO}, reader)
    assert status == 200 and json.loads(body)["id"] == schema_id
    status, body, _ = http(f"{base}/schemas/ids/{schema_id}", headers=bearer(server, "reader"))
    assert status == 200
    # Config changes and deletes are writes.
    assert http(f"{base}/config/orders-value", "PUT", {"compatibility": "NONE"}, reader)[0] == 403
    assert http(f"{base}/subjects/orders-value", "DELETE", None, reader)[0] == 403
    assert json.loads(http(base + "/subjects", headers=reader)[1]) == ["orders-value"]


def test_registry_deep_json_schema_without_credentials_is_refused_unparsed(server):
    # The attack of issue 19 §3: a schema nested 50,000 levels, posted anonymously.
    deep = '{"type":"object","properties":{"a":' * 50000 + "{}" + "}}" * 50000
    status, _, _ = http(server.schema_registry_uri + "/subjects/deep-value/versions", "POST",
                        json.dumps({"schemaType": "JSON", "schema": deep}).encode())
    assert status == 401
    assert http(server.schema_registry_uri + "/subjects",
                headers=basic("writer", SECRETS["writer"]))[0] == 200


# --- Kafka ------------------------------------------------------------------------------------

def sasl_conf(server, mechanism: str, user: str, password: str, **extra) -> dict:
    return {"bootstrap.servers": server.kafka_bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password,
            **extra}


def produce(conf: dict, topic: str, values: list[bytes], timeout: float = 30):
    """Returns (delivered count, delivery errors, client errors)."""
    client_errors = []
    producer = Producer({**conf, "message.timeout.ms": int(timeout * 1000),
                         "error_cb": lambda e: client_errors.append(e)})
    delivered, errors = [], []

    def on_delivery(err, msg):
        (errors if err else delivered).append(err or msg)

    for v in values:
        producer.produce(topic, v, on_delivery=on_delivery)
    producer.flush(timeout + 10)
    return len(delivered), errors, client_errors


def topic_offsets(server, topic: str) -> int | None:
    """The records in `topic`'s log by the management API, None if the topic is absent."""
    status, body, _ = server.request("GET", f"/api/v1/topics/{topic}", None,
                                     bearer(server, "writer"))
    if status == 404:
        return None
    assert status == 200, body
    return body["records"]


@pytest.mark.parametrize("mechanism,password", [
    ("PLAIN", SECRETS["writer"]),
    ("SCRAM-SHA-256", SCRAM_PASSWORDS["writer"]),
    ("SCRAM-SHA-512", SCRAM_PASSWORDS["writer"]),
])
def test_kafka_sasl_mechanisms_produce_and_consume(server, mechanism, password):
    from confluent_kafka import Consumer
    topic = f"sasl-{mechanism.lower()}"
    conf = sasl_conf(server, mechanism, "writer", password)
    delivered, errors, _ = produce(conf, topic, [b"a", b"b", b"c"])
    assert (delivered, errors) == (3, [])
    consumer = Consumer({**conf, "group.id": f"g-{mechanism}", "auto.offset.reset": "earliest",
                         "enable.auto.commit": True})
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < 3 and time.monotonic() < deadline:
        m = consumer.poll(1.0)
        if m is not None:
            assert m.error() is None, m.error()
            got.append(m.value())
    consumer.close()
    assert got == [b"a", b"b", b"c"]


def test_kafka_oauthbearer_with_floes_token(server):
    token = token_for(server, "writer")
    conf = {"bootstrap.servers": server.kafka_bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "oauth_cb": lambda _cfg: (token, time.time() + 3000, "writer", {})}
    delivered, errors, _ = produce(conf, "oauth-topic", [b"x"])
    assert (delivered, errors) == (1, [])
    # A token floe did not sign is refused.
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    bad = {**conf, "oauth_cb": lambda _cfg: (forged, time.time() + 3000, "writer", {})}
    delivered, errors, client_errors = produce(bad, "oauth-topic", [b"y"], timeout=8)
    assert delivered == 0
    assert any(e.code() == KafkaError._AUTHENTICATION for e in client_errors), client_errors
    assert topic_offsets(server, "oauth-topic") == 1


def test_kafka_wrong_password_and_anonymous_are_refused(server):
    writer = sasl_conf(server, "SCRAM-SHA-256", "writer", SCRAM_PASSWORDS["writer"])
    assert produce(writer, "victim", [b"kept"])[0] == 1
    for conf in (sasl_conf(server, "SCRAM-SHA-256", "writer", "not-it"),
                 sasl_conf(server, "SCRAM-SHA-512", "nobody", "x"),
                 sasl_conf(server, "PLAIN", "writer", "not-it")):
        delivered, _, client_errors = produce(conf, "victim", [b"evil"], timeout=8)
        assert delivered == 0
        assert any(e.code() == KafkaError._AUTHENTICATION for e in client_errors), client_errors
    # No SASL at all: the connection is closed after ApiVersions; nothing is appended and no
    # topic is auto-created.
    anonymous = {"bootstrap.servers": server.kafka_bootstrap}
    assert produce(anonymous, "victim", [b"evil"], timeout=6)[0] == 0
    assert produce(anonymous, "anon-created", [b"evil"], timeout=6)[0] == 0
    assert topic_offsets(server, "victim") == 1
    assert topic_offsets(server, "anon-created") is None
    assert "auth-token" not in server.log_text()
    for secret in (*SECRETS.values(), *SCRAM_PASSWORDS.values()):
        assert secret not in server.log_text()


def test_kafka_roles(server):
    writer = sasl_conf(server, "PLAIN", "writer", SECRETS["writer"])
    assert produce(writer, "roles", [b"1"])[0] == 1
    # The reader (SCRAM-SHA-512) may not produce, create or delete topics.
    reader = sasl_conf(server, "SCRAM-SHA-512", "reader", SCRAM_PASSWORDS["reader"])
    delivered, errors, _ = produce(reader, "roles", [b"2"], timeout=10)
    assert delivered == 0
    assert [e.code() for e in errors] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    admin = AdminClient(reader)
    futures = admin.create_topics([NewTopic("reader-made", 1, 1)], request_timeout=15)
    with pytest.raises(Exception) as created:
        futures["reader-made"].result(20)
    assert created.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    futures = admin.delete_topics(["roles"], request_timeout=15)
    with pytest.raises(Exception) as deleted:
        futures["roles"].result(20)
    assert deleted.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    # A principal without a role on the table-topic catalog sees no topic at all.
    stranger = AdminClient(sasl_conf(server, "PLAIN", "stranger", SECRETS["stranger"]))
    assert "roles" not in stranger.list_topics(timeout=15).topics
    assert "roles" in admin.list_topics(timeout=15).topics
    assert topic_offsets(server, "roles") == 1


def test_kcat_with_scram(server, tmp_path):
    common = ["kcat", "-b", server.kafka_bootstrap, "-X", "security.protocol=SASL_PLAINTEXT",
              "-X", "sasl.mechanisms=SCRAM-SHA-512", "-X", "sasl.username=writer",
              "-X", f"sasl.password={SCRAM_PASSWORDS['writer']}"]
    put = subprocess.run(common + ["-P", "-t", "kcat-topic"], input=b"one\ntwo\n",
                         capture_output=True, timeout=60)
    assert put.returncode == 0, put.stderr.decode(errors="replace")[-2000:]
    out = subprocess.run(common + ["-C", "-t", "kcat-topic", "-o", "beginning", "-e", "-q"],
                         capture_output=True, check=True, timeout=60)
    assert out.stdout.split() == [b"one", b"two"]
    bad = [a if not a.startswith("sasl.password=") else "sasl.password=wrong" for a in common]
    refused = subprocess.run(bad + ["-L", "-m", "8"], capture_output=True, timeout=60)
    assert refused.returncode != 0
    assert b"Authentication failed" in refused.stderr + refused.stdout


def test_kafka_failures_are_throttled(floe, tmp_path):
    """Past the burst, SASL attempts from a peer fail unchecked, even the right password, until
    the window refills (the token endpoint's throttle, shared with SASL)."""
    config = {"auth": {"enabled": True,
                       "principals": {"writer": {"secret-sha256": sha256(SECRETS["writer"]),
                                                 "catalogs": {"default": "write"}}},
                       "throttle": {"client-burst": 3, "peer-burst": 3, "refill-ms": 60000}}}
    with FloeServer(floe.path, tmp_path / "data", kafka=True, config=config) as server:
        good = sasl_conf(server, "PLAIN", "writer", SECRETS["writer"])
        assert produce(good, "throttled", [b"before"])[0] == 1
        bad = sasl_conf(server, "PLAIN", "writer", "guess", **{"reconnect.backoff.ms": 200})
        assert produce(bad, "throttled", [b"evil"], timeout=5)[0] == 0
        delivered, _, client_errors = produce(good, "throttled", [b"after"], timeout=5)
        assert delivered == 0
        assert any("retry" in e.str().lower() or "too many" in e.str().lower()
                   for e in client_errors), [e.str() for e in client_errors]
        # The token endpoint shares the throttle: 429 with Retry-After.
        status, _, headers = server.request(
            "POST", "/v1/oauth/tokens",
            urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "writer",
                                    "client_secret": SECRETS["writer"]}),
            {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 429 and int(headers["Retry-After"]) >= 1
        assert server.request("GET", "/health")[0] == 200

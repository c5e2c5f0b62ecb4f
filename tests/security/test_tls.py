"""TLS on every listener of `floe server` (issue 19 §2): the HTTP listener (REST catalog,
management API, /health), the schema registry and the Kafka endpoint, with a CA and
certificates made here by `cryptography`. The peers are pyiceberg, urllib / requests,
confluent-kafka (librdkafka), kcat and the openssl CLI; each test asserts the refusal or the
round trip *and* that the server still answers. SASL_SSL (SCRAM over TLS) is at the end; the
other SASL cases are in test_listener_auth.py."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from confluent_kafka import Consumer, KafkaException, Producer
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from floe_server import FloeServer
from scram import scram_credential
from pyiceberg.catalog.rest import RestCatalog

KEY_PASSWORD = "tls-test-key-passphrase-7f3a"


# --- the test PKI -----------------------------------------------------------------------------

@dataclass
class Issued:
    cert: Path
    key: Path
    serial: int


class Pki:
    """A self-signed CA and the certificates it issues, as PEM files in `directory`."""

    def __init__(self, directory: Path, name: str = "floe test CA"):
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.ca_cert = (
            x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(self.ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False),
                           critical=True)
            .sign(self.ca_key, hashes.SHA256()))
        self.ca = self.dir / f"{name.replace(' ', '_')}.pem"
        self.ca.write_bytes(self.ca_cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, cn: str, file_stem: str, *, server: bool, password: str | None = None
              ) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        serial = x509.random_serial_number()
        now = datetime.datetime.now(datetime.timezone.utc)
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "floe tests"),
                                     x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
            .issuer_name(self.ca_cert.subject).public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(
                [x509.ExtendedKeyUsageOID.SERVER_AUTH if server
                 else x509.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
        cert = builder.sign(self.ca_key, hashes.SHA256())
        encryption = (serialization.BestAvailableEncryption(password.encode()) if password
                      else serialization.NoEncryption())
        issued = Issued(self.dir / f"{file_stem}.pem", self.dir / f"{file_stem}.key", serial)
        issued.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        issued.key.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                 serialization.PrivateFormat.PKCS8, encryption))
        return issued


def tls_block(server_cert: Issued, pki: Pki, client_auth: str = "none",
              password: str | None = KEY_PASSWORD) -> dict:
    block = {"cert-file": str(server_cert.cert), "key-file": str(server_cert.key),
             "ca-file": str(pki.ca), "client-auth": client_auth}
    if password:
        block["key-password"] = password
    return block


def tls_config(server_cert: Issued, pki: Pki, client_auth: str = "none") -> dict:
    """floe.yaml with the same TLS settings on all three listeners."""
    block = tls_block(server_cert, pki, client_auth)
    return {"http": {"tls": block},
            "kafka": {"tls": block, "schema-registry": {"tls": block}}}


def client_context(pki: Pki, client: Issued | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(pki.ca))
    if client is not None:
        ctx.load_cert_chain(str(client.cert), str(client.key))
    return ctx


def kafka_conf(server: FloeServer, pki: Pki, client: Issued | None = None,
               protocol: str = "SSL", **extra) -> dict:
    """confluent-kafka settings for the floe listener; SASL settings go in `extra`."""
    conf = {"bootstrap.servers": server.kafka_bootstrap, "security.protocol": protocol,
            "ssl.ca.location": str(pki.ca)}
    if client is not None:
        conf["ssl.certificate.location"] = str(client.cert)
        conf["ssl.key.location"] = str(client.key)
    conf.update(extra)
    return conf


def peer_serial(port: int, pki: Pki, client: Issued | None = None) -> int:
    """The serial number of the certificate a new TLS connection to `port` is served."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with client_context(pki, client).wrap_socket(raw, server_hostname="localhost") as tls:
            der = tls.getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).serial_number


def produce(conf: dict, topic: str, values: list[bytes]) -> Producer:
    producer = Producer(conf)
    errors = []
    for v in values:
        producer.produce(topic, v, on_delivery=lambda err, _m: err and errors.append(err))
    assert producer.flush(30) == 0
    assert errors == []
    return producer


def consume(conf: dict, topic: str, count: int) -> list[bytes]:
    consumer = Consumer({**conf, "group.id": f"g-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = consumer.poll(1.0)
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append(m.value())
    finally:
        consumer.close()
    return got


def refused(fn) -> bool:
    try:
        fn()
    except (ssl.SSLError, ConnectionError, urllib.error.URLError, http.client.HTTPException,
            requests.exceptions.ConnectionError, OSError):
        return True
    return False


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Pki:
    return Pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def server_cert(pki) -> Issued:
    return pki.issue("localhost", "server", server=True, password=KEY_PASSWORD)


@pytest.fixture(scope="module")
def tls_server(floe, pki, server_cert, tmp_path_factory):
    with FloeServer(floe.path, tmp_path_factory.mktemp("tls") / "data", kafka=True,
                    config=tls_config(server_cert, pki),
                    ssl_context=client_context(pki)) as server:
        yield server


# --- one-way TLS ------------------------------------------------------------------------------

def trust_in_requests(monkeypatch, pki: Pki) -> None:
    # requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE (set on many machines) win over a
    # session's `verify`, which is where pyiceberg puts `ssl.cabundle`.
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(pki.ca))
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)


def test_pyiceberg_over_https_creates_and_reads_a_table(tls_server, pki, monkeypatch):
    assert tls_server.uri.startswith("https://")
    trust_in_requests(monkeypatch, pki)
    catalog = RestCatalog("floe", uri=tls_server.uri, warehouse="default",
                          **{"ssl": {"cabundle": str(pki.ca)}})
    catalog.create_namespace("tls_ns")
    table = catalog.create_table("tls_ns.events",
                                 schema=pa.schema([("id", pa.int64()), ("name", pa.string())]))
    table.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}))
    rows = catalog.load_table("tls_ns.events").scan().to_arrow().sort_by("id").to_pylist()
    assert rows == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]


def test_untrusting_client_and_plain_http_are_refused(tls_server, pki):
    # A client that does not trust the CA refuses the server's certificate.
    assert refused(lambda: urllib.request.urlopen(tls_server.uri + "/health", timeout=10,
                                                  context=ssl.create_default_context()))
    # Plain HTTP to the TLS port gets no HTTP answer: the handshake fails and floe closes.
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        reply = b""
        try:
            while chunk := s.recv(4096):
                reply += chunk
        except ConnectionResetError:
            pass
    assert b"HTTP/1.1" not in reply
    assert refused(lambda: urllib.request.urlopen(
        f"http://127.0.0.1:{tls_server.port}/health", timeout=10))
    # ... and the server still answers over https.
    status, body, _ = tls_server.request("GET", "/health")
    assert status == 200


def test_only_tls_1_2_and_newer(tls_server, pki):
    base = ["openssl", "s_client", "-connect", f"127.0.0.1:{tls_server.port}",
            "-CAfile", str(pki.ca), "-verify_return_error"]
    old = subprocess.run(base + ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"],
                         input=b"", capture_output=True, timeout=30)
    assert old.returncode != 0
    # The server's refusal, not the client's: a protocol_version alert came back.
    assert b"alert protocol version" in old.stdout + old.stderr
    for version, name in (("-tls1_2", b"TLSv1.2"), ("-tls1_3", b"TLSv1.3")):
        new = subprocess.run(base + [version], input=b"", capture_output=True, timeout=30)
        assert new.returncode == 0, new.stderr
        assert b"Protocol  : " + name in new.stdout or b"New, " + name in new.stdout
        assert b"Verify return code: 0 (ok)" in new.stdout


def test_confluent_kafka_over_ssl_produces_and_consumes(tls_server, pki):
    conf = kafka_conf(tls_server, pki)
    values = [f"ssl-{i}".encode() for i in range(20)]
    produce(conf, "tls-topic", values)
    # The consumer connects to the broker Metadata advertises: the TLS listener.
    assert consume(conf, "tls-topic", len(values)) == values
    md = Producer(conf).list_topics(timeout=10)
    assert [(b.host, b.port) for b in md.brokers.values()] == [("127.0.0.1",
                                                                  tls_server.kafka_port)]


def test_plaintext_kafka_client_on_the_ssl_port_fails(tls_server, pki):
    plain = Producer({"bootstrap.servers": tls_server.kafka_bootstrap,
                      "security.protocol": "PLAINTEXT", "socket.timeout.ms": 3000})
    with pytest.raises(KafkaException):
        plain.list_topics(timeout=4)
    assert Producer(kafka_conf(tls_server, pki)).list_topics(timeout=10).brokers


def test_kcat_over_ssl(tls_server, pki):
    if shutil.which("kcat") is None:
        raise RuntimeError("kcat is not installed (apt-get install kcat)")
    common = ["kcat", "-b", tls_server.kafka_bootstrap, "-X", "security.protocol=ssl",
              "-X", f"ssl.ca.location={pki.ca}", "-t", "kcat-tls"]
    p = subprocess.run(common + ["-P"], input=b"one\ntwo\nthree\n", capture_output=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    c = subprocess.run(common + ["-C", "-o", "beginning", "-e", "-q"], capture_output=True,
                       timeout=60)
    assert c.returncode == 0, c.stderr
    assert c.stdout.split() == [b"one", b"two", b"three"]


def test_schema_registry_over_https(tls_server, pki):
    assert tls_server.schema_registry_uri.startswith("https://")
    schema = {"type": "record", "name": "R", "fields": [{"name": "id", "type": "long"}]}
    r = requests.post(f"{tls_server.schema_registry_uri}/subjects/tls-value/versions",
                      json={"schema": json.dumps(schema)}, verify=str(pki.ca), timeout=30)
    assert r.status_code == 200, r.text
    schema_id = r.json()["id"]
    r = requests.get(f"{tls_server.schema_registry_uri}/schemas/ids/{schema_id}",
                     verify=str(pki.ca), timeout=30)
    assert r.status_code == 200
    assert json.loads(r.json()["schema"]) == schema
    assert refused(lambda: requests.get(
        f"http://127.0.0.1:{tls_server.schema_registry_port}/subjects", timeout=10))


def test_key_password_is_never_logged_or_shown(tls_server):
    status, settings, _ = tls_server.request("GET", "/api/v1/settings")
    assert status == 200
    text = json.dumps(settings)
    assert KEY_PASSWORD not in text
    assert settings["http"]["tls"]["has-key-password"] is True
    assert settings["kafka"]["tls"]["client-auth"] == "none"
    log = (tls_server.data_dir / "server.log").read_text(errors="replace")
    assert "tls http:" in log  # the start-up lines name each listener's certificate
    assert KEY_PASSWORD not in log and "PRIVATE KEY" not in log


def test_a_key_that_does_not_match_the_certificate_stops_the_start(floe, pki, server_cert,
                                                                   tmp_path):
    other = pki.issue("localhost", "other", server=True)
    block = {"cert-file": str(server_cert.cert), "key-file": str(other.key)}
    server = FloeServer(floe.path, tmp_path / "data", config={"http": {"tls": block}},
                        ssl_context=client_context(pki))
    with pytest.raises(RuntimeError, match="does not match"):
        server.start()


# --- mutual TLS -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mtls(floe, pki, server_cert, tmp_path_factory):
    client = pki.issue("etl-client", "client", server=False)
    rogue_pki = Pki(tmp_path_factory.mktemp("rogue"), name="rogue CA")
    rogue = rogue_pki.issue("etl-client", "rogue-client", server=False)
    with FloeServer(floe.path, tmp_path_factory.mktemp("mtls") / "data", kafka=True,
                    config=tls_config(server_cert, pki, client_auth="required"),
                    ssl_context=client_context(pki, client)) as server:
        yield server, client, rogue


def test_mutual_tls_http_requires_a_client_certificate_of_the_ca(mtls, pki, monkeypatch):
    server, client, rogue = mtls
    trust_in_requests(monkeypatch, pki)
    url = server.uri + "/health"
    assert refused(lambda: urllib.request.urlopen(url, timeout=10, context=client_context(pki)))
    assert refused(lambda: urllib.request.urlopen(url, timeout=10,
                                                  context=client_context(pki, rogue)))
    with urllib.request.urlopen(url, timeout=10, context=client_context(pki, client)) as r:
        assert r.status == 200
    # pyiceberg with its client certificate.
    catalog = RestCatalog("floe", uri=server.uri, warehouse="default",
                          **{"ssl": {"cabundle": str(pki.ca),
                                     "client": {"cert": str(client.cert),
                                                "key": str(client.key)}}})
    catalog.create_namespace("mtls_ns")
    assert ("mtls_ns",) in catalog.list_namespaces()
    # The verified certificate's CN reaches the request (the access log shows it).
    lines = [json.loads(line) for line in
             (server.data_dir / "access.log").read_text().splitlines() if line]
    assert lines and all(line.get("client-cn") == "etl-client" for line in lines)


def test_mutual_tls_kafka_and_registry(mtls, pki):
    server, client, rogue = mtls
    for who in (None, rogue):
        p = Producer(kafka_conf(server, pki, who, **{"socket.timeout.ms": 3000}))
        with pytest.raises(KafkaException):
            p.list_topics(timeout=4)
    conf = kafka_conf(server, pki, client)
    produce(conf, "mtls-topic", [b"x", b"y"])
    assert consume(conf, "mtls-topic", 2) == [b"x", b"y"]

    subjects = f"{server.schema_registry_uri}/subjects"
    assert refused(lambda: requests.get(subjects, verify=str(pki.ca), timeout=10))
    r = requests.get(subjects, verify=str(pki.ca), cert=(str(client.cert), str(client.key)),
                     timeout=10)
    assert r.status_code == 200 and r.json() == []


# --- reload on SIGHUP ---------------------------------------------------------------------------

def wait_for(predicate, what: str, seconds: float = 20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_sighup_reloads_certificates_for_new_connections(floe, pki, tmp_path):
    live = pki.issue("localhost", "live", server=True, password=KEY_PASSWORD)
    first_serial = live.serial
    with FloeServer(floe.path, tmp_path / "data", kafka=True, config=tls_config(live, pki),
                    ssl_context=client_context(pki)) as server:
        ports = {"http": server.port, "kafka": server.kafka_port,
                 "schema-registry": server.schema_registry_port}
        assert {n: peer_serial(p, pki) for n, p in ports.items()} == dict.fromkeys(
            ports, first_serial)
        # Connections open before the reload.
        old_https = http.client.HTTPSConnection("127.0.0.1", server.port,
                                                context=client_context(pki), timeout=30)
        old_https.request("GET", "/health")
        assert old_https.getresponse().read() is not None
        producer = produce(kafka_conf(server, pki), "reload-topic", [b"before"])

        renewed = pki.issue("localhost", "renewed", server=True, password=KEY_PASSWORD)
        shutil.copyfile(renewed.cert, live.cert)
        shutil.copyfile(renewed.key, live.key)
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: peer_serial(server.port, pki) == renewed.serial, "the new certificate")
        assert {n: peer_serial(p, pki) for n, p in ports.items()} == dict.fromkeys(
            ports, renewed.serial)

        # The old connections still work, on the old certificate.
        old_https.request("GET", "/health")
        response = old_https.getresponse()
        assert response.status == 200
        response.read()
        old_der = old_https.sock.getpeercert(binary_form=True)
        assert x509.load_der_x509_certificate(old_der).serial_number == first_serial
        old_https.close()
        errors = []
        producer.produce("reload-topic", b"after",
                         on_delivery=lambda err, _m: err and errors.append(err))
        assert producer.flush(30) == 0 and errors == []
        assert consume(kafka_conf(server, pki), "reload-topic", 2) == [b"before", b"after"]

        # A broken file keeps the current certificate, logs the error, and the server serves.
        live.cert.write_text("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "TLS not reloaded" in server.log_text(), "the reload error")
        assert {n: peer_serial(p, pki) for n, p in ports.items()} == dict.fromkeys(
            ports, renewed.serial)
        status, _, _ = server.request("GET", "/health")
        assert status == 200
        log = server.log_text()
        assert "SIGHUP: http TLS reloaded" in log
        assert KEY_PASSWORD not in log and "PRIVATE KEY" not in log
        assert server.stop() == 0


# --- SASL_SSL ---------------------------------------------------------------------------------

SASL_PASSWORD = "sasl-ssl-scram-pw-71"


@pytest.fixture(scope="module")
def sasl_ssl_server(floe, pki, server_cert, tmp_path_factory):
    fields = scram_credential(floe.path, "SCRAM-SHA-512", SASL_PASSWORD)
    config = tls_config(server_cert, pki)
    config["auth"] = {"enabled": True, "principals": {"etl": {
        "scram-sha-512": fields, "catalogs": {"default": "write"}}}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("sasl-ssl") / "data", kafka=True,
                    config=config, ssl_context=client_context(pki)) as server:
        yield server


def test_confluent_kafka_sasl_ssl_with_scram(sasl_ssl_server, pki):
    conf = kafka_conf(sasl_ssl_server, pki, protocol="SASL_SSL",
                      **{"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "etl",
                         "sasl.password": SASL_PASSWORD})
    values = [f"sasl-ssl-{i}".encode() for i in range(10)]
    produce(conf, "sasl-ssl-topic", values)
    assert consume(conf, "sasl-ssl-topic", len(values)) == values
    # SSL without SASL: the TLS handshake succeeds, then the connection is closed.
    with pytest.raises(KafkaException):
        Producer({**kafka_conf(sasl_ssl_server, pki), "socket.timeout.ms": 3000}
                 ).list_topics(timeout=4)


def test_kcat_sasl_ssl_with_scram(sasl_ssl_server, pki):
    common = ["kcat", "-b", sasl_ssl_server.kafka_bootstrap, "-X", "security.protocol=sasl_ssl",
              "-X", f"ssl.ca.location={pki.ca}", "-X", "sasl.mechanisms=SCRAM-SHA-512",
              "-X", "sasl.username=etl", "-X", f"sasl.password={SASL_PASSWORD}",
              "-t", "kcat-sasl-ssl"]
    p = subprocess.run(common + ["-P"], input=b"one\ntwo\n", capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    c = subprocess.run(common + ["-C", "-o", "beginning", "-e", "-q"], capture_output=True,
                       timeout=60)
    assert c.returncode == 0, c.stderr
    assert c.stdout.split() == [b"one", b"two"]
    assert SASL_PASSWORD not in sasl_ssl_server.log_text()

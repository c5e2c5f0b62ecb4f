"""`floe server` with authentication on, driven by pyiceberg's RestCatalog (OAuth2 client
credentials with `credential=id:secret`, and a static `token`) and by raw HTTP for the REST
spec's OAuth token response and error bodies."""

from __future__ import annotations

import hashlib
import urllib.parse

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, OAuthError, UnauthorizedError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from floe_server import FloeServer

SECRETS = {"etl": "etl-secret-41", "reader": "reader-secret-42"}
STATIC_TOKEN = "dashboard-static-token-43"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=True),
                NestedField(2, "name", StringType(), required=False))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def server(floe, tmp_path_factory):
    config = {"auth": {"enabled": True, "principals": {
        "etl": {"secret-sha256": sha256(SECRETS["etl"]), "catalogs": {"default": "write"}},
        "reader": {"secret-sha256": sha256(SECRETS["reader"]), "catalogs": {"default": "read"}},
        "dash": {"tokens-sha256": [sha256(STATIC_TOKEN)], "catalogs": {"*": "read"}},
    }}}
    with FloeServer(floe.path, tmp_path_factory.mktemp("floe-auth"), config=config) as s:
        yield s


def catalog(server, **props) -> RestCatalog:
    return RestCatalog("floe", uri=server.uri, warehouse="default", **props)


def token_request(server, fields: dict, headers: dict | None = None):
    return server.request("POST", "/v1/oauth/tokens", urllib.parse.urlencode(fields),
                          {"Content-Type": "application/x-www-form-urlencoded",
                           **(headers or {})})


def test_pyiceberg_credential_end_to_end_and_read_only_principal(server):
    etl = catalog(server, credential=f"etl:{SECRETS['etl']}")
    etl.create_namespace("sales")
    table = etl.create_table("sales.orders", SCHEMA)
    rows = pa.Table.from_pydict({"id": [1, 2, 3], "name": ["a", "b", None]},
                                schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                                  pa.field("name", pa.string())]))
    table.append(rows)
    assert etl.load_table("sales.orders").scan().to_arrow().sort_by("id").equals(rows)

    reader = catalog(server, credential=f"reader:{SECRETS['reader']}")
    assert reader.load_table("sales.orders").scan().to_arrow().num_rows == 3
    with pytest.raises(ForbiddenError):
        reader.create_table("sales.other", SCHEMA)
    with pytest.raises(ForbiddenError):
        reader.load_table("sales.orders").append(rows)
    with pytest.raises(ForbiddenError):
        reader.create_namespace("mine")

    dash = catalog(server, token=STATIC_TOKEN)
    assert ("sales",) in dash.list_namespaces()
    with pytest.raises(ForbiddenError):
        dash.drop_table("sales.orders")


def test_wrong_secret_and_no_token(server):
    with pytest.raises(OAuthError, match="invalid_client"):
        catalog(server, credential="etl:not-the-secret")
    with pytest.raises(UnauthorizedError):
        catalog(server).list_namespaces()
    status, body, headers = server.request("GET", "/v1/config")
    assert status == 401
    assert body["error"]["type"] == "NotAuthorizedException"
    assert headers["WWW-Authenticate"].startswith("Bearer")
    assert server.request("GET", "/health")[0] == 200


def test_token_endpoint_follows_the_spec(server):
    status, body, headers = token_request(server, {"grant_type": "client_credentials",
                                                   "client_id": "etl",
                                                   "client_secret": SECRETS["etl"],
                                                   "scope": "catalog"})
    assert status == 200
    assert body["token_type"].lower() == "bearer"
    assert body["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token"
    assert body["expires_in"] == 3600
    assert headers["Cache-Control"] == "no-store"
    token = body["access_token"]
    # Token exchange with the current token as subject: how Iceberg Java refreshes.
    status, body, _ = token_request(server, {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "subject_token": token,
        "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"},
        {"Authorization": f"Bearer {token}"})
    assert status == 200 and body["access_token"]
    status, body, _ = token_request(server, {"grant_type": "client_credentials",
                                             "client_id": "etl", "client_secret": "guess-77"})
    assert status == 401 and body["error"] == "invalid_client"
    assert "guess-77" not in str(body)
    status, body, _ = token_request(server, {"grant_type": "password", "username": "etl"})
    assert status == 400 and body["error"] == "unsupported_grant_type"


def test_access_log_names_principals_and_holds_no_secret(server):
    catalog(server, credential=f"etl:{SECRETS['etl']}").list_namespaces()
    log = (server.data_dir / "access.log").read_text()
    assert '"principal":"etl"' in log
    for secret in (*SECRETS.values(), STATIC_TOKEN, "guess-77"):
        assert secret not in log
    assert "guess-77" not in server.log_text()

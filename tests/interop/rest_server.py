"""Iceberg's Java reference REST catalog server (org.apache.iceberg.rest.RESTCatalogServer from
iceberg-open-api 1.11.0 test-fixtures: a JdbcCatalog on SQLite behind Jetty) for interop tests.

    with RestServer(tmp_dir) as server:      # one JVM; startup takes seconds
        server.uri                           # "http://127.0.0.1:PORT"
        server.warehouse                     # where the JdbcCatalog puts tables

The classpath comes from java/rest-server/pom.xml through `mvn dependency:copy-dependencies`,
once per hash of the POM, into the interop cache (FLOE_INTEROP_CACHE, default
~/.cache/floe-interop). The server is configured the way RCKUtils reads it: CATALOG_*
environment variables become catalog properties (CATALOG_REST_PORT -> rest.port).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from iceberg_java import cache_root

POM = Path(__file__).resolve().parent / "java" / "rest-server" / "pom.xml"
MAIN_CLASS = "org.apache.iceberg.rest.RESTCatalogServer"
JVM = ["-Xlog:disable", "-Xlog:all=error:stderr", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
START_SECONDS = 120


def classpath() -> str:
    """The server's jars (resolved with Maven on first use)."""
    digest = hashlib.sha256(POM.read_bytes()).hexdigest()[:16]
    root = cache_root() / f"rest-server-{digest}"
    lib = root / "lib"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "complete").exists():
            shutil.rmtree(lib, ignore_errors=True)
            subprocess.run(["mvn", "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
                            f"-DoutputDirectory={lib}"], check=True, timeout=1800)
            (root / "complete").write_text("ok\n")
    return f"{lib}/*"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RestServer:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.warehouse = self.root / "warehouse"
        self.warehouse.mkdir(parents=True, exist_ok=True)
        self.db = self.root / "catalog.db"
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "RestServer":
        cp = classpath()
        # A free port can be taken between the probe and Jetty's bind: try a few.
        for _ in range(3):
            self.port = _free_port()
            env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
            env.update({
                "CATALOG_URI": f"jdbc:sqlite:{self.db}",
                "CATALOG_WAREHOUSE": str(self.warehouse),
                "CATALOG_JDBC_SCHEMA__VERSION": "V1",
                "CATALOG_REST_PORT": str(self.port),
            })
            log = open(self.root / f"server-{self.port}.log", "wb")
            self.proc = subprocess.Popen(["java", *JVM, "-cp", cp, MAIN_CLASS], env=env,
                                         stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
            log.close()
            if self._wait_ready():
                return self
            self.stop()
        raise RuntimeError(f"the REST catalog server did not start; see {self.root}/server-*.log")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"{self.uri}/v1/config", timeout=2) as r:
                    json.load(r)
                    return True
            except OSError:
                time.sleep(0.2)
        return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> "RestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

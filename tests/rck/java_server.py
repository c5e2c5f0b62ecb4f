#!/usr/bin/env python3
"""Runs Iceberg's Java reference REST catalog server as a separate process.

The server is org.apache.iceberg.rest.RESTCatalogServer from the `test-fixtures` jar of
org.apache.iceberg:iceberg-open-api:1.11.0 (the code of the apache/iceberg-rest-fixture image): a
JdbcCatalog on a SQLite file, behind Jetty, with a local file:// warehouse.

How RESTCatalogServer 1.11.0 is configured (read from its class file): every environment variable
CATALOG_X becomes the backend catalog property x (prefix stripped, `__` -> `-`, `_` -> `.`,
lower-cased), and the HTTP port is the property `rest.port`, i.e. env CATALOG_REST_PORT (a bare
REST_PORT is *not* read; default 8181). Defaults it fills in: catalog-impl JdbcCatalog,
uri jdbc:sqlite::memory:, jdbc.schema-version V1, a temporary warehouse, catalog name
rest_backend (CATALOG_CATALOG_NAME). Jetty listens on all interfaces; clients here use 127.0.0.1.

As a module:

    from java_server import JavaRestServer
    with JavaRestServer(8181, "/tmp/ref") as srv:
        print(srv.uri, srv.warehouse)      # http://127.0.0.1:8181/  file:///tmp/ref/warehouse

As a CLI (foreground until Ctrl-C / SIGTERM):

    tests/rck/java_server.py --port 8181 --workdir /tmp/ref --fresh
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classpath as cp  # noqa: E402

MAIN_CLASS = "org.apache.iceberg.rest.RESTCatalogServer"
# A long-running server: keep the full JIT (benchmarks), but a small footprint.
DEFAULT_JVM_ARGS = ["-XX:+UseSerialGC", "-Xmx1g"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JavaRestServer:
    """Starts RESTCatalogServer on `port` with its SQLite file and warehouse under `workdir`."""

    def __init__(self, port: int, workdir: str | os.PathLike, *, fresh: bool = False,
                 jvm_args: list[str] | None = None, extra_props: dict[str, str] | None = None,
                 startup_timeout: float = 90.0, quiet: bool = True):
        self.port = int(port)
        self.workdir = Path(workdir).resolve()
        self.fresh = fresh
        self.jvm_args = list(DEFAULT_JVM_ARGS if jvm_args is None else jvm_args)
        self.extra_props = dict(extra_props or {})
        self.startup_timeout = startup_timeout
        self.quiet = quiet
        self.proc: subprocess.Popen | None = None
        self._log = None

    # Paths and URIs -------------------------------------------------------------------------
    @property
    def warehouse_dir(self) -> Path:
        return self.workdir / "warehouse"

    @property
    def warehouse(self) -> str:
        return self.warehouse_dir.as_uri()

    @property
    def db_path(self) -> Path:
        return self.workdir / "catalog.db"

    @property
    def log_path(self) -> Path:
        return self.workdir / "server.log"

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def environment(self) -> dict[str, str]:
        # Inherited CATALOG_* variables would leak into the backend catalog's properties.
        env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
        props = {
            "catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
            "uri": f"jdbc:sqlite:{self.db_path}",
            "jdbc.user": "user",
            "jdbc.password": "password",
            "warehouse": self.warehouse,
            "rest.port": str(self.port),
        }
        props.update(self.extra_props)
        for key, value in props.items():
            env[prop_to_env(key)] = value
        return env

    # Lifecycle ------------------------------------------------------------------------------
    def start(self) -> "JavaRestServer":
        if self.proc is not None:
            raise RuntimeError("already started")
        if self.fresh:
            shutil.rmtree(self.warehouse_dir, ignore_errors=True)
            for p in self.workdir.glob("catalog.db*"):
                p.unlink()
        self.warehouse_dir.mkdir(parents=True, exist_ok=True)
        if _answers(self.uri):
            raise RuntimeError(f"port {self.port} already serves /v1/config; not starting another")
        cmd = [cp.java(), *self.jvm_args, "-cp", cp.classpath(), MAIN_CLASS]
        self._log = open(self.log_path, "ab")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, env=self.environment(), cwd=self.workdir,
                                     stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = t0 + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._close_log()
                raise RuntimeError(f"RESTCatalogServer exited with {self.proc.returncode}; "
                                   f"see {self.log_path}:\n{_tail(self.log_path)}")
            if _answers(self.uri):
                if not self.quiet:
                    print(f"[java-server] ready on {self.uri} in {time.monotonic() - t0:.1f}s "
                          f"(pid {self.proc.pid}, warehouse {self.warehouse})", file=sys.stderr)
                return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"RESTCatalogServer did not answer GET /v1/config within "
                           f"{self.startup_timeout:.0f}s; see {self.log_path}")

    def stop(self, timeout: float = 15.0) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def config(self) -> dict:
        with urllib.request.urlopen(self.uri + "v1/config", timeout=5) as r:
            return json.load(r)

    def __enter__(self) -> "JavaRestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def prop_to_env(key: str) -> str:
    """Inverse of RCKUtils.environmentCatalogConfig for keys made of [a-z0-9.-]."""
    return "CATALOG_" + key.replace("-", "__").replace(".", "_").upper()


def _answers(uri: str) -> bool:
    try:
        with urllib.request.urlopen(uri + "v1/config", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _tail(path: Path, n: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8181, help="0 picks a free port (default 8181)")
    ap.add_argument("--workdir", required=True,
                    help="holds catalog.db, warehouse/ and server.log")
    ap.add_argument("--fresh", action="store_true",
                    help="delete catalog.db and warehouse/ first")
    ap.add_argument("--prop", action="append", default=[], metavar="KEY=VALUE",
                    help="extra backend catalog property (e.g. table-default.x=y); repeatable")
    ap.add_argument("--jvm-opt", action="append", default=None, metavar="OPT",
                    help=f"JVM option, repeatable (default {' '.join(DEFAULT_JVM_ARGS)})")
    ap.add_argument("--timeout", type=float, default=90.0, help="startup timeout, seconds")
    a = ap.parse_args()
    props = {}
    for kv in a.prop:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error(f"--prop needs KEY=VALUE, got {kv!r}")
        props[k] = v
    port = a.port or free_port()
    srv = JavaRestServer(port, a.workdir, fresh=a.fresh, jvm_args=a.jvm_opt, extra_props=props,
                         startup_timeout=a.timeout, quiet=False)
    stop = {"flag": False}

    def on_signal(signum, frame):  # noqa: ARG001
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        srv.start()
    except (RuntimeError, cp.ClasspathError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"READY uri={srv.uri} warehouse={srv.warehouse} pid={srv.proc.pid} log={srv.log_path}",
          flush=True)
    try:
        while not stop["flag"]:
            if srv.proc is None or srv.proc.poll() is not None:
                print(f"error: server exited; see {srv.log_path}", file=sys.stderr)
                return 1
            time.sleep(0.5)
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`floe server` as a test fixture: a process on a free loopback port with its own data dir
(SQLite metastore by default, or a PostgreSQL metastore URI), ready once GET /health
answers, stopped with SIGTERM (a graceful stop must exit 0). Self-optimizing is off unless
`optimizer=True`.

    with FloeServer(floe_bin, tmp_path / "data") as server:
        server.uri            # "http://127.0.0.1:PORT"
        server.warehouse      # the default catalog's warehouse directory

`config` (a dict) is written to <data dir>/floe.yaml (as JSON, which YAML reads) and passed
with --config, e.g. {"auth": {"enabled": True, "principals": {...}}}. With `http.tls` (or
`kafka.schema-registry.tls`) in it, `uri` (or `schema_registry_uri`) is https and the
readiness check and `request()` use `ssl_context` (an ssl.SSLContext trusting the test CA,
with a client certificate when the listener requires one).

The Kafka listener is off (--no-kafka) unless `kafka=True`; then it listens on its own free
port, `server.kafka_bootstrap` ("127.0.0.1:PORT"), and the schema registry on another,
`server.schema_registry_uri` ("http://127.0.0.1:PORT"). `kill()` ends the process with SIGKILL
(crash tests); `start()` again restarts it on the same data dir and ports.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

START_SECONDS = 30
PG_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "test-postgres.sh"


@contextlib.contextmanager
def local_postgres():
    """A throwaway PostgreSQL server (scripts/test-postgres.sh); yields its metastore URI."""
    # Not under pytest's tmp dirs: the server runs as the `postgres` user, which must reach it.
    parent = Path(tempfile.mkdtemp(prefix="floe-pg."))
    parent.chmod(0o755)
    directory = parent / "server"
    proc = subprocess.run([str(PG_SCRIPT), "start", str(directory)], capture_output=True,
                          text=True, timeout=180)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot start PostgreSQL for the tests: {proc.stderr}")
    try:
        yield proc.stdout.strip()
    finally:
        subprocess.run([str(PG_SCRIPT), "stop", str(directory)], timeout=120)
        shutil.rmtree(parent, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FloeServer:
    def __init__(self, floe_bin, data_dir: Path, metastore: str | None = None,
                 extra_args: list[str] | None = None, access_log: bool = True,
                 optimizer: bool = False, config: dict | None = None, kafka: bool = False,
                 ssl_context=None):
        self.floe_bin = str(floe_bin)
        # Self-optimizing commits rewrites on its own schedule; suites about the catalog
        # keep it off so that their snapshot counts are theirs alone.
        self.optimizer = optimizer
        self.data_dir = Path(data_dir)
        self.metastore = metastore
        self.extra_args = extra_args or []
        self.access_log = access_log
        self.config = config
        self.ssl_context = ssl_context
        self.port = 0
        self.kafka = kafka
        self.kafka_port = 0
        self.schema_registry_port = 0
        self.proc: subprocess.Popen | None = None
        self.exit_code: int | None = None

    def _tls(self, *keys: str) -> bool:
        node = self.config or {}
        for key in keys:
            node = node.get(key) or {}
        return bool(node.get("tls"))

    @property
    def uri(self) -> str:
        scheme = "https" if self._tls("http") else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    @property
    def kafka_bootstrap(self) -> str:
        return f"127.0.0.1:{self.kafka_port}"

    @property
    def schema_registry_uri(self) -> str:
        scheme = "https" if self._tls("kafka", "schema-registry") else "http"
        return f"{scheme}://127.0.0.1:{self.schema_registry_port}"

    @property
    def warehouse(self) -> Path:
        return self.data_dir / "warehouse"

    def start(self) -> "FloeServer":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Another process may take the probed port before the server binds it: try again.
        restart = self.port != 0
        for _ in range(5):
            if not restart:
                self.port = free_port()
                self.kafka_port = free_port() if self.kafka else 0
                self.schema_registry_port = free_port() if self.kafka else 0
            restart = False
            kafka_args = (["--kafka-port", str(self.kafka_port),
                           "--schema-registry-port", str(self.schema_registry_port)]
                          if self.kafka else ["--no-kafka"])
            argv = [self.floe_bin, "server", "--data-dir", str(self.data_dir),
                    "--http-port", str(self.port), *kafka_args,
                    "--access-log",
                    str(self.data_dir / "access.log") if self.access_log else "none",
                    *([] if self.optimizer else ["--no-self-optimizing"]),
                    *self.extra_args]
            if self.metastore:
                argv += ["--metastore", self.metastore]
            if self.config is not None:
                config_path = self.data_dir / "floe.yaml"
                config_path.write_text(json.dumps(self.config, indent=2))
                argv += ["--config", str(config_path)]
            log = open(self.data_dir / "server.log", "ab")
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            deadline = time.monotonic() + START_SECONDS
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    # /health: /v1/config may need a token.
                    with urllib.request.urlopen(self.uri + "/health", timeout=2,
                                                context=self.ssl_context) as r:
                        if r.status == 200:
                            return self
                except (urllib.error.URLError, ConnectionError, OSError):
                    time.sleep(0.05)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(f"floe server did not answer within {START_SECONDS}s: "
                                   f"{self.log_text()}")
            if "cannot listen" not in self.log_text():
                raise RuntimeError(f"floe server exited {self.proc.returncode}: {self.log_text()}")
        raise RuntimeError(f"floe server could not bind a port: {self.log_text()}")

    def log_text(self) -> str:
        p = self.data_dir / "server.log"
        return p.read_text(errors="replace")[-4000:] if p.exists() else ""

    def stop(self) -> int:
        if self.proc is None:
            return self.exit_code or 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.exit_code = self.proc.returncode
        self.proc = None
        return self.exit_code

    def kill(self) -> None:
        """SIGKILL, as a crash: nothing is flushed or closed."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def __enter__(self) -> "FloeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # Raw HTTP, for error-model checks.
    def request(self, method: str, path: str, body: bytes | str | dict | None = None,
                headers: dict[str, str] | None = None):
        """Returns (status, parsed JSON body or None, headers)."""
        data = None
        if isinstance(body, dict):
            data = json.dumps(body).encode()
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        req = urllib.request.Request(self.uri + path, data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=60, context=self.ssl_context) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if raw else None), dict(r.headers)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = raw
            return e.code, parsed, dict(e.headers)

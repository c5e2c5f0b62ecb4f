"""Iceberg's Java reference REST catalog server (tests/rck/java_server.py: RESTCatalogServer
1.11.0, a JdbcCatalog on SQLite behind Jetty) as an interop fixture, on a free port with a
plain-path warehouse:

    with RestServer(tmp_dir) as server:      # one JVM; startup takes seconds
        server.uri                           # "http://127.0.0.1:PORT"
        server.warehouse                     # Path where the JdbcCatalog puts tables
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rck"))

from java_server import JavaRestServer, free_port  # noqa: E402


class RestServer:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.warehouse = self.root / "warehouse"
        self.server: JavaRestServer | None = None

    @property
    def uri(self) -> str:
        return self.server.uri.rstrip("/")

    def start(self) -> "RestServer":
        # A free port can be taken between the probe and Jetty's bind: try a few.
        last = None
        for _ in range(3):
            server = JavaRestServer(free_port(), self.root,
                                    extra_props={"warehouse": str(self.warehouse),
                                                 "jdbc.schema-version": "V1"})
            try:
                self.server = server.start()
                return self
            except RuntimeError as e:
                last = e
        raise RuntimeError(f"the REST catalog server did not start: {last}")

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def __enter__(self) -> "RestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

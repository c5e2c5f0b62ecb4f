"""Running the floe binary from tests: one process per call, with a deadline, capturing
stdout, stderr and the exit code (negative when a signal ended it)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

# Exit codes documented for every floe command.
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_CORRUPT, EXIT_UNSUPPORTED = range(6)
ERROR_EXITS = frozenset({EXIT_ERROR, EXIT_NOT_FOUND, EXIT_CORRUPT, EXIT_UNSUPPORTED})
PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"


@dataclass
class FloeResult:
    argv: list
    rc: int | None          # None when the deadline passed and the process was killed
    stdout: bytes
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.rc is None

    @property
    def signalled(self) -> bool:
        return self.rc is not None and self.rc < 0

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8")

    def describe(self) -> str:
        state = ("timed out" if self.timed_out else
                 f"killed by signal {-self.rc}" if self.signalled else f"exit {self.rc}")
        err = self.stderr.strip()
        if len(err) > 2000:
            err = err[:2000] + "..."
        return f"`{' '.join(map(str, self.argv))}`: {state} after {self.seconds:.2f}s; stderr: {err!r}"


class Floe:
    def __init__(self, path: Path, memory_limit_bytes: int | None = None):
        self.path = Path(path)
        self.memory_limit_bytes = memory_limit_bytes

    def _prefix(self) -> list[str]:
        # util-linux prlimit sets the limits and execs floe, so the exit status is floe's.
        # (A preexec_fn would force a full fork of this large pytest process per run.)
        if not self.memory_limit_bytes:
            return []
        return [PRLIMIT, f"--as={self.memory_limit_bytes}", "--core=0", "--"]

    def run(self, *args, timeout: float = 120.0) -> FloeResult:
        argv = [str(self.path)] + [str(a) for a in args]
        start = time.monotonic()
        proc = subprocess.Popen(self._prefix() + argv, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            rc = None
        return FloeResult(argv, rc, out, err.decode("utf-8", "replace"),
                          time.monotonic() - start)

    def ok(self, *args, timeout: float = 120.0) -> FloeResult:
        """Run and require exit 0."""
        r = self.run(*args, timeout=timeout)
        assert r.rc == EXIT_OK, r.describe()
        return r

    def cat(self, path, columns=None, limit=None, timeout: float = 120.0) -> FloeResult:
        args = ["parquet", "cat", path]
        if columns is not None:
            args += ["--columns", ",".join(columns)]
        if limit is not None:
            args += ["--limit", str(limit)]
        return self.ok(*args, timeout=timeout)

    def rewrite(self, src, dst, options=(), timeout: float = 300.0) -> FloeResult:
        return self.ok("parquet", "rewrite", src, dst, *options, timeout=timeout)


def floe_from_env() -> Floe:
    """The binary named by FLOE_BIN. Missing or not executable is an error, never a skip."""
    value = os.environ.get("FLOE_BIN")
    if not value:
        raise RuntimeError("FLOE_BIN is not set: run the suites through `make test` "
                           "(it sets FLOE_BIN=build/release/src/floe/exe/floe)")
    path = Path(value).resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise RuntimeError(f"FLOE_BIN={value} is not an executable file (build it: make build)")
    return Floe(path)

#!/usr/bin/env python3
"""Resolves (once) and caches the Java classpath of the Iceberg RCK and reference REST server.

The jars listed by tests/rck/pom.xml are copied by Maven into
``$FLOE_RCK_CACHE/<pom-hash>/lib`` (default ``~/.cache/floe-rck``). A later call with the same
pom.xml finds the finished directory and neither runs Maven nor touches the network.

Stdlib only; shared by run_rck.py and java_server.py.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
INSTALL_JAVA = HERE.parent.parent / "scripts" / "install-java.sh"

# JVM flags that make these short-lived, mostly I/O-bound JVMs start and run fast on 2 cores.
QUICK_JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss1m"]


class ClasspathError(RuntimeError):
    pass


def cache_root() -> Path:
    env = os.environ.get("FLOE_RCK_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "floe-rck"


def pom_hash() -> str:
    return hashlib.sha256(POM.read_bytes()).hexdigest()[:16]


def lib_dir() -> Path:
    return cache_root() / pom_hash() / "lib"


def _require_tools() -> None:
    missing = [t for t in ("java", "mvn") if shutil.which(t) is None]
    if missing:
        raise ClasspathError(
            f"{', '.join(missing)} not found on PATH; run {INSTALL_JAVA} first "
            "(installs openjdk-17-jdk-headless and maven)"
        )


def resolve(verbose: bool = False, offline: bool = False) -> Path:
    """Returns the directory holding every jar; runs Maven only when it is not cached yet."""
    target = lib_dir()
    done = target.parent / "complete"
    if done.exists() and target.is_dir():
        return target
    _require_tools()
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists() and target.is_dir():
            return target
        staging = target.parent / "lib.partial"
        shutil.rmtree(staging, ignore_errors=True)
        cmd = [
            "mvn", "-B", "-f", str(POM),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={staging}",
            "-DincludeScope=runtime",
        ]
        if not verbose:
            cmd.insert(1, "-q")
        if offline:
            cmd.insert(1, "-o")
        t0 = time.monotonic()
        if verbose:
            print("+ " + " ".join(cmd), file=sys.stderr)
        proc = subprocess.run(cmd, stdout=None if verbose else subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            tail = "" if verbose else "\n".join((proc.stdout or "").splitlines()[-40:])
            raise ClasspathError(f"mvn dependency:copy-dependencies failed ({proc.returncode})\n{tail}")
        jars = list(staging.glob("*.jar"))
        if not jars:
            raise ClasspathError(f"mvn copied no jars into {staging}")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        done.write_text(f"{len(jars)} jars, resolved in {time.monotonic() - t0:.1f}s\n")
        print(f"[rck] resolved {len(jars)} jars into {target} in {time.monotonic() - t0:.1f}s",
              file=sys.stderr)
        return target


def classpath(verbose: bool = False, offline: bool = False) -> str:
    """A java -cp value (a directory wildcard, expanded by the java launcher)."""
    return str(resolve(verbose=verbose, offline=offline) / "*")


def java() -> str:
    exe = shutil.which("java")
    if exe is None:
        _require_tools()
    return exe  # type: ignore[return-value]


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Resolve and print the RCK classpath directory.")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--offline", action="store_true", help="run Maven with -o")
    a = ap.parse_args()
    try:
        print(classpath(verbose=a.verbose, offline=a.offline))
    except ClasspathError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)

"""Fixtures of the heavy interop suites (`make test-interop`, not `make test`): they build and
run peers from Maven Central, which takes minutes and a JDK."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interop"))

import floe_runner  # noqa: E402


@pytest.fixture(scope="session")
def floe() -> floe_runner.Floe:
    return floe_runner.floe_from_env()


@pytest.fixture(scope="session")
def java_client(tmp_path_factory):
    for tool in ("mvn", "java"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is needed for the Kafka Java interop suite (Debian: maven, "
                               f"openjdk-17-jdk-headless)")
    project = tmp_path_factory.mktemp("kafka-java-build") / "kafka-java-client"
    shutil.copytree(HERE / "kafka-java-client", project, ignore=shutil.ignore_patterns("target"))
    subprocess.run(["mvn", "-q", "-B", "package"], cwd=project, check=True, timeout=1800)
    target = project / "target"
    cp = f"{target / 'kafka-java-client-1.jar'}:{target / 'lib'}/*"

    def run(*args, sasl: str | None = None, check: bool = True):
        """stdout; with `sasl` (MECHANISM:USER:PASSWORD, passed in the environment) the client
        logs in with SASL; with check=False the CompletedProcess."""
        env = {**os.environ, "FLOE_KAFKA_SASL": sasl or ""}
        done = subprocess.run(["java", "-cp", cp, "floe.interop.KafkaClient", *args],
                              check=check, timeout=300, capture_output=True, text=True, env=env)
        return done.stdout if check else done
    # The jars of the client and of Kafka's tools (ConsoleProducer, ConsoleConsumer).
    run.classpath = cp
    return run


@pytest.fixture(scope="session")
def kafkajs(tmp_path_factory):
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is needed for the kafkajs interop suite (Debian: nodejs, npm)")
    project = tmp_path_factory.mktemp("kafkajs") / "kafkajs-client"
    shutil.copytree(HERE / "kafkajs-client", project, ignore=shutil.ignore_patterns("node_modules"))
    subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=project, check=True,
                   timeout=600, capture_output=True)
    return project

"""Builds and drives the Iceberg Java harness (tests/interop/java/iceberg-harness), and turns
pyarrow tables into the same canonical row form, so floe, pyiceberg and Iceberg Java compare
in one line:

    harness = iceberg_java.build_harness()                  # cached; mvn only on first use
    java = harness.catalog(f"jdbc:sqlite:{db}", "floe", str(warehouse))
    java.create("ns.t", schema_json, spec_json, format_version=2)
    java.append("ns.t", rows)                               # rows in canonical form
    assert_same_rows(java.scan("ns.t"), canonical_rows(py_table.scan().to_arrow()))

The canonical form (README.md of the harness defines it): ints and longs as JSON numbers;
float and double as Python's repr() of the double value (float32 widened) in a string, with
"NaN", "Infinity", "-Infinity"; decimals as plain strings with exactly `scale` fraction
digits; date "2017-11-16"; time "22:31:08.123456"; timestamp "2017-11-16T22:31:08.123456";
timestamptz the same plus "+00:00"; nanosecond timestamps with 9 digits; uuid lowercase
8-4-4-4-12; binary and fixed lowercase hex; strings as strings; booleans; structs as objects by
field name; lists as arrays; maps as arrays of [key, value] pairs; null as null.
"""

from __future__ import annotations

import datetime as dt
import decimal
import fcntl
import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import uuid as uuidlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

PROJECT = Path(__file__).resolve().parent / "java" / "iceberg-harness"
MAIN_CLASS = "floe.interop.IcebergHarness"
JAR = "floe-iceberg-harness-1.jar"
# Iceberg Java 1.11's RESTCatalog client (java/rest-peer): scripts of catalog steps.
REST_PEER_PROJECT = Path(__file__).resolve().parent / "java" / "rest-peer"
REST_PEER_MAIN_CLASS = "floe.interop.RestPeer"
REST_PEER_JAR = "floe-rest-peer-1.jar"
CDS_ARCHIVE = "classes.jsa"
# JVM logging (CDS warnings included) defaults to stdout: keep stdout for JSON only.
_LOG = ["-Xlog:disable", "-Xlog:all=error:stderr"]
# Short commands: C1 only and serial GC (a run is mostly class loading: this halves its CPU
# time against the default tiered C2 + G1), plus the class-data-sharing archive trained at
# build time (halves it again; ignored by the JVM when stale).
QUICK_JVM = [*_LOG, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
BENCH_JVM = [*_LOG, "-XX:+UseParallelGC"]


class HarnessError(RuntimeError):
    """The harness exited non-zero; `stderr` holds its one-line error."""

    def __init__(self, argv: list[str], rc: int, stderr: str):
        self.argv, self.rc, self.stderr = argv, rc, stderr
        main = next((i for i, a in enumerate(argv) if a in (MAIN_CLASS, REST_PEER_MAIN_CLASS)),
                    len(argv) - 1)
        super().__init__(f"{argv[main]} {argv[main + 1:]} exit {rc}: {stderr.strip()[-2000:]}")


# ---------------------------------------------------------------------------------------------
# Building (once per source hash) and running.

def _source_hash(project: Path = PROJECT) -> str:
    h = hashlib.sha256()
    files = [project / "pom.xml"] + sorted((project / "src").rglob("*"))
    for f in files:
        if f.is_file():
            h.update(str(f.relative_to(project)).encode() + b"\0" + f.read_bytes() + b"\0")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
    h.update(java.stderr.encode())
    return h.hexdigest()[:20]


def cache_root() -> Path:
    env = os.environ.get("FLOE_INTEROP_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "floe-interop"


def _require_tools() -> None:
    for tool in ("mvn", "java"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is needed for the Iceberg Java peers (Debian: maven, "
                               f"openjdk-17-jdk-headless; scripts/install-java.sh)")


def _built(project: Path, jar: str, cache: Path | None, timeout: float, train=None) -> Path:
    """`<cache>/<project name>/<hash of pom, sources and java -version>/`, holding the jar and
    lib/ (runtime dependencies), built there unless already.

    The build copies the Maven project to a temporary directory (no target/ in the work tree)
    and runs `mvn -q -B package`; `train(final_dir)` then runs once (the CDS archive). A file
    lock makes concurrent callers wait for one build. Raises RuntimeError without java or mvn.
    """
    _require_tools()
    root = (cache or cache_root()) / project.name
    root.mkdir(parents=True, exist_ok=True)
    final = root / _source_hash(project)
    if not (final / "ok").exists():
        with open(root / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (final / "ok").exists():
                _build_into(project, jar, final, timeout)
                if train is not None:
                    train(final)
                (final / "ok").write_text("built\n")
    return final


def build_harness(cache: Path | None = None, timeout: float = 1800) -> "Harness":
    """The harness (java/iceberg-harness) built from the current sources, from the cache when
    already built there; its class-data-sharing archive is trained at build time."""
    return Harness(_built(PROJECT, JAR, cache, timeout, train=_train_cds))


def build_rest_peer(cache: Path | None = None, timeout: float = 1800) -> "RestPeer":
    """The Iceberg 1.11 RESTCatalog peer (java/rest-peer), built and cached like the harness."""
    return RestPeer(_built(REST_PEER_PROJECT, REST_PEER_JAR, cache, timeout))


def _build_into(project_dir: Path, jar: str, final: Path, timeout: float) -> None:
    with tempfile.TemporaryDirectory(prefix=f"{project_dir.name}-build-") as tmp:
        project = Path(tmp) / project_dir.name
        shutil.copytree(project_dir, project, ignore=shutil.ignore_patterns("target"))
        r = subprocess.run(["mvn", "-q", "-B", "package"], cwd=project, capture_output=True,
                           text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"mvn package failed for {project_dir.name}:\n{r.stdout[-4000:]}"
                               f"\n{r.stderr[-4000:]}")
        staging = final.with_name(final.name + f".tmp{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        shutil.copy2(project / "target" / jar, staging / jar)
        shutil.copytree(project / "target" / "lib", staging / "lib")
        shutil.rmtree(final, ignore_errors=True)
        staging.rename(final)


def _train_cds(home: Path) -> None:
    """Dump the classes every subcommand loads into a dynamic CDS archive (JDK 13+), by running
    them all once in one JVM (`batch`) on a throwaway catalog."""
    with tempfile.TemporaryDirectory(prefix="iceberg-harness-cds-") as tmp:
        tmp = Path(tmp)
        common = ["--catalog-uri", f"jdbc:sqlite:{tmp / 'c.db'}", "--catalog-name", "cds",
                  "--warehouse", str(tmp / "wh")]
        schema = json.dumps({"type": "struct", "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "ts", "required": False, "type": "timestamptz"},
            {"id": 3, "name": "s", "required": False, "type": {"type": "struct", "fields": [
                {"id": 4, "name": "d", "required": False, "type": "decimal(9, 2)"}]}}]})
        spec = json.dumps({"fields": [{"name": "b", "transform": "bucket[2]", "source-id": 1}]})
        rows = tmp / "rows.jsonl"
        rows.write_text('{"id": 1, "ts": "2020-01-01T00:00:00.000000+00:00", "s": {"d": "1.00"}}\n'
                        '{"id": 2, "ts": null, "s": null}\n')
        lines = []
        for v in (2, 3):
            t = f"cds.t{v}"
            lines += [["create", t, "--schema-json", schema, "--spec-json", spec,
                       "--format-version", str(v)],
                      ["append", t, "--rows-json", str(rows)],
                      ["upsert", t, "--key", "id", "--rows-json", str(rows)],
                      ["delete-where", t, "--column", "id", "--value", "1"],
                      ["scan", t, "--filter", "id>0"], ["files", t], ["snapshots", t],
                      ["describe", t], ["bench-scan", t, "--repeat", "1"]]
        batch = tmp / "batch.jsonl"
        batch.write_text("".join(json.dumps(line[:2] + common + line[2:]) + "\n"
                                 for line in lines))
        harness = Harness(home)
        argv = ["java", *QUICK_JVM, f"-XX:ArchiveClassesAtExit={home / CDS_ARCHIVE}",
                "-cp", harness.classpath, MAIN_CLASS, "batch", str(batch)]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"Iceberg harness training run failed: {r.stderr[-4000:]}")


@dataclass
class Harness:
    """A built harness: its directory holds the jar and lib/ (runtime dependencies)."""
    home: Path

    @property
    def classpath(self) -> str:
        return f"{self.home / JAR}:{self.home / 'lib'}/*"

    def command(self, *args, jvm_options: list[str] | None = None) -> list[str]:
        """The argv that runs one harness subcommand (for callers timing it themselves)."""
        opts = list(QUICK_JVM if jvm_options is None else jvm_options)
        archive = self.home / CDS_ARCHIVE
        if archive.exists():
            opts.append(f"-XX:SharedArchiveFile={archive}")
        return ["java", *opts, "-cp", self.classpath, MAIN_CLASS, *map(str, args)]

    def run(self, *args, jvm_options: list[str] | None = None, timeout: float = 300) -> str:
        """Run a subcommand; stdout on success, HarnessError on a non-zero exit."""
        argv = self.command(*args, jvm_options=jvm_options)
        r = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise HarnessError(argv, r.returncode, r.stderr.decode("utf-8", "replace"))
        return r.stdout.decode("utf-8")

    def catalog(self, uri: str, name: str, warehouse: str,
                properties: dict[str, str] | None = None) -> "JavaCatalog":
        """A JdbcCatalog: uri `jdbc:sqlite:/path/cat.db` or `jdbc:postgresql://…` (add
        `jdbc.user` / `jdbc.password` in properties); warehouse a plain path or file: URI."""
        return JavaCatalog(self, uri, name, warehouse, dict(properties or {}))

    def rest_catalog(self, uri: str, warehouse: str = "default",
                     properties: dict[str, str] | None = None) -> "JavaCatalog":
        """A RESTCatalog (Iceberg 1.10.1's client) on `uri` (http://host:port); the warehouse
        names the server's catalog."""
        catalog = JavaCatalog(self, uri, "rest", warehouse, dict(properties or {}))
        catalog.common += ["--catalog-type", "rest"]
        return catalog

    def batch(self, argvs: list[list], timeout: float = 600) -> list[str]:
        """Run several subcommands (argument lists) in one JVM, in order; stdout lines."""
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for argv in argvs:
                f.write(json.dumps([str(a) for a in argv]) + "\n")
        try:
            return self.run("batch", f.name, timeout=timeout).splitlines()
        finally:
            os.unlink(f.name)


def _json_arg(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class JavaCatalog:
    """Subcommands of the harness bound to one catalog. Tables are "ns.table" strings."""

    def __init__(self, harness: Harness, uri: str, name: str, warehouse: str,
                 properties: dict[str, str]):
        self.harness = harness
        self.common = ["--catalog-uri", uri, "--catalog-name", name, "--warehouse", warehouse]
        for k, v in properties.items():
            self.common += ["--catalog-prop", f"{k}={v}"]

    def run(self, command: str, table: str, *args, **kw) -> str:
        return self.harness.run(command, table, *self.common, *args, **kw)

    def argv(self, command: str, table: str, *args) -> list:
        """The arguments of one subcommand on this catalog, for Harness.batch."""
        return [command, table, *self.common, *args]

    def _json(self, command: str, table: str, *args, **kw):
        return json.loads(self.run(command, table, *args, **kw))

    def create(self, table: str, schema, spec=None, format_version: int = 2,
               properties: dict[str, str] | None = None) -> dict:
        """Create (and its namespace if missing). schema/spec: Iceberg JSON (dict or str);
        spec "spec-id" and "field-id"s may be omitted. Returns `describe`."""
        args = ["--schema-json", _json_arg(schema), "--format-version", format_version]
        if spec is not None:
            args += ["--spec-json", _json_arg(spec)]
        for k, v in (properties or {}).items():
            args += ["--property", f"{k}={v}"]
        return self._json("create", table, *args)

    def describe(self, table: str) -> dict:
        return self._json("describe", table)

    def _with_rows(self, command: str, table: str, rows: list[dict], *args) -> dict:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            write_rows_jsonl(rows, f)
        try:
            return self._json(command, table, "--rows-json", f.name, *args)
        finally:
            os.unlink(f.name)

    def append(self, table: str, rows: list[dict]) -> dict:
        """One append commit of `rows` (canonical form); returns the new snapshot."""
        return self._with_rows("append", table, rows)

    def upsert(self, table: str, key: list[str], rows: list[dict], commits: int = 1) -> dict:
        """Flink-style upserts (equality delete of the key + insert) in `commits` RowDelta
        commits over consecutive slices of `rows`; returns {"snapshots": [...]}."""
        return self._with_rows("upsert", table, rows, "--key", ",".join(key),
                               "--commits", commits)

    def delete_where(self, table: str, column: str, value, granularity: str | None = None) -> dict:
        """Delete live rows where column equals value (canonical form): position-delete files
        on v2 (granularity "file" or "partition"), deletion vectors on v3."""
        args = ["--column", column, "--value", json.dumps(value)]
        if granularity:
            args += ["--granularity", granularity]
        return self._json("delete-where", table, *args)

    def delete_positions(self, table: str, file_path: str, positions: list[int]) -> dict:
        return self._json("delete-positions", table, "--file-path", file_path,
                          "--positions", ",".join(map(str, positions)))

    def scan(self, table: str, snapshot_id: int | None = None, ref: str | None = None,
             columns: list[str] | None = None, filter: str | None = None) -> list[dict]:
        """Rows read with IcebergGenerics (all deletes applied), in canonical form."""
        args = []
        if snapshot_id is not None:
            args += ["--snapshot-id", snapshot_id]
        if ref is not None:
            args += ["--ref", ref]
        if columns is not None:
            args += ["--columns", ",".join(columns)]
        if filter is not None:
            args += ["--filter", filter]
        text = self.run("scan", table, *args)
        return [json.loads(line) for line in text.splitlines()]

    def files(self, table: str, snapshot_id: int | None = None) -> list[dict]:
        args = [] if snapshot_id is None else ["--snapshot-id", snapshot_id]
        return self._json("files", table, *args)

    def snapshots(self, table: str) -> dict:
        return self._json("snapshots", table)

    def bench_scan(self, table: str, repeat: int = 5, sum_column: str | None = None) -> dict:
        """{"rows", "sum_column", "sum", "seconds": [...]} with the JIT fully on."""
        args = ["--repeat", repeat] + ([] if sum_column is None else ["--sum-column", sum_column])
        return self._json("bench-scan", table, *args, jvm_options=BENCH_JVM, timeout=3600)

    def expire(self, table: str, older_than_ms: int | None = None,
               retain_last: int | None = None) -> dict:
        args = []
        if older_than_ms is not None:
            args += ["--older-than-ms", older_than_ms]
        if retain_last is not None:
            args += ["--retain-last", retain_last]
        return self._json("expire", table, *args)


@dataclass
class RestPeer:
    """The built rest-peer: Iceberg Java 1.11's RESTCatalog running a script of steps in one
    JVM (README.md of java/rest-peer lists them)."""
    home: Path

    def run(self, steps: list[dict], timeout: float = 300) -> list[dict]:
        """One result per step: {"ok": True, "value": ...} or {"ok": False, "error":
        "ExceptionSimpleName", "message": ...}. HarnessError when the JVM itself fails."""
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"steps": steps}, f)
        try:
            argv = ["java", *QUICK_JVM, "-cp", f"{self.home / REST_PEER_JAR}:{self.home / 'lib'}/*",
                    REST_PEER_MAIN_CLASS, f.name]
            r = subprocess.run(argv, capture_output=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        finally:
            os.unlink(f.name)
        if r.returncode != 0:
            raise HarnessError(argv, r.returncode, r.stderr.decode("utf-8", "replace"))
        results = json.loads(r.stdout)
        assert len(results) == len(steps)
        return results


# ---------------------------------------------------------------------------------------------
# Canonical form of pyarrow data.

def float_text(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


_EPOCH = dt.datetime(1970, 1, 1)
_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def _ticks_text(ticks: int, unit: str, with_date: bool) -> str:
    # Iceberg has microsecond and nanosecond times; coarser units print as microseconds.
    if unit in ("s", "ms"):
        ticks, unit = ticks * (1_000_000 // _PER_SECOND[unit]), "us"
    secs, frac = divmod(ticks, _PER_SECOND[unit])
    days, sod = divmod(secs, 86400)
    h, rem = divmod(sod, 3600)
    m, s = divmod(rem, 60)
    digits = 6 if unit == "us" else 9
    clock = f"{h:02d}:{m:02d}:{s:02d}.{frac:0{digits}d}"
    if not with_date:
        return clock
    return f"{(_EPOCH + dt.timedelta(days=days)).date().isoformat()}T{clock}"


def _flat(arr):
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def canonical_values(arr) -> list:
    """The canonical form of every element of a pyarrow Array or ChunkedArray."""
    arr = _flat(arr)
    t = arr.type
    valid = pc.is_valid(arr).to_pylist() if arr.null_count else None

    def mask(values):
        return values if valid is None else [v if ok else None for v, ok in zip(values, valid)]

    if isinstance(t, pa.BaseExtensionType):
        if t.extension_name == "arrow.uuid":
            return [None if b is None else str(uuidlib.UUID(bytes=b))
                    for b in arr.storage.to_pylist()]
        return canonical_values(arr.storage)
    if pa.types.is_dictionary(t):
        return canonical_values(arr.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return arr.to_pylist()
    if pa.types.is_floating(t):
        return [None if v is None else float_text(float(v)) for v in arr.to_pylist()]
    if pa.types.is_decimal(t):
        q = decimal.Decimal(1).scaleb(-t.scale)
        ctx = decimal.Context(prec=80)
        return [None if v is None else format(v.quantize(q, context=ctx), "f")
                for v in arr.to_pylist()]
    if pa.types.is_date32(t) or pa.types.is_date64(t):
        days = arr.cast(pa.date32()).cast(pa.int32()).to_pylist()
        return [None if d is None else (dt.date(1970, 1, 1) + dt.timedelta(days=d)).isoformat()
                for d in days]
    if pa.types.is_time(t):
        ticks = arr.cast(pa.int64() if t.bit_width == 64 else pa.int32()).to_pylist()
        return [None if v is None else _ticks_text(v, t.unit, False) for v in ticks]
    if pa.types.is_timestamp(t):
        suffix = "+00:00" if t.tz is not None else ""
        return [None if v is None else _ticks_text(v, t.unit, True) + suffix
                for v in arr.cast(pa.int64()).to_pylist()]
    if (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)):
        return arr.to_pylist()
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
            or pa.types.is_fixed_size_binary(t)):
        return [None if v is None else bytes(v).hex() for v in arr.to_pylist()]
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        children = [canonical_values(arr.field(i)) for i in range(t.num_fields)]
        return mask([dict(zip(names, (c[r] for c in children))) for r in range(len(arr))])
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys = canonical_values(arr.keys)
        items = canonical_values(arr.items)
        return mask([[[keys[i], items[i]] for i in range(offsets[r], offsets[r + 1])]
                     for r in range(len(arr))])
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        offsets = arr.offsets.to_pylist()
        values = canonical_values(arr.values)
        return mask([values[offsets[r]:offsets[r + 1]] for r in range(len(arr))])
    if pa.types.is_fixed_size_list(t):
        return canonical_values(arr.cast(pa.list_(t.value_field)))
    raise TypeError(f"no canonical form for {t}")


def canonical_rows(table: pa.Table, columns: list[str] | None = None) -> list[dict]:
    """Rows of a pyarrow Table (pyiceberg's to_arrow(), or floe's Parquet output) as dicts in
    canonical form, equal (==) to what JavaCatalog.scan returns for the same data."""
    names = columns if columns is not None else table.column_names
    cols = [canonical_values(table.column(n)) for n in names]
    return [dict(zip(names, (c[r] for c in cols))) for r in range(table.num_rows)]


def _row_key(row: dict) -> str:
    return json.dumps(row, sort_keys=True)


def sort_rows(rows: list[dict]) -> list[dict]:
    """Rows in a deterministic order (scan order is not defined across engines)."""
    return sorted(rows, key=_row_key)


def rows_difference(expected: list[dict], actual: list[dict]) -> str | None:
    """None when both hold the same rows (as multisets), else a short description."""
    e, a = Counter(map(_row_key, expected)), Counter(map(_row_key, actual))
    if e == a:
        return None
    missing, extra = list((e - a).elements()), list((a - e).elements())
    return (f"{len(expected)} rows expected, {len(actual)} read; {len(missing)} missing "
            f"(first: {missing[:3]}), {len(extra)} unexpected (first: {extra[:3]})")


def assert_same_rows(expected: list[dict], actual: list[dict], what: str = "") -> None:
    d = rows_difference(expected, actual)
    assert d is None, f"{what}: {d}" if what else d


def write_rows_jsonl(rows: list[dict], f) -> None:
    for r in rows:
        f.write(json.dumps(r) + "\n")


#!/usr/bin/env python3
"""Runs the Apache Iceberg REST Compatibility Kit (RCK) 1.11.0 against a REST catalog.

    tests/rck/run_rck.py --uri http://127.0.0.1:8181/ --warehouse NAME [--report-dir DIR]
    tests/rck/run_rck.py --java-server            # baseline: Iceberg's Java reference server

The kit is org.apache.iceberg.rest.RESTCompatibilityKitSuite (iceberg-open-api:1.11.0:tests),
which selects RESTCompatibilityKitCatalogTests (Iceberg's CatalogTests) and
RESTCompatibilityKitViewCatalogTests (ViewCatalogTests), both driving a real Java RESTCatalog
client. It runs in the JUnit console launcher with `rck.local=false`, so the kit does not start its
own in-process server.

Client configuration (RCKUtils.initCatalogClient, 1.11.0): env CATALOG_* variables (CATALOG_URI
-> uri, `__` -> `-`, `_` -> `.`), then *all* JVM system properties, are merged into the
RESTCatalog's properties; this script passes --uri, --warehouse and every --extra KEY=VALUE as
-DKEY=VALUE, which wins over the environment. Against a catalog with authentication on, pass the
client's OAuth2 properties the same way (--extra credential=ID:SECRET [--extra
oauth2-server-uri=URI --extra scope=catalog], or --extra token=TOKEN): the kit's client uses
them, and this script's own pre-flight requests (GET /v1/config, --clean) fetch a token with
the credential too. The rck.* switches (rck.requires-namespace-create,
rck.supports-serverside-retry, rck.overrides-requested-location, rck.supports-names-with-dot,
rck.purge-test-namespaces) are read from those same client properties: pass them with --extra.

Prints `RCK: tests found N, succeeded S, failed F, skipped K`, a line per suite, the failed tests
with the first line of their message, and exits 1 when a test (or a test class) failed, 2 when
the harness itself could not run.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classpath as cp  # noqa: E402

SUITE = "org.apache.iceberg.rest.RESTCompatibilityKitSuite"
CATALOG_TESTS = "org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests"
VIEW_TESTS = "org.apache.iceberg.rest.RESTCompatibilityKitViewCatalogTests"
ALIASES = {"suite": SUITE, "all": SUITE, "catalog": CATALOG_TESTS, "view": VIEW_TESTS}
# Namespaces the kit asserts absent before a class starts (RCKUtils.TEST_NAMESPACES, 1.11.0).
TEST_NAMESPACES = ["ns", "newdb", "ns1", "ns2", "other_ns"]


def log(msg: str) -> None:
    print(f"[rck] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Optional pre-run cleanup over plain REST (leftovers of an interrupted run make the kit's
# beforeAll assertion fail for a whole class).
# --------------------------------------------------------------------------------------------
def _http(method: str, url: str, headers: dict[str, str], body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        return e.code, None


def fetch_token(token_uri: str, credential: str, scope: str) -> str:
    """An OAuth2 client_credentials token for `credential` ("id:secret", as Iceberg's
    `credential` property; a credential without ':' is a secret alone)."""
    client_id, sep, secret = credential.partition(":")
    if not sep:
        client_id, secret = "", credential
    fields = {"grant_type": "client_credentials", "client_secret": secret, "scope": scope}
    if client_id:
        fields["client_id"] = client_id
    req = urllib.request.Request(token_uri, data=urllib.parse.urlencode(fields).encode(),
                                 method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())["access_token"]
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"POST {token_uri} answered {e.code}") from None


def fetch_config(uri: str, warehouse: str, headers: dict[str, str]) -> dict:
    q = urllib.parse.urlencode({"warehouse": warehouse}) if warehouse else ""
    status, body = _http("GET", f"{uri}v1/config" + (f"?{q}" if q else ""), headers)
    if status != 200 or not isinstance(body, dict):
        raise RuntimeError(f"GET {uri}v1/config?{q} answered {status}")
    return body


def clean_test_namespaces(uri: str, config: dict, headers: dict[str, str]) -> None:
    merged = {**config.get("defaults", {}), **config.get("overrides", {})}
    prefix = merged.get("prefix")
    base = f"{uri}v1/" + (f"{urllib.parse.quote(prefix, safe='')}/" if prefix else "")
    for ns in TEST_NAMESPACES:
        ns_url = f"{base}namespaces/{urllib.parse.quote(ns, safe='')}"
        status, _ = _http("GET", ns_url, headers)
        if status != 200:
            continue
        for kind, key in (("tables", "identifiers"), ("views", "identifiers")):
            status, body = _http("GET", f"{ns_url}/{kind}", headers)
            for ident in (body or {}).get(key, []) if status == 200 else []:
                name = urllib.parse.quote(ident["name"], safe="")
                suffix = "?purgeRequested=true" if kind == "tables" else ""
                _http("DELETE", f"{ns_url}/{kind}/{name}{suffix}", headers)
        status, _ = _http("DELETE", ns_url, headers)
        log(f"--clean: dropped leftover namespace {ns!r} (HTTP {status})")


# --------------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------------
def first_line(text: str | None) -> str:
    """The first non-empty line; when it ends with ':' (AssertJ style), the next one too."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    if not lines:
        return ""
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    return lines[0]


def parse_reports(report_dir: Path) -> list[dict]:
    cases = []
    for f in sorted(glob.glob(str(report_dir / "TEST-*.xml"))):
        root = ET.parse(f).getroot()
        for tc in root.iter("testcase"):
            status, message = "passed", ""
            for child in tc:
                if child.tag in ("failure", "error"):
                    status = "failed"
                    message = first_line(child.get("message")) or first_line(child.text)
                    break
                if child.tag == "skipped":
                    status = "skipped"
                    message = first_line(child.get("message")) or first_line(child.text)
            cases.append({"class": tc.get("classname", ""), "name": tc.get("name", ""),
                          "status": status, "message": message,
                          "time": float(tc.get("time") or 0)})
    return cases


def counts(cases: list[dict]) -> dict[str, int]:
    c = {"found": len(cases), "passed": 0, "failed": 0, "skipped": 0}
    for case in cases:
        c[case["status"]] += 1
    return c


def summary_line(label: str, c: dict[str, int]) -> str:
    return (f"{label}: tests found {c['found']}, succeeded {c['passed']}, "
            f"failed {c['failed']}, skipped {c['skipped']}")


def launcher_counts(console_text: str) -> dict[str, int]:
    out = {}
    for m in re.finditer(r"\[\s*(\d+)\s+(containers|tests)\s+(\w+)\s*\]", console_text):
        out[f"{m.group(2)} {m.group(3)}"] = int(m.group(1))
    return out


# --------------------------------------------------------------------------------------------
def build_command(args, report_dir: Path, jvm_props: dict[str, str], selections: list[str]):
    cmd = [cp.java(), *args.jvm_opt]
    cmd += [f"-D{k}={v}" for k, v in jvm_props.items()]
    cmd += ["-cp", cp.classpath(), "org.junit.platform.console.ConsoleLauncher", "execute",
            "--disable-banner", "--details=summary", "--details-theme=ascii",
            f"--reports-dir={report_dir}", "--config", "rck.local=false"]
    for sel in selections:
        if "#" in sel:
            cmd += ["--select-method", sel]
        else:
            cmd += ["--select-class", sel]
    return cmd


def run(args) -> int:
    t_start = time.monotonic()
    try:
        t0 = time.monotonic()
        cp.resolve(verbose=args.verbose)
        t_resolve = time.monotonic() - t0
    except cp.ClasspathError as e:
        log(f"error: {e}")
        return 2

    server = None
    if args.java_server:
        import java_server

        workdir = Path(args.java_server_dir or tempfile.mkdtemp(prefix="floe-rck-java-"))
        server = java_server.JavaRestServer(java_server.free_port(), workdir, fresh=True,
                                            jvm_args=cp.QUICK_JVM_FLAGS + ["-Xmx1g"],
                                            quiet=False)
        try:
            server.start()
        except RuntimeError as e:
            log(f"error: {e}")
            return 2
        args.uri = server.uri
        args.warehouse = args.warehouse or server.warehouse
    try:
        return _run_kit(args, t_start, t_resolve)
    finally:
        if server is not None:
            server.stop()
            log(f"java reference server stopped (log: {server.log_path})")


def _run_kit(args, t_start: float, t_resolve: float) -> int:
    uri = args.uri if args.uri.endswith("/") else args.uri + "/"
    extra: dict[str, str] = {}
    for kv in args.extra:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            log(f"error: --extra needs KEY=VALUE, got {kv!r}")
            return 2
        extra[k] = v
    headers = {k[len("header."):]: v for k, v in extra.items() if k.startswith("header.")}
    if "token" in extra:
        headers.setdefault("Authorization", f"Bearer {extra['token']}")
    elif "credential" in extra:
        # The kit's RESTCatalog fetches its own token from the credential; the pre-flight
        # requests here do the same (client_credentials at oauth2-server-uri).
        try:
            token = fetch_token(extra.get("oauth2-server-uri", f"{uri}v1/oauth/tokens"),
                                extra["credential"], extra.get("scope", "catalog"))
        except (RuntimeError, urllib.error.URLError, OSError) as e:
            log(f"error: no token for the credential: {e}")
            return 2
        headers.setdefault("Authorization", f"Bearer {token}")

    try:
        config = fetch_config(uri, args.warehouse, headers)
    except (RuntimeError, urllib.error.URLError, OSError) as e:
        log(f"error: the catalog does not answer: {e}")
        return 2
    if not args.list_failures_only:
        log(f"GET /v1/config: defaults={json.dumps(config.get('defaults', {}))} "
            f"overrides={json.dumps(config.get('overrides', {}))} "
            f"endpoints={len(config.get('endpoints') or [])}")
    if args.clean:
        clean_test_namespaces(uri, config, headers)

    report_dir = Path(args.report_dir or tempfile.mkdtemp(prefix="floe-rck-report-")).resolve()
    report_dir.mkdir(parents=True, exist_ok=True)
    for old in report_dir.glob("TEST-*.xml"):
        old.unlink()
    console_log = report_dir / "console.log"

    jvm_props = {"rck.local": "false", "uri": uri}
    if args.warehouse:
        jvm_props["warehouse"] = args.warehouse
    jvm_props.update(extra)
    selections = [ALIASES.get(s, s) for s in (args.select_class or ["suite"])]
    selections += args.select_method
    cmd = build_command(args, report_dir, jvm_props, selections)
    if args.verbose:
        log("+ " + " ".join(cmd))
    if not args.list_failures_only:
        log(f"running {', '.join(s.rsplit('.', 1)[-1] for s in selections)} against {uri} "
            f"(warehouse {args.warehouse or '<unset>'}); reports in {report_dir}")

    t0 = time.monotonic()
    with open(console_log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if args.verbose else out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            if args.verbose:
                assert proc.stdout is not None
                for line in proc.stdout:
                    out.write(line)
                    sys.stderr.buffer.write(line)
                    sys.stderr.flush()
            proc.wait(timeout=args.timeout if not args.verbose else None)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            log(f"error: the launcher ran past --timeout {args.timeout}s and was killed")
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            raise
    t_run = time.monotonic() - t0

    console = console_log.read_text(errors="replace")
    cases = parse_reports(report_dir)
    lc = launcher_counts(console)
    if not cases:
        log(f"error: no JUnit XML report (launcher exit {proc.returncode}); see {console_log}")
        print("\n".join(console.splitlines()[-40:]), file=sys.stderr)
        return 2

    total = counts(cases)
    failed = [c for c in cases if c["status"] == "failed"]
    if not args.list_failures_only:
        by_suite = {"catalog": CATALOG_TESTS, "view": VIEW_TESTS}
        for label, cls in by_suite.items():
            sub = [c for c in cases if c["class"] == cls]
            if sub:
                print(summary_line(f"RCK {label}", counts(sub)))
        if args.show_skipped:
            for c in cases:
                if c["status"] == "skipped":
                    print(f"SKIPPED {c['class'].rsplit('.', 1)[-1]}.{c['name']}: {c['message']}")
    for c in failed:
        print(f"FAILED {c['class'].rsplit('.', 1)[-1]}.{c['name']}: {c['message']}")
    containers_failed = lc.get("containers failed", 0)
    if any(c["message"].startswith("Namespaces list should not contain") for c in failed):
        print("RCK: hint: test namespaces left over by an earlier run exist on the server; "
              "rerun with --clean (or start the server afresh)")
    if containers_failed:
        print(f"RCK: {containers_failed} test class(es)/container(s) failed (beforeAll/afterAll); "
              f"see {console_log}")
    print(summary_line("RCK", total))
    print(f"RCK: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    if not args.list_failures_only:
        print(f"RCK: timings resolve {t_resolve:.1f}s, run {t_run:.1f}s, "
              f"total {time.monotonic() - t_start:.1f}s; reports {report_dir}")
    if total["failed"] or containers_failed or lc.get("tests failed", 0):
        return 1
    if proc.returncode not in (0, None):
        log(f"launcher exited {proc.returncode} with no failed test; see {console_log}")
        return 2
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description="Run the Iceberg REST Compatibility Kit 1.11.0 against a REST catalog.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
               "  run_rck.py --uri http://127.0.0.1:8181/ --warehouse file:///tmp/wh\n"
               "  run_rck.py --uri http://127.0.0.1:8181/ --warehouse w --select-class view\n"
               "  run_rck.py --uri ... --warehouse w --extra rck.supports-serverside-retry=false\n"
               "  run_rck.py --uri ... --warehouse w "
               "--select-method 'org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests#testRenameTable'\n"
               "  run_rck.py --java-server            # the Java reference server, as a baseline")
    ap.add_argument("--uri", help="REST catalog base URI, e.g. http://127.0.0.1:8181/")
    ap.add_argument("--warehouse", default=None,
                    help="client `warehouse` property (sent as ?warehouse= to /v1/config)")
    ap.add_argument("--report-dir", help="JUnit XML reports and console.log (default: a temp dir)")
    ap.add_argument("--select-class", action="append", default=[], metavar="CLASS",
                    help="suite (default) | catalog | view | a fully qualified class; repeatable")
    ap.add_argument("--select-method", action="append", default=[], metavar="CLASS#METHOD",
                    help="one test method (JUnit selector syntax); repeatable")
    ap.add_argument("--extra", action="append", default=[], metavar="KEY=VALUE",
                    help="client catalog property / rck.* switch, passed as -DKEY=VALUE; "
                         "header.NAME=V also goes on the pre-flight requests")
    ap.add_argument("--clean", action="store_true",
                    help="first drop leftover test namespaces (ns, newdb, ns1, ns2, other_ns)")
    ap.add_argument("--list-failures-only", action="store_true",
                    help="print only FAILED lines and the summary")
    ap.add_argument("--show-skipped", action="store_true", help="also list skipped tests")
    ap.add_argument("--java-server", action="store_true",
                    help="start Iceberg's Java reference server on a free port and test it")
    ap.add_argument("--java-server-dir", help="workdir for --java-server (default: a temp dir)")
    ap.add_argument("--jvm-opt", action="append", default=None, metavar="OPT",
                    help=f"JVM option for the test JVM (default {' '.join(cp.QUICK_JVM_FLAGS)})")
    ap.add_argument("--timeout", type=float, default=1200.0, help="launcher timeout, seconds")
    ap.add_argument("--verbose", action="store_true", help="stream the launcher's output")
    args = ap.parse_args()
    if args.jvm_opt is None:
        args.jvm_opt = list(cp.QUICK_JVM_FLAGS)
    if not args.java_server and not args.uri:
        ap.error("--uri is required (or use --java-server)")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

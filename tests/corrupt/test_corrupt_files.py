"""Corrupt, truncated and hostile files (mutations.py describes the cases).

MUST-FAIL cases: `floe parquet cat` / `floe avro cat` exits with 1, 3, 4 or 5 (never 0, never
a signal), names the file on stderr, and finishes within TIME_LIMIT_S, under a 1 GiB address
space limit. Each test first checks that floe reads the undamaged seed, so a reader that
refuses everything cannot pass.
ROBUSTNESS cases (random damage that may hit unchecked bytes): no signal, no hang, an exit
code of the documented set, and when the exit code is 0 the output is well-formed.
"""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

import mutations as mu
import seeds
import text_forms as tf
from floe_runner import ERROR_EXITS, EXIT_NOT_FOUND, EXIT_OK

TIME_LIMIT_S = 10.0
WORKERS = 3
SHOWN = 25


def _run_all(floe, tmp_path, fmt, command, mutants, ext):
    paths = []
    for m in mutants:
        p = tmp_path / f"{m.name}.{ext}"
        p.write_bytes(m.data)
        paths.append(p)
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda p: floe.run(fmt, command, p, timeout=TIME_LIMIT_S), paths))
    return list(zip(mutants, paths, results))


def _must_fail_problem(path, r):
    if r.timed_out:
        return f"no answer within {TIME_LIMIT_S}s"
    if r.signalled:
        return f"killed by signal {-r.rc}"
    if r.rc == EXIT_OK:
        return f"exit 0 (printed {len(r.stdout)} bytes)"
    if r.rc not in ERROR_EXITS:
        return f"exit {r.rc}, not one of {sorted(ERROR_EXITS)}"
    if path.name not in r.stderr:
        return f"stderr does not name the file: {r.stderr.strip()[:200]!r}"
    return None


def _well_formed(command, stdout: bytes):
    try:
        text = stdout.decode("utf-8")
        if command == "cat":
            tf.parse_lines(text)
        else:
            json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        return f"exit 0 with malformed output: {e}"
    return None


def _robust_problem(command, r):
    if r.timed_out:
        return f"no answer within {TIME_LIMIT_S}s"
    if r.signalled:
        return f"killed by signal {-r.rc}"
    if r.rc != EXIT_OK and r.rc not in ERROR_EXITS:
        return f"exit {r.rc}, not 0 or one of {sorted(ERROR_EXITS)}"
    if r.rc == EXIT_OK:
        return _well_formed(command, r.stdout)
    return None


def _report(kind, runs, problems):
    lines = [f"{len(problems)} of {len(runs)} {kind} cases failed:"]
    lines += [f"  {m.name} ({m.why}): {p}" for m, p in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"  ... and {len(problems) - SHOWN} more")
    return "\n".join(lines)


def _check_seed_reads(floe, tmp_path, fmt, data, ext, rows):
    p = tmp_path / f"seed.{ext}"
    p.write_bytes(data)
    r = floe.run(fmt, "cat", p, timeout=TIME_LIMIT_S)
    assert r.rc == EXIT_OK, f"the undamaged seed is not read: {r.describe()}"
    assert len(tf.parse_lines(r.text)) == rows


# ---------------------------------------------------------------------------------------------
# Parquet.

def _parquet_split(seed):
    data = seeds.parquet_seed(seed)
    must, robust = [], []
    for m in mu.parquet_mutants(seed, data):
        if not m.peer_check or mu.parquet_peer_rejects(m.data):
            must.append(m)
        else:
            robust.append(m)
    return data, must, robust


@pytest.mark.parametrize("seed", list(seeds.PARQUET_SEEDS))
def test_parquet_damage_is_reported(floe_limited, tmp_path, seed):
    data, must, _ = _parquet_split(seed)
    _check_seed_reads(floe_limited, tmp_path, "parquet", data, "parquet", seeds.parquet_table().num_rows)
    runs = _run_all(floe_limited, tmp_path, "parquet", "cat", must, "parquet")
    problems = [(m, p) for m, path, r in runs if (p := _must_fail_problem(path, r))]
    assert not problems, _report("must-fail", runs, problems)


def test_parquet_meta_damage_is_reported(floe_limited, tmp_path):
    """`parquet meta` reads only the footer: damage to the footer, its length or the magic."""
    seed = "pq_zstd_v2"
    _, must, _ = _parquet_split(seed)
    footer_cases = [m for m in must if "__tail_magic_" in m.name or "__footer_len_" in m.name
                    or ("__truncate_" in m.name)]
    runs = _run_all(floe_limited, tmp_path, "parquet", "meta", footer_cases, "parquet")
    problems = [(m, p) for m, path, r in runs if (p := _must_fail_problem(path, r))]
    assert not problems, _report("must-fail (meta)", runs, problems)


def test_parquet_rewrite_of_damaged_input_fails(floe_limited, tmp_path):
    _, must, _ = _parquet_split("pq_gzip_v1_crc")
    cases = [m for m in must if "__crc_" in m.name or "__gzip_" in m.name or "_field" in m.name][:40]
    problems = []
    with ThreadPoolExecutor(WORKERS) as pool:
        def one(m):
            src = tmp_path / f"{m.name}.parquet"
            src.write_bytes(m.data)
            return m, src, floe_limited.run("parquet", "rewrite", src, tmp_path / f"{m.name}.out",
                                            timeout=TIME_LIMIT_S)
        runs = list(pool.map(one, cases))
    problems = [(m, p) for m, path, r in runs if (p := _must_fail_problem(path, r))]
    assert not problems, _report("must-fail (rewrite)", runs, problems)


@pytest.mark.parametrize("seed", list(seeds.PARQUET_SEEDS))
def test_parquet_random_damage_never_crashes(floe_limited, tmp_path, seed):
    data, _, unconfirmed = _parquet_split(seed)
    cases = unconfirmed + mu.parquet_random_mutants(seed, data, random.Random(f"parquet-{seed}"))
    runs = _run_all(floe_limited, tmp_path, "parquet", "cat", cases, "parquet")
    runs += _run_all(floe_limited, tmp_path, "parquet", "meta", cases[::3], "parquet")
    problems = [(m, p) for m, _, r in runs if (p := _robust_problem(r.argv[2], r))]
    assert not problems, _report("robustness", runs, problems)


# ---------------------------------------------------------------------------------------------
# Avro.

@pytest.mark.parametrize("codec", list(seeds.AVRO_CODECS))
def test_avro_damage_is_reported(floe_limited, tmp_path, codec):
    data = seeds.avro_seed(codec)
    _check_seed_reads(floe_limited, tmp_path, "avro", data, "avro", 400)
    runs = _run_all(floe_limited, tmp_path, "avro", "cat", mu.avro_mutants(f"avro_{codec}", data), "avro")
    problems = [(m, p) for m, path, r in runs if (p := _must_fail_problem(path, r))]
    assert not problems, _report("must-fail", runs, problems)


@pytest.mark.parametrize("kind", list(seeds.FIRST_FIELD_SCHEMAS))
def test_avro_absurd_lengths_in_data(floe_limited, tmp_path, kind):
    data = seeds.avro_first_field_seed(kind)
    _check_seed_reads(floe_limited, tmp_path, "avro", data, "avro", 50)
    runs = _run_all(floe_limited, tmp_path, "avro", "cat", mu.avro_absurd_data_mutants(kind, data), "avro")
    problems = [(m, p) for m, path, r in runs if (p := _must_fail_problem(path, r))]
    assert not problems, _report("must-fail", runs, problems)


@pytest.mark.parametrize("codec", list(seeds.AVRO_CODECS))
def test_avro_random_damage_never_crashes(floe_limited, tmp_path, codec):
    data = seeds.avro_seed(codec)
    cases = mu.avro_random_mutants(f"avro_{codec}", data, random.Random(f"avro-{codec}"))
    runs = _run_all(floe_limited, tmp_path, "avro", "cat", cases, "avro")
    problems = [(m, p) for m, _, r in runs if (p := _robust_problem("cat", r))]
    assert not problems, _report("robustness", runs, problems)


# ---------------------------------------------------------------------------------------------
# Not files of the format at all.

@pytest.mark.parametrize("fmt,command", [("parquet", "cat"), ("parquet", "meta"), ("parquet", "schema"),
                                         ("parquet", "rewrite"), ("avro", "cat"), ("avro", "meta")])
def test_missing_file_is_not_found(floe_limited, tmp_path, fmt, command):
    missing = tmp_path / "does-not-exist.bin"
    args = [fmt, command, missing] + ([tmp_path / "out"] if command == "rewrite" else [])
    r = floe_limited.run(*args, timeout=TIME_LIMIT_S)
    assert r.rc == EXIT_NOT_FOUND, r.describe()
    assert missing.name in r.stderr, r.describe()


@pytest.mark.parametrize("content", [b"", b"PAR1", b"PAR1PAR1", b"PAR1" + b"\0" * 8 + b"PAR1",
                                     b"hello, world\n" * 10, b"Obj\x01", bytes(range(256))],
                         ids=["empty", "magic", "two-magics", "zero-length-footer", "text", "avro-magic", "bytes"])
@pytest.mark.parametrize("fmt", ["parquet", "avro"])
def test_not_the_format_is_an_error(floe_limited, tmp_path, fmt, content):
    p = tmp_path / f"input.{fmt}"
    p.write_bytes(content)
    r = floe_limited.run(fmt, "cat", p, timeout=TIME_LIMIT_S)
    problem = _must_fail_problem(p, r)
    assert problem is None, f"{problem}: {r.describe()}"

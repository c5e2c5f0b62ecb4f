"""`floe parquet rewrite IN OUT [options]` keeps schema and values exactly.

For every file of the pyarrow-written matrix (parquet_matrix.py) and each option set, OUT is
read back by the peers and compared with IN:
  * pyarrow's reading of OUT equals its reading of IN: schema with field metadata
    (PARQUET:field_id) and schema metadata, and every value (NaN-aware, -0.0 distinct);
  * the same with ARROW:schema removed from both files first, so the Arrow types, field ids
    and nullability come from the Parquet schema floe wrote and not from pyarrow's stored
    schema (which would otherwise mask a lost field id or logical type);
  * DuckDB's parquet_schema() of OUT lists the same schema elements as IN's: names, physical
    types, repetition, field ids, scale, precision exactly; logical types by meaning; every
    converted_type of IN kept (peers.schema_difference);
  * the key-value metadata is kept as-is: the same pairs in the same order, including
    ARROW:schema unchanged (floe copies the file's key-value metadata verbatim, so pyarrow's
    serialized schema stays valid because the Parquet schema is unchanged);
  * the options were applied: codec of every column chunk, v2 data pages, no dictionary
    pages, several row groups and pages when asked, bloom filters where asked, and with
    `--page-crc on` a CRC on every page equal to zlib's CRC-32 of the page bytes (pyarrow
    verifies page CRCs on every read in these suites as well).
"""

from __future__ import annotations

import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_file as pf
import parquet_matrix as pm
import peers
import text_forms as tf
from floe_runner import EXIT_OK, EXIT_UNSUPPORTED

CODEC_IDS = {"none": pf.CODEC_UNCOMPRESSED, "snappy": pf.CODEC_SNAPPY, "gzip": pf.CODEC_GZIP,
             "zstd": pf.CODEC_ZSTD, "lz4": pf.CODEC_LZ4_RAW}
SMALL_ROW_GROUP_BYTES = 65536
SMALL_PAGE_BYTES = 4096

OPTION_SETS = {
    "default": [],
    "page-v2": ["--page-version", "2"],
    "small-groups": ["--row-group-bytes", str(SMALL_ROW_GROUP_BYTES),
                     "--page-bytes", str(SMALL_PAGE_BYTES)],
    "codec-none": ["--codec", "none"],
    "codec-snappy": ["--codec", "snappy"],
    "codec-gzip": ["--codec", "gzip"],
    "codec-zstd": ["--codec", "zstd"],
    "codec-lz4": ["--codec", "lz4"],
    "zstd-level-9": ["--codec", "zstd", "--level", "9"],
    "gzip-level-1": ["--codec", "gzip", "--level", "1"],
    "dict-off": ["--dictionary", "off"],
    "page-crc": ["--page-crc", "on"],
    "page-crc-v2-gzip": ["--page-crc", "on", "--page-version", "2", "--codec", "gzip"],
    "dict-on-v1": ["--dictionary", "on", "--page-version", "1"],
    "v2-dict-off-lz4-small": ["--page-version", "2", "--dictionary", "off", "--codec", "lz4",
                              "--page-bytes", str(SMALL_PAGE_BYTES)],
    "bloom": None,  # --bloom-filter with the case's bloom_columns
}
BASIC = ("default", "page-v2")


def _params():
    for case in pm.cases():
        sets = (OPTION_SETS if case.full_options else
                BASIC + ("small-groups",) if case.name in pm.SMALL_GROUP_CASES else BASIC)
        for opt in sets:
            if opt == "bloom" and not case.bloom_columns:
                continue
            yield pytest.param(case.name, opt, id=f"{case.name}-{opt}")


def _options(case, opt):
    if opt == "bloom":
        return ["--bloom-filter", ",".join(case.bloom_columns)]
    return OPTION_SETS[opt]


def _option_value(options, flag):
    return options[options.index(flag) + 1] if flag in options else None


def check_options_applied(src, out, options, bloom_columns=()):
    """The rewrite honoured the layout options it was given."""
    lay = pf.layout(out.read_bytes())
    rgs = lay.meta.get(pf.FMD.ROW_GROUPS).items
    chunks = [cc.get(pf.CC.META) for rg in rgs for cc in rg.get(pf.RG.COLUMNS).items]
    codec = _option_value(options, "--codec")
    if codec is not None:
        found = {c.get(pf.CMD.CODEC) for c in chunks}
        assert found <= {CODEC_IDS[codec]}, f"--codec {codec}: column chunk codecs {found}"
    data_pages = [p for p in lay.pages if p.type in (pf.PAGE_DATA, pf.PAGE_DATA_V2)]
    version = _option_value(options, "--page-version")
    if version is not None:
        want = pf.PAGE_DATA_V2 if version == "2" else pf.PAGE_DATA
        wrong = [p for p in data_pages if p.type != want]
        assert not wrong, f"--page-version {version}: {len(wrong)} of {len(data_pages)} data pages are type {wrong[0].type}"
    if _option_value(options, "--page-crc") == "on":
        for p in lay.pages:
            crc = p.header.get(pf.PH.CRC)
            assert crc is not None, f"--page-crc on: page at {p.header_offset} has no CRC"
            body = lay.data[p.body_offset:p.body_offset + p.body_len]
            assert crc & 0xFFFFFFFF == zlib.crc32(body), \
                f"--page-crc on: page at {p.header_offset}: CRC {crc & 0xFFFFFFFF:#x}, zlib {zlib.crc32(body):#x}"
    dict_pages = [p for p in lay.pages if p.type == pf.PAGE_DICT]
    if _option_value(options, "--dictionary") == "off":
        assert not dict_pages, f"--dictionary off: {len(dict_pages)} dictionary pages written"
    if _option_value(options, "--dictionary") == "on" and data_pages:
        assert dict_pages, "--dictionary on: no dictionary page in the file"
    rg_bytes = _option_value(options, "--row-group-bytes")
    if rg_bytes is not None:
        src_meta = pq.read_metadata(src)
        in_bytes = sum(src_meta.row_group(g).total_byte_size for g in range(src_meta.num_row_groups))
        groups = len(rgs)
        if in_bytes > 4 * int(rg_bytes) and src_meta.num_rows > 100:
            assert groups > 1, (f"--row-group-bytes {rg_bytes}: {in_bytes} bytes of data "
                                f"({src_meta.num_rows} rows) in {groups} row group(s)")
    page_bytes = _option_value(options, "--page-bytes")
    if page_bytes is not None:
        per_chunk = {}
        for p in data_pages:
            per_chunk[(p.row_group, p.column)] = per_chunk.get((p.row_group, p.column), 0) + 1
        for g, rg in enumerate(rgs):
            for c, cc in enumerate(rg.get(pf.RG.COLUMNS).items):
                cmd = cc.get(pf.CC.META)
                size = cmd.get(pf.CMD.TOTAL_UNCOMPRESSED)
                if size > 8 * int(page_bytes) and cmd.get(pf.CMD.NUM_VALUES) > 8:
                    n = per_chunk.get((g, c), 0)
                    assert n > 1, (f"--page-bytes {page_bytes}: chunk {cmd.get(pf.CMD.PATH).items} "
                                   f"of {size} bytes has {n} data page(s)")
    if bloom_columns:
        meta = pq.read_metadata(out)
        for g in range(meta.num_row_groups):
            if meta.row_group(g).num_rows == 0:
                continue
            for i in range(meta.num_columns):
                col = meta.row_group(g).column(i)
                if col.path_in_schema in bloom_columns:
                    assert col.bloom_filter_offset and col.bloom_filter_offset > 0 and col.bloom_filter_length, \
                        f"--bloom-filter: no bloom filter for {col.path_in_schema} in row group {g}"


def check_rewrite(src, out, inputs_table, inputs_bare, inputs_schema, inputs_kv, label):
    got = peers.read(out)
    d = peers.tables_difference(inputs_table, got)
    assert d is None, f"{label}: pyarrow reading of OUT differs from IN: {d}"
    d = peers.tables_difference(inputs_bare, peers.read_bare(out))
    assert d is None, f"{label}: pyarrow reading without ARROW:schema differs: {d}"
    d = peers.schema_difference(inputs_schema, peers.schema_elements(out))
    assert d is None, f"{label}: Parquet schema (DuckDB parquet_schema) differs: {d}"
    kv = peers.kv_pairs(out)
    assert kv == inputs_kv, (f"{label}: key-value metadata not kept as-is:\n  IN  "
                             f"{[(k, (v or b'')[:40]) for k, v in inputs_kv]}\n  OUT "
                             f"{[(k, (v or b'')[:40]) for k, v in kv]}")
    assert pq.read_metadata(out).num_rows == pq.read_metadata(src).num_rows


@pytest.mark.parametrize("case_name,opt", list(_params()))
def test_rewrite_keeps_schema_and_values(floe, parquet_inputs, tmp_path, case_name, opt):
    case = parquet_inputs.cases[case_name]
    src = parquet_inputs.path(case_name)
    out = tmp_path / "out.parquet"
    options = _options(case, opt)
    floe.rewrite(src, out, options)
    check_rewrite(src, out, parquet_inputs.table(case_name), parquet_inputs.bare(case_name),
                  parquet_inputs.schema(case_name), parquet_inputs.kv(case_name),
                  f"{case_name} {' '.join(options)}")
    check_options_applied(src, out, options, case.bloom_columns if opt == "bloom" else ())


def test_rewrite_of_rewrite_is_stable(floe, parquet_inputs, tmp_path):
    """floe reads what floe wrote: IN -> A (v2, zstd, no dictionary) -> B (v1, snappy)."""
    src = parquet_inputs.path("nested")
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    floe.rewrite(src, a, ["--page-version", "2", "--codec", "zstd", "--dictionary", "off"])
    floe.rewrite(a, b, ["--page-version", "1", "--codec", "snappy"])
    check_rewrite(src, b, parquet_inputs.table("nested"), parquet_inputs.bare("nested"),
                  parquet_inputs.schema("nested"), parquet_inputs.kv("nested"), "nested twice")


# ---------------------------------------------------------------------------------------------
# Inputs outside the contract's type and codec list (INT96 timestamps, which Spark, Hive and
# Impala still write by default; the BROTLI codec). floe either reads them correctly or
# refuses them with exit 5 (unsupported) and a message naming the file; it never misreads.

def _int96_table():
    return pa.table({"id": pa.array(range(6), pa.int32()),
                     "ts": pa.array([0, -1, 1510871468123456789, None, -2**62, 2**62], pa.timestamp("ns"))})


OUTSIDE_CONTRACT = {
    "int96_timestamps": (_int96_table, dict(use_deprecated_int96_timestamps=True)),
    "brotli_codec": (lambda: pm.all_types_table(300), dict(compression="brotli")),
}


@pytest.mark.parametrize("name", list(OUTSIDE_CONTRACT))
def test_outside_contract_read_correctly_or_refused(floe, tmp_path, name):
    make_table, options = OUTSIDE_CONTRACT[name]
    src = tmp_path / f"{name}.parquet"
    pq.write_table(make_table(), src, **options)
    cat = floe.run("parquet", "cat", src)
    assert cat.rc in (EXIT_OK, EXIT_UNSUPPORTED), cat.describe()
    if cat.rc == EXIT_UNSUPPORTED:
        assert src.name in cat.stderr, f"error does not name the file: {cat.describe()}"
        rewrite = floe.run("parquet", "rewrite", src, tmp_path / "out.parquet")
        assert rewrite.rc == EXIT_UNSUPPORTED, rewrite.describe()
        return
    bare = peers.read_bare(src)
    rows = tf.parse_lines(cat.text)
    d = tf.rows_difference(tf.expected_rows(bare), rows)
    if d is not None and name == "int96_timestamps":
        # INT96 carries no isAdjustedToUTC flag; either reading of the instant is acceptable.
        utc = bare.set_column(1, "ts", bare.column("ts").cast(pa.timestamp("ns", "UTC")))
        d2 = tf.rows_difference(tf.expected_rows(utc), rows)
        d = None if d2 is None else d
    assert d is None, f"{name}: {d}"
    out = tmp_path / "out.parquet"
    floe.rewrite(src, out)
    d = peers.tables_difference(peers.read(src), peers.read(out))
    assert d is None, f"{name}: {d}"

"""`floe parquet meta` (the footer as JSON, in parquet.thrift's field names) and
`floe parquet schema` agree with what pyarrow and DuckDB read from the same footer: row
counts, row groups, every column chunk's path, codec, encodings, sizes, offsets, value and
null counts, the schema's names and field ids, and the key-value metadata."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import parquet_file as pf
import peers

CASES = ["all_types", "nested", "all_types_row_groups", "decimal_int", "dict_fallback_v2",
         "hadoop_lz4_v1", "zero_row_groups", "kv_without_value"]
CODEC_NAMES = ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"]


@pytest.mark.parametrize("case_name", CASES)
def test_meta_matches_peers(floe, parquet_inputs, case_name):
    path = parquet_inputs.path(case_name)
    r = floe.ok("parquet", "meta", path)
    try:
        meta = json.loads(r.text)
    except ValueError as e:
        raise AssertionError(f"{case_name}: meta is not JSON: {e}") from None
    md = pq.read_metadata(path)
    footer, _, _ = pf.read_footer(path.read_bytes())
    problems = []

    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: meta says {got!r}, peers {want!r}")

    expect("num_rows", meta.get("num_rows"), md.num_rows)
    groups = meta.get("row_groups", [])
    expect("row group count", len(groups), md.num_row_groups)
    for g, rg in enumerate(groups[:md.num_row_groups]):
        prg = md.row_group(g)
        expect(f"row group {g} num_rows", rg.get("num_rows"), prg.num_rows)
        cols = rg.get("columns", [])
        expect(f"row group {g} column count", len(cols), prg.num_columns)
        raw_chunks = footer.get(pf.FMD.ROW_GROUPS).items[g].get(pf.RG.COLUMNS).items
        for i, col in enumerate(cols[:prg.num_columns]):
            pc = prg.column(i)
            where = f"row group {g} column {pc.path_in_schema}"
            chunk = col.get("meta_data", col)
            expect(f"{where} path", ".".join(chunk.get("path", chunk.get("path_in_schema", []))), pc.path_in_schema)
            expect(f"{where} codec", chunk.get("codec"),
                   CODEC_NAMES[raw_chunks[i].get(pf.CC.META).get(pf.CMD.CODEC)])
            expect(f"{where} encodings", sorted(chunk.get("encodings", [])), sorted(pc.encodings))
            for key, want in (("num_values", pc.num_values), ("total_compressed_size", pc.total_compressed_size),
                              ("total_uncompressed_size", pc.total_uncompressed_size),
                              ("data_page_offset", pc.data_page_offset),
                              ("dictionary_page_offset", pc.dictionary_page_offset)):
                expect(f"{where} {key}", chunk.get(key), want)
            if pc.statistics is not None and pc.statistics.has_null_count:
                expect(f"{where} null_count", chunk.get("statistics", {}).get("null_count"),
                       pc.statistics.null_count)
    schema = [(e.get("name"), e.get("field_id")) for e in meta.get("schema", [])][1:]
    want = [(e[0], e[peers.SCHEMA_COLUMNS.index("field_id")]) for e in peers.schema_elements(path)][1:]
    expect("schema names and field ids", schema, want)
    kv = [(e.get("key"), e.get("value")) for e in meta.get("key_value_metadata", [])]
    want_kv = [(k.decode(), None if v is None else v.decode()) for k, v in peers.kv_pairs(path)]
    expect("key_value_metadata", kv, want_kv)
    assert not problems, f"{case_name}:\n  " + "\n  ".join(problems[:20])


@pytest.mark.parametrize("case_name", ["all_types", "nested"])
def test_schema_names_every_field(floe, parquet_inputs, case_name):
    path = parquet_inputs.path(case_name)
    text = floe.ok("parquet", "schema", path).text
    missing = [e[0] for e in peers.schema_elements(path)[1:] if e[0] not in text]
    assert not missing, f"{case_name}: schema text lacks {missing}"

"""Writes the seed corpus of fuzz_parquet_file: small files from pyarrow covering each
encoding, codec and page version. Run with the project's venv:
    .venv/bin/python tests/fuzz/make_parquet_corpus.py
"""
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

out = os.path.join(os.path.dirname(__file__), "corpus", "fuzz_parquet_file")
os.makedirs(out, exist_ok=True)
n = 64
table = pa.table({
    "i32": pa.array([i * 3 - 50 if i % 5 else None for i in range(n)], pa.int32()),
    "i64": pa.array([i * 100003 for i in range(n)], pa.int64()),
    "f": pa.array([i / 7 for i in range(n)], pa.float32()),
    "d": pa.array([i / 3 for i in range(n)], pa.float64()),
    "s": pa.array([f"v{i % 9}" * (i % 4) for i in range(n)], pa.string()),
    "b": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    "fx": pa.array([bytes([i, i, i]) for i in range(n)], pa.binary(3)),
    "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
    "l": pa.array([[i, None, i + 1][: i % 4] if i % 6 else None for i in range(n)],
                  pa.list_(pa.int64())),
    "m": pa.array([[("k", i)] if i % 2 else [] for i in range(n)], pa.map_(pa.string(), pa.int32())),
})
for codec in ["none", "snappy", "gzip", "zstd", "lz4"]:
    for version in ["1.0", "2.0"]:
        pq.write_table(table, f"{out}/{codec}_v{version[0]}.parquet", compression=codec,
                       data_page_version=version, data_page_size=256)
pq.write_table(table, f"{out}/plain_crc.parquet", compression="none", use_dictionary=False,
               write_page_checksum=True)
pq.write_table(table, f"{out}/delta.parquet", compression="none", use_dictionary=False,
               column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                                "s": "DELTA_BYTE_ARRAY", "fx": "DELTA_BYTE_ARRAY"})
pq.write_table(table, f"{out}/dlba_bss.parquet", compression="none", use_dictionary=False,
               column_encoding={"s": "DELTA_LENGTH_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT",
                                "d": "BYTE_STREAM_SPLIT", "i32": "BYTE_STREAM_SPLIT"})

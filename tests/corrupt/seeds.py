"""Valid seed files for the corrupt-file suite, and an independent model of the Avro object
container layout (Avro spec, "Object Container Files") used to aim mutations.

Parquet seeds are written by pyarrow with several codecs and page versions, some with page
CRCs; Avro seeds by fastavro with each codec of the contract (null, deflate, snappy, zstd)
and, with the null codec, record shapes whose first field is a string, bytes, array or map
so that a length or count inside the data can be made absurd.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import random
from dataclasses import dataclass

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

# ---------------------------------------------------------------------------------------------
# Parquet.

PARQUET_SEEDS = {
    # name -> pq.write_table options
    "pq_snappy_v1": dict(compression="snappy"),
    "pq_zstd_v2": dict(compression="zstd", data_page_version="2.0"),
    "pq_gzip_v1_crc": dict(compression="gzip", write_page_checksum=True),
    "pq_none_v2_crc": dict(compression="none", data_page_version="2.0", write_page_checksum=True,
                           use_dictionary=False),
    "pq_lz4_v1_crc": dict(compression="lz4", write_page_checksum=True),
    "pq_snappy_v2_crc": dict(compression="snappy", data_page_version="2.0", write_page_checksum=True),
    "pq_gzip_v2": dict(compression="gzip", data_page_version="2.0", use_dictionary=False),
}


def parquet_table(n: int = 300, seed: int = 7) -> pa.Table:
    rng = random.Random(seed)
    words = ["north", "south", "east", "west", "", "mitte", "zentrum"]
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "s": pa.array([None if i % 11 == 0 else rng.choice(words) + str(i % 13) for i in range(n)]),
        "d": pa.array([None if i % 7 == 0 else rng.uniform(-1e6, 1e6) for i in range(n)]),
        "dec": pa.array([decimal.Decimal(rng.randint(-10**8, 10**8)).scaleb(-2) for i in range(n)],
                        pa.decimal128(9, 2)),
        "l": pa.array([None if i % 9 == 0 else [rng.randint(-99, 99) for _ in range(i % 4)]
                       for i in range(n)], pa.list_(pa.int32())),
        "st": pa.array([None if i % 5 == 0 else {"a": i, "b": rng.choice(words)} for i in range(n)],
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "b": pa.array([rng.randbytes(rng.randint(0, 12)) for _ in range(n)], pa.binary()),
    })


def parquet_seed(name: str) -> bytes:
    buf = io.BytesIO()
    pq.write_table(parquet_table(), buf, data_page_size=1024, **PARQUET_SEEDS[name])
    data = buf.getvalue()
    # Every truncation must be detectable: the magic may occur only at both ends, so that no
    # prefix of the file ends in "PAR1".
    assert data.count(b"PAR1") == 2 and data.startswith(b"PAR1") and data.endswith(b"PAR1"), name
    return data


# ---------------------------------------------------------------------------------------------
# Avro.

AVRO_CODECS = {"null": "null", "deflate": "deflate", "snappy": "snappy", "zstd": "zstandard"}

AVRO_SCHEMA = {
    "type": "record", "name": "Row", "namespace": "floe.test",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "payload", "type": "bytes"},
        {"name": "score", "type": ["null", "double"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "int"}},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "inner", "type": ["null", {"type": "record", "name": "Inner",
                                            "fields": [{"name": "x", "type": "float"}]}]},
    ],
}

# Seeds whose first record field is the one an absurd-length case rewrites.
FIRST_FIELD_SCHEMAS = {
    "string": {"type": "string"},
    "bytes": {"type": "bytes"},
    "array": {"type": "array", "items": "long"},
    "map": {"type": "map", "values": "long"},
}


def _records(n: int, seed: int):
    rng = random.Random(seed)
    for i in range(n):
        yield {
            "id": i * 7919 - 10**6,
            "name": rng.choice(["ada", "grace", "linus", "", "ünï"]) * rng.randint(1, 3),
            "payload": rng.randbytes(rng.randint(0, 20)),
            "score": None if i % 4 == 0 else rng.uniform(-100, 100),
            "tags": [rng.choice(["x", "y", "zz"]) for _ in range(i % 3)],
            "attrs": {f"k{j}": rng.randint(-5, 5) for j in range(i % 3)},
            "kind": rng.choice(["A", "B", "C"]),
            "fx": rng.randbytes(4),
            "amount": decimal.Decimal(rng.randint(-10**6, 10**6)).scaleb(-2),
            "day": dt.date(2020, 1, 1) + dt.timedelta(days=i),
            "inner": None if i % 3 == 0 else {"x": 1.5 * i},
        }


def avro_seed(codec: str) -> bytes:
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(AVRO_SCHEMA), _records(400, 11),
                    codec=AVRO_CODECS[codec], sync_interval=2000, metadata={"floe.test": "corrupt"})
    return buf.getvalue()


def avro_first_field_seed(kind: str) -> bytes:
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "first", "type": FIRST_FIELD_SCHEMAS[kind]}, {"name": "n", "type": "long"}]}
    rng = random.Random(3)
    values = {
        "string": lambda: "v" * rng.randint(0, 9),
        "bytes": lambda: rng.randbytes(rng.randint(0, 9)),
        "array": lambda: [rng.randint(-9, 9) for _ in range(rng.randint(0, 4))],
        "map": lambda: {f"k{j}": j for j in range(rng.randint(0, 3))},
    }[kind]
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema),
                    [{"first": values(), "n": i} for i in range(50)], codec="null", sync_interval=200)
    return buf.getvalue()


def avro_zigzag(n: int) -> bytes:
    u = (n << 1) ^ (n >> 63)
    u &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = u & 0x7F
        u >>= 7
        if u:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_long(data: bytes, pos: int) -> tuple[int, int]:
    shift = 0
    u = 0
    while True:
        b = data[pos]
        pos += 1
        u |= (b & 0x7F) << shift
        if not b & 0x80:
            return (u >> 1) ^ -(u & 1), pos
        shift += 7


@dataclass
class AvroBlock:
    offset: int          # first byte of the object count
    count: int
    size_offset: int     # first byte of the byte-size long
    data_offset: int
    data_len: int
    sync_offset: int     # 16 bytes

    @property
    def end(self) -> int:
        return self.sync_offset + 16


@dataclass
class AvroLayout:
    header_end: int      # offset of the first block (just after the header's sync marker)
    sync: bytes
    blocks: list
    meta_offset: int     # first byte of the metadata map


def avro_layout(data: bytes) -> AvroLayout:
    assert data[:4] == b"Obj\x01"
    pos = 4
    meta_offset = pos
    while True:
        n, pos = read_long(data, pos)
        if n == 0:
            break
        if n < 0:
            _, pos = read_long(data, pos)
            n = -n
        for _ in range(n):
            klen, pos = read_long(data, pos)
            pos += klen
            vlen, pos = read_long(data, pos)
            pos += vlen
    sync = data[pos:pos + 16]
    pos += 16
    header_end = pos
    blocks = []
    while pos < len(data):
        start = pos
        count, pos = read_long(data, pos)
        size_offset = pos
        size, pos = read_long(data, pos)
        blocks.append(AvroBlock(start, count, size_offset, pos, size, pos + size))
        pos += size
        assert data[pos:pos + 16] == sync
        pos += 16
    assert pos == len(data)
    return AvroLayout(header_end, sync, blocks, meta_offset)


def replace_block(data: bytes, block: AvroBlock, new_data: bytes, count: int | None = None) -> bytes:
    """The file with one block's data (and optionally its object count) replaced, the block's
    byte size adjusted to the new data."""
    c = block.count if count is None else count
    return (data[:block.offset] + avro_zigzag(c) + avro_zigzag(len(new_data)) + new_data +
            data[block.sync_offset:])

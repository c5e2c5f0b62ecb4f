"""A small, independent model of the Parquet file layout for tests.

It decodes and re-encodes the Thrift compact protocol generically (no generated code), so
tests can locate every page header, page body and footer field of a file written by a peer,
change one field, and lay the file out again. Uses:
  * hand-built inputs no Python peer writes (BYTE_ARRAY decimals, the Hadoop-framed LZ4
    codec, a footer with zero row groups), each then read back by pyarrow as the oracle;
  * the corrupt-file suite (exact offsets of headers, bodies, lengths; absurd values).

Field ids follow parquet-format's parquet.thrift (see shared/reference/parquet.md §3).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

# Compact protocol type nibbles.
T_STOP, T_TRUE, T_FALSE, T_I8, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, \
    T_STRUCT, T_UUID = range(14)


class ThriftError(ValueError):
    pass


@dataclass
class Struct:
    """A decoded struct: (field id, type nibble, value) in wire order."""
    fields: list = field(default_factory=list)

    def get(self, fid, default=None):
        for f, _, v in self.fields:
            if f == fid:
                return v
        return default

    def has(self, fid):
        return any(f == fid for f, _, _ in self.fields)

    def set(self, fid, ttype, value):
        """Replace field `fid` (or add it, keeping ascending id order)."""
        for i, (f, _, _) in enumerate(self.fields):
            if f == fid:
                self.fields[i] = (fid, ttype, value)
                return
        self.fields.append((fid, ttype, value))
        self.fields.sort(key=lambda x: x[0])

    def drop(self, fid):
        self.fields = [x for x in self.fields if x[0] != fid]


@dataclass
class TList:
    elem_type: int
    items: list


@dataclass
class TMap:
    key_type: int
    value_type: int
    items: list  # [(k, v)]


class _Reader:
    def __init__(self, data: bytes, pos: int = 0, end: int | None = None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise ThriftError("truncated")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = 0
        out = 0
        for _ in range(10):
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
        raise ThriftError("varint too long")

    def zigzag(self) -> int:
        u = self.varint()
        return (u >> 1) ^ -(u & 1)

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise ThriftError("truncated")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def value(self, ttype: int, depth: int):
        if depth > 64:
            raise ThriftError("too deep")
        if ttype in (T_TRUE, T_FALSE):  # only reached for list elements
            return self.byte() == 1
        if ttype == T_I8:
            b = self.byte()
            return b - 256 if b > 127 else b
        if ttype in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if ttype == T_DOUBLE:
            return struct.unpack("<d", self.raw(8))[0]
        if ttype == T_BINARY:
            return self.raw(self.varint())
        if ttype in (T_LIST, T_SET):
            h = self.byte()
            size = h >> 4
            if size == 15:
                size = self.varint()
            et = h & 0x0F
            if size > self.end - self.pos:
                raise ThriftError("list size exceeds data")
            return TList(et, [self.value(et, depth + 1) for _ in range(size)])
        if ttype == T_MAP:
            size = self.varint()
            if size == 0:
                return TMap(0, 0, [])
            kv = self.byte()
            kt, vt = kv >> 4, kv & 0x0F
            return TMap(kt, vt, [(self.value(kt, depth + 1), self.value(vt, depth + 1))
                                 for _ in range(size)])
        if ttype == T_STRUCT:
            return self.struct(depth + 1)
        if ttype == T_UUID:
            return self.raw(16)
        raise ThriftError(f"bad type {ttype}")

    def struct(self, depth: int = 0) -> Struct:
        s = Struct()
        last = 0
        while True:
            h = self.byte()
            if h == 0:
                return s
            ttype = h & 0x0F
            delta = h >> 4
            fid = last + delta if delta else self.zigzag()
            if ttype in (T_TRUE, T_FALSE):
                s.fields.append((fid, T_TRUE, ttype == T_TRUE))
            else:
                s.fields.append((fid, ttype, self.value(ttype, depth)))
            last = fid


def _varint(n: int) -> bytes:
    if n < 0:
        raise ValueError("negative varint")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _zigzag(n: int, bits: int = 64) -> bytes:
    return _varint(((n << 1) ^ (n >> (bits - 1))) & ((1 << bits) - 1))


def _encode_value(ttype: int, v) -> bytes:
    if ttype in (T_TRUE, T_FALSE):
        return b"\x01" if v else b"\x02"
    if ttype == T_I8:
        return struct.pack("<b", v)
    if ttype in (T_I16, T_I32):
        return _zigzag(v, 32)
    if ttype == T_I64:
        return _zigzag(v, 64)
    if ttype == T_DOUBLE:
        return struct.pack("<d", v)
    if ttype == T_BINARY:
        return _varint(len(v)) + bytes(v)
    if ttype in (T_LIST, T_SET):
        n = len(v.items)
        head = bytes([(n << 4) | v.elem_type]) if n < 15 else bytes([0xF0 | v.elem_type]) + _varint(n)
        return head + b"".join(_encode_value(v.elem_type, x) for x in v.items)
    if ttype == T_MAP:
        if not v.items:
            return b"\x00"
        return (_varint(len(v.items)) + bytes([(v.key_type << 4) | v.value_type]) +
                b"".join(_encode_value(v.key_type, k) + _encode_value(v.value_type, x)
                         for k, x in v.items))
    if ttype == T_STRUCT:
        return encode_struct(v)
    if ttype == T_UUID:
        return bytes(v)
    raise ValueError(f"bad type {ttype}")


def encode_struct(s: Struct) -> bytes:
    out = bytearray()
    last = 0
    for fid, ttype, v in s.fields:
        wire_type = (T_TRUE if v else T_FALSE) if ttype in (T_TRUE, T_FALSE) else ttype
        delta = fid - last
        if 0 < delta <= 15:
            out.append((delta << 4) | wire_type)
        else:
            out.append(wire_type)
            out += _zigzag(fid, 16)
        if ttype not in (T_TRUE, T_FALSE):
            out += _encode_value(ttype, v)
        last = fid
    out.append(0)
    return bytes(out)


def decode_struct(data: bytes, pos: int = 0, end: int | None = None) -> tuple[Struct, int]:
    """Decode one struct at `pos`; returns it and the position after its STOP byte."""
    r = _Reader(data, pos, end)
    s = r.struct()
    return s, r.pos


# ---------------------------------------------------------------------------------------------
# Parquet structure ids (parquet.thrift).

class FMD:  # FileMetaData
    VERSION, SCHEMA, NUM_ROWS, ROW_GROUPS, KV, CREATED_BY, COLUMN_ORDERS = 1, 2, 3, 4, 5, 6, 7


class RG:  # RowGroup
    COLUMNS, TOTAL_BYTE_SIZE, NUM_ROWS, SORTING, FILE_OFFSET, TOTAL_COMPRESSED, ORDINAL = \
        1, 2, 3, 4, 5, 6, 7


class CC:  # ColumnChunk
    FILE_PATH, FILE_OFFSET, META, OI_OFFSET, OI_LENGTH, CI_OFFSET, CI_LENGTH = 1, 2, 3, 4, 5, 6, 7


class CMD:  # ColumnMetaData
    TYPE, ENCODINGS, PATH, CODEC, NUM_VALUES, TOTAL_UNCOMPRESSED, TOTAL_COMPRESSED, KV, \
        DATA_PAGE_OFFSET, INDEX_PAGE_OFFSET, DICT_PAGE_OFFSET, STATISTICS, ENCODING_STATS, \
        BLOOM_OFFSET, BLOOM_LENGTH, SIZE_STATISTICS = range(1, 17)


class PH:  # PageHeader
    TYPE, UNCOMPRESSED, COMPRESSED, CRC, DATA, INDEX, DICT, DATA_V2 = range(1, 9)


class DPH:  # DataPageHeader
    NUM_VALUES, ENCODING, DEF_ENCODING, REP_ENCODING, STATISTICS = range(1, 6)


class DPH2:  # DataPageHeaderV2
    NUM_VALUES, NUM_NULLS, NUM_ROWS, ENCODING, DEF_LEN, REP_LEN, IS_COMPRESSED, STATISTICS = \
        range(1, 9)


class SE:  # SchemaElement
    TYPE, TYPE_LENGTH, REPETITION, NAME, NUM_CHILDREN, CONVERTED, SCALE, PRECISION, FIELD_ID, \
        LOGICAL = range(1, 11)


PAGE_DATA, PAGE_INDEX, PAGE_DICT, PAGE_DATA_V2 = 0, 1, 2, 3
CODEC_UNCOMPRESSED, CODEC_SNAPPY, CODEC_GZIP, CODEC_LZO, CODEC_BROTLI, CODEC_LZ4, CODEC_ZSTD, \
    CODEC_LZ4_RAW = range(8)

MAGIC = b"PAR1"


@dataclass
class Page:
    header_offset: int
    header_len: int
    header: Struct
    body_offset: int
    body_len: int
    row_group: int
    column: int

    @property
    def type(self) -> int:
        return self.header.get(PH.TYPE)


@dataclass
class ParquetLayout:
    data: bytes
    footer_offset: int
    footer_len: int
    meta: Struct
    pages: list

    @property
    def size(self) -> int:
        return len(self.data)


def read_footer(data: bytes) -> tuple[Struct, int, int]:
    if len(data) < 12 or data[-4:] != MAGIC or data[:4] != MAGIC:
        raise ThriftError("not a parquet file")
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    if start < 4:
        raise ThriftError("bad footer length")
    meta, end = decode_struct(data, start, len(data) - 8)
    return meta, start, flen


def chunk_range(cmd: Struct) -> tuple[int, int]:
    data_off = cmd.get(CMD.DATA_PAGE_OFFSET)
    dict_off = cmd.get(CMD.DICT_PAGE_OFFSET)
    dict_valid = dict_off is not None and dict_off >= 4
    # pyarrow writes data_page_offset 0 for a chunk of an empty row group (no data pages).
    if dict_valid and (dict_off < data_off or data_off < 4):
        start = dict_off
    else:
        start = data_off
    return start, start + cmd.get(CMD.TOTAL_COMPRESSED)


def layout(data: bytes) -> ParquetLayout:
    """Parse the footer and walk every page header of every column chunk."""
    meta, fstart, flen = read_footer(data)
    pages = []
    for g, rg in enumerate(meta.get(FMD.ROW_GROUPS).items):
        for c, cc in enumerate(rg.get(RG.COLUMNS).items):
            cmd = cc.get(CC.META)
            pos, end = chunk_range(cmd)
            while pos < end:
                hdr, body = decode_struct(data, pos, end)
                n = hdr.get(PH.COMPRESSED)
                pages.append(Page(pos, body - pos, hdr, body, n, g, c))
                pos = body + n
            if pos != end:
                raise ThriftError(f"pages overrun chunk ({pos} != {end})")
    return ParquetLayout(data, fstart, flen, meta, pages)


def assemble(body: bytes, meta: Struct) -> bytes:
    """`body` = everything before the footer (starting with the magic); append the footer."""
    footer = encode_struct(meta)
    return bytes(body) + footer + struct.pack("<I", len(footer)) + MAGIC


def replace_footer(data: bytes, meta: Struct) -> bytes:
    _, fstart, _ = read_footer(data)
    return assemble(data[:fstart], meta)


def relayout(data: bytes, transform_page, codec: int | None = None) -> bytes:
    """Lay a file out again, passing every page through `transform_page(header, body) ->
    (header, body)` and fixing every offset and size in the footer. Page indexes and bloom
    filters of the input are dropped (their offsets would be stale); `codec` replaces the
    codec recorded in each column chunk when given."""
    lay = layout(data)
    meta = lay.meta
    out = bytearray(MAGIC)
    by_chunk: dict = {}
    for p in lay.pages:
        by_chunk.setdefault((p.row_group, p.column), []).append(p)
    for g, rg in enumerate(meta.get(FMD.ROW_GROUPS).items):
        rg_start = None
        rg_compressed = 0
        for c, cc in enumerate(rg.get(RG.COLUMNS).items):
            cmd = cc.get(CC.META)
            chunk_start = len(out)
            rg_start = chunk_start if rg_start is None else rg_start
            uncompressed_total = 0
            dict_off = data_off = None
            for p in by_chunk.get((g, c), []):
                hdr, body = transform_page(p.header, data[p.body_offset:p.body_offset + p.body_len])
                hdr.set(PH.COMPRESSED, T_I32, len(body))
                raw_hdr = encode_struct(hdr)
                if hdr.get(PH.TYPE) == PAGE_DICT:
                    dict_off = len(out)
                elif data_off is None and hdr.get(PH.TYPE) in (PAGE_DATA, PAGE_DATA_V2):
                    data_off = len(out)
                uncompressed_total += len(raw_hdr) + hdr.get(PH.UNCOMPRESSED)
                out += raw_hdr + body
            if data_off is None:
                data_off = chunk_start
            cmd.set(CMD.DATA_PAGE_OFFSET, T_I64, data_off)
            if dict_off is not None:
                cmd.set(CMD.DICT_PAGE_OFFSET, T_I64, dict_off)
            else:
                cmd.drop(CMD.DICT_PAGE_OFFSET)
            cmd.set(CMD.TOTAL_COMPRESSED, T_I64, len(out) - chunk_start)
            cmd.set(CMD.TOTAL_UNCOMPRESSED, T_I64, uncompressed_total)
            if codec is not None:
                cmd.set(CMD.CODEC, T_I32, codec)
            cmd.drop(CMD.BLOOM_OFFSET)
            cmd.drop(CMD.BLOOM_LENGTH)
            for fid in (CC.OI_OFFSET, CC.OI_LENGTH, CC.CI_OFFSET, CC.CI_LENGTH):
                cc.drop(fid)
            cc.set(CC.FILE_OFFSET, T_I64, 0)
            rg_compressed += len(out) - chunk_start
        if rg_start is not None and rg.has(RG.FILE_OFFSET):
            rg.set(RG.FILE_OFFSET, T_I64, rg_start)
        if rg.has(RG.TOTAL_COMPRESSED):
            rg.set(RG.TOTAL_COMPRESSED, T_I64, rg_compressed)
    return assemble(out, meta)


def data_page_levels_len(header: Struct) -> int:
    """Bytes of uncompressed rep+def levels in front of a v2 page's values (0 for v1)."""
    v2 = header.get(PH.DATA_V2)
    if v2 is None:
        return 0
    return (v2.get(DPH2.DEF_LEN) or 0) + (v2.get(DPH2.REP_LEN) or 0)


def hadoop_lz4_frame(raw_block: bytes, uncompressed_len: int) -> bytes:
    """One Hadoop Lz4Codec block: big-endian u32 uncompressed size, u32 compressed size,
    then the raw LZ4 block (what parquet-mr's LZ4 (codec 5) pages hold)."""
    return struct.pack(">II", uncompressed_len, len(raw_block)) + raw_block


def kv_metadata(meta: Struct) -> list[tuple[bytes, bytes]]:
    kv = meta.get(FMD.KV)
    if kv is None:
        return []
    return [(e.get(1), e.get(2)) for e in kv.items]


def set_kv_metadata(meta: Struct, pairs: list[tuple[bytes, bytes]]) -> None:
    if not pairs:
        meta.drop(FMD.KV)
        return
    items = []
    for k, v in pairs:
        s = Struct([(1, T_BINARY, k)])
        if v is not None:
            s.fields.append((2, T_BINARY, v))
        items.append(s)
    meta.set(FMD.KV, T_LIST, TList(T_STRUCT, items))

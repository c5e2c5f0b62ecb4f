"""Corrupt variants of the seed files, in two honestly separated kinds.

MUST-FAIL cases damage bytes that a correct reader verifiably checks, or make a length or
count absurd, so every one of them has to end in an error:
  * truncation at any offset (Parquet: the seeds hold "PAR1" only at both ends, so no prefix
    looks like a complete file; Avro: every offset except the end of the header and the
    ends of blocks, where a shorter file is still valid);
  * bit flips in the trailing magic, the Avro magic and sync markers, Parquet page bodies
    covered by a page CRC (and the CRC itself), GZIP page bodies past the gzip header (the
    deflate stream and the CRC32/ISIZE trailer), the CRC of Avro snappy blocks and their
    compressed bytes where cramjam confirms the decompressed bytes change;
  * absurd lengths: footer length beyond the file, page header sizes and value counts of
    2^31-1 or negative, v2 level lengths beyond the page, Avro block counts and sizes, string,
    bytes, array and map lengths of 2^62, 2^31-1 or negative, metadata map sizes.
PEER-CONFIRMED cases (Parquet only) are damage whose detection is likely but not guaranteed
by the format (footer length bit flips, header bit flips, snappy bodies without a page CRC,
uncompressed sizes and v2 row counts): they count as must-fail only if pyarrow, with page
checksum verification on, also rejects the file; the rest join the robustness cases.
(fastavro is no such oracle: it accepts a damaged magic, ignores the snappy CRC32 and takes a
block count of -1, all of which the Avro spec rules out, so those Avro cases are must-fail
by the spec alone.)
ROBUSTNESS cases (random bit flips and overwrites anywhere, fixed seeds) may land in bytes no
reader can check; for them the contract is only: no signal, no hang, an exit code of the
documented set, and well-formed output when the exit code is 0.
"""

from __future__ import annotations

import io
import random
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import cramjam
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))
import parquet_file as pf  # noqa: E402

import seeds  # noqa: E402

INT32_MAX = 2**31 - 1
HUGE = 2**62


@dataclass
class Mutant:
    name: str
    data: bytes
    why: str
    peer_check: bool = False   # must-fail only if pyarrow also rejects it


def flip(data: bytes, byte: int, bit: int) -> bytes:
    b = bytearray(data)
    b[byte] ^= 1 << bit
    return bytes(b)


def _spread(lo: int, hi: int, n: int) -> list[int]:
    if hi <= lo:
        return []
    return sorted({lo + (hi - lo) * i // n for i in range(n)})


# ---------------------------------------------------------------------------------------------
# Parquet.

def _set_page_field(data: bytes, page: pf.Page, path: tuple, ttype: int, value: int) -> bytes:
    header = pf.decode_struct(data, page.header_offset)[0]
    node = header
    for fid in path[:-1]:
        node = node.get(fid)
        if node is None:
            return b""
    node.set(path[-1], ttype, value)
    return data[:page.header_offset] + pf.encode_struct(header) + data[page.body_offset:]


def _with_footer_length(data: bytes, length: int) -> bytes:
    return data[:-8] + struct.pack("<I", length & 0xFFFFFFFF) + data[-4:]


def parquet_mutants(seed: str, data: bytes) -> list[Mutant]:
    lay = pf.layout(data)
    size = len(data)
    out: list[Mutant] = []
    pages = lay.pages

    # Truncations: the magic, page headers, page bodies, the footer, its length, and spread.
    cuts = {0, 1, 3, 4, 5, 8, size - 1, size - 3, size - 4, size - 5, size - 7, size - 8,
            lay.footer_offset, lay.footer_offset + 1, lay.footer_offset + lay.footer_len // 2,
            lay.footer_offset + lay.footer_len - 1}
    for p in pages[:3] + pages[len(pages) // 2:len(pages) // 2 + 2] + pages[-2:]:
        cuts |= {p.header_offset + 1, p.header_offset + p.header_len // 2, p.body_offset,
                 p.body_offset + p.body_len // 2, p.body_offset + p.body_len - 1}
    cuts |= set(_spread(4, size, 16))
    for k in sorted(c for c in cuts if 0 <= c < size):
        out.append(Mutant(f"{seed}__truncate_{k}", data[:k], f"truncated to {k} of {size} bytes"))

    for byte in range(size - 4, size):
        for bit in range(8):
            out.append(Mutant(f"{seed}__tail_magic_{byte}_{bit}", flip(data, byte, bit),
                              f"trailing magic byte {byte} bit {bit} flipped"))

    for length in (size - 8 - 3, size - 7, size, size + 100, INT32_MAX, 2**32 - 1, 0):
        out.append(Mutant(f"{seed}__footer_len_{length}", _with_footer_length(data, length),
                          f"footer length {length} (file has {size} bytes, footer {lay.footer_len})"))
    for bit in range(32):
        out.append(Mutant(f"{seed}__footer_len_bit_{bit}", flip(data, size - 8 + bit // 8, bit % 8),
                          f"footer length bit {bit} flipped", peer_check=True))

    # Absurd values in page headers: the first page of a few columns, a v2 page, a dictionary page.
    targets = {}
    for p in pages:
        key = ("dict" if p.type == pf.PAGE_DICT else "data", p.column % 3)
        targets.setdefault(key, p)
    for (kind, _), p in sorted(targets.items(), key=lambda kv: kv[1].header_offset):
        where = f"page at {p.header_offset} (column {p.column}, type {p.type})"
        fields = [((pf.PH.COMPRESSED,), pf.T_I32, INT32_MAX, False),
                  ((pf.PH.COMPRESSED,), pf.T_I32, -1, False),
                  ((pf.PH.UNCOMPRESSED,), pf.T_I32, INT32_MAX, True),
                  ((pf.PH.UNCOMPRESSED,), pf.T_I32, -1, True)]
        if p.type == pf.PAGE_DICT:
            fields += [((pf.PH.DICT, 1), pf.T_I32, INT32_MAX, False),
                       ((pf.PH.DICT, 1), pf.T_I32, -1, False)]
        elif p.type == pf.PAGE_DATA:
            fields += [((pf.PH.DATA, pf.DPH.NUM_VALUES), pf.T_I32, INT32_MAX, False),
                       ((pf.PH.DATA, pf.DPH.NUM_VALUES), pf.T_I32, -1, False)]
        else:
            fields += [((pf.PH.DATA_V2, pf.DPH2.NUM_VALUES), pf.T_I32, INT32_MAX, False),
                       ((pf.PH.DATA_V2, pf.DPH2.NUM_VALUES), pf.T_I32, -1, False),
                       ((pf.PH.DATA_V2, pf.DPH2.NUM_ROWS), pf.T_I32, INT32_MAX, True),
                       ((pf.PH.DATA_V2, pf.DPH2.DEF_LEN), pf.T_I32, INT32_MAX, False),
                       ((pf.PH.DATA_V2, pf.DPH2.DEF_LEN), pf.T_I32, -1, False),
                       ((pf.PH.DATA_V2, pf.DPH2.REP_LEN), pf.T_I32, INT32_MAX, False)]
        for path, ttype, value, peer in fields:
            m = _set_page_field(data, p, path, ttype, value)
            if m:
                label = ".".join(map(str, path))
                out.append(Mutant(f"{seed}__page{p.header_offset}_field{label}_{value}", m,
                                  f"{where}: header field {label} = {value}", peer_check=peer))
        for i in range(0, p.header_len * 8, max(1, p.header_len * 8 // 12)):
            out.append(Mutant(f"{seed}__page{p.header_offset}_header_bit_{i}",
                              flip(data, p.header_offset + i // 8, i % 8),
                              f"{where}: header bit {i} flipped", peer_check=True))

    codec = lay.meta.get(pf.FMD.ROW_GROUPS).items[0].get(pf.RG.COLUMNS).items[0].get(pf.CC.META).get(pf.CMD.CODEC)
    for p in pages:
        where = f"page at {p.header_offset} (column {p.column}, type {p.type}, body {p.body_len} bytes)"
        crc = p.header.get(pf.PH.CRC)
        if crc is not None and p.body_len:
            for pos in sorted({0, p.body_len // 2, p.body_len - 1}):
                out.append(Mutant(f"{seed}__crc_body_{p.body_offset + pos}", flip(data, p.body_offset + pos, pos % 8),
                                  f"{where}: body byte {pos} flipped under a page CRC"))
            out.append(Mutant(f"{seed}__crc_value_{p.header_offset}",
                              _set_page_field(data, p, (pf.PH.CRC,), pf.T_I32, crc ^ 0x10),
                              f"{where}: CRC value changed"))
        levels = pf.data_page_levels_len(p.header)
        body_start, body_len = p.body_offset + levels, p.body_len - levels
        if codec == pf.CODEC_GZIP and body_len > 18 and data[body_start:body_start + 2] == b"\x1f\x8b":
            for pos in sorted({10, 11, (10 + body_len) // 2, body_len - 8, body_len - 1}):
                out.append(Mutant(f"{seed}__gzip_{body_start + pos}", flip(data, body_start + pos, 3),
                                  f"{where}: gzip member byte {pos} flipped (deflate data or CRC32/ISIZE)"))
        if codec == pf.CODEC_SNAPPY and body_len > 0:
            out.append(Mutant(f"{seed}__snappy_len_{body_start}", flip(data, body_start, 1),
                              f"{where}: snappy length preamble changed", peer_check=True))
            if body_len > 4:
                out.append(Mutant(f"{seed}__snappy_body_{body_start}", flip(data, body_start + body_len // 2, 5),
                                  f"{where}: snappy body byte flipped", peer_check=True))
    return out


def parquet_random_mutants(seed: str, data: bytes, rng: random.Random, flips: int = 110,
                           overwrites: int = 30) -> list[Mutant]:
    out = []
    for i in range(flips):
        byte, bit = rng.randrange(len(data)), rng.randrange(8)
        out.append(Mutant(f"{seed}__random_flip_{i}_{byte}_{bit}", flip(data, byte, bit),
                          f"random flip of byte {byte} bit {bit}"))
    for i in range(overwrites):
        at = rng.randrange(len(data) - 8)
        junk = rng.randbytes(rng.choice((1, 4, 8)))
        out.append(Mutant(f"{seed}__random_overwrite_{i}_{at}", data[:at] + junk + data[at + len(junk):],
                          f"{len(junk)} random bytes at {at}"))
    return out


def parquet_peer_rejects(data: bytes) -> bool:
    try:
        pq.ParquetFile(io.BytesIO(data), page_checksum_verification=True).read()
    except Exception:  # noqa: BLE001 - any refusal counts
        return True
    return False


# ---------------------------------------------------------------------------------------------
# Avro.

def avro_mutants(seed: str, data: bytes) -> list[Mutant]:
    lay = seeds.avro_layout(data)
    size = len(data)
    out: list[Mutant] = []
    valid_ends = {lay.header_end, size} | {b.end for b in lay.blocks}
    cuts = {1, 2, 3, 4, 5, lay.meta_offset + 1, lay.meta_offset + 20, lay.header_end - 16,
            lay.header_end - 1, lay.header_end + 1}
    for b in lay.blocks[:2] + lay.blocks[-2:]:
        cuts |= {b.offset + 1, b.size_offset + 1, b.data_offset, b.data_offset + b.data_len // 2,
                 b.sync_offset, b.sync_offset + 1, b.sync_offset + 15}
    cuts |= set(_spread(1, size, 14))
    for k in sorted(c for c in cuts if 0 < c < size and c not in valid_ends):
        out.append(Mutant(f"{seed}__truncate_{k}", data[:k], f"truncated to {k} of {size} bytes"))

    for byte in range(4):
        for bit in range(8):
            out.append(Mutant(f"{seed}__magic_{byte}_{bit}", flip(data, byte, bit), f"magic byte {byte} bit {bit} flipped"))
    out.append(Mutant(f"{seed}__header_sync", flip(data, lay.header_end - 16, 0), "header sync marker flipped"))
    rng = random.Random(seed)
    for i, b in enumerate(lay.blocks):
        for _ in range(3):
            pos = rng.randrange(16)
            out.append(Mutant(f"{seed}__block{i}_sync_{pos}", flip(data, b.sync_offset + pos, rng.randrange(8)),
                              f"block {i} sync marker byte {pos} flipped"))
    first = lay.blocks[0]
    for count in (HUGE, INT32_MAX, -1, first.count + 1):
        m = data[:first.offset] + seeds.avro_zigzag(count) + data[first.size_offset:]
        out.append(Mutant(f"{seed}__block_count_{count}", m, f"first block object count {count} (has {first.count})"))
    for bsize in (HUGE, INT32_MAX, -1, first.data_len + 1, first.data_len - 1):
        m = data[:first.size_offset] + seeds.avro_zigzag(bsize) + data[first.data_offset:]
        out.append(Mutant(f"{seed}__block_size_{bsize}", m, f"first block byte size {bsize} (has {first.data_len})"))
    for n in (HUGE, INT32_MAX):
        _, after = seeds.read_long(data, lay.meta_offset)
        m = data[:lay.meta_offset] + seeds.avro_zigzag(n) + data[after:]
        out.append(Mutant(f"{seed}__meta_count_{n}", m, f"header metadata map count {n}"))
        _, key_len_at = seeds.read_long(data, lay.meta_offset)
        _, after_len = seeds.read_long(data, key_len_at)
        m = data[:key_len_at] + seeds.avro_zigzag(n) + data[after_len:]
        out.append(Mutant(f"{seed}__meta_key_len_{n}", m, f"first metadata key length {n}"))
    if seed.endswith("snappy"):
        for i, b in enumerate(lay.blocks):
            crc_at = b.data_offset + b.data_len - 4
            out.append(Mutant(f"{seed}__block{i}_crc", flip(data, crc_at + i % 4, 6), f"block {i} snappy CRC32 flipped"))
            # A flip in the compressed bytes is caught by the CRC32 of the decompressed bytes
            # whenever it changes them (or breaks the snappy stream); keep the flips for which
            # cramjam's snappy decoder confirms that.
            at = b.data_offset + b.data_len // 2
            m = flip(data, at, 2)
            original = cramjam.snappy.decompress_raw(data[b.data_offset:crc_at]).read()
            try:
                changed = cramjam.snappy.decompress_raw(m[b.data_offset:crc_at]).read() != original
            except Exception:  # noqa: BLE001 - an undecodable stream is detected too
                changed = True
            if changed:
                out.append(Mutant(f"{seed}__block{i}_snappy_body", m,
                                  f"block {i} snappy data flipped, decompressed bytes differ from the CRC's"))
    return out


def avro_absurd_data_mutants(kind: str, data: bytes) -> list[Mutant]:
    """The first record's first field (a string/bytes length, an array/map block count) made
    absurd, with the block's byte size kept consistent."""
    lay = seeds.avro_layout(data)
    b = lay.blocks[0]
    block = data[b.data_offset:b.data_offset + b.data_len]
    _, after = seeds.read_long(block, 0)
    values = (HUGE, INT32_MAX, -1, -HUGE) if kind in ("string", "bytes") else (HUGE, INT32_MAX, -HUGE)
    out = []
    for v in values:
        new_block = seeds.avro_zigzag(v) + block[after:]
        out.append(Mutant(f"avro_{kind}__first_len_{v}", seeds.replace_block(data, b, new_block),
                          f"first {kind} length/count {v}"))
    return out


def avro_random_mutants(seed: str, data: bytes, rng: random.Random, flips: int = 110,
                        overwrites: int = 30) -> list[Mutant]:
    return [Mutant(m.name, m.data, m.why) for m in parquet_random_mutants(seed, data, rng, flips, overwrites)]

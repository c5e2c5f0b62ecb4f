"""Interop of floe's Puffin files and deletion vectors with pyiceberg and pyroaring.

(a) Puffin files `floe puffin write-dv` writes are read by pyiceberg's PuffinFile and
    deletion_vectors_from_puffin_file: the same positions, blob metadata as Iceberg Java's
    BaseDVFileWriter writes it; each blob's framing checked with zlib's CRC-32 and each inner
    32-bit bitmap byte-equal to pyroaring's run-optimized portable serialization (keys dense,
    as Java writes them);
(b) deletion vectors whose Roaring bytes come from pyroaring (BitMap64, sparse keys; and
    per-key BitMaps, dense keys, with and without run containers), wrapped in the documented
    framing inside a Puffin file built here, are read by `floe puffin dv` / `floe puffin meta`;
(c) damaged blobs are reported as corrupt (exit 4) without a crash.

The floe binary comes from $FLOE_BIN.
"""

from __future__ import annotations

import json
import random
import struct
import zlib

import pytest

from floe_runner import EXIT_CORRUPT

pyroaring = pytest.importorskip("pyroaring")
puffin_mod = pytest.importorskip("pyiceberg.table.puffin")
dv_mod = pytest.importorskip("pyiceberg.table.deletion_vector")

DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])
K32 = 1 << 32


def case_sets():
    rng = random.Random(11)
    return {
        "spec_example": [0, 5],
        "sparse": sorted(rng.sample(range(1_000_000), 300)),
        "dense_bitmap": sorted(set(rng.sample(range(200_000), 60_000))),
        "runs": list(range(100, 70_000)) + list(range(100_000, 100_010)),
        "several_keys": [1, K32 + 5, 3 * K32, 3 * K32 + 65_536, 5 * K32 + 7],
        "full_containers": list(range(K32 - 70_000, K32 + 70_000)),
        "empty": [],
    }


def pyiceberg_positions(dv) -> list[int]:
    # pyiceberg's to_vector() cannot build an Arrow array from a DV with no bitmaps.
    return dv.to_vector().to_pylist() if dv._bitmaps else []


def write_positions(path, positions):
    path.write_text("".join(f"{p}\n" for p in positions))


def frame(vector: bytes) -> bytes:
    body = DV_MAGIC + vector
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def dense_vector(positions, run_optimize=True) -> bytes:
    """The 64-bit vector as Java writes it, from pyroaring's 32-bit bitmaps."""
    by_key = {}
    for p in positions:
        by_key.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    keys = range(max(by_key) + 1) if by_key else []
    out = struct.pack("<Q", len(keys))
    for k in keys:
        bm = pyroaring.BitMap(by_key.get(k, []))
        if run_optimize:
            bm.run_optimize()
        out += struct.pack("<I", k) + bm.serialize()
    return out


def puffin_file(blobs: list[tuple[bytes, dict]], properties=None) -> tuple[bytes, list[dict]]:
    """A Puffin file built from the spec: magic, blobs, footer with JSON payload."""
    data = b"PFA1"
    metas = []
    for content, extra in blobs:
        meta = {"type": "deletion-vector-v1", "fields": [2147483645], "snapshot-id": -1,
                "sequence-number": -1, "offset": len(data), "length": len(content)}
        meta.update(extra)
        metas.append(meta)
        data += content
    payload = json.dumps({"blobs": metas, "properties": properties or {"created-by": "test"}})
    payload = payload.encode()
    data += b"PFA1" + payload + struct.pack("<i", len(payload)) + b"\0\0\0\0" + b"PFA1"
    return data, metas


@pytest.fixture(scope="module")
def floe_written(tmp_path_factory, floe):
    """One Puffin file with a DV per case, written by floe."""
    root = tmp_path_factory.mktemp("puffin")
    sets = case_sets()
    specs = []
    for name, positions in sets.items():
        pos_file = root / f"{name}.txt"
        write_positions(pos_file, positions)
        specs.append(f"s3://bucket/data/{name}.parquet={pos_file}")
    out = root / "dvs.puffin"
    result = json.loads(floe.ok("puffin", "write-dv", out, *specs).text)
    return out, sets, result


def test_pyiceberg_reads_floe_dvs(floe_written):
    path, sets, result = floe_written
    data = path.read_bytes()
    assert result["file_size"] == len(data)
    pf = puffin_mod.PuffinFile(data)
    # file-footer-size-in-bytes: magic + payload + size + flags + magic.
    payload_size = struct.unpack("<i", data[-12:-8])[0]
    assert result["footer_size"] == payload_size + 16
    assert pf.footer.properties["created-by"].startswith("floe")
    dvs = {dv.referenced_data_file: dv for dv in dv_mod.deletion_vectors_from_puffin_file(pf)}
    assert len(pf.footer.blobs) == len(sets)
    for blob, entry, (name, positions) in zip(pf.footer.blobs, result["deletion_vectors"],
                                              sets.items()):
        data_file = f"s3://bucket/data/{name}.parquet"
        assert entry["referenced_data_file"] == data_file
        assert blob.type == "deletion-vector-v1"
        assert blob.fields == [2147483645]
        assert blob.snapshot_id == -1 and blob.sequence_number == -1
        assert blob.compression_codec is None
        assert blob.properties == {"referenced-data-file": data_file,
                                   "cardinality": str(len(positions))}
        assert (blob.offset, blob.length) == (entry["content_offset"],
                                              entry["content_size_in_bytes"])
        assert entry["record_count"] == len(positions)
        got = pyiceberg_positions(dvs[data_file])
        assert got == positions, name


def test_floe_dv_bytes_match_peer_encoding(floe_written):
    """Framing per the spec, CRC per zlib, Roaring bytes per pyroaring, keys dense."""
    path, sets, result = floe_written
    data = path.read_bytes()
    for entry, (name, positions) in zip(result["deletion_vectors"], sets.items()):
        blob = data[entry["content_offset"]:entry["content_offset"] +
                    entry["content_size_in_bytes"]]
        assert blob == frame(dense_vector(positions)), name


def test_floe_reads_its_own_dvs_by_offset(floe, floe_written):
    path, sets, result = floe_written
    for entry, (name, positions) in zip(result["deletion_vectors"], sets.items()):
        r = floe.ok("puffin", "dv", path, "--offset", entry["content_offset"], "--length",
                    entry["content_size_in_bytes"], "--cardinality", len(positions), "--json")
        assert json.loads(r.text) == {"cardinality": len(positions), "positions": positions}


def peer_blobs():
    sets = case_sets()
    blobs = {}
    for name, positions in sets.items():
        if positions:
            blobs[f"{name}-bitmap64"] = (positions, frame(pyroaring.BitMap64(positions).serialize()))
        blobs[f"{name}-dense"] = (positions, frame(dense_vector(positions)))
        blobs[f"{name}-dense-norun"] = (positions, frame(dense_vector(positions, False)))
    return blobs


def test_floe_reads_peer_dvs(tmp_path, floe):
    blobs = peer_blobs()
    data, metas = puffin_file(
        [(blob, {"properties": {"referenced-data-file": name, "cardinality": str(len(pos))}})
         for name, (pos, blob) in blobs.items()])
    path = tmp_path / "peer.puffin"
    path.write_bytes(data)
    meta = json.loads(floe.ok("puffin", "meta", path).text)
    assert meta["footer"]["blobs"] == metas
    assert meta["footer"]["properties"] == {"created-by": "test"}
    assert meta["file_size"] == len(data)
    assert not meta["footer_compressed"]
    for m, (name, (positions, _)) in zip(metas, blobs.items()):
        r = floe.ok("puffin", "dv", path, "--offset", m["offset"], "--length", m["length"],
                    "--cardinality", len(positions))
        assert [int(x) for x in r.text.split()] == positions, name
    # pyiceberg agrees with the file built here.
    got = {dv.referenced_data_file: pyiceberg_positions(dv)
           for dv in dv_mod.deletion_vectors_from_puffin_file(puffin_mod.PuffinFile(data))}
    assert got == {name: pos for name, (pos, _) in blobs.items()}


def test_corrupt_dvs_exit_4(tmp_path, floe):
    positions = [3, 70_000, K32 + 1]
    good = frame(dense_vector(positions))
    bad_crc = good[:-1] + bytes([good[-1] ^ 1])
    bad_magic = good[:4] + b"\0" + good[5:]
    unsorted = frame(struct.pack("<Q", 2) + struct.pack("<I", 1) +
                     pyroaring.BitMap([1]).serialize() + struct.pack("<I", 0) +
                     pyroaring.BitMap([1]).serialize())
    big_key = frame(struct.pack("<QI", 1, 0x7FFFFFFF) + pyroaring.BitMap([1]).serialize())
    cases = {"crc": bad_crc, "magic": bad_magic, "unsorted": unsorted, "big_key": big_key,
             "truncated": good[:-3]}
    data, metas = puffin_file([(b, {}) for b in [good, *cases.values()]])
    path = tmp_path / "bad.puffin"
    path.write_bytes(data)
    floe.ok("puffin", "dv", path, "--offset", metas[0]["offset"], "--length",
            metas[0]["length"], "--cardinality", 3)
    r = floe.run("puffin", "dv", path, "--offset", metas[0]["offset"], "--length",
                 metas[0]["length"], "--cardinality", 4)
    assert r.rc == EXIT_CORRUPT, r.describe()
    for m, name in zip(metas[1:], cases):
        r = floe.run("puffin", "dv", path, "--offset", m["offset"], "--length", m["length"])
        assert r.rc == EXIT_CORRUPT, f"{name}: {r.describe()}"
    # Past the end of the file.
    r = floe.run("puffin", "dv", path, "--offset", len(data) - 4, "--length", 44)
    assert r.rc == EXIT_CORRUPT, r.describe()
    r = floe.run("puffin", "meta", tmp_path / "bad.puffin")
    assert r.rc == 0, r.describe()
    path.write_bytes(data[:-1])
    r = floe.run("puffin", "meta", path)
    assert r.rc == EXIT_CORRUPT, r.describe()

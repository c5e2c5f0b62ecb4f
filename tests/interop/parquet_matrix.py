"""The conformance matrix: deterministic tables and the pyarrow write options of each input
file. Every value is generated from a fixed seed, so a failure names a reproducible file.

Field ids are set through `PARQUET:field_id` field metadata on every field, including list
elements and map keys and values (the Iceberg layout, shared/reference/parquet.md §9).
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_file as pf


D = decimal.Decimal
_EPOCH_DATE = dt.date(1970, 1, 1)
_EXACT = decimal.Context(prec=100)


def _scaled(unscaled: int, scale: int) -> decimal.Decimal:
    """unscaled * 10**-scale, exactly (the default context would round to 28 digits)."""
    return D(unscaled).scaleb(-scale, context=_EXACT)


class _Ids:
    """Hands out field ids in declaration order."""

    def __init__(self, start: int = 1):
        self.next = start

    def __call__(self) -> dict:
        i = self.next
        self.next += 1
        return {b"PARQUET:field_id": str(i).encode()}


def _f(ids: _Ids, name: str, type_: pa.DataType, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable, metadata=ids())


def _list(ids: _Ids, item: pa.DataType, nullable: bool = True, large: bool = False):
    ctor = pa.large_list if large else pa.list_
    return ctor(pa.field("element", item, nullable=nullable, metadata=ids()))


def _map(ids: _Ids, key: pa.DataType, value: pa.DataType, value_nullable: bool = True):
    return pa.map_(pa.field("key", key, nullable=False, metadata=ids()),
                   pa.field("value", value, nullable=value_nullable, metadata=ids()))


def _with_nulls(rng: random.Random, values: list, rate: float = 0.1) -> list:
    return [None if rng.random() < rate else v for v in values]


def _edge_then_random(rng, n, edges, gen):
    out = list(edges[:n])
    while len(out) < n:
        out.append(gen())
    return out


# ---------------------------------------------------------------------------------------------
# Value generators.

INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}

F64_EDGES = [0.0, -0.0, 1.0, -1.5, float("nan"), float("inf"), float("-inf"), 5e-324,
             1.7976931348623157e308, -2.2250738585072014e-308, 0.1, 1e21, 123456789.125]
F32_EDGES = [0.0, -0.0, 1.0, -1.5, float("nan"), float("inf"), float("-inf"), 1.401298464324817e-45,
             3.4028234663852886e38, 0.1, 16777217.0]
F16_EDGES = [0.0, -0.0, 1.0, -2.5, float("nan"), float("inf"), float("-inf"), 65504.0,
             5.960464477539063e-08, 0.1]


STRING_EDGES = ["", "a", "ünïcödé", "日本語テキスト", "😀 emoji", "quote \" backslash \\ slash /",
                "tab\tnewline\ncr\r", "nul\x00inside", "\x01\x1f\x7f controls", "x" * 1000,
                " leading and trailing ", "PAR1"[:3] + "2"]
BINARY_EDGES = [b"", b"\x00", b"\xff\xfe\xfd", bytes(range(256)), b"plain ascii"]


DATE_EDGES = [0, -1, -719162, 2932896, 17486, 11016, -25567]  # 1970, 1969, 0001-01-01, 9999-12-31
# us since the epoch: 0001-01-01T00:00:00, 9999-12-31T23:59:59.999999, just before the epoch.
TS_US_EDGES = [0, -1, -62135596800_000000, 253402300799_999999, 1510871468_123456, 1]
TS_NS_EDGES = [0, -1, -2**63 + 1, 2**63 - 1, 1510871468_123456789, 999]


def _rand_string(rng: random.Random, pool: list[str]) -> str:
    r = rng.random()
    if r < 0.5:
        return rng.choice(pool)
    n = rng.randint(0, 40)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzÄÖÜß0123456789 -_") for _ in range(n))


def _rand_decimal(rng, precision, scale):
    limit = 10**precision - 1
    small = min(limit, 1000)
    u = rng.randint(-limit, limit) if rng.random() < 0.5 else rng.randint(-small, small)
    return _scaled(u, scale)


def _decimal_edges(precision, scale):
    m = 10**precision - 1
    return [_scaled(m, scale), _scaled(-m, scale), _scaled(0, scale), _scaled(-1, scale),
            _scaled(1, scale)]


def all_types_table(n: int = 1000, seed: int = 1) -> pa.Table:
    """One column per flat type pyarrow writes, edge values first, ~10% nulls."""
    rng = random.Random(seed)
    ids = _Ids()
    fields, arrays = [], []

    def add(name, type_, values, nullable=True):
        fields.append(_f(ids, name, type_, nullable))
        arrays.append(pa.array(values, type_))

    add("bool", pa.bool_(), _with_nulls(rng, [rng.random() < 0.5 for _ in range(n)]))
    for name, (lo, hi) in INT_RANGES.items():
        t = getattr(pa, name)()
        vals = _edge_then_random(rng, n, [lo, hi, 0, 1, lo + 1, hi - 1],
                                 lambda: rng.randint(lo, hi) if rng.random() < 0.5
                                 else rng.randint(max(lo, -100), min(hi, 100)))
        add(name, t, _with_nulls(rng, vals))
    add("req_int64", pa.int64(), [rng.randint(-10**12, 10**12) for _ in range(n)], nullable=False)
    add("float32", pa.float32(), _with_nulls(rng, _edge_then_random(
        rng, n, F32_EDGES, lambda: rng.uniform(-1e6, 1e6))))
    add("float64", pa.float64(), _with_nulls(rng, _edge_then_random(
        rng, n, F64_EDGES, lambda: rng.uniform(-1e12, 1e12))))
    add("float16", pa.float16(), _with_nulls(rng, _edge_then_random(
        rng, n, F16_EDGES, lambda: float(round(rng.uniform(-1000, 1000), 1)))))
    for p, s in ((4, 0), (9, 2), (18, 6), (25, 3), (38, 10)):
        add(f"dec_{p}_{s}", pa.decimal128(p, s), _with_nulls(rng, _edge_then_random(
            rng, n, _decimal_edges(p, s), lambda p=p, s=s: _rand_decimal(rng, p, s))))
    add("date", pa.date32(), _with_nulls(rng, [
        _EPOCH_DATE + dt.timedelta(days=d) for d in
        _edge_then_random(rng, n, DATE_EDGES, lambda: rng.randint(-719162, 2932896))]))
    add("time_ms", pa.time32("ms"), _with_nulls(rng, _edge_then_random(
        rng, n, [0, 86399999, 1], lambda: rng.randint(0, 86399999))))
    add("time_us", pa.time64("us"), _with_nulls(rng, _edge_then_random(
        rng, n, [0, 86399999999, 1], lambda: rng.randint(0, 86399999999))))
    add("time_ns", pa.time64("ns"), _with_nulls(rng, _edge_then_random(
        rng, n, [0, 86399999999999, 1], lambda: rng.randint(0, 86399999999999))))
    us_gen = lambda: rng.randint(-62135596800_000000, 253402300799_999999)  # noqa: E731
    ns_gen = lambda: rng.randint(-2**63 + 1, 2**63 - 1)  # noqa: E731
    for unit, edges, gen in (("ms", [v // 1000 for v in TS_US_EDGES],
                              lambda: us_gen() // 1000),
                             ("us", TS_US_EDGES, us_gen), ("ns", TS_NS_EDGES, ns_gen)):
        for tz in (None, "UTC"):
            name = f"ts_{unit}" + ("_utc" if tz else "")
            add(name, pa.timestamp(unit, tz), _with_nulls(rng, _edge_then_random(rng, n, edges, gen)))
    pool = [f"value-{i}" for i in range(50)]
    add("string", pa.string(), _with_nulls(rng, _edge_then_random(
        rng, n, STRING_EDGES, lambda: _rand_string(rng, pool))))
    add("req_string", pa.string(), [rng.choice(pool) for _ in range(n)], nullable=False)
    add("large_string", pa.large_string(), _with_nulls(rng, [_rand_string(rng, pool) for _ in range(n)]))
    add("binary", pa.binary(), _with_nulls(rng, _edge_then_random(
        rng, n, BINARY_EDGES, lambda: rng.randbytes(rng.randint(0, 30)))))
    add("large_binary", pa.large_binary(), _with_nulls(rng, [rng.randbytes(rng.randint(0, 10)) for _ in range(n)]))
    add("fixed16", pa.binary(16), _with_nulls(rng, _edge_then_random(
        rng, n, [b"\x00" * 16, b"\xff" * 16], lambda: rng.randbytes(16))))
    add("fixed3", pa.binary(3), _with_nulls(rng, [rng.randbytes(3) for _ in range(n)]))
    add("fixed1", pa.binary(1), _with_nulls(rng, [rng.randbytes(1) for _ in range(n)]))
    uuids = _with_nulls(rng, _edge_then_random(
        rng, n, [b"\x00" * 16, b"\xff" * 16, uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7").bytes],
        lambda: rng.randbytes(16)))
    fields.append(_f(ids, "uuid", pa.uuid()))
    arrays.append(pa.ExtensionArray.from_storage(pa.uuid(), pa.array(uuids, pa.binary(16))))
    dict_vals = _with_nulls(rng, [rng.choice(pool[:7]) for _ in range(n)])
    fields.append(_f(ids, "dict_string", pa.dictionary(pa.int32(), pa.string())))
    arrays.append(pa.array(dict_vals, pa.string()).dictionary_encode())
    add("all_null_int32", pa.int32(), [None] * n)
    add("all_null_string", pa.string(), [None] * n)
    add("low_card_int64", pa.int64(), _with_nulls(rng, [rng.choice([7, -3, 10**15]) for _ in range(n)]))
    schema = pa.schema(fields, metadata={"floe.test": "all_types", "empty.value": "",
                                         "unicode.kéy": "välue ✓"})
    return pa.Table.from_arrays(arrays, schema=schema)


def decimal_int_table(n: int = 1500, seed: int = 2) -> pa.Table:
    """Decimals for store_decimal_as_integer=True: precision 1..9 -> INT32, 10..18 -> INT64,
    above -> FIXED_LEN_BYTE_ARRAY."""
    rng = random.Random(seed)
    ids = _Ids()
    fields, arrays = [], []
    for p, s in ((1, 0), (5, 2), (9, 9), (9, 0), (10, 2), (18, 4), (18, 0), (19, 2), (38, 0)):
        fields.append(_f(ids, f"dec_{p}_{s}", pa.decimal128(p, s)))
        arrays.append(pa.array(_with_nulls(rng, _edge_then_random(
            rng, n, _decimal_edges(p, s), lambda p=p, s=s: _rand_decimal(rng, p, s))),
            pa.decimal128(p, s)))
    fields.append(_f(ids, "req_dec_7_3", pa.decimal128(7, 3), nullable=False))
    arrays.append(pa.array([_rand_decimal(rng, 7, 3) for _ in range(n)], pa.decimal128(7, 3)))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _rand_list(rng, gen, max_len=5, null_rate=0.1, empty_rate=0.15):
    r = rng.random()
    if r < null_rate:
        return None
    if r < null_rate + empty_rate:
        return []
    return [gen() for _ in range(rng.randint(1, max_len))]


def nested_table(n: int = 800, seed: int = 3) -> pa.Table:
    """Structs, lists and maps nested in each other, with nulls at every level, empty lists
    and maps, and required fields inside optional parents."""
    rng = random.Random(seed)
    ids = _Ids()
    nul = lambda v, rate=0.1: None if rng.random() < rate else v  # noqa: E731
    words = ["alpha", "beta", "gamma", "", "δέλτα", "epsilon"]

    # s: struct<a: int32, b: string not null, c: struct<d: list<int64>, e: bool>>
    d_list = _list(ids, pa.int64())
    c_type = pa.struct([_f(ids, "d", d_list), _f(ids, "e", pa.bool_())])
    s_type = pa.struct([_f(ids, "a", pa.int32()), _f(ids, "b", pa.string(), nullable=False),
                        _f(ids, "c", c_type)])
    s_field = _f(ids, "s", s_type)

    def s_val():
        return nul({"a": nul(rng.randint(-2**31, 2**31 - 1)), "b": rng.choice(words),
                    "c": nul({"d": _rand_list(rng, lambda: nul(rng.randint(-2**63, 2**63 - 1))),
                              "e": nul(rng.random() < 0.5)})}, 0.15)

    l_i32 = _f(ids, "l_int32", _list(ids, pa.int32()))
    l_req = _f(ids, "l_required", _list(ids, pa.int64(), nullable=False), nullable=False)
    inner = _list(ids, pa.string())
    ll = _f(ids, "l_of_l", _list(ids, inner))
    ls_item = pa.struct([_f(ids, "x", pa.float64()), _f(ids, "y", _list(ids, pa.string())),
                         _f(ids, "z", pa.decimal128(9, 2))])
    ls = _f(ids, "l_of_struct", _list(ids, ls_item))
    m_si = _f(ids, "m_string_int64", _map(ids, pa.string(), pa.int64()))
    mv = pa.struct([_f(ids, "p", pa.string()), _f(ids, "q", _list(ids, pa.date32()))])
    m_is = _f(ids, "m_int32_struct", _map(ids, pa.int32(), mv))
    inner_map = _map(ids, pa.string(), pa.string())
    m_deep = _f(ids, "m_string_list_map", _map(ids, pa.string(), _list(ids, inner_map)))
    m_bin = _f(ids, "m_binary_uuid", _map(ids, pa.binary(), pa.binary(16)))
    lll = _f(ids, "l_l_l", _list(ids, _list(ids, _list(ids, pa.int32()))))
    large_l = _f(ids, "large_l", _list(ids, pa.string(), large=True))
    fsl = _f(ids, "fixed_size_l", pa.list_(pa.field("element", pa.int16(), metadata=ids()), 3))
    s_req = _f(ids, "s_required", pa.struct([_f(ids, "r1", pa.int32(), nullable=False),
                                            _f(ids, "r2", _list(ids, pa.int32(), nullable=False))]),
               nullable=False)
    s_nulls = _f(ids, "s_all_null", pa.struct([_f(ids, "n1", pa.int32()), _f(ids, "n2", pa.string())]))

    def keys(gen, k):
        return list(dict.fromkeys(gen() for _ in range(k)))

    rows = {
        "s": [s_val() for _ in range(n)],
        "l_int32": [_rand_list(rng, lambda: nul(rng.randint(-2**31, 2**31 - 1))) for _ in range(n)],
        "l_required": [[rng.randint(-5, 5) for _ in range(rng.randint(0, 4))] for _ in range(n)],
        "l_of_l": [_rand_list(rng, lambda: _rand_list(rng, lambda: nul(rng.choice(words)))) for _ in range(n)],
        "l_of_struct": [_rand_list(rng, lambda: nul({
            "x": nul(rng.choice([1.5, float("nan"), -0.0, rng.uniform(-1, 1)])),
            "y": _rand_list(rng, lambda: nul(rng.choice(words))),
            "z": nul(_rand_decimal(rng, 9, 2))})) for _ in range(n)],
        "m_string_int64": [nul([(k, nul(rng.randint(-10**9, 10**9)))
                                for k in keys(lambda: rng.choice(words + ["k1", "k2"]), rng.randint(0, 4))])
                           for _ in range(n)],
        "m_int32_struct": [nul([(k, nul({"p": nul(rng.choice(words)),
                                         "q": _rand_list(rng, lambda: nul(_EPOCH_DATE + dt.timedelta(
                                             days=rng.randint(-10000, 30000))))}))
                                for k in keys(lambda: rng.randint(-2**31, 2**31 - 1), rng.randint(0, 3))])
                           for _ in range(n)],
        "m_string_list_map": [nul([(k, _rand_list(rng, lambda: nul([(kk, nul(rng.choice(words)))
                                                                   for kk in keys(lambda: rng.choice(words), 2)]),
                                                  max_len=3))
                                   for k in keys(lambda: rng.choice(words), rng.randint(0, 3))])
                              for _ in range(n)],
        "m_binary_uuid": [nul([(k, nul(rng.randbytes(16))) for k in keys(lambda: rng.randbytes(rng.randint(0, 4)), 2)])
                          for _ in range(n)],
        "l_l_l": [_rand_list(rng, lambda: _rand_list(rng, lambda: _rand_list(rng, lambda: nul(rng.randint(0, 99)), 3), 3), 3)
                  for _ in range(n)],
        "large_l": [_rand_list(rng, lambda: nul(rng.choice(words))) for _ in range(n)],
        "fixed_size_l": [nul([nul(rng.randint(-2**15, 2**15 - 1)) for _ in range(3)]) for _ in range(n)],
        "s_required": [{"r1": rng.randint(0, 9), "r2": _rand_list(rng, lambda: rng.randint(0, 9))} for _ in range(n)],
        "s_all_null": [None if i % 3 else {"n1": None, "n2": None} for i in range(n)],
    }
    fields = [s_field, l_i32, l_req, ll, ls, m_si, m_is, m_deep, m_bin, lll, large_l, fsl, s_req, s_nulls]
    schema = pa.schema(fields, metadata={"floe.test": "nested"})
    return pa.Table.from_pydict(rows, schema=schema)


def huge_strings_table(seed: int = 4) -> pa.Table:
    """Empty and 5 MB values in string and binary columns."""
    rng = random.Random(seed)
    big = "".join(rng.choice("abcdefghij") for _ in range(1000)) * 5243
    big2 = "ü" * (5 * 1024 * 1024 // 2)
    ids = _Ids()
    schema = pa.schema([_f(ids, "id", pa.int32(), nullable=False), _f(ids, "s", pa.string()),
                        _f(ids, "b", pa.binary())])
    return pa.Table.from_pydict({
        "id": list(range(7)),
        "s": ["", big, None, "small", big2, "", big[:4097]],
        "b": [b"", big.encode()[:5 * 1024 * 1024], None, b"\x00", b"", bytes(4097), b"x"],
    }, schema=schema)


def delta_table(n: int = 3000, seed: int = 5) -> pa.Table:
    """Columns shaped for the DELTA_* encodings: sorted runs, full-range jumps (wrapping
    deltas), constants, shared string prefixes; longer than one 128-value block."""
    rng = random.Random(seed)
    ids = _Ids()
    cols, fields = {}, []

    def add(name, t, vals, nullable=True):
        fields.append(_f(ids, name, t, nullable))
        cols[name] = vals

    add("i32_sorted", pa.int32(), _with_nulls(rng, sorted(rng.randint(-10**6, 10**6) for _ in range(n))))
    add("i32_wide", pa.int32(), [rng.choice([-2**31, 2**31 - 1, 0, rng.randint(-2**31, 2**31 - 1)]) for _ in range(n)],
        nullable=False)
    add("i64_wide", pa.int64(), _with_nulls(rng, [rng.choice([-2**63, 2**63 - 1, rng.randint(-2**63, 2**63 - 1)])
                                                  for _ in range(n)]))
    add("i64_const", pa.int64(), [42] * n, nullable=False)
    add("i8", pa.int8(), _with_nulls(rng, [rng.randint(-128, 127) for _ in range(n)]))
    add("u16", pa.uint16(), _with_nulls(rng, [rng.randint(0, 65535) for _ in range(n)]))
    add("u32", pa.uint32(), _with_nulls(rng, [rng.choice([0, 2**32 - 1, rng.randint(0, 2**32 - 1)]) for _ in range(n)]))
    add("u64", pa.uint64(), _with_nulls(rng, [rng.choice([0, 2**64 - 1, rng.randint(0, 2**64 - 1)]) for _ in range(n)]))
    add("date", pa.date32(), _with_nulls(rng, [_EPOCH_DATE + dt.timedelta(days=17000 + i // 7) for i in range(n)]))
    add("ts_us", pa.timestamp("us", "UTC"), _with_nulls(rng, [1_500_000_000_000_000 + i * 1_000_003 for i in range(n)]))
    add("time_us", pa.time64("us"), _with_nulls(rng, [rng.randint(0, 86399999999) for _ in range(n)]))
    prefixes = ["customer/", "customer/orders/", "product/", "zz"]
    add("str_prefixed", pa.string(), _with_nulls(rng, sorted(
        rng.choice(prefixes) + str(rng.randint(0, 10**6)) for _ in range(n))))
    add("str_random", pa.string(), _with_nulls(rng, [_rand_string(rng, STRING_EDGES) for _ in range(n)]))
    add("bin", pa.binary(), _with_nulls(rng, [rng.randbytes(rng.randint(0, 20)) for _ in range(n)]))
    return pa.Table.from_pydict(cols, schema=pa.schema(fields, metadata={"floe.test": "delta"}))


def flba_table(n: int = 2000, seed: int = 6) -> pa.Table:
    """FIXED_LEN_BYTE_ARRAY and floating columns for DELTA_BYTE_ARRAY / BYTE_STREAM_SPLIT."""
    rng = random.Random(seed)
    ids = _Ids()
    fields, arrays = [], []

    def add(name, t, vals, nullable=True):
        fields.append(_f(ids, name, t, nullable))
        arrays.append(pa.array(vals, t))

    add("f32", pa.float32(), _with_nulls(rng, _edge_then_random(rng, n, F32_EDGES, lambda: rng.uniform(-1e3, 1e3))))
    add("f64", pa.float64(), _with_nulls(rng, _edge_then_random(rng, n, F64_EDGES, lambda: rng.gauss(0, 1e6))))
    add("f16", pa.float16(), _with_nulls(rng, _edge_then_random(rng, n, F16_EDGES, lambda: float(rng.randint(-500, 500)))))
    add("fixed4", pa.binary(4), _with_nulls(rng, [rng.randbytes(4) for _ in range(n)]))
    add("fixed16_prefixed", pa.binary(16), _with_nulls(rng, [b"\x01\x02\x03\x04\x05\x06" + rng.randbytes(10) for _ in range(n)]))
    add("dec_30_5", pa.decimal128(30, 5), _with_nulls(rng, [_rand_decimal(rng, 30, 5) for _ in range(n)]))
    add("req_f64", pa.float64(), [rng.uniform(-1, 1) for _ in range(n)], nullable=False)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def int_bss_table(n: int = 2000, seed: int = 7) -> pa.Table:
    """INT32 / INT64 columns for BYTE_STREAM_SPLIT (parquet-format 2.11)."""
    rng = random.Random(seed)
    ids = _Ids()
    return pa.Table.from_pydict({
        "i32": _with_nulls(rng, [rng.randint(-2**31, 2**31 - 1) for _ in range(n)]),
        "i64": _with_nulls(rng, [rng.randint(-2**63, 2**63 - 1) for _ in range(n)]),
        "dec_int": _with_nulls(rng, [_rand_decimal(rng, 9, 3) for _ in range(n)]),
        "date": _with_nulls(rng, [_EPOCH_DATE + dt.timedelta(days=rng.randint(-9999, 99999)) for _ in range(n)]),
    }, schema=pa.schema([_f(ids, "i32", pa.int32()), _f(ids, "i64", pa.int64()),
                         _f(ids, "dec_int", pa.decimal128(9, 3)), _f(ids, "date", pa.date32())]))


def bool_table(n: int = 3000, seed: int = 8) -> pa.Table:
    rng = random.Random(seed)
    ids = _Ids()
    return pa.Table.from_pydict({
        "b_random": _with_nulls(rng, [rng.random() < 0.5 for _ in range(n)]),
        "b_runs": [(i // 300) % 2 == 0 for i in range(n)],
        "b_sparse_nulls": [None if i % 97 == 0 else i % 3 == 0 for i in range(n)],
    }, schema=pa.schema([_f(ids, "b_random", pa.bool_()), _f(ids, "b_runs", pa.bool_(), nullable=False),
                         _f(ids, "b_sparse_nulls", pa.bool_())]))


def high_card_table(n: int = 10000, seed: int = 9) -> pa.Table:
    """High-cardinality values that overflow a small dictionary page (fallback to PLAIN
    inside a column chunk)."""
    rng = random.Random(seed)
    ids = _Ids()
    return pa.Table.from_pydict({
        "s": _with_nulls(rng, [f"key-{rng.randint(0, 10**9)}" for _ in range(n)]),
        "i64": _with_nulls(rng, [rng.randint(-2**40, 2**40) for _ in range(n)]),
        "f64": _with_nulls(rng, [rng.random() for _ in range(n)]),
        "fixed8": _with_nulls(rng, [rng.randbytes(8) for _ in range(n)]),
    }, schema=pa.schema([_f(ids, "s", pa.string()), _f(ids, "i64", pa.int64()),
                         _f(ids, "f64", pa.float64()), _f(ids, "fixed8", pa.binary(8))]))


def extras_table(n: int = 200, seed: int = 10) -> pa.Table:
    """Types outside Iceberg that pyarrow writes: null type, date64, timestamp[s]."""
    rng = random.Random(seed)
    ids = _Ids()
    return pa.Table.from_pydict({
        "null_col": [None] * n,
        "date64": _with_nulls(rng, [dt.date(2000, 1, 1) + dt.timedelta(days=rng.randint(-5000, 5000)) for _ in range(n)]),
        "ts_s": _with_nulls(rng, [rng.randint(-10**10, 10**10) for _ in range(n)]),
        "ts_s_utc": _with_nulls(rng, [rng.randint(-10**10, 10**10) for _ in range(n)]),
    }, schema=pa.schema([_f(ids, "null_col", pa.null()), _f(ids, "date64", pa.date64()),
                         _f(ids, "ts_s", pa.timestamp("s")), _f(ids, "ts_s_utc", pa.timestamp("s", "UTC"))]))


# ---------------------------------------------------------------------------------------------
# The matrix of input files.

@dataclass
class Case:
    name: str
    table: callable              # () -> pa.Table
    write: dict = field(default_factory=dict)   # pq.write_table keyword arguments
    build: callable = None       # (path, table) -> None, replaces pq.write_table
    full_options: bool = False   # rewrite with every option set, not just the basic ones
    bloom_columns: tuple = ()    # columns used for --bloom-filter in the rewrite options


CODECS = ("none", "snappy", "gzip", "zstd", "lz4")


def _write_zero_row_groups(path: Path, table: pa.Table) -> None:
    pq.ParquetWriter(path, table.schema).close()


def _write_byte_array_decimals(path: Path, table: pa.Table) -> None:
    """BYTE_ARRAY decimals, which pyarrow never writes: write the unscaled big-endian two's
    complement values as a plain binary column, then annotate that column as DECIMAL in the
    footer (logical and converted type, scale, precision). Binary statistics are dropped
    (their unsigned order is wrong for decimals) and no ARROW:schema is stored, so pyarrow
    reads the result purely from the Parquet schema."""
    cols = {}
    for name in table.column_names:
        t = table.schema.field(name).type
        if pa.types.is_decimal(t):
            cols[name] = pa.array([None if v is None else _unscaled_bytes(v, t.scale)
                                   for v in table.column(name).to_pylist()], pa.binary())
        else:
            cols[name] = table.column(name)
    plain = pa.table(cols, schema=pa.schema([
        pa.field(f.name, pa.binary() if pa.types.is_decimal(f.type) else f.type, f.nullable, f.metadata)
        for f in table.schema]))
    tmp = path.with_suffix(".plain")
    pq.write_table(plain, tmp, store_schema=False, compression="snappy", data_page_size=2048)
    data = tmp.read_bytes()
    tmp.unlink()
    meta, _, _ = pf.read_footer(data)
    elements = meta.get(pf.FMD.SCHEMA).items
    decimal_names = {f.name.encode(): f.type for f in table.schema if pa.types.is_decimal(f.type)}
    for se in elements:
        t = decimal_names.get(se.get(pf.SE.NAME))
        if t is None or se.get(pf.SE.TYPE) is None:
            continue
        se.set(pf.SE.CONVERTED, pf.T_I32, 5)  # DECIMAL
        se.set(pf.SE.SCALE, pf.T_I32, t.scale)
        se.set(pf.SE.PRECISION, pf.T_I32, t.precision)
        se.set(pf.SE.LOGICAL, pf.T_STRUCT, pf.Struct([(5, pf.T_STRUCT, pf.Struct(
            [(1, pf.T_I32, t.scale), (2, pf.T_I32, t.precision)]))]))
    for rg in meta.get(pf.FMD.ROW_GROUPS).items:
        for cc in rg.get(pf.RG.COLUMNS).items:
            cmd = cc.get(pf.CC.META)
            if cmd.get(pf.CMD.PATH).items[-1] in decimal_names:
                cmd.drop(pf.CMD.STATISTICS)
    pf.set_kv_metadata(meta, [(b"floe.test", b"byte_array_decimal")])
    path.write_bytes(pf.replace_footer(data, meta))


def _unscaled_bytes(v: decimal.Decimal, scale: int) -> bytes:
    sign, digits, exponent = v.as_tuple()
    u = int("".join(map(str, digits)) or "0") * 10 ** (exponent + scale)
    u = -u if sign else u
    n = max(1, (u.bit_length() + 8) // 8)
    return u.to_bytes(n, "big", signed=True)


def byte_array_decimal_table(n: int = 800, seed: int = 11) -> pa.Table:
    rng = random.Random(seed)
    ids = _Ids()
    return pa.Table.from_pydict({
        "id": list(range(n)),
        "dec_9_2": _with_nulls(rng, _edge_then_random(rng, n, _decimal_edges(9, 2), lambda: _rand_decimal(rng, 9, 2))),
        "dec_38_6": _with_nulls(rng, _edge_then_random(rng, n, _decimal_edges(38, 6), lambda: _rand_decimal(rng, 38, 6))),
        "dec_20_0": _with_nulls(rng, _edge_then_random(rng, n, _decimal_edges(20, 0), lambda: _rand_decimal(rng, 20, 0))),
    }, schema=pa.schema([_f(ids, "id", pa.int32(), nullable=False), _f(ids, "dec_9_2", pa.decimal128(9, 2)),
                         _f(ids, "dec_38_6", pa.decimal128(38, 6)), _f(ids, "dec_20_0", pa.decimal128(20, 0))]))


def _write_hadoop_lz4(page_version: str):
    """parquet-mr's LZ4 codec (5): each page body is one Hadoop Lz4Codec block. pyarrow
    cannot write it, so write uncompressed and recompress every page (v2: values only)."""
    def build(path: Path, table: pa.Table) -> None:
        tmp = path.with_suffix(".plain")
        pq.write_table(table, tmp, compression="none", data_page_version=page_version,
                       data_page_size=4096)
        data = tmp.read_bytes()
        tmp.unlink()
        codec = pa.Codec("lz4_raw")

        def transform(header, body):
            n = pf.data_page_levels_len(header)
            levels, values = body[:n], body[n:]
            v2 = header.get(pf.PH.DATA_V2)
            if v2 is not None:
                v2.set(pf.DPH2.IS_COMPRESSED, pf.T_TRUE, True)
            header.drop(pf.PH.CRC)
            return header, levels + pf.hadoop_lz4_frame(codec.compress(values, asbytes=True), len(values))

        path.write_bytes(pf.relayout(data, transform, codec=pf.CODEC_LZ4))
    return build


def _write_kv_without_value(path: Path, table: pa.Table) -> None:
    """KeyValue.value is optional in parquet.thrift; pyarrow never omits it."""
    pq.write_table(table, path)
    data = path.read_bytes()
    meta, _, _ = pf.read_footer(data)
    pairs = pf.kv_metadata(meta) + [(b"key.without.value", None), (b"big.value", b"v" * 100000)]
    pf.set_kv_metadata(meta, pairs)
    path.write_bytes(pf.replace_footer(data, meta))


def cases() -> list[Case]:
    at = all_types_table
    out = [
        Case("all_types", at, {}, full_options=True, bloom_columns=("int64", "string")),
        Case("all_types_dict_off_v2", at, dict(use_dictionary=False, data_page_version="2.0")),
        # Format version 1.0: PLAIN_DICTIONARY pages, no logical-only annotations.
        Case("all_types_format_1_0", at, dict(version="1.0", coerce_timestamps="us",
                                              allow_truncated_timestamps=True)),
        Case("all_types_many_pages", at, dict(data_page_size=256, write_batch_size=64)),
        Case("all_types_many_pages_v2", at, dict(data_page_size=256, write_batch_size=64,
                                                 data_page_version="2.0", compression="zstd")),
        Case("all_types_row_groups", at, dict(row_group_size=150, write_page_index=True)),
        Case("all_types_checksums", at, dict(write_page_checksum=True, row_group_size=400,
                                             data_page_size=4096)),
        Case("all_types_checksums_v2", at, dict(write_page_checksum=True, data_page_version="2.0",
                                                compression="gzip", data_page_size=4096)),
        Case("all_types_max_rows_per_page", at, dict(max_rows_per_page=100)),
        Case("all_types_bloom", at, dict(bloom_filter_options={
            "int64": True, "string": {"ndv": 3000, "fpp": 0.01}, "fixed16": True, "date": True})),
        Case("all_types_compliant_off", at, dict(use_compliant_nested_type=False)),
        Case("decimal_int", decimal_int_table, dict(store_decimal_as_integer=True), full_options=True,
             bloom_columns=("dec_5_2", "dec_18_4")),
        Case("decimal_int_v2_delta", decimal_int_table, dict(
            store_decimal_as_integer=True, use_dictionary=False, data_page_version="2.0",
            column_encoding={f"dec_{p}_{s}": "DELTA_BINARY_PACKED" for p, s in
                             ((1, 0), (5, 2), (9, 9), (9, 0), (10, 2), (18, 4), (18, 0))})),
        Case("decimal_byte_array", byte_array_decimal_table, build=_write_byte_array_decimals),
        Case("nested", nested_table, {}, full_options=True),
        Case("nested_v2_small_pages", nested_table, dict(data_page_version="2.0", data_page_size=512,
                                                         compression="zstd", row_group_size=300)),
        Case("nested_dict_off_checksums", nested_table, dict(use_dictionary=False, write_page_checksum=True,
                                                             compression="gzip")),
        Case("nested_noncompliant", nested_table, dict(use_compliant_nested_type=False)),
        Case("huge_strings", huge_strings_table, {}),
        Case("huge_strings_v2_plain", huge_strings_table, dict(use_dictionary=False, data_page_version="2.0",
                                                               compression="zstd")),
        Case("empty_table", lambda: all_types_table(0), {}),
        Case("empty_nested", lambda: nested_table(0), dict(data_page_version="2.0")),
        Case("zero_row_groups", lambda: all_types_table(0), build=_write_zero_row_groups),
        Case("single_row", lambda: all_types_table(1), {}),
        Case("kv_without_value", lambda: all_types_table(50), build=_write_kv_without_value),
        Case("dict_fallback", high_card_table, dict(dictionary_pagesize_limit=2048, data_page_size=8192)),
        Case("dict_fallback_v2", high_card_table, dict(dictionary_pagesize_limit=2048, data_page_size=8192,
                                                       data_page_version="2.0")),
        Case("extras", extras_table, {}),
        Case("hadoop_lz4_v1", lambda: all_types_table(1500, seed=21), build=_write_hadoop_lz4("1.0")),
        Case("hadoop_lz4_v2", lambda: nested_table(800, seed=22), build=_write_hadoop_lz4("2.0")),
    ]
    for enc, table, extra in (
            ("PLAIN", all_types_table, {}),
            ("DELTA_BINARY_PACKED", delta_table, {}),
            ("DELTA_LENGTH_BYTE_ARRAY", delta_table, {}),
            ("DELTA_BYTE_ARRAY", delta_table, {}),
            ("DELTA_BYTE_ARRAY", flba_table, {}),
            ("BYTE_STREAM_SPLIT", flba_table, {}),
            ("BYTE_STREAM_SPLIT", int_bss_table, dict(store_decimal_as_integer=True)),
            ("RLE", bool_table, {})):
        for pv in ("1.0", "2.0"):
            t = table()
            encodable = _encodable(t, enc, extra)
            out.append(Case(f"enc_{enc.lower()}_{table.__name__.removesuffix('_table')}_v{pv[0]}",
                            table, dict(use_dictionary=False, data_page_version=pv,
                                        column_encoding={n: enc for n in encodable},
                                        data_page_size=2048, **extra)))
    for codec in CODECS:
        for pv in ("1.0", "2.0"):
            out.append(Case(f"codec_{codec}_v{pv[0]}", lambda: all_types_table(1200, seed=30),
                            dict(compression=codec, data_page_version=pv, data_page_size=8192)))
    out.append(Case("codec_zstd_level_19", lambda: nested_table(600, seed=31),
                    dict(compression="zstd", compression_level=19)))
    out.append(Case("codec_gzip_level_9", lambda: nested_table(600, seed=32),
                    dict(compression="gzip", compression_level=9, data_page_version="2.0")))
    return out


# Which physical/logical columns each encoding applies to (pyarrow rejects the rest).
def _encodable(table: pa.Table, enc: str, extra: dict) -> list[str]:
    as_int = extra.get("store_decimal_as_integer", False)
    names = []
    for f in table.schema:
        t = f.type
        is_int = (pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_time(t)
                  or pa.types.is_timestamp(t) or (as_int and pa.types.is_decimal(t) and t.precision <= 18))
        is_ba = pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t)
        is_flba = (pa.types.is_fixed_size_binary(t) or pa.types.is_float16(t)
                   or (pa.types.is_decimal(t) and not (as_int and t.precision <= 18)))
        is_float = pa.types.is_float32(t) or pa.types.is_float64(t)
        ok = {
            "PLAIN": True,
            "DELTA_BINARY_PACKED": is_int,
            "DELTA_LENGTH_BYTE_ARRAY": is_ba,
            "DELTA_BYTE_ARRAY": is_ba or is_flba,
            "BYTE_STREAM_SPLIT": is_int or is_flba or is_float,
            "RLE": pa.types.is_boolean(t),
        }[enc]
        if ok and not isinstance(t, (pa.BaseExtensionType, pa.DictionaryType)):
            names.append(f.name)
    return names


# Inputs that are also rewritten with small row groups and pages (besides the full_options ones).
SMALL_GROUP_CASES = {"all_types_dict_off_v2", "nested_v2_small_pages", "huge_strings", "dict_fallback",
                     "empty_table", "zero_row_groups", "decimal_byte_array", "hadoop_lz4_v1", "extras",
                     "enc_delta_byte_array_delta_v2", "enc_byte_stream_split_flba_v2", "codec_gzip_v2"}


def write_case(case: Case, path: Path) -> pa.Table:
    table = case.table()
    if case.build is not None:
        case.build(path, table)
    else:
        pq.write_table(table, path, **case.write)
    return table

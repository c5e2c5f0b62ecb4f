"""Expected `floe parquet cat` output, derived from a peer's values.

`expected_rows(table)` turns a pyarrow Table (as read by pyarrow or exported by DuckDB) into
one expected value per row, in the text forms of the `floe parquet cat` contract:
  ints -> JSON numbers; floats -> numbers, or "NaN" / "Infinity" / "-Infinity";
  bool; strings as strings; binary and fixed as lowercase hex; decimals as strings with the
  scale's digits ("-14.20"); date "2017-11-16"; time "22:31:08.123456"; timestamps
  "2017-11-16T22:31:08.123456" plus "+00:00" when UTC-adjusted (fraction digits by unit:
  ms 3, us 6, ns 9); uuid in 8-4-4-4-12 form; structs as objects; lists as arrays; maps as
  objects when keys are strings, else [[k, v], ...].

The conversion works from raw integers (days, ticks, unscaled decimals) with Python's own
datetime arithmetic, independent of floe's formatting code.

`parse_line` reads one JSON line keeping number text and object key order, and
`first_difference(expected, actual)` compares one row, returning a readable description of
the first mismatch or None.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
import uuid as uuidlib

import pyarrow as pa
import pyarrow.compute as pc

_EPOCH = dt.date(1970, 1, 1)
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1000_000, "ns": 1000_000_000}
_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


class Float:
    """An expected floating-point value of a given width (16, 32 or 64 bits)."""
    __slots__ = ("value", "bits")

    def __init__(self, value: float, bits: int):
        self.value = value
        self.bits = bits

    def __repr__(self):
        return f"Float{self.bits}({self.value!r})"


class Int:
    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value

    def __repr__(self):
        return f"Int({self.value})"


class Obj(list):
    """A JSON object as an ordered list of (key, value) pairs."""


class Num(str):
    """A JSON number, kept as its text."""


def _fmt_date(days: int) -> str:
    return (_EPOCH + dt.timedelta(days=days)).isoformat()


def _fmt_clock(seconds_of_day: int, frac: int, unit: str) -> str:
    h, rem = divmod(seconds_of_day, 3600)
    m, s = divmod(rem, 60)
    out = f"{h:02d}:{m:02d}:{s:02d}"
    if _DIGITS[unit]:
        out += f".{frac:0{_DIGITS[unit]}d}"
    return out


def fmt_time(ticks: int, unit: str) -> str:
    secs, frac = divmod(ticks, _PER_SECOND[unit])
    return _fmt_clock(secs % 86400, frac, unit)


def fmt_timestamp(ticks: int, unit: str, utc: bool) -> str:
    secs, frac = divmod(ticks, _PER_SECOND[unit])  # floor division: frac >= 0
    days, sod = divmod(secs, 86400)
    out = f"{_fmt_date(days)}T{_fmt_clock(sod, frac, unit)}"
    return out + "+00:00" if utc else out


def fmt_decimal_unscaled(unscaled: int, scale: int) -> str:
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled))
    if scale <= 0:
        return sign + digits + "0" * (-scale)
    digits = digits.rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def _decimal_unscaled(d, scale: int) -> int:
    sign, digits, exponent = d.as_tuple()
    n = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    n = n * 10 ** shift if shift >= 0 else n // 10 ** (-shift)
    return -n if sign else n


def _is_string(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _is_binary(t: pa.DataType) -> bool:
    return (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
            or pa.types.is_fixed_size_binary(t))


def _valid(arr: pa.Array) -> list[bool]:
    return pc.is_valid(arr).to_pylist() if arr.null_count else [True] * len(arr)


def column_values(arr: pa.Array) -> list:
    """Expected text forms of every element of `arr` (None for null)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if isinstance(t, pa.BaseExtensionType):
        if t.extension_name == "arrow.uuid":
            return [None if b is None else str(uuidlib.UUID(bytes=b))
                    for b in arr.storage.to_pylist()]
        return column_values(arr.storage)
    if pa.types.is_dictionary(t):
        return column_values(arr.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_boolean(t):
        return arr.to_pylist()
    if pa.types.is_integer(t):
        return [None if v is None else Int(v) for v in arr.to_pylist()]
    if pa.types.is_floating(t):
        bits = t.bit_width
        if bits == 16:
            vals = [None if v is None else float(v) for v in arr.to_pylist()]
        else:
            vals = arr.to_pylist()
        return [None if v is None else Float(v, bits) for v in vals]
    if pa.types.is_decimal(t):
        return [None if v is None else fmt_decimal_unscaled(_decimal_unscaled(v, t.scale), t.scale)
                for v in arr.to_pylist()]
    if pa.types.is_date32(t):
        return [None if v is None else _fmt_date(v) for v in arr.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if v is None else _fmt_date(v // 86_400_000)
                for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_time(t):
        ints = arr.cast(pa.int64() if t.bit_width == 64 else pa.int32()).to_pylist()
        return [None if v is None else fmt_time(v, t.unit) for v in ints]
    if pa.types.is_timestamp(t):
        utc = t.tz is not None
        return [None if v is None else fmt_timestamp(v, t.unit, utc)
                for v in arr.cast(pa.int64()).to_pylist()]
    if _is_string(t):
        return arr.to_pylist()
    if _is_binary(t):
        return [None if v is None else bytes(v).hex() for v in arr.to_pylist()]
    if pa.types.is_struct(t):
        valid = _valid(arr)
        children = [column_values(arr.field(i)) for i in range(t.num_fields)]
        names = [t.field(i).name for i in range(t.num_fields)]
        return [Obj(zip(names, (c[r] for c in children))) if valid[r] else None
                for r in range(len(arr))]
    if pa.types.is_fixed_size_list(t):
        return column_values(arr.cast(pa.list_(t.value_field)))
    if pa.types.is_map(t):
        valid = _valid(arr)
        offsets = arr.offsets.to_pylist()  # absolute positions in arr.values
        keys = column_values(arr.values.field(0))
        items = column_values(arr.values.field(1))
        string_keys = _is_string(t.key_type)
        out = []
        for r in range(len(arr)):
            if not valid[r]:
                out.append(None)
                continue
            lo, hi = offsets[r], offsets[r + 1]
            if string_keys:
                out.append(Obj(zip(keys[lo:hi], items[lo:hi])))
            else:
                out.append([[k, v] for k, v in zip(keys[lo:hi], items[lo:hi])])
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        valid = _valid(arr)
        offsets = arr.offsets.to_pylist()
        values = column_values(arr.values)
        return [values[offsets[r]:offsets[r + 1]] if valid[r] else None for r in range(len(arr))]
    raise TypeError(f"no text form for {t}")


def expected_rows(table: pa.Table, columns: list[str] | None = None) -> list[Obj]:
    names = columns if columns is not None else table.column_names
    cols = [column_values(table.column(n)) for n in names]
    return [Obj(zip(names, (c[r] for c in cols))) for r in range(table.num_rows)]


# ---------------------------------------------------------------------------------------------
# Parsing and comparison.

def _no_constants(name):
    raise ValueError(f"bare {name} is not JSON")


def parse_line(line: str):
    return json.loads(line, parse_int=Num, parse_float=Num, parse_constant=_no_constants,
                      object_pairs_hook=Obj)


def parse_lines(text: str) -> list:
    """Parse JSON Lines; every line must be one JSON object (no blank lines)."""
    if text == "":
        return []
    if not text.endswith("\n"):
        raise ValueError("output does not end with a newline")
    rows = []
    for i, line in enumerate(text[:-1].split("\n")):
        try:
            v = parse_line(line)
        except ValueError as e:
            raise ValueError(f"line {i + 1} is not JSON ({e}): {line[:200]!r}") from None
        if not isinstance(v, Obj):
            raise ValueError(f"line {i + 1} is not a JSON object: {line[:200]!r}")
        rows.append(v)
    return rows


def _float_matches(exp: Float, act) -> bool:
    v = exp.value
    if math.isnan(v):
        return act == "NaN" and not isinstance(act, Num)
    if math.isinf(v):
        return act == ("Infinity" if v > 0 else "-Infinity") and not isinstance(act, Num)
    if not isinstance(act, Num):
        return False
    got = float(act)
    if exp.bits == 32:
        got = struct.unpack("<f", struct.pack("<f", got))[0]
    elif exp.bits == 16:
        got = struct.unpack("<e", struct.pack("<e", got))[0]
    return got == v and math.copysign(1.0, got) == math.copysign(1.0, v)


def short(v) -> str:
    s = repr(v)
    return s if len(s) <= 200 else s[:200] + f"...({len(s)} chars)"


def first_difference(exp, act, path: str = "$"):
    """None when `act` (parsed JSON) matches `exp` (expected form); else a description."""
    if exp is None:
        return None if act is None else f"{path}: expected null, got {short(act)}"
    if isinstance(exp, bool):
        return None if act is exp else f"{path}: expected {exp}, got {short(act)}"
    if isinstance(exp, Int):
        if isinstance(act, Num):
            try:
                if int(act) == exp.value:
                    return None
            except ValueError:
                pass
        return f"{path}: expected integer {exp.value}, got {short(act)}"
    if isinstance(exp, Float):
        return None if _float_matches(exp, act) else f"{path}: expected {exp}, got {short(act)}"
    if isinstance(exp, str):
        if isinstance(act, str) and not isinstance(act, Num) and act == exp:
            return None
        return f"{path}: expected {short(exp)}, got {short(act)}"
    if isinstance(exp, Obj):
        if not isinstance(act, Obj):
            return f"{path}: expected an object, got {short(act)}"
        ek = [k for k, _ in exp]
        ak = [k for k, _ in act]
        if ek != ak:
            return f"{path}: expected keys {short(ek)}, got {short(ak)}"
        for (k, e), (_, a) in zip(exp, act):
            d = first_difference(e, a, f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or isinstance(act, Obj):
            return f"{path}: expected an array, got {short(act)}"
        if len(exp) != len(act):
            return f"{path}: expected {len(exp)} elements, got {len(act)}"
        for i, (e, a) in enumerate(zip(exp, act)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d:
                return d
        return None
    raise TypeError(f"unexpected expected value {exp!r}")


def rows_difference(expected: list, actual: list):
    """Compare row lists; None or a description naming the first differing row."""
    for i, (e, a) in enumerate(zip(expected, actual)):
        d = first_difference(e, a)
        if d:
            return f"row {i}: {d}"
    if len(expected) != len(actual):
        return f"expected {len(expected)} rows, got {len(actual)}"
    return None

"""`floe parquet cat` prints every row of every matrix file as the text forms of the contract.

The expected rows come from pyarrow's reading of the file with ARROW:schema removed (so the
types are those of the Parquet schema, e.g. timestamps in the stored unit and UTC-adjusted
iff isAdjustedToUTC), converted by text_forms.py. `--columns` and `--limit` are checked on
the same expectations; the contract does not say whether `--columns` keeps the file's
column order or the requested one, so the cases list columns in file order.
"""

from __future__ import annotations

import pytest

import parquet_matrix as pm
import text_forms as tf

CASE_NAMES = [c.name for c in pm.cases()]


def _cat_rows(floe, path, **kwargs):
    r = floe.cat(path, **kwargs)
    try:
        return tf.parse_lines(r.text)
    except (ValueError, UnicodeDecodeError) as e:
        raise AssertionError(f"{path.name}: output is not JSON Lines: {e}") from None


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_cat_prints_peer_values(floe, parquet_inputs, case_name):
    path = parquet_inputs.path(case_name)
    expected = tf.expected_rows(parquet_inputs.bare(case_name))
    d = tf.rows_difference(expected, _cat_rows(floe, path))
    assert d is None, f"{case_name}: {d}"


@pytest.mark.parametrize("case_name,columns,limit", [
    ("all_types", ["int64", "ts_us_utc", "string"], None),
    ("all_types", ["float32", "dec_38_10", "date", "uuid"], 25),
    ("all_types", ["bool"], 0),
    ("all_types", None, 1),
    ("all_types", None, 5000),   # more than the file's rows
    ("nested", ["s", "m_int32_struct"], 40),
    ("nested", ["l_of_struct"], None),
    ("all_types_row_groups", ["int32", "binary"], 650),  # crosses row groups
    ("huge_strings", ["s"], 3),
])
def test_cat_columns_and_limit(floe, parquet_inputs, case_name, columns, limit):
    path = parquet_inputs.path(case_name)
    table = parquet_inputs.bare(case_name)
    expected = tf.expected_rows(table, columns)
    if limit is not None:
        expected = expected[:limit]
    d = tf.rows_difference(expected, _cat_rows(floe, path, columns=columns, limit=limit))
    assert d is None, f"{case_name} --columns {columns} --limit {limit}: {d}"

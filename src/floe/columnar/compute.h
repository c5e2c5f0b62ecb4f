// Whole-array operations on column batches: selection by a mask (the way deletes and row
// filters drop rows). One pass per buffer, no per-row allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/columnar/array.h"

namespace floe::columnar {

// The rows of `array` whose mask byte is non-zero, in order. `mask` has array.length()
// bytes; `selected` is the number of non-zero bytes (CountSelected).
Array Filter(const Array& array, const uint8_t* mask, int64_t selected);
// Filter applied to every column.
RecordBatch Filter(const RecordBatch& batch, const std::vector<uint8_t>& mask);

int64_t CountSelected(const uint8_t* mask, int64_t n);

}  // namespace floe::columnar

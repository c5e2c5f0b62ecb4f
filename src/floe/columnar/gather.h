// Gather: builds an array (or batch) from rows picked out of several arrays of one type,
// in the order given: the sorted output of a sort, or the merge of sorted runs.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"

namespace floe::columnar {

// One picked row: which source, which row of it.
struct RowRef {
  uint32_t source = 0;
  uint32_t row = 0;
};

// The rows `picks` of `sources` (all of the same type), in order. kUnimplemented for
// unions; kInvalidArgument when the sources' types differ.
Result<Array> Gather(const std::vector<const Array*>& sources, const std::vector<RowRef>& picks);

// The same for batches of one schema, column by column.
Result<RecordBatch> Gather(const std::vector<const RecordBatch*>& sources,
                           const std::vector<RowRef>& picks);

}  // namespace floe::columnar

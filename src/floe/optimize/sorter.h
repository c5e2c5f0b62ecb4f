// ExternalSorter: the rows of a rewrite in a table's sort order, within a memory budget.
//
// Each row gets a normalized key: per sort field (its transform applied to the source
// column), a null marker placed by the null order, then the value's bytes arranged so that
// comparing keys with memcmp orders values as the Iceberg spec's sort order does (signed
// integers with the sign bit flipped, big-endian; floats by their total order, so -NaN <
// -inf < ... < -0 < 0 < ... < inf < NaN; strings and binary by unsigned bytes, escaped
// and terminated; descending fields with their value bytes inverted). Batches are buffered
// until they pass the budget, then sorted (stable: ties keep their input order) and written
// as a run (a Parquet file under the spill directory); at the end the runs are merged k ways
// (or the buffer, when nothing spilled, is emitted directly) in batches of at most
// kOutputRows rows.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"

namespace floe::optimize {

class ExternalSorter {
 public:
  static constexpr int64_t kOutputRows = 64 * 1024;

  // Batches must have `schema`'s columnar form (Schema::ToColumnar). kInvalidArgument for
  // an order whose source field is missing or whose type cannot be ordered (nested).
  static Result<std::unique_ptr<ExternalSorter>> Make(iceberg::Schema schema,
                                                      iceberg::SortOrder order,
                                                      int64_t memory_budget_bytes,
                                                      std::string spill_dir);
  ~ExternalSorter();

  Status Add(columnar::RecordBatch batch);
  // Emits every row added, sorted, to `sink`. Call once, after the last Add.
  Status Finish(const std::function<Status(const columnar::RecordBatch&)>& sink);

  int64_t runs_spilled() const { return runs_spilled_; }

 private:
  struct Keyed;
  struct Run;
  ExternalSorter(iceberg::Schema schema, iceberg::SortOrder order, int64_t budget,
                 std::string spill_dir);
  Result<Keyed> KeyBatch(columnar::RecordBatch batch) const;
  Status SpillBuffered();
  Status EmitBuffered(const std::function<Status(const columnar::RecordBatch&)>& sink);
  Status Merge(const std::function<Status(const columnar::RecordBatch&)>& sink);

  iceberg::Schema schema_;
  iceberg::SortOrder order_;
  int64_t budget_;
  std::string spill_dir_;
  std::string run_dir_;  // made at the first spill, removed by the destructor
  std::vector<Keyed> buffered_;
  int64_t buffered_bytes_ = 0;
  std::vector<std::string> runs_;
  int64_t runs_spilled_ = 0;
};

// The normalized sort keys (see above) of `batch`'s rows, back to back in *keys with the
// end of each in *ends. For tests and for the sorter.
Status NormalizedSortKeys(const iceberg::Schema& schema, const iceberg::SortOrder& order,
                          const columnar::RecordBatch& batch, std::string* keys,
                          std::vector<size_t>* ends);

}  // namespace floe::optimize

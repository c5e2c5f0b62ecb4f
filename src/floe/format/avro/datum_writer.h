// DatumWriter: encodes rows of column batches as Avro binary datums (spec, "Binary
// Encoding") of a given schema, through a plan compiled once per (schema, columns) pair.
// The columns are those of ToColumnarSchema(schema), matched to record fields by name;
// some widenings are accepted (an Int32 column for an Avro long, Float32 for double).
//
// Arrays and maps are written as one block of items followed by the end marker; decimals
// on bytes take their shortest two's complement form (as Java's BigInteger does).
//
// Thread-safety: Write() is const and may run concurrently.
#pragma once

#include <memory>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

class DatumWriter {
 public:
  // Fails with kInvalidArgument naming the field when a column is missing or its type
  // cannot be written as the field's Avro type.
  static Result<std::unique_ptr<DatumWriter>> Make(const Schema& schema,
                                                   const columnar::Schema& columns);
  ~DatumWriter();

  // Appends row `row` of `batch` (whose schema equals the one given to Make) to `out`.
  // A null where the schema has no null branch, an enum symbol the schema lacks, or a
  // decimal too wide for its fixed is kInvalidArgument; `out` then holds a partial datum.
  Status Write(const columnar::RecordBatch& batch, int64_t row, Buffer* out) const;

  struct PlanNode;

 private:
  DatumWriter();
  Status Encode(int32_t plan, const columnar::Array& array, int64_t row, Buffer* out,
                int depth) const;

  friend class EncodeCompiler;
  std::vector<PlanNode> plan_;
  int32_t root_ = -1;
  bool root_is_record_ = false;
  std::vector<int32_t> root_columns_;  // batch column of each record field
};

}  // namespace floe::format::avro

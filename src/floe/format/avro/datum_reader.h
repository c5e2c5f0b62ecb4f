// DatumReader: decodes Avro binary datums (spec, "Binary Encoding") straight into column
// builders, resolving the writer's schema against a reader's (spec, "Schema Resolution").
//
// Make() compiles a plan once per schema pair: one node per schema position holding an
// opcode, the builder to append to and what resolution decided (promotion, enum symbol
// mapping, union branch choice, fields to skip, defaults to fill). Read() walks the plan
// with a switch per node and appends typed values through the concrete builders: no
// intermediate value objects and no virtual call per value.
//
// Resolution, beyond the spec's rules:
// - Record fields match by Iceberg field id when the reader field has a "field-id" and
//   the writer record carries field ids (manifests evolve by id); otherwise by name, then
//   by the reader field's aliases. Record, enum and fixed names are compared only to pick
//   a branch of a reader union.
// - A reader field absent from the writer takes its default, else null when its type is
//   nullable; otherwise Make() fails.
// - A reader union takes the first branch of the writer's type (named types by fullname or
//   alias, then by simple name, then any of that kind), then the first promotable one.
// - A writer union branch the reader cannot take fails only when a datum uses it.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/bytes.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/columnar/builder.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

struct DatumReaderOptions {
  // Read the data as this schema; nullptr reads it as written. Only used during Make().
  const Schema* reader_schema = nullptr;
  // Top-level fields of the reader's record to produce, in this order; empty: all.
  std::vector<std::string> columns;
};

class DatumReader {
 public:
  // Compiles the plan. Schemas that do not match are kInvalidArgument naming the field;
  // types that have no columnar form (recursive records, wide decimals) kUnimplemented.
  static Result<std::unique_ptr<DatumReader>> Make(const Schema& writer,
                                                   const DatumReaderOptions& options = {});
  ~DatumReader();

  // The columns Read() produces.
  const columnar::SchemaPtr& schema() const { return schema_; }
  // The smallest number of bytes a datum of the writer schema takes (0 for some schemas).
  int64_t min_datum_size() const { return min_datum_size_; }

  // Decodes one datum from `in` and appends it as a row. Malformed bytes are kCorrupt; a
  // writer value the reader cannot represent (an enum symbol with no counterpart) is
  // kInvalidArgument. After an error the pending rows are unusable: discard the reader.
  Status Read(ByteReader* in);

  // Rows read since the last Finish().
  int64_t num_rows() const { return num_rows_; }
  // Returns the rows read since the last call as a batch.
  columnar::RecordBatch Finish();

  // Items whose encoding may take zero bytes (a null, an empty record) cannot be checked
  // against the bytes left, so their count is bounded by this budget, shared by all
  // following reads; exhausting it is kCorrupt.
  void set_zero_size_budget(int64_t items) { zero_size_budget_ = items; }
  int64_t zero_size_budget() const { return zero_size_budget_; }

  struct PlanNode;

 private:
  DatumReader();
  Status Decode(int32_t plan, ByteReader& in, columnar::ArrayBuilder* builder, int depth);
  Status Skip(int32_t plan, ByteReader& in, int depth);
  Result<int64_t> ReadBlockCount(ByteReader& in, int64_t min_item_size);
  // Decodes a record's fields into the children of `parent`, or into the top-level
  // columns when `parent` is null.
  Status DecodeFields(const PlanNode& node, ByteReader& in, columnar::StructBuilder* parent,
                      int depth);

  friend class PlanCompiler;
  std::vector<PlanNode> plan_;
  int32_t root_ = -1;
  bool root_is_record_ = false;
  columnar::SchemaPtr schema_;
  std::vector<std::unique_ptr<columnar::ArrayBuilder>> columns_;
  std::vector<columnar::ArrayBuilder*> column_ptrs_;
  int64_t num_rows_ = 0;
  int64_t min_datum_size_ = 0;
  int64_t zero_size_budget_ = int64_t{1} << 24;
};

}  // namespace floe::format::avro

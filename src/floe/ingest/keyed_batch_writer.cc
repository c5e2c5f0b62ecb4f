#include "floe/ingest/keyed_batch_writer.h"

#include <utility>

#include <fmt/ranges.h>

#include "floe/base/macros.h"
#include "floe/ingest/registry_cdc.h"

namespace floe::ingest {

Status KeyedBatchWriter::Hold(columnar::RecordBatch batch, std::span<const char> ops) {
  if (static_cast<int64_t>(ops.size()) != batch.num_rows()) {
    return Status::Internal("{} ops for {} held rows", ops.size(), batch.num_rows());
  }
  std::vector<iceberg::KeyedOp> keyed;
  keyed.reserve(ops.size());
  for (char op : ops) {
    keyed.push_back(op == kOpDelete ? iceberg::KeyedOp::kDelete : iceberg::KeyedOp::kUpsert);
  }
  held_.push_back(std::move(batch));
  ops_.push_back(std::move(keyed));
  return Status::OK();
}

Result<iceberg::KeyedWriteResult> KeyedBatchWriter::Write(iceberg::Table& table) {
  const iceberg::TableMetadata& md = *table.metadata();
  const iceberg::Schema& schema = *md.current_schema();
  std::vector<int32_t> key_ids;
  for (const std::string& name : id_columns_) {
    for (const iceberg::NestedField& f : schema.fields()) {
      if (f.name == name) key_ids.push_back(f.id);
    }
  }
  if (key_ids.size() != id_columns_.size()) {
    return Status::FailedPrecondition("table {} lacks an id column of {}", table_name_,
                                      fmt::join(id_columns_, ", "));
  }
  // One operation id for both kinds of files (delete files are named "-deletes").
  iceberg::KeyedWriterOptions o;
  o.deletes.table_location = md.location;
  o.deletes.properties = md.properties;
  o.deletes.operation_id = table.operations().env().NewUuid();
  o.data = o.deletes;
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::KeyedDeltaWriter::Make(&table.io(), schema, *md.default_spec(),
                                                        std::move(key_ids), std::move(o)));
  std::vector<columnar::RecordBatch> held = std::move(held_);
  std::vector<std::vector<iceberg::KeyedOp>> ops = std::move(ops_);
  Clear();
  for (size_t b = 0; b < held.size(); ++b) {
    FLOE_RETURN_IF_ERROR(writer->Add(std::move(held[b]), ops[b]));
  }
  return writer->Finish();
}

}  // namespace floe::ingest

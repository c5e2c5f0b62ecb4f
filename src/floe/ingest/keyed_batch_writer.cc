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

Result<KeyedCommitFiles> KeyedBatchWriter::Write(iceberg::Table& table, bool positional) {
  // Held: the key index syncs against this metadata.
  const iceberg::TableMetadataPtr metadata = table.metadata();
  const iceberg::TableMetadata& md = *metadata;
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
  if (positional && key_index_ == nullptr) {
    return Status::FailedPrecondition("table {}: position deletes need the key index", table_name_);
  }
  if (positional && (!index_ || index_key_ids_ != key_ids)) {
    index_ = std::make_unique<TableKeyIndex>(key_index_, key_ids);
    index_key_ids_ = key_ids;
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
  KeyedCommitFiles out;
  if (!positional) {
    FLOE_ASSIGN_OR_RETURN(iceberg::KeyedWriteResult written, writer->Finish());
    out.data_files = std::move(written.data_files);
    out.delete_files = std::move(written.delete_files);
    out.data_rows = written.data_rows;
    return out;
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::KeyedPositionalResult written, writer->FinishPositional());
  Result<PositionalDeletes> deletes = index_->Prepare(table, written);
  if (!deletes.ok()) {
    // Nothing refers to the data files yet.
    for (const iceberg::DataFile& f : written.data_files) (void)table.io().Delete(f.file_path);
    return deletes.status();
  }
  out.data_files = std::move(written.data_files);
  out.data_rows = written.data_rows;
  out.delete_files = deletes->delete_files;
  out.positional = std::move(*deletes);
  return out;
}

Status KeyedBatchWriter::Committed(const PositionalDeletes& deletes, int64_t snapshot_id,
                                   std::optional<int64_t> parent_snapshot_id) {
  if (!index_) return Status::OK();
  return index_->Committed(deletes, snapshot_id, parent_snapshot_id);
}

}  // namespace floe::ingest

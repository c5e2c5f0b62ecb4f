#include "floe/iceberg/row_level_ops.h"

#include <algorithm>
#include <set>
#include <utility>

#include "floe/base/macros.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"

namespace floe::iceberg {

namespace {

FileWriterOptions WriterOptions(Table& table) {
  FileWriterOptions o;
  o.table_location = table.metadata()->location;
  o.properties = table.metadata()->properties;
  o.operation_id = table.operations().env().NewUuid();
  return o;
}

}  // namespace

Result<DeleteWhereResult> DeleteWhere(Table& table, ExpressionPtr filter,
                                      const ScanProgress& progress) {
  // Held: the commit below replaces the table's metadata.
  const TableMetadataPtr metadata = table.metadata();
  const TableMetadata& md = *metadata;
  if (md.format_version < 2) {
    return Status::FailedPrecondition(
        "row-level deletes need format version 2 or 3; table {} is v1", table.name());
  }
  ScanOptions options;
  options.filter = std::move(filter);
  FLOE_ASSIGN_OR_RETURN(auto scan, TableScan::Make(metadata, table.io(), options));
  DeleteWhereResult result;
  if (scan->snapshot() == nullptr) return result;
  const int64_t base_snapshot = scan->snapshot()->snapshot_id;
  FLOE_ASSIGN_OR_RETURN(std::vector<FileScanTask> tasks, scan->PlanFiles());
  FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(tasks));

  const bool dv = md.format_version >= 3;
  result.deletion_vectors = dv;
  std::unique_ptr<PositionDeleteWriter> pos_writer;
  std::unique_ptr<DeletionVectorWriter> dv_writer;
  if (dv) {
    FLOE_ASSIGN_OR_RETURN(dv_writer, DeletionVectorWriter::Make(&table.io(), WriterOptions(table)));
  } else {
    FLOE_ASSIGN_OR_RETURN(pos_writer,
                          PositionDeleteWriter::Make(&table.io(), WriterOptions(table)));
  }
  int64_t deleted = 0;
  std::set<const FileScanTask*> touched;
  std::vector<std::string> referenced;
  const auto total = static_cast<int64_t>(reader->task_count());
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<TableScan::Reader::Matches> m, reader->NextMatches());
    if (progress) progress(static_cast<int64_t>(reader->tasks_opened()), total);
    if (!m) break;
    const DataFile& data = m->task->data->file;
    const PartitionSpec* spec = md.spec_by_id(data.spec_id);
    if (spec == nullptr)
      return Status::Corrupt("data file {} has unknown spec {}", data.file_path, data.spec_id);
    deleted += static_cast<int64_t>(m->positions.size());
    if (touched.insert(m->task).second) referenced.push_back(data.file_path);
    if (dv) {
      FLOE_RETURN_IF_ERROR(dv_writer->Delete(data.file_path, m->positions, *spec, data.partition));
    } else {
      FLOE_RETURN_IF_ERROR(pos_writer->Delete(data.file_path, m->positions, *spec, data.partition));
    }
  }
  if (dv) {
    // v3: the new DV of a data file merges its previous DV and position deletes.
    for (const FileScanTask* task : touched) {
      format::puffin::PositionBitmap previous;
      std::vector<DataFile> previous_files;
      FLOE_RETURN_IF_ERROR(LoadPreviousDeletes(table.io(), *task, &previous, &previous_files));
      if (!previous.empty() || !previous_files.empty()) {
        FLOE_RETURN_IF_ERROR(dv_writer->MergePrevious(task->data->file.file_path, previous,
                                                      std::move(previous_files)));
      }
    }
  }
  DeleteWriteResult written;
  if (dv) {
    FLOE_ASSIGN_OR_RETURN(written, dv_writer->Close());
  } else {
    FLOE_ASSIGN_OR_RETURN(written, pos_writer->Close());
  }
  if (written.delete_files.empty()) return result;
  std::unique_ptr<RowDelta> delta = table.NewRowDelta();
  for (const DataFile& f : written.delete_files) delta->AddDeletes(f);
  for (const DataFile& f : written.rewritten_delete_files) delta->RemoveDeletes(f);
  delta->ValidateFromSnapshot(base_snapshot);
  delta->ValidateDataFilesExist(referenced);
  FLOE_RETURN_IF_ERROR(delta->Commit());
  result.deleted_rows = deleted;
  result.delete_files = written.delete_files.size();
  return result;
}

Result<std::unique_ptr<TableUpsert>> TableUpsert::Make(
    Table* table, const std::vector<std::string>& key_columns) {
  const TableMetadataPtr metadata = table->metadata();
  const TableMetadata& md = *metadata;
  if (md.format_version < 2) {
    return Status::FailedPrecondition("upserts need format version 2 or 3; table {} is v1",
                                      table->name());
  }
  const Schema& schema = *md.current_schema();
  std::vector<int32_t> key_ids;
  if (!key_columns.empty()) {
    for (const std::string& k : key_columns) {
      const NestedField* f = schema.FindFieldByName(k);
      if (f == nullptr) return Status::InvalidArgument("unknown key column '{}'", k);
      key_ids.push_back(f->id);
    }
  } else {
    key_ids = schema.identifier_field_ids();
  }
  if (key_ids.empty()) {
    return Status::InvalidArgument("no key: pass --key or set the table's identifier fields");
  }
  // Flink requires partition source columns in the key, so a key's rows stay in one partition.
  for (const PartitionField& pf : md.default_spec()->fields()) {
    if (pf.transform.is_void()) continue;
    if (std::find(key_ids.begin(), key_ids.end(), pf.source_id) == key_ids.end()) {
      return Status::InvalidArgument(
          "the key must include the partition source column '{}'",
          schema.FindColumnName(pf.source_id).value_or(std::to_string(pf.source_id)));
    }
  }
  KeyedWriterOptions options;
  const SortOrder* order = md.default_sort_order();
  options.sort_order = order ? *order : SortOrder();
  options.deletes = WriterOptions(*table);
  options.data = WriterOptions(*table);
  std::unique_ptr<TableUpsert> upsert(new TableUpsert());
  upsert->table_ = table;
  FLOE_ASSIGN_OR_RETURN(upsert->writer_,
                        KeyedDeltaWriter::Make(&table->io(), schema, *md.default_spec(),
                                               std::move(key_ids), std::move(options)));
  return upsert;
}

Result<UpsertResult> TableUpsert::Commit() {
  FLOE_ASSIGN_OR_RETURN(KeyedWriteResult written, writer_->Finish());
  std::unique_ptr<RowDelta> delta = table_->NewRowDelta();
  for (const DataFile& f : written.data_files) delta->AddRows(f);
  for (const DataFile& f : written.delete_files) delta->AddDeletes(f);
  FLOE_RETURN_IF_ERROR(delta->Commit());
  UpsertResult result;
  result.upserted_rows = written.data_rows;
  result.data_files = written.data_files.size();
  result.equality_delete_files = written.delete_files.size();
  return result;
}

}  // namespace floe::iceberg

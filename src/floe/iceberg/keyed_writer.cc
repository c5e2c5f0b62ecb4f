#include "floe/iceberg/keyed_writer.h"

#include <string>
#include <utility>

#include "floe/base/macros.h"
#include "floe/columnar/compute.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/equality_key.h"

namespace floe::iceberg {

namespace col = floe::columnar;

KeyedDeltaWriter::~KeyedDeltaWriter() = default;

Result<std::unique_ptr<KeyedDeltaWriter>> KeyedDeltaWriter::Make(io::FileIO* io, Schema schema,
                                                                 PartitionSpec spec,
                                                                 std::vector<int32_t> key_ids,
                                                                 KeyedWriterOptions options) {
  if (key_ids.empty()) return Status::InvalidArgument("a keyed writer needs key columns");
  std::unique_ptr<KeyedDeltaWriter> w(new KeyedDeltaWriter());
  for (int32_t id : key_ids) {
    bool found = false;
    for (size_t c = 0; c < schema.fields().size(); ++c) {
      if (schema.fields()[c].id == id) {
        w->key_columns_.push_back(c);
        found = true;
      }
    }
    if (!found) return Status::Unimplemented("upsert keys must be top-level columns");
  }
  w->io_ = io;
  w->schema_ = std::move(schema);
  w->spec_ = std::move(spec);
  w->key_ids_ = std::move(key_ids);
  w->options_ = std::move(options);
  return w;
}

Status KeyedDeltaWriter::Add(col::RecordBatch batch) { return Add(std::move(batch), {}); }

Status KeyedDeltaWriter::Add(col::RecordBatch batch, std::span<const KeyedOp> ops) {
  if (finished_) return Status::FailedPrecondition("add after finish");
  if (!ops.empty() && static_cast<int64_t>(ops.size()) != batch.num_rows()) {
    return Status::InvalidArgument("{} ops for {} rows", ops.size(), batch.num_rows());
  }
  if (batch.num_rows() == 0) return Status::OK();
  if (batch.num_columns() != schema_.fields().size()) {
    return Status::InvalidArgument("a batch of {} columns for a schema of {}", batch.num_columns(),
                                   schema_.fields().size());
  }
  held_rows_ += batch.num_rows();
  held_.push_back(std::move(batch));
  // All upserts (the common case) store no ops.
  bool deletes = false;
  for (KeyedOp op : ops) deletes |= op == KeyedOp::kDelete;
  ops_.emplace_back(deletes ? std::vector<KeyedOp>(ops.begin(), ops.end())
                            : std::vector<KeyedOp>());
  return Status::OK();
}

Status KeyedDeltaWriter::MarkLastPerKey(int64_t* keys, int64_t* data_rows) {
  keep_key_.assign(held_.size(), {});
  keep_row_.assign(held_.size(), {});
  EqualityKeyTable seen;  // one entry per distinct key of the commit, not per row
  std::string key;
  std::vector<Located> cols(key_columns_.size());
  for (size_t b = held_.size(); b-- > 0;) {
    const col::RecordBatch& batch = held_[b];
    const std::vector<KeyedOp>& ops = ops_[b];
    const auto n = static_cast<size_t>(batch.num_rows());
    keep_key_[b].assign(n, 0);
    keep_row_[b].assign(n, 0);
    for (size_t k = 0; k < key_columns_.size(); ++k) cols[k].array = &batch.column(key_columns_[k]);
    for (size_t i = n; i-- > 0;) {
      key.clear();
      AppendKey(cols, static_cast<int64_t>(i), &key);
      bool added = false;
      seen.FindOrAdd(key, EqualityKeyTable::Hash(key), &added);
      if (!added) continue;
      keep_key_[b][i] = 1;
      ++*keys;
      if (ops.empty() || ops[i] == KeyedOp::kUpsert) {
        keep_row_[b][i] = 1;
        ++*data_rows;
      }
    }
  }
  return Status::OK();
}

Result<KeyedWriteResult> KeyedDeltaWriter::Finish() {
  if (finished_) return Status::FailedPrecondition("keyed writer finished twice");
  finished_ = true;
  std::vector<NestedField> key_fields;
  for (int32_t id : key_ids_) key_fields.push_back(*schema_.FindField(id));
  FLOE_ASSIGN_OR_RETURN(Schema key_schema, Schema::Make(key_fields, schema_.schema_id()));
  // The writers first: they reject key types that AppendKey cannot encode (not primitive).
  FLOE_ASSIGN_OR_RETURN(
      auto deletes, EqualityDeleteWriter::Make(io_, key_schema, key_ids_, spec_, options_.deletes));
  FLOE_ASSIGN_OR_RETURN(auto data, DataWriter::Make(io_, schema_, spec_, options_.sort_order,
                                                    /*input_sorted=*/false, options_.data));
  KeyedWriteResult result;
  FLOE_RETURN_IF_ERROR(MarkLastPerKey(&result.keys, &result.data_rows));
  Status st = [&]() -> Status {
    auto key_columnar = std::make_shared<col::Schema>(key_schema.ToColumnar());
    for (size_t b = 0; b < held_.size(); ++b) {
      col::RecordBatch batch = std::move(held_[b]);
      const int64_t n = batch.num_rows();
      const int64_t keys = col::CountSelected(keep_key_[b].data(), n);
      std::vector<col::Array> key_arrays;
      for (size_t c : key_columns_) {
        key_arrays.push_back(col::Filter(batch.column(c), keep_key_[b].data(), keys));
      }
      FLOE_RETURN_IF_ERROR(
          deletes->Write(col::RecordBatch(key_columnar, keys, std::move(key_arrays))));
      const int64_t rows = col::CountSelected(keep_row_[b].data(), n);
      if (rows == n) {
        FLOE_RETURN_IF_ERROR(data->Write(batch));
      } else if (rows > 0) {
        FLOE_RETURN_IF_ERROR(data->Write(col::Filter(batch, keep_row_[b])));
      }
    }
    held_.clear();
    ops_.clear();
    FLOE_ASSIGN_OR_RETURN(DeleteWriteResult written, deletes->Close());
    result.delete_files = std::move(written.delete_files);
    FLOE_ASSIGN_OR_RETURN(result.data_files, data->Close());
    return Status::OK();
  }();
  if (!st.ok()) {
    // Nothing refers to the files yet; a commit never sees them.
    (void)deletes->Abort();
    (void)data->Abort();
    return st;
  }
  return result;
}

Result<KeyedPositionalResult> KeyedDeltaWriter::FinishPositional() {
  if (finished_) return Status::FailedPrecondition("keyed writer finished twice");
  finished_ = true;
  // Key types are checked as Finish's equality delete writer would: only primitive top-level
  // columns encode as keys.
  for (int32_t id : key_ids_) {
    const NestedField* f = schema_.FindField(id);
    if (f == nullptr || f->type->is_nested()) {
      return Status::InvalidArgument("key field {} is not a primitive column", id);
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto data, DataWriter::Make(io_, schema_, spec_, options_.sort_order,
                                                    /*input_sorted=*/false, options_.data));
  KeyedPositionalResult result;
  FLOE_RETURN_IF_ERROR(MarkLastPerKey(&result.keys, &result.data_rows));
  Status st = [&]() -> Status {
    std::string key;
    std::vector<Located> cols(key_columns_.size());
    std::vector<RowLocation> locations;
    result.key_ends.reserve(static_cast<size_t>(result.keys));
    result.key_written.reserve(static_cast<size_t>(result.keys));
    result.key_locations.reserve(static_cast<size_t>(result.keys));
    for (size_t b = 0; b < held_.size(); ++b) {
      col::RecordBatch batch = std::move(held_[b]);
      const int64_t n = batch.num_rows();
      const int64_t rows = col::CountSelected(keep_row_[b].data(), n);
      locations.clear();
      if (rows == n) {
        FLOE_RETURN_IF_ERROR(data->Write(batch, &locations));
      } else if (rows > 0) {
        FLOE_RETURN_IF_ERROR(data->Write(col::Filter(batch, keep_row_[b]), &locations));
      }
      // Keys in row order; a written row's location is the next one of this batch's.
      for (size_t k = 0; k < key_columns_.size(); ++k) {
        cols[k].array = &batch.column(key_columns_[k]);
      }
      size_t next_location = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!keep_key_[b][static_cast<size_t>(i)]) continue;
        key.clear();
        AppendKey(cols, i, &key);
        result.key_arena += key;
        result.key_ends.push_back(static_cast<uint32_t>(result.key_arena.size()));
        const bool written = keep_row_[b][static_cast<size_t>(i)] != 0;
        result.key_written.push_back(written ? 1 : 0);
        result.key_locations.push_back(written ? locations[next_location++] : RowLocation{});
      }
      if (next_location != locations.size()) {
        return Status::Internal("{} rows written, {} keys located", locations.size(),
                                next_location);
      }
    }
    held_.clear();
    ops_.clear();
    result.file_paths = data->file_paths();
    FLOE_ASSIGN_OR_RETURN(result.data_files, data->Close());
    return Status::OK();
  }();
  if (!st.ok()) {
    (void)data->Abort();
    return st;
  }
  return result;
}

}  // namespace floe::iceberg

#include "floe/ingest/dead_letter_sink.h"

#include <memory>
#include <utility>

#include "floe/base/macros.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"

namespace floe::ingest {

namespace col = floe::columnar;

Result<iceberg::Schema> DeadLetterSchema() {
  using iceberg::NestedField;
  return iceberg::Schema::Make({NestedField::Required(1, "partition", iceberg::IntType()),
                                NestedField::Required(2, "offset", iceberg::LongType()),
                                NestedField::Required(3, "timestamp", iceberg::TimestampTzType()),
                                NestedField::Optional(4, "key", iceberg::BinaryType()),
                                NestedField::Optional(5, "value", iceberg::BinaryType()),
                                NestedField::Required(6, "reason", iceberg::StringType())});
}

Status DeadLetterSink::Route(const RecordRef& row, bool invalid_data, std::string reason) {
  const bool tolerated =
      invalid_data ? tolerance_ != ErrorsTolerance::kNone : tolerance_ == ErrorsTolerance::kAll;
  if (!tolerated) {
    return Status::InvalidArgument(
        "partition {} offset {}: {} (errors.tolerance={} stops translation here)", row.partition,
        row.offset, reason, tolerance_ == ErrorsTolerance::kNone ? "none" : "invalid_data");
  }
  if (row.offset >= offsets_.ends()[static_cast<size_t>(row.partition)]) {
    rows_.push_back({row, std::move(reason)});
  }
  return Status::OK();
}

Result<int64_t> DeadLetterSink::Commit(const std::vector<int64_t>& ends,
                                       const PartitionReader& records,
                                       iceberg::TableOperations& ops) {
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(ops));
  const iceberg::TableMetadata& md = *table->metadata();
  auto schema = std::make_shared<col::Schema>(md.current_schema()->ToColumnar());
  std::vector<std::unique_ptr<col::ArrayBuilder>> b;
  for (size_t c = 0; c < schema->num_fields(); ++c) {
    b.push_back(col::MakeBuilder(schema->field(c).type));
  }
  for (const Row& d : rows_) {
    static_cast<col::FixedWidthBuilder<int32_t>*>(b[0].get())->Append(d.record.partition);
    static_cast<col::FixedWidthBuilder<int64_t>*>(b[1].get())->Append(d.record.offset);
    static_cast<col::FixedWidthBuilder<int64_t>*>(b[2].get())->Append(d.record.timestamp_ms * 1000);
    auto bytes = [&](col::ArrayBuilder* builder, int64_t pos, int64_t len) {
      auto* bb = static_cast<col::BinaryBuilder*>(builder);
      len < 0 ? bb->AppendNull() : bb->Append(records.Bytes(pos, len));
    };
    bytes(b[3].get(), d.record.key_pos, d.record.key_len);
    bytes(b[4].get(), d.record.value_pos, d.record.value_len);
    static_cast<col::BinaryBuilder*>(b[5].get())->Append(d.reason);
  }
  std::vector<col::Array> columns;
  for (auto& builder : b) columns.push_back(builder->Finish());
  iceberg::FileWriterOptions o;
  o.table_location = md.location;
  o.properties = md.properties;
  o.operation_id = table->operations().env().NewUuid();
  FLOE_ASSIGN_OR_RETURN(
      auto w, iceberg::DataWriter::Make(&table->io(), *md.current_schema(), *md.default_spec(),
                                        iceberg::SortOrder(), false, o));
  FLOE_RETURN_IF_ERROR(
      w->Write(col::RecordBatch(schema, static_cast<int64_t>(rows_.size()), std::move(columns))));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> written, w->Close());
  std::unique_ptr<iceberg::Transaction> txn = table->NewTransaction();
  iceberg::AppendFiles& append = txn->NewAppend();
  for (const auto& f : written) append.AppendFile(f);
  append.Set(std::string(kSummaryTopic), topic_);
  FLOE_RETURN_IF_ERROR(offsets_.Commit(*txn, append, ends));
  const auto committed = static_cast<int64_t>(rows_.size());
  rows_.clear();
  return committed;
}

}  // namespace floe::ingest

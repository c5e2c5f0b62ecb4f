// `floe table scan|append|delete|upsert|files|snapshots|history|refs|expire-snapshots|
// rollback`: the data commands of `floe table` (docs/cli.md). Reading is iceberg/scan.h,
// writing iceberg/data_writer.h + delete_writer.h, committing iceberg/table.h; this file
// parses flags, moves batches between them and prints.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/compute.h"
#include "floe/columnar/value_format.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/exe/progress.h"
#include "floe/exe/table_output.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/format/text/reader.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"

namespace floe::exe {

namespace {

namespace col = floe::columnar;
using nlohmann::json;

struct Loaded {
  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::unique_ptr<iceberg::Table> table;
};

Result<Loaded> LoadTable(const CatalogFlags& flags, const std::string& name) {
  Loaded l;
  FLOE_ASSIGN_OR_RETURN(l.catalog, OpenFromFlags(flags));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(name));
  FLOE_ASSIGN_OR_RETURN(l.ops, l.catalog->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(l.table, iceberg::Table::Load(*l.ops));
  return l;
}

Status Print(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

// "2024-01-01T00:00:00Z", "2024-01-01" or milliseconds since the epoch.
Result<int64_t> ParseTimeMs(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    int64_t ms = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Status::InvalidArgument("'{}' is out of range for milliseconds", text);
    }
    return ms;
  }
  Result<iceberg::Literal> ts = iceberg::Literal::Parse(iceberg::TimestampTzType(), text);
  if (!ts.ok()) {
    return Status::InvalidArgument("'{}' is not a time (ISO timestamp with offset, date or ms)",
                                   text);
  }
  int64_t micros = ts->long_value();
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads an input file (Parquet, JSON Lines or CSV by extension) as batches of the table's
// columnar schema and hands them to `sink`.
Status ReadInput(io::FileIO& io, const std::string& path, const iceberg::Schema& schema,
                 const std::function<Status(col::RecordBatch)>& sink) {
  auto columnar_schema = std::make_shared<col::Schema>(schema.ToColumnar());
  if (EndsWith(path, ".parquet")) {
    // User files are matched to the table by column name (their field ids, if any, are
    // another table's).
    iceberg::NameMapping by_name = iceberg::NameMapping::FromSchema(schema);
    FLOE_ASSIGN_OR_RETURN(
        auto reader, iceberg::DataFileReader::Open(
                         io, path, std::make_shared<const iceberg::Schema>(schema), {}, &by_name));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::PositionedBatch> b, reader->Next());
      if (!b) return Status::OK();
      FLOE_RETURN_IF_ERROR(sink(std::move(b->batch)));
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> file, io.OpenInput(path));
  if (EndsWith(path, ".csv")) {
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          format::text::CsvReader::Open(std::move(file), columnar_schema));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<col::RecordBatch> b, reader->Next());
      if (!b) return Status::OK();
      FLOE_RETURN_IF_ERROR(sink(std::move(*b)));
    }
  }
  if (EndsWith(path, ".jsonl") || EndsWith(path, ".json") || EndsWith(path, ".ndjson")) {
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          format::text::JsonLinesReader::Open(std::move(file), columnar_schema));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<col::RecordBatch> b, reader->Next());
      if (!b) return Status::OK();
      FLOE_RETURN_IF_ERROR(sink(std::move(*b)));
    }
  }
  return Status::InvalidArgument("{}: unknown input format (use .parquet, .jsonl or .csv)", path);
}

iceberg::FileWriterOptions WriterOptions(iceberg::Table& table) {
  iceberg::FileWriterOptions o;
  o.table_location = table.metadata()->location;
  o.properties = table.metadata()->properties;
  o.operation_id = table.operations().env().NewUuid();
  return o;
}

Result<std::unique_ptr<iceberg::DataWriter>> MakeDataWriter(iceberg::Table& table) {
  const iceberg::TableMetadata& md = *table.metadata();
  const iceberg::SortOrder* order = md.default_sort_order();
  return iceberg::DataWriter::Make(&table.io(), *md.current_schema(), *md.default_spec(),
                                   order ? *order : iceberg::SortOrder(), false,
                                   WriterOptions(table));
}

json SnapshotJson(const iceberg::Snapshot& s) {
  json j;
  j["snapshot_id"] = s.snapshot_id;
  j["parent_snapshot_id"] = s.parent_snapshot_id ? json(*s.parent_snapshot_id) : json();
  j["sequence_number"] = s.sequence_number;
  j["timestamp_ms"] = s.timestamp_ms;
  j["manifest_list"] = s.manifest_list;
  nlohmann::ordered_json summary = nlohmann::ordered_json::object();
  summary["operation"] = s.operation;
  for (const auto& [k, v] : s.summary) summary[k] = v;
  j["summary"] = json::parse(summary.dump());
  return j;
}

Status PrintCommitted(iceberg::Table& table, const CatalogFlags& flags, json extra) {
  FLOE_RETURN_IF_ERROR(table.Refresh());
  const iceberg::Snapshot* s = table.metadata()->current_snapshot();
  json out = std::move(extra);
  out["snapshot"] = s ? SnapshotJson(*s) : json();
  if (flags.json) return Print(out.dump(2) + "\n");
  std::string text;
  for (auto it = out.begin(); it != out.end(); ++it) {
    if (it.key() == "snapshot") continue;
    text += it.key() + ": " + it.value().dump() + "\n";
  }
  if (s) text += "snapshot: " + std::to_string(s->snapshot_id) + " (" + s->operation + ")\n";
  return Print(text);
}

// ---- scan

struct ScanArgs {
  CatalogFlags catalog;
  std::string table;
  std::string where;
  std::vector<std::string> columns;
  std::optional<int64_t> snapshot_id;
  std::string as_of;
  std::optional<std::string> ref;
  std::optional<int64_t> limit;
  std::string format;
  std::string codec;
  std::string output;
};

Status Scan(const ScanArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::ScanOptions options;
  options.snapshot_id = a.snapshot_id;
  options.ref = a.ref;
  if (!a.as_of.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.as_of_timestamp_ms, ParseTimeMs(a.as_of));
  }
  options.columns = a.columns;
  options.limit = a.limit;
  if (!a.where.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.filter, iceberg::ParseExpression(a.where));
  }
  FLOE_ASSIGN_OR_RETURN(
      auto scan, iceberg::TableScan::Make(l.table->metadata(), l.table->io(), std::move(options)));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(std::move(tasks)));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<RowSink> sink,
                        OpenRowSink(l.table->io(), a.format, a.output,
                                    scan->projected_schema()->ToColumnar(), a.codec));
  ProgressBar progress =
      ProgressBar::OnTerminal("scan", static_cast<int64_t>(reader->task_count()), "files");
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<col::RecordBatch> batch, reader->Next());
    if (!batch) break;
    FLOE_RETURN_IF_ERROR(sink->Write(*batch));
    progress.Update(static_cast<int64_t>(reader->tasks_opened()), reader->rows_returned());
  }
  progress.Finish();
  return sink->Close();
}

// ---- append

struct WriteArgs {
  CatalogFlags catalog;
  std::string table;
  std::vector<std::string> files;
  std::vector<std::string> key;
  std::string where;
};

Status Append(const WriteArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::Table& table = *l.table;
  FLOE_ASSIGN_OR_RETURN(auto writer, MakeDataWriter(table));
  int64_t rows = 0;
  ProgressBar progress =
      ProgressBar::OnTerminal("append", static_cast<int64_t>(a.files.size()), "files");
  for (size_t i = 0; i < a.files.size(); ++i) {
    Status st = ReadInput(table.io(), a.files[i], *table.metadata()->current_schema(),
                          [&](col::RecordBatch b) {
                            rows += b.num_rows();
                            progress.Update(static_cast<int64_t>(i), rows);
                            return writer->Write(b);
                          });
    if (!st.ok()) {
      (void)writer->Abort();
      return st;
    }
    progress.Update(static_cast<int64_t>(i + 1), rows);
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files, writer->Close());
  progress.Finish();
  std::unique_ptr<iceberg::AppendFiles> append = table.NewAppend();
  for (const iceberg::DataFile& f : files) append->AppendFile(f);
  FLOE_RETURN_IF_ERROR(append->Commit());
  return PrintCommitted(table, a.catalog,
                        json{{"added_rows", rows}, {"added_files", files.size()}});
}

// ---- delete (merge-on-read)

Status Delete(const WriteArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::Table& table = *l.table;
  const iceberg::TableMetadata& md = *table.metadata();
  if (md.format_version < 2) {
    return Status::FailedPrecondition(
        "row-level deletes need format version 2 or 3; table {} is v1", a.table);
  }
  if (a.where.empty()) return Status::InvalidArgument("--where is required");
  iceberg::ScanOptions options;
  FLOE_ASSIGN_OR_RETURN(options.filter, iceberg::ParseExpression(a.where));
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(table.metadata(), table.io(), options));
  if (scan->snapshot() == nullptr)
    return PrintCommitted(table, a.catalog, json{{"deleted_rows", 0}});
  const int64_t base_snapshot = scan->snapshot()->snapshot_id;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(tasks));

  const bool dv = md.format_version >= 3;
  std::unique_ptr<iceberg::PositionDeleteWriter> pos_writer;
  std::unique_ptr<iceberg::DeletionVectorWriter> dv_writer;
  if (dv) {
    FLOE_ASSIGN_OR_RETURN(dv_writer,
                          iceberg::DeletionVectorWriter::Make(&table.io(), WriterOptions(table)));
  } else {
    FLOE_ASSIGN_OR_RETURN(pos_writer,
                          iceberg::PositionDeleteWriter::Make(&table.io(), WriterOptions(table)));
  }
  int64_t deleted = 0;
  std::set<const iceberg::FileScanTask*> touched;
  std::vector<std::string> referenced;
  ProgressBar progress = ProgressBar::OnTerminal(
      "delete: scanning", static_cast<int64_t>(reader->task_count()), "files");
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::TableScan::Reader::Matches> m,
                          reader->NextMatches());
    progress.Update(static_cast<int64_t>(reader->tasks_opened()));
    if (!m) break;
    const iceberg::DataFile& data = m->task->data->file;
    const iceberg::PartitionSpec* spec = md.spec_by_id(data.spec_id);
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
    for (const iceberg::FileScanTask* task : touched) {
      format::puffin::PositionBitmap previous;
      std::vector<iceberg::DataFile> previous_files;
      for (const auto& d : task->position_deletes) {
        if (d->file.file_format == iceberg::FileFormat::kPuffin && d->file.content_offset &&
            d->file.content_size_in_bytes) {
          FLOE_ASSIGN_OR_RETURN(auto f, table.io().OpenInput(d->file.file_path));
          FLOE_ASSIGN_OR_RETURN(
              auto bitmap,
              format::puffin::ReadDeletionVector(
                  *f, static_cast<uint64_t>(*d->file.content_offset),
                  static_cast<uint64_t>(*d->file.content_size_in_bytes), d->file.record_count));
          previous.Merge(bitmap);
          previous_files.push_back(d->file);
        }
      }
      if (!previous_files.empty()) {
        FLOE_RETURN_IF_ERROR(dv_writer->MergePrevious(task->data->file.file_path, previous,
                                                      std::move(previous_files)));
      }
    }
  }
  iceberg::DeleteWriteResult written;
  if (dv) {
    FLOE_ASSIGN_OR_RETURN(written, dv_writer->Close());
  } else {
    FLOE_ASSIGN_OR_RETURN(written, pos_writer->Close());
  }
  if (written.delete_files.empty()) {
    return PrintCommitted(table, a.catalog, json{{"deleted_rows", 0}});
  }
  std::unique_ptr<iceberg::RowDelta> delta = table.NewRowDelta();
  for (const iceberg::DataFile& f : written.delete_files) delta->AddDeletes(f);
  for (const iceberg::DataFile& f : written.rewritten_delete_files) delta->RemoveDeletes(f);
  delta->ValidateFromSnapshot(base_snapshot);
  delta->ValidateDataFilesExist(referenced);
  FLOE_RETURN_IF_ERROR(delta->Commit());
  return PrintCommitted(table, a.catalog,
                        json{{"deleted_rows", deleted},
                             {"delete_files", written.delete_files.size()},
                             {"kind", dv ? "deletion-vectors" : "position-deletes"}});
}

// ---- upsert (equality deletes + inserts, as a Flink upsert writer commits)

Status Upsert(const WriteArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::Table& table = *l.table;
  const iceberg::TableMetadata& md = *table.metadata();
  if (md.format_version < 2) {
    return Status::FailedPrecondition("upserts need format version 2 or 3; table {} is v1",
                                      a.table);
  }
  const iceberg::Schema& schema = *md.current_schema();
  std::vector<int32_t> key_ids;
  if (!a.key.empty()) {
    for (const std::string& k : a.key) {
      const iceberg::NestedField* f = schema.FindFieldByName(k);
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
  for (const iceberg::PartitionField& pf : md.default_spec()->fields()) {
    if (pf.transform.is_void()) continue;
    if (std::find(key_ids.begin(), key_ids.end(), pf.source_id) == key_ids.end()) {
      return Status::InvalidArgument(
          "the key must include the partition source column '{}'",
          schema.FindColumnName(pf.source_id).value_or(std::to_string(pf.source_id)));
    }
  }
  // The whole input, last row per key wins (one commit holds each key once).
  std::vector<col::RecordBatch> batches;
  {
    ProgressBar progress =
        ProgressBar::OnTerminal("upsert: reading", static_cast<int64_t>(a.files.size()), "files");
    int64_t rows_read = 0;
    for (size_t i = 0; i < a.files.size(); ++i) {
      FLOE_RETURN_IF_ERROR(ReadInput(table.io(), a.files[i], schema, [&](col::RecordBatch b) {
        rows_read += b.num_rows();
        progress.Update(static_cast<int64_t>(i), rows_read);
        batches.push_back(std::move(b));
        return Status::OK();
      }));
      progress.Update(static_cast<int64_t>(i + 1), rows_read);
    }
  }
  std::vector<size_t> top_level;  // key columns by position (top-level only)
  for (int32_t id : key_ids) {
    bool found = false;
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      if (schema.fields()[i].id == id) {
        top_level.push_back(i);
        found = true;
      }
    }
    if (!found) return Status::Unimplemented("upsert keys must be top-level columns");
  }
  std::unordered_set<std::string> seen;
  std::string key;
  std::vector<std::vector<uint8_t>> keep(batches.size());
  int64_t rows = 0;
  for (size_t b = batches.size(); b-- > 0;) {
    const col::RecordBatch& batch = batches[b];
    keep[b].assign(static_cast<size_t>(batch.num_rows()), 0);
    for (int64_t i = batch.num_rows(); i-- > 0;) {
      key.clear();
      for (size_t c : top_level) {
        const col::Array& arr = batch.column(c);
        if (arr.IsNull(i)) {
          key += '\0';
          continue;
        }
        key += '\1';
        if (arr.type()->is_binary_like()) {
          std::string_view v = arr.BinaryValue(i);
          key += std::to_string(v.size()) + ":";
          key += v;
        } else if (arr.type_id() == col::TypeId::kBool) {
          key += arr.BoolValue(i) ? '1' : '0';
        } else {
          key += arr.FixedValue(i);
        }
      }
      if (seen.insert(key).second) {
        keep[b][static_cast<size_t>(i)] = 1;
        ++rows;
      }
    }
  }
  std::vector<iceberg::NestedField> key_fields;
  for (int32_t id : key_ids) key_fields.push_back(*schema.FindField(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::Schema key_schema,
                        iceberg::Schema::Make(key_fields, schema.schema_id()));
  FLOE_ASSIGN_OR_RETURN(auto eq_writer, iceberg::EqualityDeleteWriter::Make(
                                            &table.io(), key_schema, key_ids, *md.default_spec(),
                                            WriterOptions(table)));
  FLOE_ASSIGN_OR_RETURN(auto data_writer, MakeDataWriter(table));
  auto key_columnar = std::make_shared<col::Schema>(key_schema.ToColumnar());
  for (size_t b = 0; b < batches.size(); ++b) {
    col::RecordBatch rows_batch = col::Filter(batches[b], keep[b]);
    if (rows_batch.num_rows() == 0) continue;
    std::vector<col::Array> key_columns;
    for (size_t c : top_level) {
      key_columns.push_back(rows_batch.column(c).Slice(0, rows_batch.num_rows()));
    }
    col::RecordBatch keys(key_columnar, rows_batch.num_rows(), std::move(key_columns));
    FLOE_RETURN_IF_ERROR(eq_writer->Write(keys));
    FLOE_RETURN_IF_ERROR(data_writer->Write(rows_batch));
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::DeleteWriteResult deletes, eq_writer->Close());
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> data, data_writer->Close());
  std::unique_ptr<iceberg::RowDelta> delta = table.NewRowDelta();
  for (const iceberg::DataFile& f : data) delta->AddRows(f);
  for (const iceberg::DataFile& f : deletes.delete_files) delta->AddDeletes(f);
  FLOE_RETURN_IF_ERROR(delta->Commit());
  return PrintCommitted(table, a.catalog,
                        json{{"upserted_rows", rows},
                             {"data_files", data.size()},
                             {"equality_delete_files", deletes.delete_files.size()}});
}

// ---- inspection

struct InspectArgs {
  CatalogFlags catalog;
  std::string table;
  std::optional<int64_t> snapshot_id;
};

std::string_view ContentName(iceberg::FileContent c) {
  switch (c) {
    case iceberg::FileContent::kData: return "data";
    case iceberg::FileContent::kPositionDeletes: return "position_deletes";
    case iceberg::FileContent::kEqualityDeletes: return "equality_deletes";
  }
  return "?";
}

Status Files(const InspectArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  const iceberg::TableMetadata& md = *l.table->metadata();
  const iceberg::Snapshot* s =
      a.snapshot_id ? md.snapshot_by_id(*a.snapshot_id) : md.current_snapshot();
  if (a.snapshot_id && s == nullptr)
    return Status::NotFound("snapshot {} not found", *a.snapshot_id);
  json files = json::array();
  if (s != nullptr) {
    FLOE_ASSIGN_OR_RETURN(auto list, l.table->io().OpenInput(s->manifest_list));
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                          iceberg::ReadManifestList(*list));
    for (const iceberg::ManifestFile& m : manifests) {
      FLOE_ASSIGN_OR_RETURN(auto f, l.table->io().OpenInput(m.manifest_path));
      iceberg::ManifestReaderOptions opts;
      opts.filter = iceberg::ManifestEntryFilter::kLive;
      opts.read_stats = false;
      if (const iceberg::PartitionSpec* spec = md.spec_by_id(m.partition_spec_id)) {
        Result<iceberg::TypePtr> t = spec->PartitionType(*md.current_schema());
        if (t.ok()) opts.partition_type = *t;
      }
      FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries,
                            iceberg::ReadManifest(*f, m, opts));
      for (const iceberg::ManifestEntry& e : entries) {
        const iceberg::DataFile& d = e.data_file;
        json j;
        j["content"] = ContentName(d.content);
        j["file_path"] = d.file_path;
        j["file_format"] = iceberg::FileFormatName(d.file_format);
        j["spec_id"] = m.partition_spec_id;
        json partition = json::array();
        for (const iceberg::Literal& v : d.partition) partition.push_back(v.ToJsonValue());
        j["partition"] = partition;
        j["record_count"] = d.record_count;
        j["file_size_in_bytes"] = d.file_size_in_bytes;
        j["data_sequence_number"] = e.data_sequence_number ? json(*e.data_sequence_number) : json();
        j["file_sequence_number"] = e.file_sequence_number ? json(*e.file_sequence_number) : json();
        if (d.equality_ids) j["equality_ids"] = *d.equality_ids;
        if (d.referenced_data_file) j["referenced_data_file"] = *d.referenced_data_file;
        if (d.content_offset) j["content_offset"] = *d.content_offset;
        if (d.content_size_in_bytes) j["content_size_in_bytes"] = *d.content_size_in_bytes;
        files.push_back(std::move(j));
      }
    }
  }
  if (a.catalog.json) return Print(files.dump(2) + "\n");
  std::string text;
  for (const json& f : files) {
    text += fmt::format("{:<16} {:>10} rows  {}\n", f["content"].get<std::string>(),
                        f["record_count"].get<int64_t>(), f["file_path"].get<std::string>());
  }
  return Print(text);
}

Status Snapshots(const InspectArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  const iceberg::TableMetadata& md = *l.table->metadata();
  json out = json::array();
  for (const iceberg::Snapshot& s : md.snapshots) out.push_back(SnapshotJson(s));
  if (a.catalog.json) return Print(out.dump(2) + "\n");
  std::string text;
  for (const iceberg::Snapshot& s : md.snapshots) {
    text +=
        fmt::format("{}  seq {}  {}  {}  parent {}\n", s.snapshot_id, s.sequence_number,
                    col::FormatTimestamp(s.timestamp_ms, col::TimeUnit::kMilli, true), s.operation,
                    s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "-");
  }
  return Print(text);
}

Status History(const InspectArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  const iceberg::TableMetadata& md = *l.table->metadata();
  std::set<int64_t> ancestors;
  if (md.current_snapshot_id) {
    for (const iceberg::Snapshot* s : md.Ancestors(*md.current_snapshot_id))
      ancestors.insert(s->snapshot_id);
  }
  json out = json::array();
  std::string text;
  for (const iceberg::SnapshotLogEntry& e : md.snapshot_log) {
    bool current = ancestors.count(e.snapshot_id) > 0;
    out.push_back(json{{"made_current_at_ms", e.timestamp_ms},
                       {"snapshot_id", e.snapshot_id},
                       {"is_current_ancestor", current}});
    text +=
        fmt::format("{}  {}{}\n", col::FormatTimestamp(e.timestamp_ms, col::TimeUnit::kMilli, true),
                    e.snapshot_id, current ? "" : "  (rolled back)");
  }
  if (a.catalog.json) return Print(out.dump(2) + "\n");
  return Print(text);
}

Status Refs(const InspectArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  const iceberg::TableMetadata& md = *l.table->metadata();
  json out = json::array();
  std::string text;
  for (const auto& [name, ref] : md.refs) {
    json j{{"name", name},
           {"type", ref.is_branch() ? "branch" : "tag"},
           {"snapshot_id", ref.snapshot_id}};
    if (ref.min_snapshots_to_keep) j["min_snapshots_to_keep"] = *ref.min_snapshots_to_keep;
    if (ref.max_snapshot_age_ms) j["max_snapshot_age_ms"] = *ref.max_snapshot_age_ms;
    if (ref.max_ref_age_ms) j["max_ref_age_ms"] = *ref.max_ref_age_ms;
    out.push_back(j);
    text +=
        fmt::format("{:<20} {:<6} {}\n", name, ref.is_branch() ? "branch" : "tag", ref.snapshot_id);
  }
  if (a.catalog.json) return Print(out.dump(2) + "\n");
  return Print(text);
}

// ---- snapshot management

struct ExpireArgs {
  CatalogFlags catalog;
  std::string table;
  std::string older_than;
  std::optional<int32_t> retain_last;
};

Status Expire(const ExpireArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  std::unique_ptr<iceberg::ExpireSnapshots> expire = l.table->NewExpireSnapshots();
  if (!a.older_than.empty()) {
    FLOE_ASSIGN_OR_RETURN(int64_t ms, ParseTimeMs(a.older_than));
    expire->ExpireOlderThan(ms);
  }
  if (a.retain_last) expire->RetainLast(*a.retain_last);
  FLOE_RETURN_IF_ERROR(expire->Commit());
  const iceberg::ExpireSnapshotsResult& r = expire->result();
  return PrintCommitted(*l.table, a.catalog,
                        json{{"expired_snapshots", r.expired_snapshot_ids.size()},
                             {"deleted_data_files", r.deleted_data_files},
                             {"deleted_position_delete_files", r.deleted_position_delete_files},
                             {"deleted_equality_delete_files", r.deleted_equality_delete_files},
                             {"deleted_manifests", r.deleted_manifests},
                             {"deleted_manifest_lists", r.deleted_manifest_lists},
                             {"deleted_statistics_files", r.deleted_statistics_files}});
}

struct RollbackArgs {
  CatalogFlags catalog;
  std::string table;
  int64_t snapshot_id = 0;
};

Status Rollback(const RollbackArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  std::unique_ptr<iceberg::ManageSnapshots> manage = l.table->NewManageSnapshots();
  manage->RollbackTo(a.snapshot_id);
  FLOE_RETURN_IF_ERROR(manage->Commit());
  return PrintCommitted(*l.table, a.catalog, json{{"rolled_back_to", a.snapshot_id}});
}

}  // namespace

void AddTableDataCommands(CLI::App* table, int* exit_code) {
  {
    auto a = std::make_shared<ScanArgs>();
    auto* c = table->add_subcommand("scan", "Read the table's live rows");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("--where", a->where, "Row filter (docs/predicates.md)");
    c->add_option("--columns", a->columns, "Columns to return (default: all)")->delimiter(',');
    c->add_option("--snapshot", a->snapshot_id, "Read this snapshot");
    c->add_option("--as-of", a->as_of, "Read the snapshot current at this time (ISO or ms)");
    c->add_option("--ref", a->ref, "Read this branch or tag");
    c->add_option("--limit", a->limit, "Return at most N rows");
    c->add_option("--format", a->format, "jsonl (default), csv or parquet");
    c->add_option("--codec", a->codec,
                  "Parquet output compression: zstd (default), snappy, gzip, lz4, none");
    c->add_option("--output", a->output, "Write to FILE instead of standard output");
    SetCommand(c, exit_code, [a] { return Scan(*a).WithContext("{}", a->table); });
  }
  {
    auto a = std::make_shared<WriteArgs>();
    auto* c = table->add_subcommand("append", "Append rows from Parquet, JSON Lines or CSV files");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("files", a->files, "Input files (.parquet, .jsonl, .csv)")->required();
    SetCommand(c, exit_code, [a] { return Append(*a).WithContext("{}", a->table); });
  }
  {
    auto a = std::make_shared<WriteArgs>();
    auto* c = table->add_subcommand(
        "delete", "Delete rows (merge-on-read: position deletes on v2, deletion vectors on v3)");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("--where", a->where, "Rows to delete (docs/predicates.md)")->required();
    SetCommand(c, exit_code, [a] { return Delete(*a).WithContext("{}", a->table); });
  }
  {
    auto a = std::make_shared<WriteArgs>();
    auto* c = table->add_subcommand(
        "upsert", "Insert rows replacing those with the same key (equality deletes + inserts)");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("files", a->files, "Input files (.parquet, .jsonl, .csv)")->required();
    c->add_option("--key", a->key, "Key columns (default: the identifier fields)")->delimiter(',');
    SetCommand(c, exit_code, [a] { return Upsert(*a).WithContext("{}", a->table); });
  }
  for (const char* what : {"files", "snapshots", "history", "refs"}) {
    auto a = std::make_shared<InspectArgs>();
    std::string name = what;
    auto* c =
        table->add_subcommand(name, name == "files" ? "List the data and delete files of a snapshot"
                                    : name == "snapshots" ? "List the snapshots"
                                    : name == "history"   ? "Show when each snapshot became current"
                                                          : "List branches and tags");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    if (name == "files") c->add_option("--snapshot", a->snapshot_id, "Snapshot (default: current)");
    SetCommand(c, exit_code, [a, name] {
      Status st = name == "files"       ? Files(*a)
                  : name == "snapshots" ? Snapshots(*a)
                  : name == "history"   ? History(*a)
                                        : Refs(*a);
      return st.WithContext("{}", a->table);
    });
  }
  {
    auto a = std::make_shared<ExpireArgs>();
    auto* c = table->add_subcommand("expire-snapshots",
                                    "Expire old snapshots and delete unreachable files");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("--older-than", a->older_than,
                  "Expire snapshots older than this time (ISO or ms)");
    c->add_option("--retain-last", a->retain_last, "Keep at least the last N snapshots");
    SetCommand(c, exit_code, [a] { return Expire(*a).WithContext("{}", a->table); });
  }
  {
    auto a = std::make_shared<RollbackArgs>();
    auto* c = table->add_subcommand("rollback", "Make an earlier snapshot current again");
    AddCatalogFlags(c, &a->catalog);
    c->add_option("table", a->table, "NS.TABLE")->required();
    c->add_option("snapshot", a->snapshot_id, "Snapshot id (an ancestor of the current one)")
        ->required();
    SetCommand(c, exit_code, [a] { return Rollback(*a).WithContext("{}", a->table); });
  }
}

}  // namespace floe::exe

// `floe table scan|append|delete|upsert|files|snapshots|history|refs|expire-snapshots|
// rollback`: the data commands of `floe table` (docs/cli.md). Reading is iceberg/scan.h,
// writing iceberg/data_writer.h, deletes and upserts iceberg/row_level_ops.h, committing
// iceberg/table.h; this file parses flags, moves batches between them and prints.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/value_format.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/exe/progress.h"
#include "floe/exe/table_output.h"
#include "floe/format/text/reader.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/row_level_ops.h"
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

// ---- delete (merge-on-read) and upsert: iceberg/row_level_ops.h

Status Delete(const WriteArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::Table& table = *l.table;
  if (a.where.empty()) return Status::InvalidArgument("--where is required");
  FLOE_ASSIGN_OR_RETURN(iceberg::ExpressionPtr filter, iceberg::ParseExpression(a.where));
  ProgressBar progress;
  bool drawing = false;
  FLOE_ASSIGN_OR_RETURN(
      iceberg::DeleteWhereResult deleted,
      iceberg::DeleteWhere(table, std::move(filter), [&](int64_t opened, int64_t total) {
        if (!std::exchange(drawing, true)) {
          progress = ProgressBar::OnTerminal("delete: scanning", total, "files");
        }
        progress.Update(opened);
      }));
  if (deleted.delete_files == 0) {
    return PrintCommitted(table, a.catalog, json{{"deleted_rows", 0}});
  }
  return PrintCommitted(
      table, a.catalog,
      json{{"deleted_rows", deleted.deleted_rows},
           {"delete_files", deleted.delete_files},
           {"kind", deleted.deletion_vectors ? "deletion-vectors" : "position-deletes"}});
}

Status Upsert(const WriteArgs& a) {
  FLOE_ASSIGN_OR_RETURN(Loaded l, LoadTable(a.catalog, a.table));
  iceberg::Table& table = *l.table;
  FLOE_ASSIGN_OR_RETURN(auto upsert, iceberg::TableUpsert::Make(&table, a.key));
  {
    ProgressBar progress =
        ProgressBar::OnTerminal("upsert: reading", static_cast<int64_t>(a.files.size()), "files");
    int64_t rows_read = 0;
    for (size_t i = 0; i < a.files.size(); ++i) {
      FLOE_RETURN_IF_ERROR(
          ReadInput(table.io(), a.files[i], upsert->schema(), [&](col::RecordBatch b) {
            rows_read += b.num_rows();
            progress.Update(static_cast<int64_t>(i), rows_read);
            return upsert->Add(std::move(b));
          }));
      progress.Update(static_cast<int64_t>(i + 1), rows_read);
    }
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::UpsertResult upserted, upsert->Commit());
  return PrintCommitted(table, a.catalog,
                        json{{"upserted_rows", upserted.upserted_rows},
                             {"data_files", upserted.data_files},
                             {"equality_delete_files", upserted.equality_delete_files}});
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

// `floe iceberg scan METADATA_FILE`: scans a table straight from a metadata file, without a
// catalog (for looking at tables written by other engines, and for tests). The catalog-
// based `floe table scan` shares the reading and output code.
#include <memory>
#include <string>

#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/exe/table_output.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::exe {

namespace {

struct ScanArgs {
  std::string metadata;
  std::string where;
  std::vector<std::string> columns;
  std::optional<int64_t> snapshot_id;
  std::optional<std::string> ref;
  std::optional<int64_t> as_of_ms;
  std::optional<int64_t> limit;
  std::string format;
  std::string codec;
  std::string output;
  FileIOFlags io;
};

Status Scan(const ScanArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata md, iceberg::ReadTableMetadata(io, a.metadata));
  iceberg::ScanOptions options;
  options.snapshot_id = a.snapshot_id;
  options.ref = a.ref;
  options.as_of_timestamp_ms = a.as_of_ms;
  options.columns = a.columns;
  options.limit = a.limit;
  if (!a.where.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.filter, iceberg::ParseExpression(a.where));
  }
  auto metadata = std::make_shared<const iceberg::TableMetadata>(std::move(md));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<iceberg::TableScan> scan,
                        iceberg::TableScan::Make(metadata, io, std::move(options)));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(std::move(tasks)));
  FLOE_ASSIGN_OR_RETURN(
      std::unique_ptr<RowSink> sink,
      OpenRowSink(io, a.format, a.output, scan->projected_schema()->ToColumnar(), a.codec));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> batch, reader->Next());
    if (!batch) break;
    FLOE_RETURN_IF_ERROR(sink->Write(*batch));
  }
  return sink->Close();
}

}  // namespace

void AddIcebergScanCommand(CLI::App* iceberg, int* exit_code) {
  auto a = std::make_shared<ScanArgs>();
  auto* scan = iceberg->add_subcommand(
      "scan", "Read the live rows of a table from its metadata file (deletes applied)");
  scan->add_option("metadata", a->metadata, "Table metadata file")->required();
  scan->add_option("--where", a->where, "Row filter (docs/predicates.md)");
  scan->add_option("--columns", a->columns, "Columns to return (default: all)")->delimiter(',');
  scan->add_option("--snapshot", a->snapshot_id, "Snapshot id to read");
  scan->add_option("--ref", a->ref, "Branch or tag to read");
  scan->add_option("--as-of-ms", a->as_of_ms, "Read the snapshot current at this time (ms)");
  scan->add_option("--limit", a->limit, "Return at most N rows");
  scan->add_option("--format", a->format, "jsonl (default), csv or parquet");
  scan->add_option("--codec", a->codec,
                   "Parquet output compression: zstd (default), snappy, gzip, lz4, none");
  scan->add_option("--output", a->output, "Write to FILE instead of standard output");
  AddFileIOFlags(scan, &a->io);
  SetCommand(scan, exit_code, [a]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(a->io));
    FLOE_RETURN_IF_ERROR(Scan(*a, *fio.io).WithContext("{}", a->metadata));
    fio.PrintStats(a->io);
    return Status::OK();
  });
}

}  // namespace floe::exe

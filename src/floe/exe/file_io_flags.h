// The FileIO of the file commands (`floe parquet|avro|puffin|storage|iceberg …`): FILE arguments
// may be local paths or s3:// / s3a:// locations, the latter reached through an S3FileIO set up
// like a catalog's (docs/storage.md): `--property KEY=VALUE` (s3.endpoint, s3.region,
// s3.access-key-id, ...; also spelled --catalog-property) and the AWS_* environment.
// `--stats` prints the S3 requests the command sent, per operation, with the bytes moved.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/base/status.h"
#include "floe/io/file_io.h"
#include "floe/io/s3/s3_metrics.h"

namespace floe::exe {

struct FileIOFlags {
  std::vector<std::string> properties;  // KEY=VALUE
  bool stats = false;
};

void AddFileIOFlags(CLI::App* command, FileIOFlags* flags);

struct CommandFileIO {
  std::unique_ptr<io::FileIO> io;  // s3:// and s3a:// to S3, everything else local
  std::shared_ptr<io::s3::S3Metrics> metrics;

  // With --stats: one JSON line on stderr, the S3 request counts (get, head, put, list,
  // delete, multipart, retries, errors; `operations` by S3 operation name) and bytes_read /
  // bytes_written.
  void PrintStats(const FileIOFlags& flags) const;
};

// The figures --stats prints, summed over catalogs and buckets.
nlohmann::json S3StatsJson(const io::s3::S3Metrics& metrics);

// Errors: kInvalidArgument (a property without '=', bad s3.* values). Sends no request.
Result<CommandFileIO> MakeCommandFileIO(const FileIOFlags& flags);

// Runs `fn(io::FileIO&)` with the FileIO of `flags`, then (after success) prints --stats.
template <typename Fn>
Status RunWithFileIO(const FileIOFlags& flags, Fn&& fn) {
  FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(flags));
  FLOE_RETURN_IF_ERROR(fn(*fio.io));
  fio.PrintStats(flags);
  return Status::OK();
}

}  // namespace floe::exe

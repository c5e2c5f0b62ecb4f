#include "floe/exe/file_io_flags.h"

#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/exe/catalog_flags.h"
#include "floe/io/s3/make_file_io.h"

namespace floe::exe {

void AddFileIOFlags(CLI::App* command, FileIOFlags* flags) {
  command->add_option("--property,--catalog-property", flags->properties,
                      "FileIO property KEY=VALUE, repeatable (s3.endpoint, s3.region, ...)");
  command->add_flag("--stats", flags->stats,
                    "Print the S3 requests sent, per operation, and the bytes moved to stderr");
}

Result<CommandFileIO> MakeCommandFileIO(const FileIOFlags& flags) {
  CommandFileIO out;
  FLOE_ASSIGN_OR_RETURN(auto properties, ParseProperties(flags.properties));
  out.metrics = std::make_shared<io::s3::S3Metrics>();
  FLOE_ASSIGN_OR_RETURN(out.io,
                        io::s3::MakeFileIO(
                            properties, [](const char* n) { return std::getenv(n); }, out.metrics));
  return out;
}

nlohmann::json S3StatsJson(const io::s3::S3Metrics& metrics) {
  using io::s3::S3Operation;
  const io::s3::S3TrafficCounts c = metrics.Total();
  auto n = [&](std::initializer_list<S3Operation> ops) {
    int64_t sum = 0;
    for (S3Operation op : ops) sum += c.of(op).requests;
    return sum;
  };
  nlohmann::json operations = nlohmann::json::object();
  for (size_t i = 0; i < io::s3::kS3OperationCount; ++i) {
    const auto op = static_cast<S3Operation>(i);
    if (c.of(op).requests > 0) operations[std::string(S3OperationName(op))] = c.of(op).requests;
  }
  const io::s3::S3OperationCounts total = c.Total();
  return {
      {"get", n({S3Operation::kGetObject, S3Operation::kGetObjectRange})},
      {"head", n({S3Operation::kHeadObject})},
      {"put", n({S3Operation::kPutObject})},
      {"list", n({S3Operation::kListObjectsV2})},
      {"delete", n({S3Operation::kDeleteObject, S3Operation::kDeleteObjects})},
      {"multipart", n({S3Operation::kCreateMultipartUpload, S3Operation::kUploadPart,
                       S3Operation::kCompleteMultipartUpload, S3Operation::kAbortMultipartUpload})},
      {"requests", total.requests},
      {"retries", total.retries},
      {"errors", total.errors},
      {"bytes_read", c.bytes_read},
      {"bytes_written", c.bytes_written},
      {"operations", operations}};
}

void CommandFileIO::PrintStats(const FileIOFlags& flags) const {
  if (!flags.stats || !metrics) return;
  std::cerr << S3StatsJson(*metrics).dump() << "\n";
}

}  // namespace floe::exe

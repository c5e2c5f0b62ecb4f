// `floe storage ls|rm|cat|put`: object storage and local files through floe's own FileIO,
// configured like a catalog's (--property s3.*=..., AWS_* environment). For operators
// checking a warehouse, and for the S3 interop tests (pagination, batch deletes, request
// counts).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/io/local_file_io.h"
#include "floe/io/s3/make_file_io.h"
#include "floe/io/s3/s3_file_io.h"

namespace floe::exe {

namespace {

struct StorageArgs {
  std::vector<std::string> locations;
  std::vector<std::string> properties;
  std::string input;  // put: a local file
  bool stats = false;
};

// The FileIO for `location`: an S3FileIO (whose request counts --stats prints) or local.
struct Opened {
  std::unique_ptr<io::FileIO> io;
  io::s3::S3FileIO* s3 = nullptr;
};

Result<Opened> OpenFor(std::string_view location, const StorageArgs& a) {
  Opened out;
  if (!io::s3::IsS3Location(location)) {
    out.io = std::make_unique<io::LocalFileIO>();
    return out;
  }
  FLOE_ASSIGN_OR_RETURN(auto properties, ParseProperties(a.properties));
  FLOE_ASSIGN_OR_RETURN(io::s3::S3Options options,
                        io::s3::S3Options::FromProperties(
                            properties, [](const char* n) { return std::getenv(n); }));
  FLOE_ASSIGN_OR_RETURN(auto s3, io::s3::S3FileIO::Make(std::move(options)));
  out.s3 = s3.get();
  out.io = std::move(s3);
  return out;
}

void PrintStats(const Opened& opened, const StorageArgs& a) {
  if (!a.stats || opened.s3 == nullptr) return;
  io::s3::S3RequestCounts c = opened.s3->request_counts();
  nlohmann::json j = {{"get", c.get},   {"head", c.head},           {"put", c.put},
                      {"list", c.list}, {"delete", c.delete_},      {"multipart", c.multipart},
                      {"retries", c.retries}};
  std::cerr << j.dump() << "\n";
}

void AddCommon(CLI::App* c, StorageArgs* a) {
  c->add_option("--property,--catalog-property", a->properties,
                "FileIO property KEY=VALUE, repeatable (s3.endpoint, s3.region, ...)");
  c->add_flag("--stats", a->stats, "Print the S3 requests sent, per operation, to stderr");
}

}  // namespace

void AddStorageCommands(CLI::App& app, int* exit_code) {
  auto* storage = app.add_subcommand("storage", "Files and objects through floe's FileIO");
  storage->require_subcommand(1);
  {
    auto a = std::make_shared<StorageArgs>();
    auto* c = storage->add_subcommand("ls", "List files under a prefix (JSON lines)");
    c->add_option("prefix", a->locations, "Location prefix (s3://bucket/path/, /dir/)")
        ->required()
        ->expected(1);
    AddCommon(c, a.get());
    SetCommand(c, exit_code, [a]() -> Status {
      FLOE_ASSIGN_OR_RETURN(Opened opened, OpenFor(a->locations[0], *a));
      FLOE_ASSIGN_OR_RETURN(auto files, opened.io->List(a->locations[0]));
      for (const io::FileInfo& f : files) {
        std::cout << nlohmann::json{{"location", f.location},
                                    {"size", f.size},
                                    {"modified_ms", f.modified_ms}}
                         .dump()
                  << "\n";
      }
      PrintStats(opened, *a);
      return Status::OK();
    });
  }
  {
    auto a = std::make_shared<StorageArgs>();
    auto* c = storage->add_subcommand("rm", "Delete files (batched on object stores)");
    c->add_option("locations", a->locations, "Locations; '-' reads them from stdin, one a line")
        ->required();
    AddCommon(c, a.get());
    SetCommand(c, exit_code, [a]() -> Status {
      std::vector<std::string> locations;
      for (const std::string& l : a->locations) {
        if (l != "-") {
          locations.push_back(l);
          continue;
        }
        for (std::string line; std::getline(std::cin, line);) {
          if (!line.empty()) locations.push_back(line);
        }
      }
      if (locations.empty()) return Status::OK();
      FLOE_ASSIGN_OR_RETURN(Opened opened, OpenFor(locations[0], *a));
      Status s = opened.io->DeleteFiles(locations);
      PrintStats(opened, *a);
      return s;
    });
  }
  {
    auto a = std::make_shared<StorageArgs>();
    auto* c = storage->add_subcommand("cat", "Write a file's bytes to stdout");
    c->add_option("location", a->locations, "Location")->required()->expected(1);
    AddCommon(c, a.get());
    SetCommand(c, exit_code, [a]() -> Status {
      FLOE_ASSIGN_OR_RETURN(Opened opened, OpenFor(a->locations[0], *a));
      FLOE_ASSIGN_OR_RETURN(Buffer bytes, opened.io->ReadFile(a->locations[0]));
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
      std::fflush(stdout);
      PrintStats(opened, *a);
      return Status::OK();
    });
  }
  {
    auto a = std::make_shared<StorageArgs>();
    auto* c = storage->add_subcommand("put", "Copy a local file to a location (replacing it)");
    c->add_option("input", a->input, "Local file")->required();
    c->add_option("location", a->locations, "Destination")->required()->expected(1);
    AddCommon(c, a.get());
    SetCommand(c, exit_code, [a]() -> Status {
      FLOE_ASSIGN_OR_RETURN(Opened opened, OpenFor(a->locations[0], *a));
      FLOE_ASSIGN_OR_RETURN(auto in, io::LocalFileIO().OpenInput(a->input));
      FLOE_ASSIGN_OR_RETURN(auto out, opened.io->CreateOutput(a->locations[0], true));
      // Streamed in 1 MiB reads: the output sends parts as they fill.
      constexpr uint64_t kChunk = 1 << 20;
      for (uint64_t at = 0; at < in->size(); at += kChunk) {
        FLOE_ASSIGN_OR_RETURN(Buffer chunk, in->Read(at, std::min(kChunk, in->size() - at)));
        FLOE_RETURN_IF_ERROR(out->Write(chunk.data(), chunk.size()));
      }
      FLOE_RETURN_IF_ERROR(out->Close());
      PrintStats(opened, *a);
      return Status::OK();
    });
  }
}

}  // namespace floe::exe

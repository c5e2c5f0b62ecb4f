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
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/io/local_file_io.h"

namespace floe::exe {

namespace {

struct StorageArgs {
  std::vector<std::string> locations;
  std::string input;  // put: a local file
  FileIOFlags io;
};

void AddCommon(CLI::App* c, StorageArgs* a) { AddFileIOFlags(c, &a->io); }

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
      FLOE_ASSIGN_OR_RETURN(CommandFileIO opened, MakeCommandFileIO(a->io));
      FLOE_ASSIGN_OR_RETURN(auto files, opened.io->List(a->locations[0]));
      for (const io::FileInfo& f : files) {
        std::cout << nlohmann::json{{"location", f.location},
                                    {"size", f.size},
                                    {"modified_ms", f.modified_ms}}
                         .dump()
                  << "\n";
      }
      opened.PrintStats(a->io);
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
      FLOE_ASSIGN_OR_RETURN(CommandFileIO opened, MakeCommandFileIO(a->io));
      Status s = opened.io->DeleteFiles(locations);
      opened.PrintStats(a->io);
      return s;
    });
  }
  {
    auto a = std::make_shared<StorageArgs>();
    auto* c = storage->add_subcommand("cat", "Write a file's bytes to stdout");
    c->add_option("location", a->locations, "Location")->required()->expected(1);
    AddCommon(c, a.get());
    SetCommand(c, exit_code, [a]() -> Status {
      FLOE_ASSIGN_OR_RETURN(CommandFileIO opened, MakeCommandFileIO(a->io));
      FLOE_ASSIGN_OR_RETURN(Buffer bytes, opened.io->ReadFile(a->locations[0]));
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
      std::fflush(stdout);
      opened.PrintStats(a->io);
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
      FLOE_ASSIGN_OR_RETURN(CommandFileIO opened, MakeCommandFileIO(a->io));
      FLOE_ASSIGN_OR_RETURN(auto in, io::LocalFileIO().OpenInput(a->input));
      FLOE_ASSIGN_OR_RETURN(auto out, opened.io->CreateOutput(a->locations[0], true));
      // Streamed in 1 MiB reads: the output sends parts as they fill.
      constexpr uint64_t kChunk = 1 << 20;
      for (uint64_t at = 0; at < in->size(); at += kChunk) {
        FLOE_ASSIGN_OR_RETURN(Buffer chunk, in->Read(at, std::min(kChunk, in->size() - at)));
        FLOE_RETURN_IF_ERROR(out->Write(chunk.data(), chunk.size()));
      }
      FLOE_RETURN_IF_ERROR(out->Close());
      opened.PrintStats(a->io);
      return Status::OK();
    });
  }
}

}  // namespace floe::exe

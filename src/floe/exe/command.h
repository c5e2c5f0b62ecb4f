// Subcommand registration for the floe binary. Each command group lives in its own
// file (parquet_command.cc, avro_command.cc, ...) and adds itself to the CLI11 app;
// main() only dispatches. Commands report errors through Status; RunCommand turns a
// Status into the documented exit code (docs/cli.md) and a message on stderr.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "floe/base/status.h"

namespace floe::exe {

// Exit codes of every floe command (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,        // the operation failed (I/O, internal)
  kExitUsage = 2,        // bad flags or arguments
  kExitNotFound = 3,     // a named file, table or object does not exist
  kExitCorrupt = 4,      // input bytes are malformed
  kExitUnsupported = 5,  // valid input using something floe does not implement
};

int ExitCodeFor(const Status& status);

// Wraps a command body: runs it after parsing and records its exit code in *exit_code.
void SetCommand(CLI::App* command, int* exit_code, std::function<Status()> body);

void AddParquetCommands(CLI::App& app, int* exit_code);
void AddAvroCommands(CLI::App& app, int* exit_code);
void AddIcebergCommands(CLI::App& app, int* exit_code);
// `floe iceberg metadata` (iceberg_metadata_command.cc), added under `floe iceberg`.
void AddIcebergMetadataCommand(CLI::App* iceberg, int* exit_code);
// `floe iceberg scan` (iceberg_scan_command.cc).
void AddIcebergScanCommand(CLI::App* iceberg, int* exit_code);
// `floe iceberg commit-test` (iceberg_commit_command.cc).
void AddIcebergCommitTestCommand(CLI::App* iceberg, int* exit_code);
void AddPuffinCommands(CLI::App& app, int* exit_code);
void AddTextCommands(CLI::App& app, int* exit_code);
// `floe namespace ...` and `floe table ...` (table_command.cc).
void AddTableCommands(CLI::App& app, int* exit_code);
// `floe server` and `floe catalog ...` (server_command.cc).
void AddServerCommands(CLI::App& app, int* exit_code);
// `floe optimize` (optimize_command.cc).
void AddOptimizeCommands(CLI::App& app, int* exit_code);
// `floe status`, `floe optimizer list`, `floe table health` through a server's management
// API (manage_command.cc); after AddTableCommands.
void AddManageCommands(CLI::App& app, int* exit_code);
// `floe optimizer` without a subcommand (a standalone worker) and `floe group ...`
// (optimizer_command.cc); after AddManageCommands.
void AddOptimizerWorkerCommand(CLI::App& app, int* exit_code);
// `floe storage ls|rm|cat|put` (storage_command.cc).
void AddStorageCommands(CLI::App& app, int* exit_code);
// `floe auth scram-credential` (auth_command.cc).
void AddAuthCommands(CLI::App& app, int* exit_code);

}  // namespace floe::exe

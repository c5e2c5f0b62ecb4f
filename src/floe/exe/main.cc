// floe: one binary, many subcommands. This file only dispatches; each command group
// registers itself (command.h) and its work lives in its layer.
#include <CLI/CLI.hpp>

#include "floe/exe/command.h"

int main(int argc, char** argv) {
  CLI::App app{"floe: a lakehouse management system for Apache Iceberg"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe 0.1.0");
  int exit_code = floe::exe::kExitOk;
  floe::exe::AddParquetCommands(app, &exit_code);
  floe::exe::AddAvroCommands(app, &exit_code);
  floe::exe::AddIcebergCommands(app, &exit_code);
  floe::exe::AddPuffinCommands(app, &exit_code);
  floe::exe::AddTextCommands(app, &exit_code);
  floe::exe::AddTableCommands(app, &exit_code);
  floe::exe::AddServerCommands(app, &exit_code);
  floe::exe::AddOptimizeCommands(app, &exit_code);
  floe::exe::AddManageCommands(app, &exit_code);
  floe::exe::AddOptimizerWorkerCommand(app, &exit_code);
  floe::exe::AddStorageCommands(app, &exit_code);
  floe::exe::AddAuthCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : floe::exe::kExitUsage;
  }
  return exit_code;
}

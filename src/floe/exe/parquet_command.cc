// `floe parquet meta|schema|cat|rewrite`.
#include "floe/exe/command.h"

namespace floe::exe {

void AddParquetCommands(CLI::App& app, int* exit_code) {
  auto* parquet = app.add_subcommand("parquet", "Inspect and rewrite Parquet files");
  parquet->require_subcommand(1);
}

}  // namespace floe::exe

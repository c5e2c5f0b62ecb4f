// Flags shared by the catalog commands (`floe namespace …`, `floe table …`): --catalog URI
// (env FLOE_CATALOG), --warehouse, --catalog-name, --json.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/base/status.h"
#include "floe/catalog/catalog.h"
#include "floe/io/s3/s3_metrics.h"

namespace floe::exe {

struct CatalogFlags {
  std::string uri;
  std::string warehouse;
  std::string name = "default";
  // KEY=VALUE catalog properties: the FileIO's s3.* settings (docs/storage.md).
  std::vector<std::string> properties;
  bool json = false;
};

void AddCatalogFlags(CLI::App* command, CatalogFlags* flags);
// KEY=VALUE arguments to a map (kInvalidArgument for one without '=').
Result<std::map<std::string, std::string>> ParseProperties(const std::vector<std::string>& pairs);
// S3 requests of the catalog's FileIO are counted in `s3_metrics` when not null.
Result<std::unique_ptr<catalog::Catalog>> OpenFromFlags(
    const CatalogFlags& flags, std::shared_ptr<io::s3::S3Metrics> s3_metrics = nullptr);

// `floe table scan|append|delete|upsert|files|snapshots|history|refs|expire-snapshots|
// rollback` (table_data_command.cc), added under `floe table`.
void AddTableDataCommands(CLI::App* table, int* exit_code);

}  // namespace floe::exe

// `floe optimize NS.T`: one self-optimizing run of a table, in this process, against a
// catalog (optimize/rewrite.h OptimizeTable): plan with the table's self-optimizing.*
// properties, rewrite, commit. With --mode the triggers are skipped (a manual run).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "floe/catalog/catalog.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/rewrite.h"

namespace floe::exe {

namespace {

struct OptimizeArgs {
  CatalogFlags catalog;
  std::string table;
  std::string mode;
};

Result<std::optional<optimize::OptimizingType>> ParseMode(const std::string& mode) {
  if (mode.empty()) return std::optional<optimize::OptimizingType>();
  if (mode == "minor") return std::optional(optimize::OptimizingType::kMinor);
  if (mode == "major") return std::optional(optimize::OptimizingType::kMajor);
  if (mode == "full") return std::optional(optimize::OptimizingType::kFull);
  return Status::InvalidArgument("--mode must be minor, major or full, not '{}'", mode);
}

Status Optimize(const OptimizeArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto forced, ParseMode(a.mode));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> cat, OpenFromFlags(a.catalog));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(a.table));
  FLOE_ASSIGN_OR_RETURN(auto ops, cat->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));

  optimize::PlanOptions options;
  options.now_ms = table->operations().env().NowMillis();
  options.forced = forced;
  // History lives in the server's metastore; a run from the CLI sees none, so the
  // interval triggers count as reached.
  auto started = std::chrono::steady_clock::now();
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizeResult r, optimize::OptimizeTable(*table, options));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const optimize::PlanCounts counts = optimize::CountPlan(r.plan);
  nlohmann::ordered_json out;
  out["table"] = a.table;
  out["type"] = r.plan.type ? nlohmann::ordered_json(optimize::OptimizingTypeName(*r.plan.type))
                            : nlohmann::ordered_json(nullptr);
  out["tasks"] = r.plan.tasks.size();
  out["rewritten_data_files"] = counts.rewritten_data_files;
  out["converted_data_files"] = counts.converted_data_files;
  out["removed_delete_files"] = counts.removed_delete_files;
  out["new_data_files"] = r.totals.data_files.size();
  out["new_delete_files"] = r.totals.delete_files.size();
  out["rows_rewritten"] = r.totals.rows_read;
  out["bytes_written"] = r.totals.bytes_written;
  out["planned_snapshot_id"] = r.planned_snapshot_id ? nlohmann::ordered_json(*r.planned_snapshot_id)
                                                     : nlohmann::ordered_json(nullptr);
  out["snapshot_id"] = r.committed_snapshot_id ? nlohmann::ordered_json(*r.committed_snapshot_id)
                                               : nlohmann::ordered_json(nullptr);
  out["seconds"] = seconds;
  nlohmann::ordered_json partitions = nlohmann::ordered_json::array();
  for (const optimize::PartitionEvaluation& p : r.plan.partitions) {
    if (!p.necessary && !a.catalog.json) continue;
    partitions.push_back({{"partition", p.key},
                          {"necessary", p.necessary},
                          {"type", optimize::OptimizingTypeName(p.type)},
                          {"reason", p.reason},
                          {"health", p.health.total()}});
  }
  out["partitions"] = partitions;
  std::string text;
  if (a.catalog.json) {
    text = out.dump(2) + "\n";
  } else {
    for (auto it = out.begin(); it != out.end(); ++it) {
      if (it.key() == "partitions") continue;
      text += it.key() + ": " + it.value().dump() + "\n";
    }
    for (const auto& p : partitions) {
      text += "partition " + p["partition"].get<std::string>() + ": " +
              p["reason"].get<std::string>() + "\n";
    }
  }
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

}  // namespace

void AddOptimizeCommands(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<OptimizeArgs>();
  auto* c = app.add_subcommand(
      "optimize", "Optimize a table now, in this process: compact small files, convert "
                  "equality deletes to position deletes / deletion vectors");
  AddCatalogFlags(c, &a->catalog);
  c->add_option("table", a->table, "NS.TABLE")->required();
  c->add_option("--mode", a->mode,
                "minor, major or full: run that optimizing even if no trigger is reached "
                "(default: only what the table's self-optimizing properties call for)");
  SetCommand(c, exit_code, [a] { return Optimize(*a).WithContext("{}", a->table); });
}

}  // namespace floe::exe

// `floe optimize NS.T`: one self-optimizing run of a table, in this process, against a
// catalog (optimize/rewrite.h OptimizeTable): plan with the table's self-optimizing.*
// properties, rewrite, commit. With --mode the triggers are skipped (a manual run).
// With --server the run is queued on a floe server instead (its management API), where the
// table's optimizer group runs it; --wait waits for its process and prints it.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <thread>

#include <fmt/format.h>

#include "floe/base/json.h"
#include "floe/catalog/catalog.h"
#include "floe/exe/api_client.h"
#include "floe/exe/catalog_flags.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/http/http.h"
#include "floe/http/http_client.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/rewrite.h"

namespace floe::exe {

namespace {

struct OptimizeArgs {
  CatalogFlags catalog;
  std::string table;
  std::string mode;
  std::string server;  // non-empty: through this server
  std::string token;
  bool wait = false;
  int64_t wait_timeout_s = 3600;
  int64_t memory_mb = 0;
  std::string spill_dir;
  int threads = 1;
};

using OJson = nlohmann::ordered_json;

Result<std::pair<int, OJson>> Call(http::HttpClient& client, const OptimizeArgs& a,
                                   const std::string& method, const std::string& path,
                                   const std::string& body) {
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                        SendApiRequest(client, a.server, a.token, method, path, body));
  if (response.status >= 300) return ApiError(response, fmt::format("{} {}", method, path));
  return std::pair{response.status, ParseOrderedJson(response.body, kMaxStoredJsonDepth)
                                        .value_or(OJson(OJson::value_t::discarded))};
}

// Queues the run on the server; with --wait, waits for the process the run started (or
// for the evaluation that found nothing to do) and prints it.
Status OptimizeOnServer(const OptimizeArgs& a) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(a.table));
  FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
  const std::string table_path =
      fmt::format("/catalogs/{}/namespaces/{}/tables/{}", http::PercentEncode(a.catalog.name),
                  http::PercentEncode(id.ns.ToString()), http::PercentEncode(id.name));
  const std::string processes_path = table_path + "/optimizing-processes?page-size=1";
  int64_t before = 0;
  if (a.wait) {
    FLOE_ASSIGN_OR_RETURN(auto listed, Call(*client, a, "GET", processes_path, ""));
    if (!listed.second["items"].empty()) {
      before = listed.second["items"][0].value("process-id", int64_t{0});
    }
  }
  OJson body = OJson::object();
  if (!a.mode.empty()) body["mode"] = a.mode;
  FLOE_ASSIGN_OR_RETURN(auto queued,
                        Call(*client, a, "POST", table_path + "/optimize", body.dump()));
  std::string text;
  if (!a.wait) {
    text = a.catalog.json ? queued.second.dump(2) + "\n"
                          : fmt::format("queued {} on the server\n", a.table);
  } else {
    const int64_t queued_at = queued.second.value("queued-at-ms", int64_t{0});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(a.wait_timeout_s);
    OJson result;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto listed, Call(*client, a, "GET", processes_path, ""));
      if (!listed.second["items"].empty() &&
          listed.second["items"][0].value("process-id", int64_t{0}) > before) {
        const OJson& p = listed.second["items"][0];
        if (p.value("status", std::string()) != "running") {
          result = p;
          break;
        }
      } else {
        FLOE_ASSIGN_OR_RETURN(auto details,
                              Call(*client, a, "GET", table_path + "?health=false", ""));
        const OJson& o = details.second["optimizing"];
        if (o.value("updated-at-ms", int64_t{0}) >= queued_at &&
            o.value("status", std::string()) == "idle") {
          // Evaluated after the trigger, and no process: nothing to do (or paused).
          result = OJson{{"status", "nothing-to-do"},
                         {"status-reason", o.value("status-reason", std::string())}};
          break;
        }
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return Status::DeadlineExceeded("no result within {} s", a.wait_timeout_s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (a.catalog.json) {
      text = result.dump(2) + "\n";
    } else {
      for (auto it = result.begin(); it != result.end(); ++it) {
        text += it.key() + ": " + it.value().dump() + "\n";
      }
    }
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
      return Status::IOError("cannot write to standard output");
    }
    const std::string status = result.value("status", std::string());
    if (status == "failed" || status == "canceled") {
      return Status::FailedPrecondition("process {}: {}", status,
                                        result.value("error", std::string()));
    }
    return Status::OK();
  }
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

Result<std::optional<optimize::OptimizingType>> ParseMode(const std::string& mode) {
  if (mode.empty()) return std::optional<optimize::OptimizingType>();
  if (mode == "minor") return std::optional(optimize::OptimizingType::kMinor);
  if (mode == "major") return std::optional(optimize::OptimizingType::kMajor);
  if (mode == "full") return std::optional(optimize::OptimizingType::kFull);
  return Status::InvalidArgument("--mode must be minor, major or full, not '{}'", mode);
}

Status Optimize(const OptimizeArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto forced, ParseMode(a.mode));
  if (!a.server.empty()) return OptimizeOnServer(a);
  if (a.wait) return Status::InvalidArgument("--wait needs --server");
  // The run's S3 traffic (reads of the inputs, writes of the outputs and metadata), reported
  // with the result: object stores bill per request.
  auto s3_metrics = std::make_shared<io::s3::S3Metrics>();
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> cat,
                        OpenFromFlags(a.catalog, s3_metrics));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(a.table));
  FLOE_ASSIGN_OR_RETURN(auto ops, cat->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));

  optimize::PlanOptions options;
  options.now_ms = table->operations().env().NowMillis();
  options.forced = forced;
  options.available_threads = a.threads;
  // A manual run covers every partition that yields a task (docs/cli.md): the per-thread
  // input budget that spreads the service's work over processes does not cut it short.
  if (forced) options.max_input_size_per_thread = int64_t{1} << 50;
  // History lives in the server's metastore; a run from the CLI sees none, so the
  // interval triggers count as reached.
  auto started = std::chrono::steady_clock::now();
  optimize::ExecuteOptions execute;
  execute.memory_budget_bytes = a.memory_mb << 20;
  execute.spill_dir = a.spill_dir;
  // --threads tasks at once: this thread and an executor of the others.
  std::unique_ptr<Executor> executor;
  if (a.threads > 1) {
    FLOE_ASSIGN_OR_RETURN(executor, Executor::Make({.name = "optimize", .threads = a.threads - 1}));
    execute.executor = executor.get();
  }
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizeResult r,
                        optimize::OptimizeTable(*table, options, execute));
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
  out["planned_snapshot_id"] = r.planned_snapshot_id
                                   ? nlohmann::ordered_json(*r.planned_snapshot_id)
                                   : nlohmann::ordered_json(nullptr);
  out["snapshot_id"] = r.committed_snapshot_id ? nlohmann::ordered_json(*r.committed_snapshot_id)
                                               : nlohmann::ordered_json(nullptr);
  out["equality_delete_keys_read"] = r.totals.delete_keys_read;
  out["equality_delete_keys_kept"] = r.totals.delete_keys_kept;
  out["spilled_bytes"] = r.totals.spilled_bytes;
  out["sort_runs"] = r.totals.sort_runs;
  if (!r.partial_error.empty()) out["partial_error"] = r.partial_error;
  out["seconds"] = seconds;
  if (s3_metrics->Total().Total().requests > 0) {
    out["s3"] = nlohmann::ordered_json::parse(S3StatsJson(*s3_metrics).dump());
  }
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
  auto* c =
      app.add_subcommand("optimize",
                         "Optimize a table now, in this process: compact small files, convert "
                         "equality deletes to position deletes / deletion vectors");
  AddCatalogFlags(c, &a->catalog);
  c->add_option("table", a->table, "NS.TABLE")->required();
  c->add_option("--mode", a->mode,
                "minor, major or full: run that optimizing even if no trigger is reached "
                "(default: only what the table's self-optimizing properties call for)");
  c->add_option("--server", a->server,
                "Queue the run on this floe server (its optimizer group runs it) instead of "
                "running it here");
  c->add_option("--token", a->token, "Bearer token when the server has auth enabled")
      ->envname("FLOE_TOKEN");
  c->add_flag("--wait", a->wait, "With --server: wait for the process and print it");
  c->add_option("--wait-timeout-s", a->wait_timeout_s, "How long --wait waits")
      ->capture_default_str();
  c->add_option("--memory-mb", a->memory_mb,
                "Memory budget of a task run here (equality-delete keys, sorting); default: "
                "the table's self-optimizing.memory-budget-mb, else 1024")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--threads", a->threads,
                "Tasks run at once here (each task on one thread); also sizes the plan as "
                "that many optimizer threads would")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  c->add_option("--spill-dir", a->spill_dir,
                "Where equality-delete and sort runs spill (default: the temp directory)");
  SetCommand(c, exit_code, [a] { return Optimize(*a).WithContext("{}", a->table); });
}

}  // namespace floe::exe

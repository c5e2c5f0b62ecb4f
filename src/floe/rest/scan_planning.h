// Server-side scan planning of the Iceberg REST Catalog API (1.11): planTableScan,
// fetchPlanningResult, cancelPlanning and fetchScanTasks, over iceberg::TableScan.
//
// Every plan is answered synchronously with status "completed" and a plan-id:
//   - a scan whose data manifests list at most `inline_files` files gets its
//     file-scan-tasks (with delete-files and residual filters) in the answer;
//   - a larger scan gets only plan-tasks, one per run of consecutive data manifests
//     holding about `files_per_task` files, which clients fetch in parallel.
// A plan task is a self-contained token (the normalized request, the snapshot, the table
// uuid and a manifest-list range, with a CRC-32C against corruption), so any server sharing
// the metastore answers it and nothing is kept per plan task. Plan-ids are remembered in
// memory (bounded, expiring) so that fetchPlanningResult can answer again and
// cancelPlanning can tell a known id (204) from an unknown one (404 NoSuchPlanIdException).
//
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/http/http.h"

namespace floe::rest {

struct ScanPlanningOptions {
  // A plan over at most this many data files (by the manifest list's counts) is answered
  // inline; larger ones are split into plan tasks.
  int64_t inline_files = 2000;
  // Data files per plan task (whole manifests: a task holds at least one manifest).
  int64_t files_per_task = 2000;
  // Plan-ids kept for fetchPlanningResult / cancelPlanning.
  int64_t plan_id_lifetime_ms = 60 * 60 * 1000;
  size_t max_plan_ids = 10'000;
};

// The REST error body {"error": {message, type, code}}.
http::HttpResponse RestError(int code, std::string_view type, std::string_view message);

class ScanPlanner {
 public:
  ScanPlanner(ScanPlanningOptions options, std::function<int64_t()> now_ms);

  // Answers POST .../plan, GET|DELETE .../plan/{plan-id} and POST .../tasks for table `id`
  // of catalog `catalog_name`; `rest` is the path after the table name ("plan",
  // "plan/{id}" as two segments, or "tasks").
  http::HttpResponse Handle(catalog::Catalog& catalog, const std::string& catalog_name,
                            const catalog::TableIdentifier& id, const http::HttpRequest& request,
                            const std::vector<std::string>& rest);

 private:
  struct KnownPlan {
    std::string table_key;  // catalog + table
    std::string request;    // normalized request JSON with the pinned snapshot
    int64_t expires_ms = 0;
  };
  std::string NewPlanId();

  ScanPlanningOptions options_;
  std::function<int64_t()> now_ms_;
  std::mutex mu_;
  std::map<std::string, KnownPlan> plans_;  // guarded by mu_
  std::mt19937_64 random_;                  // guarded by mu_
};

}  // namespace floe::rest

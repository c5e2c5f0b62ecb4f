// The management API's read routes that the dashboard's pages need beyond the table and
// optimizer routes of management_api.cc (docs/management-api.md, "Dashboard routes"):
//   GET /api/v1/table-stats                       sizes, file counts and health per table
//   GET /api/v1/storage                           their totals and the health distribution
//   GET .../tables/{t}/files                      the current snapshot's live files
//   GET .../tables/{t}/file-sizes                 a histogram of their sizes
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/manage/api_util.h"
#include "floe/optimize/optimizing_config.h"
#include "floe/optimize/planner.h"

namespace floe::manage {

using http::HttpResponse;
using internal::JsonResponse;
using internal::OJson;

namespace {

// A table's health score as the planner gives it (0..100), null before its first plan.
OJson HealthOrNull(int score) { return score < 0 ? OJson(nullptr) : OJson(score); }

OJson StatsJson(const optimize::TableStats& s) {
  OJson j = OJson::object();
  j["catalog"] = s.catalog;
  j["namespace"] = s.table_namespace;
  j["name"] = s.table_name;
  j["identifier"] = s.table_namespace + "." + s.table_name;
  j["data-files"] = s.data_files;
  j["delete-files"] = s.delete_files;
  j["equality-delete-files"] = s.equality_delete_files;
  j["position-delete-files"] = s.position_delete_files;
  j["records"] = s.records;
  j["total-bytes"] = s.files_bytes;
  j["snapshots"] = s.snapshots;
  j["health-score"] = HealthOrNull(s.health_score);
  return j;
}

std::string_view ContentName(iceberg::FileContent c) {
  switch (c) {
    case iceberg::FileContent::kData: return "data";
    case iceberg::FileContent::kPositionDeletes: return "position-deletes";
    case iceberg::FileContent::kEqualityDeletes: return "equality-deletes";
  }
  return "data";
}

// The live files of the current snapshot (empty for a table without one). Metrics maps are
// not decoded: the routes only need paths, sizes and counts.
Result<std::vector<iceberg::DataFile>> LiveFiles(iceberg::Table& table) {
  std::vector<iceberg::DataFile> files;
  const iceberg::TableMetadata& metadata = *table.metadata();
  const iceberg::Snapshot* current = metadata.current_snapshot();
  if (current == nullptr) return files;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(*current, table.io()));
  for (const iceberg::ManifestFile& manifest : manifests) {
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries,
                          iceberg::ReadManifestEntries(metadata, manifest, table.io(),
                                                       iceberg::ManifestEntryFilter::kLive,
                                                       /*read_stats=*/false));
    for (iceberg::ManifestEntry& e : entries) files.push_back(std::move(e.data_file));
  }
  return files;
}

// A table and the catalog lease it was loaded through (which must outlive it).
struct LoadedTable {
  catalog::CatalogLease lease;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::unique_ptr<iceberg::Table> table;
};

Result<LoadedTable> LoadTable(catalog::CatalogRegistry& registry, const std::string& catalog_name,
                              const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(auto pool, registry.Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(auto ops, lease->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));
  return LoadedTable{std::move(lease), std::move(ops), std::move(table)};
}

// Upper bounds of the size histogram: powers of four from 1 KiB, which spread both the
// kilobyte fragments of a streaming writer and target-size files (128 MiB by default).
constexpr std::array<int64_t, 10> kSizeBounds = {
    int64_t{1} << 10, int64_t{1} << 12, int64_t{1} << 14, int64_t{1} << 16, int64_t{1} << 18,
    int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24, int64_t{1} << 26, int64_t{1} << 28};

}  // namespace

Result<HttpResponse> ManagementApi::TableStats(Call& call) {
  FLOE_ASSIGN_OR_RETURN(
      internal::ListParams params,
      internal::ParseListParams(call,
                                {"identifier", "catalog", "data-files", "delete-files", "records",
                                 "total-bytes", "snapshots", "health-score"},
                                "identifier"));
  std::optional<std::string> catalog_filter = call.Query("catalog");
  std::shared_ptr<const std::vector<optimize::TableStats>> all =
      options_.optimizer != nullptr ? options_.optimizer->StatsView() : nullptr;
  std::vector<const optimize::TableStats*> items;
  if (all != nullptr) {
    items.reserve(all->size());
    for (const optimize::TableStats& s : *all) {
      if (catalog_filter && *catalog_filter != s.catalog) continue;
      if (!call.CanRead(s.catalog)) continue;
      if (!params.q.empty() &&
          !internal::MatchesQuery(params, s.table_namespace + "." + s.table_name)) {
        continue;
      }
      items.push_back(&s);
    }
  }
  const std::string& key = params.sort_key;
  return internal::PageBy(
      items, params,
      [&key](const optimize::TableStats* s) -> internal::SortValue {
        if (key == "catalog") return s->catalog;
        if (key == "data-files") return s->data_files;
        if (key == "delete-files") return s->delete_files;
        if (key == "records") return s->records;
        if (key == "total-bytes") return s->files_bytes;
        if (key == "snapshots") return s->snapshots;
        if (key == "health-score") {
          // Unplanned tables (no score) sort first, as null does.
          if (s->health_score < 0) return std::monostate{};
          return int64_t{s->health_score};
        }
        return s->table_namespace + "." + s->table_name;  // identifier
      },
      [](const optimize::TableStats* s) { return StatsJson(*s); });
}

Result<HttpResponse> ManagementApi::StorageSummary(Call& call) {
  // Health in five bands of 20 points; tables not planned yet are counted apart.
  std::array<int64_t, 5> bands{};
  int64_t tables = 0, unplanned = 0, data_files = 0, delete_files = 0, records = 0, bytes = 0;
  if (options_.optimizer != nullptr) {
    const std::shared_ptr<const std::vector<optimize::TableStats>> all =
        options_.optimizer->StatsView();
    for (const optimize::TableStats& s : *all) {
      if (!call.CanRead(s.catalog)) continue;
      ++tables;
      data_files += s.data_files;
      delete_files += s.delete_files;
      records += s.records;
      bytes += s.files_bytes;
      if (s.health_score < 0) {
        ++unplanned;
      } else {
        ++bands[static_cast<size_t>(std::min(s.health_score, 99) / 20)];
      }
    }
  }
  OJson distribution = OJson::array();
  for (size_t i = 0; i < bands.size(); ++i) {
    distribution.push_back(OJson{
        {"from", i * 20}, {"to", i == bands.size() - 1 ? 100 : i * 20 + 19}, {"tables", bands[i]}});
  }
  OJson j = OJson::object();
  j["evaluated-tables"] = tables;
  j["unplanned-tables"] = unplanned;
  j["data-files"] = data_files;
  j["delete-files"] = delete_files;
  j["records"] = records;
  j["total-bytes"] = bytes;
  j["health-distribution"] = std::move(distribution);
  return JsonResponse(200, j);
}

Result<HttpResponse> ManagementApi::TableFiles(Call& call, const std::string& catalog_name,
                                               const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(
      internal::ListParams params,
      internal::ParseListParams(call, {"path", "file-size-bytes", "record-count", "partition"},
                                "path"));
  std::optional<std::string> partition = call.Query("partition");
  std::optional<std::string> content = call.Query("content");
  if (content && *content != "data" && *content != "position-deletes" &&
      *content != "equality-deletes") {
    return Status::InvalidArgument(
        "content must be one of data, position-deletes, "
        "equality-deletes");
  }
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTable(*registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files, LiveFiles(*loaded.table));
  std::vector<OJson> items;
  for (const iceberg::DataFile& f : files) {
    std::string key = optimize::PartitionKey(f);
    std::string_view kind = ContentName(f.content);
    if (partition && *partition != key) continue;
    if (content && *content != kind) continue;
    if (!internal::MatchesQuery(params, f.file_path)) continue;
    OJson j = OJson::object();
    j["path"] = f.file_path;
    j["content"] = std::string(kind);
    j["partition"] = std::move(key);
    j["file-size-bytes"] = f.file_size_in_bytes;
    j["record-count"] = f.record_count;
    items.push_back(std::move(j));
  }
  return internal::Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::TableFileSizes(Call& call, const std::string& catalog_name,
                                                   const catalog::TableIdentifier& id) {
  std::optional<std::string> partition = call.Query("partition");
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTable(*registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files, LiveFiles(*loaded.table));
  struct Bucket {
    int64_t data_files = 0, delete_files = 0, data_bytes = 0, delete_bytes = 0;
  };
  std::array<Bucket, kSizeBounds.size() + 1> buckets{};
  for (const iceberg::DataFile& f : files) {
    if (partition && *partition != optimize::PartitionKey(f)) continue;
    size_t b = 0;
    while (b < kSizeBounds.size() && f.file_size_in_bytes >= kSizeBounds[b]) ++b;
    if (f.content == iceberg::FileContent::kData) {
      ++buckets[b].data_files;
      buckets[b].data_bytes += f.file_size_in_bytes;
    } else {
      ++buckets[b].delete_files;
      buckets[b].delete_bytes += f.file_size_in_bytes;
    }
  }
  auto config = optimize::OptimizingConfig::FromProperties(loaded.table->metadata()->properties);
  const optimize::OptimizingConfig effective = config.ok() ? *config : optimize::OptimizingConfig{};
  OJson out = OJson::array();
  for (size_t b = 0; b < buckets.size(); ++b) {
    OJson j = OJson::object();
    j["lower-bytes"] = b == 0 ? 0 : kSizeBounds[b - 1];
    j["upper-bytes"] = b < kSizeBounds.size() ? OJson(kSizeBounds[b]) : OJson(nullptr);
    j["data-files"] = buckets[b].data_files;
    j["delete-files"] = buckets[b].delete_files;
    j["data-bytes"] = buckets[b].data_bytes;
    j["delete-bytes"] = buckets[b].delete_bytes;
    out.push_back(std::move(j));
  }
  return JsonResponse(200, OJson{{"target-file-size-bytes", effective.target_size},
                                 {"fragment-size-bytes", effective.fragment_size()},
                                 {"buckets", std::move(out)}});
}

}  // namespace floe::manage

// The optimizing service's data maintenance: data expiration, automatic tags and bounded
// metadata, run when a table is evaluated, recorded as maintenance runs (kinds
// `expire-data`, `auto-create-tags`, `rewrite-manifests`, `clean-metadata-files`) and
// logged as one JSON line each.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "floe/base/json_writer.h"
#include "floe/optimize/auto_tag.h"
#include "floe/optimize/data_expiration.h"
#include "floe/optimize/maintenance.h"
#include "floe/optimize/service.h"

namespace floe::optimize {

namespace {

std::string Line(std::string_view event, const std::string& catalog, const std::string& table,
                 std::initializer_list<std::pair<std::string_view, std::string>> fields) {
  std::string line;
  JsonWriter w(&line);
  w.BeginObject();
  w.Key("event");
  w.String(event);
  w.Key("catalog");
  w.String(catalog);
  w.Key("table");
  w.String(table);
  for (const auto& [k, v] : fields) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
  return line;
}

// Whether the table sets any key starting with `prefix`: only such a table hears about bad
// settings of that feature.
bool SetsAny(const std::map<std::string, std::string>& properties, std::string_view prefix) {
  auto it = properties.lower_bound(std::string(prefix));
  return it != properties.end() && it->first.starts_with(prefix);
}

}  // namespace

void OptimizingService::MaybeExpireData(const Key& key, const std::string& name,
                                        iceberg::Table& table) {
  const int64_t now = Now();
  {
    std::lock_guard lock(mu_);
    // A running process would only fail to commit over the removed files.
    if (active_by_table_.contains(key)) return;
    auto it = last_data_expire_ms_.find(key);
    if (it != last_data_expire_ms_.end() &&
        now - it->second < 24 * options_.maintenance_interval_ms) {
      return;
    }
    last_data_expire_ms_[key] = now;
  }
  const std::string& catalog = std::get<0>(key);
  auto config = DataExpirationConfig::FromProperties(table.metadata()->properties);
  metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "expire-data", now);
  auto fail = [&](const Status& st) {
    run.end_ms = Now();
    run.status = "failed";
    run.error = st.ToString();
    SaveMaintenanceRun(run);
    Log(Line("data-expiry-failed", catalog, name, {{"error", run.error}}));
  };
  if (!config.ok()) {
    if (SetsAny(table.metadata()->properties, "data-expire.")) fail(config.status());
    return;
  }
  auto expired = ExpireData(table, *config, now);
  if (!expired.ok()) {
    fail(expired.status());
    return;
  }
  // Off, or nothing expired: no run to record.
  if (!expired->has_value() || !(*expired)->snapshot_id) return;
  const DataExpirationResult& r = **expired;
  run.end_ms = Now();
  run.status = "success";
  run.deleted_files = r.data_files_removed + r.delete_files_removed;
  run.error = r.delete_cleanup_error;
  SaveMaintenanceRun(run);
  {
    std::lock_guard lock(mu_);
    counters_.expired_data_files += r.data_files_removed;
    counters_.expired_records += r.records_removed;
    counters_.dangling_delete_files_removed += r.delete_files_removed;
  }
  Log(Line("data-expired", catalog, name,
           {{"data_files", std::to_string(r.data_files_removed)},
            {"records", std::to_string(r.records_removed)},
            {"delete_files", std::to_string(r.delete_files_removed)},
            {"threshold_ms", std::to_string(r.threshold_ms)},
            {"snapshot_id", std::to_string(*r.snapshot_id)}}));
}

void OptimizingService::MaybeBoundMetadata(const Key& key, const std::string& name,
                                           iceberg::Table& table, catalog::Catalog& catalog_of) {
  const int64_t now = Now();
  bool rewrite_due = false;
  bool clean_due = false;
  {
    std::lock_guard lock(mu_);
    // A running process commits against its planned snapshot's manifests; a rewrite of them
    // meanwhile would only make its commit retry.
    if (!active_by_table_.contains(key)) {
      auto it = last_manifest_check_ms_.find(key);
      rewrite_due = it == last_manifest_check_ms_.end() ||
                    now - it->second >= options_.maintenance_interval_ms / 60;
      if (rewrite_due) last_manifest_check_ms_[key] = now;
    }
    // Every interval; sooner (at most every interval / 60) once the table committed more
    // than half its metadata log since the last run, so that a table committing every few
    // seconds without delete-after-commit keeps a bounded folder too. The version is in the
    // current file's name: no listing to tell.
    const iceberg::TableMetadata& md = *table.metadata();
    const int64_t version =
        iceberg::ParseMetadataFileVersion(md.metadata_file_location).value_or(0);
    const int64_t log_size =
        std::max<int64_t>(1, md.PropertyAsInt(iceberg::kPropertyPreviousVersionsMax, 100));
    auto it = last_metadata_clean_.find(key);
    clean_due = it == last_metadata_clean_.end() ||
                now - it->second.first >= options_.maintenance_interval_ms ||
                (version - it->second.second > std::max<int64_t>(10, log_size / 2) &&
                 now - it->second.first >= options_.maintenance_interval_ms / 60);
    if (clean_due) last_metadata_clean_[key] = {now, version};
  }
  if (!rewrite_due && !clean_due) return;
  auto config = MaintenanceConfig::FromProperties(table.metadata()->properties);
  if (!config.ok()) return;  // MaybeExpireSnapshots logged it
  const std::string& catalog = std::get<0>(key);

  if (rewrite_due && config->rewrite_manifests_enabled) {
    metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "rewrite-manifests", now);
    auto rewritten = RewriteSmallManifests(table, *config);
    run.end_ms = Now();
    if (!rewritten.ok()) {
      run.status = "failed";
      run.error = rewritten.status().ToString();
      SaveMaintenanceRun(run);
      Log(Line("manifest-rewrite-failed", catalog, name, {{"error", run.error}}));
    } else if (rewritten->has_value()) {
      const ManifestRewriteResult& r = **rewritten;
      run.status = "success";
      SaveMaintenanceRun(run);
      {
        std::lock_guard lock(mu_);
        counters_.manifests_rewritten += r.rewritten_manifests;
      }
      Log(Line("manifests-rewritten", catalog, name,
               {{"rewritten", std::to_string(r.rewritten_manifests)},
                {"added", std::to_string(r.added_manifests)},
                {"snapshot_id", std::to_string(r.snapshot_id)}}));
    }
  }

  // gc.enabled=false: files may be shared with other tables; never delete.
  if (clean_due && config->delete_old_metadata && config->gc_enabled) {
    const iceberg::TableMetadataPtr metadata = table.metadata();
    const std::string folder = MetadataFolder(*metadata);
    if (folder.empty() || metadata->location.empty()) return;
    // Confinement as for orphan cleaning: the folder must be the table's own.
    auto others = OtherTableLocations(key, catalog_of);
    if (!others.ok()) return;
    Status scope =
        catalog_of.location_policy().CheckCleanupScope({folder, metadata->location}, *others);
    metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "clean-metadata-files", Now());
    if (!scope.ok()) {
      run.end_ms = Now();
      run.status = "refused";
      run.error = std::string(scope.message());
      SaveMaintenanceRun(run);
      Log(Line("metadata-cleaning-refused", catalog, name, {{"error", run.error}}));
      return;
    }
    auto cleaned = DeleteUntrackedMetadataFiles(*metadata, table.io());
    run.end_ms = Now();
    if (!cleaned.ok()) {
      run.status = "failed";
      run.error = cleaned.status().ToString();
      SaveMaintenanceRun(run);
      Log(Line("metadata-cleaning-failed", catalog, name, {{"error", run.error}}));
      return;
    }
    if (cleaned->deleted == 0 && cleaned->failed_deletes == 0) return;  // nothing: no run
    run.status = "success";
    run.deleted_files = cleaned->deleted;
    if (cleaned->failed_deletes > 0) {
      run.error = fmt::format("{} files could not be deleted", cleaned->failed_deletes);
    }
    SaveMaintenanceRun(run);
    {
      std::lock_guard lock(mu_);
      counters_.metadata_files_deleted += cleaned->deleted;
    }
    Log(Line("metadata-files-deleted", catalog, name,
             {{"files", std::to_string(cleaned->deleted)},
              {"failed", std::to_string(cleaned->failed_deletes)}}));
  }
}

void OptimizingService::MaybeCreateTag(const Key& key, const std::string& name,
                                       iceberg::Table& table) {
  const int64_t now = Now();
  {
    std::lock_guard lock(mu_);
    auto it = last_tag_check_ms_.find(key);
    if (it != last_tag_check_ms_.end() &&
        now - it->second < options_.maintenance_interval_ms / 60) {
      return;
    }
    last_tag_check_ms_[key] = now;
  }
  const std::string& catalog = std::get<0>(key);
  auto config = AutoTagConfig::FromProperties(table.metadata()->properties);
  metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "auto-create-tags", now);
  auto fail = [&](const Status& st) {
    run.end_ms = Now();
    run.status = "failed";
    run.error = st.ToString();
    SaveMaintenanceRun(run);
    Log(Line("auto-tag-failed", catalog, name, {{"error", run.error}}));
  };
  if (!config.ok()) {
    if (SetsAny(table.metadata()->properties, "tag.auto-create.")) fail(config.status());
    return;
  }
  auto created = CreateAutoTag(table, *config, now);
  if (!created.ok()) {
    fail(created.status());
    return;
  }
  if (!created->has_value()) return;
  run.end_ms = Now();
  run.status = "success";
  SaveMaintenanceRun(run);
  {
    std::lock_guard lock(mu_);
    ++counters_.tags_created;
  }
  Log(Line("tag-created", catalog, name,
           {{"tag", (*created)->tag},
            {"snapshot_id", std::to_string((*created)->snapshot_id)},
            {"trigger_ms", std::to_string((*created)->trigger_ms)}}));
}

}  // namespace floe::optimize

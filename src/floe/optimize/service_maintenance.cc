// The optimizing service's data maintenance: data expiration and automatic tags, run when a
// table is evaluated, recorded as maintenance runs (kinds `expire-data`, `auto-create-tags`)
// and logged as one JSON line each.
#include <map>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "floe/base/json_writer.h"
#include "floe/optimize/auto_tag.h"
#include "floe/optimize/data_expiration.h"
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

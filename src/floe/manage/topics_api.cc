#include "floe/manage/topics_api.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/format/text/scalar.h"

namespace floe::manage {

namespace {

using OJson = nlohmann::ordered_json;

std::optional<std::string> Query(const std::vector<std::pair<std::string, std::string>>& query,
                                 std::string_view name) {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

Result<int64_t> IntParam(const std::vector<std::pair<std::string, std::string>>& query,
                         std::string_view name, int64_t fallback, int64_t min, int64_t max) {
  std::optional<std::string> v = Query(query, name);
  if (!v) return fallback;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || end != v->data() + v->size() || n < min || n > max) {
    return Status::InvalidArgument("{} must be an integer from {} to {}", name, min, max);
  }
  return n;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// Bytes as text when they are UTF-8, else as `<name>-hex`; long values are cut.
void PutBytes(OJson& j, const std::string& name, const std::optional<std::string>& bytes) {
  constexpr size_t kMaxBytes = 64 << 10;
  if (!bytes) {
    j[name] = nullptr;
    return;
  }
  std::string_view v = *bytes;
  const bool cut = v.size() > kMaxBytes;
  if (cut) v = v.substr(0, kMaxBytes);
  if (format::text::ValidUtf8(v)) {
    j[name] = std::string(v);
  } else {
    j[name] = nullptr;
    j[name + "-hex"] = Hex(v);
  }
  if (cut) j[name + "-truncated"] = true;
}

struct Lag {
  int64_t offsets = 0;
  int64_t bytes = 0;
  double seconds = 0;
};

// Offsets and bytes from the broker's view now, not the translator's last pass: a
// translator that has not started (or not yet seen the latest records) must not report
// records as translated that are not in the table.
Lag LagOf(const ingest::TopicInfo& t, int64_t now_ms) {
  Lag lag;
  lag.offsets = t.LagOffsets();
  lag.bytes = t.LagBytes();
  if (!t.translation) return lag;
  int64_t since = -1;
  for (const auto& p : t.translation->partitions) {
    if (p.oldest_pending_ms >= 0 && (since < 0 || p.oldest_pending_ms < since)) {
      since = p.oldest_pending_ms;
    }
  }
  // Record timestamps come from producers' clocks: one ahead of ours is no lag.
  if (lag.offsets > 0 && since >= 0) {
    lag.seconds = static_cast<double>(std::max<int64_t>(0, now_ms - since)) / 1000.0;
  }
  return lag;
}

OJson Summary(const ingest::TopicInfo& t, int64_t now_ms) {
  OJson j;
  j["name"] = t.name;
  j["partitions"] = t.partitions;
  j["table-topic"] = t.table_topic;
  j["records"] = t.records;
  j["produce-rate"] = t.produce_records_per_second;
  j["last-produce-at-ms"] = t.last_produce_ms >= 0 ? OJson(t.last_produce_ms) : OJson();
  const ingest::TopicStats* s = t.translation ? &*t.translation : nullptr;
  j["table"] = s ? OJson(s->table) : OJson();
  j["dlq-table"] = s ? OJson(s->dlq_table) : OJson();
  j["state"] = s ? OJson(s->state) : (t.table_topic ? OJson("starting") : OJson());
  j["last-error"] = s && !s->last_error.empty() ? OJson(s->last_error) : OJson();
  if (!t.config_error.empty()) j["config-error"] = t.config_error;
  Lag lag = LagOf(t, now_ms);
  j["translation-lag-offsets"] = t.table_topic ? OJson(lag.offsets) : OJson();
  j["translation-lag-seconds"] = t.table_topic ? OJson(lag.seconds) : OJson();
  j["translation-lag-bytes"] = t.table_topic ? OJson(lag.bytes) : OJson();
  j["last-commit-at-ms"] = s && s->last_commit_ms >= 0 ? OJson(s->last_commit_ms) : OJson();
  j["last-commit-latency-ms"] =
      s && s->last_commit_latency_ms >= 0 ? OJson(s->last_commit_latency_ms) : OJson();
  j["dlq-records"] = s ? OJson(s->dlq_records) : OJson();
  OJson rejected = OJson::object();
  for (const auto& [reason, n] : t.rejected_records) rejected[reason] = n;
  j["validation-rejected"] = std::move(rejected);
  j["recent-rejections"] = t.recent_rejections;
  return j;
}

}  // namespace

Result<http::HttpResponse> TopicList(ingest::IngestService* ingest,
                                     const std::vector<std::pair<std::string, std::string>>& query,
                                     int64_t now_ms) {
  std::vector<ingest::TopicInfo> topics;
  if (ingest != nullptr) {
    FLOE_ASSIGN_OR_RETURN(topics, ingest->Topics());
  }
  FLOE_ASSIGN_OR_RETURN(int64_t page_size, IntParam(query, "page-size", 100, 1, 1000));
  size_t offset = 0;
  if (auto token = Query(query, "page-token"); token && !token->empty()) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(token->data() + 1, token->data() + token->size(), n);
    if ((*token)[0] != 'o' || ec != std::errc() || end != token->data() + token->size() ||
        n > (1ULL << 40)) {
      return Status::InvalidArgument("page-token is not a token of this list");
    }
    offset = static_cast<size_t>(n);
  }
  std::string sort = Query(query, "sort").value_or("name");
  const bool descending = sort.starts_with('-');
  if (descending) sort.erase(0, 1);
  constexpr std::string_view kSortKeys[] = {"name", "records", "produce-rate",
                                            "translation-lag-offsets", "dlq-records"};
  if (std::find(std::begin(kSortKeys), std::end(kSortKeys), sort) == std::end(kSortKeys)) {
    return Status::InvalidArgument(
        "sort must be one of name, records, produce-rate, translation-lag-offsets, dlq-records "
        "(with '-' for descending)");
  }
  std::optional<bool> table_topic;
  if (auto f = Query(query, "table-topic")) {
    if (*f != "true" && *f != "false") {
      return Status::InvalidArgument("table-topic must be true or false");
    }
    table_topic = *f == "true";
  }
  std::string q = Query(query, "q").value_or("");
  std::vector<OJson> items;
  for (const auto& t : topics) {
    if (table_topic && *table_topic != t.table_topic) continue;
    if (!q.empty() && t.name.find(q) == std::string::npos) continue;
    items.push_back(Summary(t, now_ms));
  }
  std::stable_sort(items.begin(), items.end(), [&](const OJson& a, const OJson& b) {
    const OJson& x = a[sort];
    const OJson& y = b[sort];
    // Nulls (plain topics' translation fields) sort last either way.
    if (x.is_null() != y.is_null()) return y.is_null();
    return descending ? y < x : x < y;
  });
  OJson out;
  out["items"] = OJson::array();
  const size_t end = std::min(items.size(), offset + static_cast<size_t>(page_size));
  for (size_t i = offset; i < end; ++i) out["items"].push_back(std::move(items[i]));
  out["total"] = items.size();
  if (end < items.size()) out["next-page-token"] = "o" + std::to_string(end);
  return http::HttpResponse::Json(200, out.dump());
}

Result<http::HttpResponse> TopicDetails(ingest::IngestService* ingest, const std::string& name,
                                        int64_t now_ms) {
  if (ingest == nullptr) return Status::NotFound("no topic '{}' (the Kafka endpoint is off)", name);
  FLOE_ASSIGN_OR_RETURN(ingest::TopicInfo t, ingest->Topic(name));
  OJson j = Summary(t, now_ms);
  j["configs"] = OJson::object();
  for (const auto& [k, v] : t.configs) j["configs"][k] = v;
  OJson parts = OJson::array();
  if (t.table_topic) {
    for (size_t p = 0; p < t.offsets.size(); ++p) {
      const ingest::PartitionOffsets& o = t.offsets[p];
      // The translator's own figure once it has passed over the partition; before, none
      // is translated beyond what is committed.
      int64_t translated = std::max(o.committed_offset, o.log_start_offset);
      if (t.translation && p < t.translation->partitions.size()) {
        translated = std::max(translated, t.translation->partitions[p].translated_offset);
      }
      parts.push_back({{"partition", p},
                       {"log-end-offset", o.log_end_offset},
                       {"committed-offset", o.committed_offset},
                       {"translated-offset", std::min(translated, o.log_end_offset)},
                       {"lag-offsets", o.lag_offsets()},
                       {"lag-bytes", o.untranslated_bytes}});
    }
  }
  if (t.translation) {
    j["commits"] = t.translation->commits;
    j["rows-committed"] = t.translation->rows_committed;
    j["schema-updates"] = t.translation->schema_updates;
  }
  j["partition-details"] = std::move(parts);
  return http::HttpResponse::Json(200, j.dump());
}

Result<http::HttpResponse> TopicRecords(
    ingest::IngestService* ingest, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& query) {
  FLOE_ASSIGN_OR_RETURN(int64_t limit, IntParam(query, "limit", 20, 1, 500));
  if (ingest == nullptr) return Status::NotFound("no topic '{}' (the Kafka endpoint is off)", name);
  FLOE_ASSIGN_OR_RETURN(std::vector<ingest::SampleRecord> records,
                        ingest->RecentRecords(name, static_cast<int>(limit)));
  OJson out;
  out["items"] = OJson::array();
  for (const auto& r : records) {
    OJson j;
    j["partition"] = r.partition;
    j["offset"] = r.offset;
    j["timestamp-ms"] = r.timestamp_ms;
    PutBytes(j, "key", r.key);
    PutBytes(j, "value", r.value);
    OJson headers = OJson::array();
    for (const auto& h : r.headers) {
      OJson hj;
      hj["key"] = h.key;
      PutBytes(hj, "value", h.value);
      headers.push_back(std::move(hj));
    }
    j["headers"] = std::move(headers);
    out["items"].push_back(std::move(j));
  }
  out["total"] = records.size();
  return http::HttpResponse::Json(200, out.dump());
}

http::HttpResponse TopicsMethodNotAllowed(const std::string& method) {
  http::HttpResponse r =
      http::HttpResponse::Json(405, OJson{{"error",
                                           {{"message", method + " is not allowed here"},
                                            {"type", "MethodNotAllowedException"},
                                            {"code", 405}}}}
                                        .dump());
  r.headers.emplace_back("Allow", "GET, HEAD");
  return r;
}

}  // namespace floe::manage

#include "floe/iceberg/snapshot_summary.h"

#include <charconv>
#include <cstdint>
#include <optional>

namespace floe::iceberg {
namespace {

void SetIf(bool condition, SummaryEntries* out, std::string_view key, int64_t value) {
  if (condition) out->emplace_back(std::string(key), std::to_string(value));
}

const std::string* Lookup(const SummaryEntries& entries, std::string_view key) {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

// Java's Long.parseLong: optional sign, decimal digits, in range.
std::optional<int64_t> ParseLong(const std::string& s) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') ++begin;
  if (begin == end) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace

// Counters saturate instead of overflowing on absurd inputs from untrusted manifests.
static void Bump(int64_t& counter, int64_t delta) {
  if (__builtin_add_overflow(counter, delta, &counter)) {
    counter = delta < 0 ? INT64_MIN : INT64_MAX;
  }
}

void SnapshotSummaryBuilder::Metrics::Add(const SummaryFile& f, bool added) {
  Bump(added ? added_size : removed_size, f.size_bytes);
  switch (f.content) {
    case SummaryFile::Content::kData:
      Bump(added ? added_files : removed_files, 1);
      Bump(added ? added_records : deleted_records, f.record_count);
      break;
    case SummaryFile::Content::kPositionDeletes:
      if (f.is_dv) {
        Bump(added ? added_dvs : removed_dvs, 1);
      } else {
        Bump(added ? added_pos_delete_files : removed_pos_delete_files, 1);
      }
      Bump(added ? added_delete_files : removed_delete_files, 1);
      Bump(added ? added_pos_deletes : removed_pos_deletes, f.record_count);
      break;
    case SummaryFile::Content::kEqualityDeletes:
      Bump(added ? added_delete_files : removed_delete_files, 1);
      Bump(added ? added_eq_delete_files : removed_eq_delete_files, 1);
      Bump(added ? added_eq_deletes : removed_eq_deletes, f.record_count);
      break;
  }
}

void SnapshotSummaryBuilder::Metrics::AppendTo(SummaryEntries* out) const {
  SetIf(added_files > 0, out, "added-data-files", added_files);
  SetIf(removed_files > 0, out, "deleted-data-files", removed_files);
  SetIf(added_eq_delete_files > 0, out, "added-equality-delete-files", added_eq_delete_files);
  SetIf(removed_eq_delete_files > 0, out, "removed-equality-delete-files", removed_eq_delete_files);
  SetIf(added_pos_delete_files > 0, out, "added-position-delete-files", added_pos_delete_files);
  SetIf(removed_pos_delete_files > 0, out, "removed-position-delete-files",
        removed_pos_delete_files);
  SetIf(added_delete_files > 0, out, "added-delete-files", added_delete_files);
  SetIf(removed_delete_files > 0, out, "removed-delete-files", removed_delete_files);
  SetIf(added_dvs > 0, out, "added-dvs", added_dvs);
  SetIf(removed_dvs > 0, out, "removed-dvs", removed_dvs);
  SetIf(added_records > 0, out, "added-records", added_records);
  SetIf(deleted_records > 0, out, "deleted-records", deleted_records);
  if (trust_size_and_delete_counts) {
    SetIf(added_size > 0, out, "added-files-size", added_size);
    SetIf(removed_size > 0, out, "removed-files-size", removed_size);
    SetIf(added_pos_deletes > 0, out, "added-position-deletes", added_pos_deletes);
    SetIf(removed_pos_deletes > 0, out, "removed-position-deletes", removed_pos_deletes);
    SetIf(added_eq_deletes > 0, out, "added-equality-deletes", added_eq_deletes);
    SetIf(removed_eq_deletes > 0, out, "removed-equality-deletes", removed_eq_deletes);
  }
}

SnapshotSummaryBuilder::Metrics* SnapshotSummaryBuilder::PartitionMetrics(const std::string& path) {
  for (auto& [p, m] : partitions_) {
    if (p == path) return &m;
  }
  partitions_.emplace_back(path, Metrics{});
  return &partitions_.back().second;
}

void SnapshotSummaryBuilder::AddedFile(const SummaryFile& file) {
  metrics_.Add(file, /*added=*/true);
  if (trust_partition_metrics_) PartitionMetrics(file.partition_path)->Add(file, true);
}

void SnapshotSummaryBuilder::RemovedFile(const SummaryFile& file) {
  metrics_.Add(file, /*added=*/false);
  if (trust_partition_metrics_) PartitionMetrics(file.partition_path)->Add(file, false);
}

void SnapshotSummaryBuilder::AddedManifest(bool is_delete_manifest, int64_t added_files,
                                           int64_t added_rows, int64_t deleted_files,
                                           int64_t deleted_rows) {
  trust_partition_metrics_ = false;
  partitions_.clear();
  if (is_delete_manifest) {
    Bump(metrics_.added_delete_files, added_files);
    Bump(metrics_.removed_delete_files, deleted_files);
    metrics_.trust_size_and_delete_counts = false;
  } else {
    Bump(metrics_.added_files, added_files);
    Bump(metrics_.added_records, added_rows);
    Bump(metrics_.removed_files, deleted_files);
    Bump(metrics_.deleted_records, deleted_rows);
  }
}

void SnapshotSummaryBuilder::Set(std::string key, std::string value) {
  for (auto& [k, v] : properties_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  properties_.emplace_back(std::move(key), std::move(value));
}

SummaryEntries SnapshotSummaryBuilder::Build() const {
  SummaryEntries out = properties_;
  metrics_.AppendTo(&out);
  SetIf(deleted_duplicate_files_ > 0, &out, "deleted-duplicate-files", deleted_duplicate_files_);
  SetIf(trust_partition_metrics_, &out, "changed-partition-count",
        static_cast<int64_t>(partitions_.size()));
  if (trust_partition_metrics_ &&
      static_cast<int64_t>(partitions_.size()) <= partition_summary_limit_) {
    if (!partitions_.empty()) out.emplace_back("partition-summaries-included", "true");
    for (const auto& [path, m] : partitions_) {
      if (path.empty()) continue;
      SummaryEntries part;
      m.AppendTo(&part);
      std::string joined;
      for (const auto& [k, v] : part) {
        if (!joined.empty()) joined.push_back(',');
        joined += k + "=" + v;
      }
      out.emplace_back("partitions." + path, std::move(joined));
    }
  }
  return out;
}

SummaryEntries AddSummaryTotals(SummaryEntries summary, const Snapshot* previous) {
  static const SummaryEntries kZeroTotals = {
      {"total-records", "0"},          {"total-files-size", "0"},
      {"total-data-files", "0"},       {"total-delete-files", "0"},
      {"total-position-deletes", "0"}, {"total-equality-deletes", "0"}};
  const SummaryEntries& prev = previous == nullptr ? kZeroTotals : previous->summary;
  struct Total {
    std::string_view total, added, removed;
  };
  static constexpr Total kTotals[] = {
      {"total-records", "added-records", "deleted-records"},
      {"total-files-size", "added-files-size", "removed-files-size"},
      {"total-data-files", "added-data-files", "deleted-data-files"},
      {"total-delete-files", "added-delete-files", "removed-delete-files"},
      {"total-position-deletes", "added-position-deletes", "removed-position-deletes"},
      {"total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"},
  };
  SummaryEntries totals;
  for (const Total& t : kTotals) {
    const std::string* prev_total = Lookup(prev, t.total);
    if (prev_total == nullptr) continue;
    std::optional<int64_t> total = ParseLong(*prev_total);
    if (!total) continue;
    int64_t v = *total;
    bool bad = false;
    if (const std::string* added = Lookup(summary, t.added); v >= 0 && added != nullptr) {
      auto a = ParseLong(*added);
      bad = !a || __builtin_add_overflow(v, *a, &v);
    }
    if (const std::string* removed = Lookup(summary, t.removed);
        !bad && v >= 0 && removed != nullptr) {
      auto r = ParseLong(*removed);
      bad = !r || __builtin_sub_overflow(v, *r, &v);
    }
    if (!bad && v >= 0) totals.emplace_back(std::string(t.total), std::to_string(v));
  }
  // Java adds totals after the implementation's entries; a total given by the caller is
  // replaced in place rather than duplicated.
  for (auto& [k, v] : totals) {
    bool replaced = false;
    for (auto& [sk, sv] : summary) {
      if (sk == k) {
        sv = v;
        replaced = true;
      }
    }
    if (!replaced) summary.emplace_back(std::move(k), std::move(v));
  }
  return summary;
}

}  // namespace floe::iceberg

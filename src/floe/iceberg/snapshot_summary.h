// Snapshot summaries with the keys and rules of Iceberg Java (SnapshotSummary.Builder and
// SnapshotProducer.updateTotal), so floe's snapshots read the same in every engine.
//
// Inputs are plain per-file facts, independent of the manifest structs. Values are decimal
// strings. Zero-valued added-/removed- counters are omitted (as Java does);
// `changed-partition-count` is always written unless a whole manifest was added.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/iceberg/snapshot.h"

namespace floe::iceberg {

using SummaryEntries = std::vector<std::pair<std::string, std::string>>;

// What the summary needs to know about one added or removed content file.
struct SummaryFile {
  enum class Content : uint8_t { kData, kPositionDeletes, kEqualityDeletes };
  Content content = Content::kData;
  int64_t record_count = 0;
  // Java counts ScanTaskUtil.contentSizeInBytes: the file size, except for a deletion
  // vector, whose content-size-in-bytes is used.
  int64_t size_bytes = 0;
  bool is_dv = false;  // a deletion vector (position deletes in Puffin)
  // The partition as Java's PartitionSpec.partitionToPath renders it ("" if unpartitioned).
  std::string partition_path;
};

class SnapshotSummaryBuilder {
 public:
  void AddedFile(const SummaryFile& file);
  void RemovedFile(const SummaryFile& file);
  // A whole manifest added (fast append of an existing manifest): its counts are used,
  // partition metrics are no longer trusted, and for delete manifests sizes and delete
  // counts are left out.
  void AddedManifest(bool is_delete_manifest, int64_t added_files, int64_t added_rows,
                     int64_t deleted_files, int64_t deleted_rows);
  void IncrementDuplicateDeletes(int64_t n = 1) { deleted_duplicate_files_ += n; }
  // Partition summaries ("partitions.<path>") are included when at most `max` partitions
  // changed (Java's write.summary.partition-limit, default 0 = never).
  void SetPartitionSummaryLimit(int32_t max) { partition_summary_limit_ = max; }
  // A custom entry (e.g. a Kafka offset); written first, in insertion order.
  void Set(std::string key, std::string value);

  // The summary without `operation` and totals, in Java's key order.
  SummaryEntries Build() const;

 private:
  struct Metrics {
    int64_t added_size = 0, removed_size = 0;
    int64_t added_files = 0, removed_files = 0;
    int64_t added_eq_delete_files = 0, removed_eq_delete_files = 0;
    int64_t added_pos_delete_files = 0, removed_pos_delete_files = 0;
    int64_t added_dvs = 0, removed_dvs = 0;
    int64_t added_delete_files = 0, removed_delete_files = 0;
    int64_t added_records = 0, deleted_records = 0;
    int64_t added_pos_deletes = 0, removed_pos_deletes = 0;
    int64_t added_eq_deletes = 0, removed_eq_deletes = 0;
    bool trust_size_and_delete_counts = true;

    void Add(const SummaryFile& f, bool added);
    void AppendTo(SummaryEntries* out) const;
  };
  Metrics* PartitionMetrics(const std::string& path);

  SummaryEntries properties_;
  Metrics metrics_;
  std::vector<std::pair<std::string, Metrics>> partitions_;  // first-change order
  bool trust_partition_metrics_ = true;
  int32_t partition_summary_limit_ = 0;
  int64_t deleted_duplicate_files_ = 0;
};

// Appends the total-* entries (records, files-size, data-files, delete-files,
// position-deletes, equality-deletes) computed like Java's SnapshotProducer: the previous
// branch head's totals plus added minus removed. `previous` is the target branch's head
// before the commit (nullptr: the branch is new, totals start at 0). A total is left out
// when the previous one is missing, unparsable or the result is negative.
SummaryEntries AddSummaryTotals(SummaryEntries summary, const Snapshot* previous);

}  // namespace floe::iceberg

// OffsetCommitter: the exactly-once commit point of a table topic's table (and of its
// dead-letter table; translator.h). The table property `floe.ingest.offsets` holds the end
// offset of each partition below which the table holds every record; a commit stages the
// round's snapshot with a base check that the property is still the text this coordinator
// started from, and sets it to the new ends in the same transaction. A second, stale
// coordinator then fails (kConflict) instead of committing the same records again, while a
// retry after another writer's commit (the optimizer) rebases safely.
//
// Thread-safety: used by one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::ingest {

// The property / summary keys (the management API attributes snapshots with
// floe.ingest.topic to producer "ingest").
inline constexpr std::string_view kSummaryTopic = "floe.ingest.topic";
inline constexpr std::string_view kSummaryOffsets = "floe.ingest.offsets";
inline constexpr std::string_view kPropertyOffsets = "floe.ingest.offsets";

// "0:12,1:40" <-> {12, 40}: the end offset of each partition.
std::string FormatOffsets(const std::vector<int64_t>& ends);
Result<std::vector<int64_t>> ParseOffsets(std::string_view text);

class OffsetCommitter {
 public:
  // `what` names the offsets in conflict errors ("committed offsets").
  explicit OffsetCommitter(std::string what) : what_(std::move(what)) {}

  // Starts from the offsets property of `md` (null: no table yet, every partition at 0):
  // the ends of `partitions` partitions, 0 for those the property lacks. kCorrupt for a
  // property that does not parse.
  Status Start(size_t partitions, const iceberg::TableMetadata* md);
  // Partitions added since Start begin at offset 0.
  void AddPartitions(size_t partitions) {
    if (partitions > ends_.size()) ends_.resize(partitions, 0);
  }

  const std::vector<int64_t>& ends() const { return ends_; }
  // The property's text at Start or the last Commit (empty: none).
  const std::string& property() const { return property_; }

  // The summary value of a commit up to `ends`: "p:start-end" per partition.
  std::string Ranges(const std::vector<int64_t>& ends) const;

  // Adds the base check to `producer` and stages it in `txn`, sets the property to `ends`
  // and commits `txn`; then ends() is `ends`. kConflict when the property moved (another
  // coordinator committed); errors of the staging and the commit.
  Status Commit(iceberg::Transaction& txn, iceberg::SnapshotProducer& producer,
                const std::vector<int64_t>& ends);

 private:
  std::string what_;
  std::vector<int64_t> ends_;
  std::string property_;
};

}  // namespace floe::ingest

// DeadLetterSink: the translator's stage for records that cannot go into the table
// (translator.h). Route applies errors.tolerance: a tolerated record is queued for the
// dead-letter table `<table>_dlq`, any other stops translation with an error. Commit appends
// the queued records (partition, offset, timestamp, key, value, reason) to the dead-letter
// table with its own `floe.ingest.offsets` property, just before the table's commit: a
// retried range skips the records the dead-letter table already holds, and the property's
// base check makes a second, stale coordinator fail instead of adding them twice.
//
// The queued records point into the PartitionReader's arena until Commit copies them.
//
// Thread-safety: used by one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_operations.h"
#include "floe/ingest/offset_committer.h"
#include "floe/ingest/partition_reader.h"
#include "floe/ingest/topic_config.h"

namespace floe::ingest {

// The dead-letter table's columns.
Result<iceberg::Schema> DeadLetterSchema();

class DeadLetterSink {
 public:
  DeadLetterSink(std::string topic, ErrorsTolerance tolerance)
      : topic_(std::move(topic)), tolerance_(tolerance), offsets_("dead-letter offsets") {}

  // Starts over from the dead-letter table's offsets property (`md` null: no table yet),
  // dropping queued records. kCorrupt for a property that does not parse.
  Status Start(size_t partitions, const iceberg::TableMetadata* md) {
    rows_.clear();
    return offsets_.Start(partitions, md);
  }
  // Partitions added since Start begin at offset 0.
  void AddPartitions(size_t partitions) { offsets_.AddPartitions(partitions); }

  // Queues `row` when errors.tolerance tolerates it (invalid data: unless "none"; other
  // errors: only "all") and the dead-letter table does not hold it yet. kInvalidArgument
  // naming the record and `reason` otherwise.
  Status Route(const RecordRef& row, bool invalid_data, std::string reason);

  bool empty() const { return rows_.empty(); }
  size_t size() const { return rows_.size(); }

  // Appends the queued rows (their bytes from `records`) to the table of `ops` (with
  // DeadLetterSchema's columns) and sets its offsets property to `ends` (OffsetCommitter).
  // Returns the number of rows committed. kConflict when another coordinator moved the
  // property; writer and commit errors. The queue is kept on error.
  // REQUIRES: !empty().
  Result<int64_t> Commit(const std::vector<int64_t>& ends, const PartitionReader& records,
                         iceberg::TableOperations& ops);

  void Clear() { rows_.clear(); }

 private:
  struct Row {
    RecordRef record;
    std::string reason;
  };

  std::string topic_;
  ErrorsTolerance tolerance_;
  OffsetCommitter offsets_;  // per partition: below, in the dead-letter table
  std::vector<Row> rows_;
};

}  // namespace floe::ingest

// TopicTranslator: turns one table topic's partition logs into its Iceberg table, and is
// the table's commit coordinator (docs/table-topics.md).
//
// A round (RunOnce) reads every partition from its next offset to the log end seen at the
// start of the round, copying records into an arena (no allocation per record), and
// decodes the arena into column batches (JSON values through the text RowDecoder, the same
// one `floe table append` uses) that a DataWriter writes as Parquet files. Once
// commit.interval.ms has passed, one transaction appends every finished file, records each
// partition's translated range [start, end) in the snapshot summary (`floe.ingest.topic`,
// `floe.ingest.offsets`) and sets the table property `floe.ingest.offsets` to the new end
// offsets. Its base check refuses to commit unless that property still holds the offsets
// this coordinator started from: a second, stale coordinator fails instead of appending the
// same records again, and a retry after a concurrent writer (the optimizer) rebases safely.
// After a crash or restart the coordinator reads the property and resumes there, so each
// acked record lands exactly once.
//
// Keyed topics (upsert.enable, cdc.field, flatten_debezium; JSON or registry-decoded, the
// ops shared through registry_cdc.h) hold a commit's rows with their op and commit them as
// one row delta: an equality delete for every key touched and the last row of each key not
// deleted (equality deletes only reach earlier commits, so duplicates within a commit are
// dropped here). A schema change commits the held rows first.
//
// Registry-decoded values (convert.value.type by_schema_id / by_latest_schema) go through
// RegistryValues; a record whose schema the table cannot hold yet first evolves the table
// from the schema's columns (registry_codec.h, RecordChanges).
//
// Records that cannot be decoded (invalid_data: not JSON, not an object, not UTF-8; no
// schema registry header, an unknown schema id, bytes that do not match the schema) or
// converted (a value that fits no evolution of its column) go to `<table>_dlq` per
// errors.tolerance, committed just before the table with the same offsets property, so a
// retried range skips what the dead-letter table already holds. With errors.tolerance=none
// the round fails on such a record and translation stops there (visible in the stats).
//
// Thread-safety: RunOnce/Reset from one thread; stats() from any.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/catalog/catalog.h"
#include "floe/ingest/offset_committer.h"
#include "floe/ingest/topic_config.h"
#include "floe/kafka/broker.h"

namespace floe::ingest {

class KeyIndexStore;
class SchemaRegistry;

// Runs a function on the broker's thread (kafka::KafkaServer::Call, or directly in tests).
using BrokerCall = std::function<Status(const std::function<void(kafka::Broker&)>&)>;

struct IngestOptions {
  // The namespace of tables whose topic sets none (floe.yaml kafka.table-namespace).
  std::string default_namespace = "kafka";
  std::function<int64_t()> now_ms;
  size_t read_bytes = size_t{4} << 20;  // per log read
  size_t max_uncompressed_batch_bytes = size_t{64} << 20;
  size_t arena_bytes = size_t{16} << 20;  // records buffered before decoding
  // Commit before commit.interval.ms once a partition has this many log bytes not yet in
  // the table (0: only on the interval). The server sets half the broker's throttle bound.
  int64_t commit_backlog_bytes = 0;
  // The schemas of by_schema_id / by_latest_schema topics (null: their records are
  // undecodable). Must outlive the translators.
  const SchemaRegistry* schema_registry = nullptr;
  // Where keyed topics in position mode (delete.mode) find their keys' rows (null: such
  // topics fail). Must outlive the translators.
  KeyIndexStore* key_index = nullptr;
  // Called after every commit to a table (the optimizer's change event).
  std::function<void(const catalog::TableIdentifier&)> on_table_changed;
};

inline constexpr std::string_view kKafkaColumn = "_kafka";

// The table properties a table topic's table (and its dead-letter table) is created with:
// commits every few seconds need their metadata bounded (docs/table-topics.md): old
// metadata files deleted after commit, 20 of them kept in the metadata log, and manifests
// merged at 10 instead of Java's default 100.
std::map<std::string, std::string> TableTopicTableDefaults();

struct TopicStats {
  std::string topic;
  std::string table;      // namespace.name
  std::string dlq_table;  // namespace.name_dlq
  std::string state;      // "starting", "running", "failed"
  std::string last_error;
  struct Partition {
    int64_t log_end_offset = 0;
    int64_t committed_offset = 0;    // below: in the table
    int64_t translated_offset = 0;   // below: in files awaiting the next commit
    int64_t oldest_pending_ms = -1;  // timestamp of the oldest uncommitted record read, or -1
    int64_t untranslated_bytes = 0;  // log bytes not yet in the table
  };
  std::vector<Partition> partitions;
  int64_t commits = 0;
  int64_t rows_committed = 0;
  int64_t dlq_records = 0;
  int64_t last_commit_ms = -1;
  int64_t last_commit_latency_ms = -1;
  int64_t schema_updates = 0;
  // Position mode: commits after which the key index could not record the commit (it
  // catches up at the next one), and the last reason.
  int64_t key_index_errors = 0;
  std::string last_key_index_error;
};

class TopicTranslator {
 public:
  // REQUIRES: `catalog` outlives the translator and is used only through it.
  TopicTranslator(std::string topic, TableTopicConfig config, catalog::Catalog* catalog,
                  BrokerCall broker, IngestOptions options);
  ~TopicTranslator();

  // One round (see above). The first error ends it; the caller reports it and calls
  // Reset(), which starts over from the table's committed offsets.
  Status RunOnce();
  // Forces a commit of what is translated, whatever the interval (tests, shutdown).
  Status CommitNow();
  void Reset();

  TopicStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest

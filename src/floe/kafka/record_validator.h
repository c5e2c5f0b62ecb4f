// RecordValidator: the produce-time check of a topic's records, the broker's hook for
// checks it does not understand itself (schema validation, ingest/schema_validation.h,
// docs/table-topics.md "Produce-time schema validation"). The broker calls it with the
// keys and values of every batch produced to the topic, after the batch's own checks and
// before anything is stored; a batch with any refused record is not stored and answers
// INVALID_RECORD with one `record_errors` entry per refused record (Produce v8+, KIP-467),
// as Kafka's LogValidator does.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "floe/kafka/record_batch.h"

namespace floe::kafka {

// Why one record of a batch was refused.
struct RecordError {
  int32_t batch_index = 0;  // the record's position in its batch
  // A short stable label for counting (/metrics `reason`): "no_schema_id",
  // "unknown_schema_id", "subject_mismatch", "invalid_payload", "no_schema".
  std::string reason;
  std::string message;  // for the producer: what failed, and why
};

class RecordValidator {
 public:
  virtual ~RecordValidator() = default;

  // Appends an error for every record of `records` (one batch, in order) that may not be
  // stored; appends nothing when the batch may be. Bytes are the client's: untrusted.
  // Called on the broker's thread only; the views are valid during the call.
  virtual void Validate(std::span<const RecordView> records, std::vector<RecordError>* errors) = 0;
};

// Builds a topic's validator from its configs (canonical names), or returns null when the
// configs turn no validation on. Called when a topic is loaded or created and whenever its
// configs change. Injected by the server (BrokerOptions::make_record_validator).
using RecordValidatorFactory = std::function<std::unique_ptr<RecordValidator>(
    const std::string& topic, const std::map<std::string, std::string>& configs)>;

}  // namespace floe::kafka

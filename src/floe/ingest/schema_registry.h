// SchemaRegistry: floe's built-in Confluent-compatible schema registry (docs/table-topics.md,
// "Schema registry"): schemas with global ids, subjects with versions, soft and permanent
// deletes, compatibility levels per subject and globally, and compatibility checks for
// Avro, Protobuf and JSON Schema (schema_compatibility.h). The REST API over it is
// schema_registry_api.h; table topics read schemas from it by id or by subject.
//
// State survives restarts: every change is appended as one JSON line to
// <dir>/schemas.log and fdatasync'ed before the call returns; Open replays the log (a torn
// last line, from a crash mid-append, is dropped: its call never returned). An append that
// fails (a full disk: kResourceExhausted) is truncated away (io::AppendFile) and changes
// nothing, so the next call works once space is freed. An empty `dir` keeps everything in
// memory (tests).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/io/durable_file.h"

namespace floe::ingest {

enum class SchemaType { kAvro, kProtobuf, kJson };
// "AVRO", "PROTOBUF", "JSON".
std::string_view SchemaTypeName(SchemaType type);
// kInvalidArgument for other names.
Result<SchemaType> ParseSchemaType(std::string_view name);

enum class Compatibility {
  kNone,
  kBackward,
  kBackwardTransitive,
  kForward,
  kForwardTransitive,
  kFull,
  kFullTransitive,
};
std::string_view CompatibilityName(Compatibility c);
Result<Compatibility> ParseCompatibility(std::string_view name);

struct SchemaReference {
  std::string name;  // the import path (Protobuf) or type name (Avro)
  std::string subject;
  int32_t version = 0;
  bool operator==(const SchemaReference&) const = default;
};

struct StoredSchema {
  int32_t id = 0;
  SchemaType type = SchemaType::kAvro;
  std::string schema;  // Avro: compact JSON as parsed; others: as registered
  std::vector<SchemaReference> references;
};

struct SubjectVersion {
  std::string subject;
  int32_t version = 0;
  int32_t id = 0;
  bool deleted = false;
};

class SchemaRegistry {
 public:
  // Opens (creating) the registry stored under `dir`; "" keeps it in memory.
  // kIOError / kCorrupt for an unreadable log. `faults`: tests' injected write failures.
  static Result<std::unique_ptr<SchemaRegistry>> Open(std::string dir,
                                                      io::FileFaults* faults = nullptr);
  ~SchemaRegistry();

  // Registers `schema` under `subject` and returns its id: the id it already has when the
  // same schema (same type, normalized text and references) is registered anywhere, and the
  // subject's existing version when the subject holds it. kInvalidArgument: the schema does
  // not parse; kNotFound: a reference names no registered version; kConflict: incompatible
  // with the subject's versions under its compatibility level (messages in the status).
  Result<int32_t> Register(const std::string& subject, SchemaType type, std::string_view schema,
                           const std::vector<SchemaReference>& references);
  // The subject's version holding this schema. kNotFound (subject or schema).
  Result<SubjectVersion> Lookup(const std::string& subject, SchemaType type,
                                std::string_view schema,
                                const std::vector<SchemaReference>& references,
                                bool include_deleted) const;

  // kNotFound for an unknown id.
  Result<StoredSchema> GetById(int32_t id) const;
  // The subject versions holding schema `id` (not deleted ones).
  std::vector<SubjectVersion> VersionsOfId(int32_t id) const;

  std::vector<std::string> Subjects(bool include_deleted) const;
  bool HasSubject(const std::string& subject, bool include_deleted) const;
  // kNotFound when the subject has no (live) version.
  Result<std::vector<int32_t>> Versions(const std::string& subject, bool include_deleted) const;
  // `version` -1: the latest live version. kNotFound for a missing subject or version.
  Result<SubjectVersion> GetVersion(const std::string& subject, int32_t version,
                                    bool include_deleted) const;

  // Soft delete (permanent: forget; only after a soft delete, as Confluent requires: else
  // kFailedPrecondition). Returns the versions deleted. kNotFound.
  Result<std::vector<int32_t>> DeleteSubject(const std::string& subject, bool permanent);
  Result<int32_t> DeleteVersion(const std::string& subject, int32_t version, bool permanent);

  // The subject's level, or nullopt when it has none ("" = the global level, always set).
  std::optional<Compatibility> GetCompatibility(const std::string& subject) const;
  // The level that applies to the subject (its own, else the global one).
  Compatibility EffectiveCompatibility(const std::string& subject) const;
  Status SetCompatibility(const std::string& subject, Compatibility level);
  // kNotFound when the subject has no level of its own.
  Status DeleteCompatibility(const std::string& subject);

  // Whether `schema` may be registered under `subject` as a new version: checked against
  // `version` (-1 latest) or, for transitive levels, every live version. Incompatibilities
  // are appended to `messages`. kInvalidArgument: the schema does not parse.
  Result<bool> TestCompatibility(const std::string& subject, int32_t version, SchemaType type,
                                 std::string_view schema,
                                 const std::vector<SchemaReference>& references,
                                 std::vector<std::string>* messages) const;

  // A number that changes with every change to the registry (a registration, a soft or
  // permanent delete, a compatibility level): caches of what the registry said (the
  // produce-time validators' subjects by id) are stale once it differs.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // The texts of the schemas `references` names, by reference name, transitively (the
  // imports of a Protobuf schema). kNotFound for a missing one.
  Result<std::map<std::string, std::string>> ResolveReferences(
      const std::vector<SchemaReference>& references) const;

 private:
  struct State;
  explicit SchemaRegistry(std::string dir);
  Status Replay(io::FileFaults* faults);
  Status Append(const std::string& line);  // REQUIRES: mu_ held

  std::string dir_;
  mutable std::mutex mu_;
  std::unique_ptr<State> state_;         // guarded by mu_
  std::unique_ptr<io::AppendFile> log_;  // null in memory; guarded by mu_
  std::atomic<uint64_t> generation_{0};  // bumped (under mu_) before every change
};

}  // namespace floe::ingest

// Snapshots and snapshot references (Iceberg spec "Snapshots", "Snapshot References",
// Appendix C), with their JSON forms and Java's snapshot id generation.
//
// JSON readers take untrusted input: malformed members are kInvalidArgument naming the
// member; they never throw. Writers emit members in the order Iceberg Java writes them
// (SnapshotParser, SnapshotRefParser).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"

namespace floe::iceberg {

// Snapshot summary `operation` values.
inline constexpr std::string_view kOperationAppend = "append";
inline constexpr std::string_view kOperationReplace = "replace";
inline constexpr std::string_view kOperationOverwrite = "overwrite";
inline constexpr std::string_view kOperationDelete = "delete";

inline constexpr std::string_view kMainBranch = "main";

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  // 0 for v1 snapshots (the JSON omits it).
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  // Empty only for v1 snapshots that embed `manifests` instead.
  std::string manifest_list;
  std::vector<std::string> v1_manifests;
  // The summary's `operation`; empty when the snapshot has no summary. A summary without
  // an operation reads as "overwrite" (as Java does).
  std::string operation;
  // The other summary entries, in file order.
  std::vector<std::pair<std::string, std::string>> summary;
  std::optional<int32_t> schema_id;
  // v3 row lineage.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  std::optional<std::string> key_id;

  // The summary value for `key` (`operation` included), or nullptr.
  const std::string* SummaryValue(std::string_view key) const;
  bool operator==(const Snapshot&) const = default;
};

enum class SnapshotRefType : uint8_t { kBranch, kTag };

struct SnapshotRef {
  int64_t snapshot_id = 0;
  SnapshotRefType type = SnapshotRefType::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  // branches only
  std::optional<int64_t> max_snapshot_age_ms;    // branches only
  std::optional<int64_t> max_ref_age_ms;

  static SnapshotRef Branch(int64_t snapshot_id) {
    SnapshotRef r;
    r.snapshot_id = snapshot_id;
    return r;
  }
  static SnapshotRef Tag(int64_t snapshot_id) {
    SnapshotRef r;
    r.snapshot_id = snapshot_id;
    r.type = SnapshotRefType::kTag;
    return r;
  }
  bool is_branch() const { return type == SnapshotRefType::kBranch; }
  bool operator==(const SnapshotRef&) const = default;
};

// "branch" / "tag".
std::string_view SnapshotRefTypeName(SnapshotRefType type);
// Case-insensitive; anything else is kInvalidArgument.
Result<SnapshotRefType> ParseSnapshotRefType(std::string_view name);

// Checks Java's SnapshotRef rules: tags carry no retention settings other than
// max-ref-age-ms, and every setting present is positive. kInvalidArgument otherwise.
Status ValidateSnapshotRef(const SnapshotRef& ref);

Result<Snapshot> SnapshotFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json SnapshotToJson(const Snapshot& snapshot);
Result<SnapshotRef> SnapshotRefFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json SnapshotRefToJson(const SnapshotRef& ref);

// A new snapshot id the way Java does it (SnapshotIdGeneratorUtil): a random version-4
// UUID's two halves XORed, masked to a non-negative long. `random64` supplies uniformly
// random 64-bit words (inject a seeded generator in tests).
int64_t NewSnapshotId(const std::function<uint64_t()>& random64);

}  // namespace floe::iceberg

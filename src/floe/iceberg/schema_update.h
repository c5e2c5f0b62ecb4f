// Schema evolution with the semantics of Iceberg Java's SchemaUpdate (spec "Schema
// Evolution"): changes are recorded by name, then applied to a base schema in one step.
//
// Names are resolved against the base schema (moves may also name columns added by the same
// update; identifier fields are resolved against the result). New field ids come from
// last_column_id + 1; a nested type added gets fresh ids for all of its fields (Java order,
// see AssignFreshIds). Conflicting changes (deleting a column that is also renamed, updated
// or given new children; adding a name that exists; moving across structs; ...) make
// Apply fail with kInvalidArgument naming the column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// Whether a column of type `from` may be changed to `to` (spec "Schema Evolution", type
// promotion): int->long, float->double, decimal(P,S)->decimal(P',S) with P' >= P; in v3 also
// date->timestamp / timestamp_ns (not the tz types) and unknown->any type. A type is always
// "promotable" to itself.
bool IsPromotionAllowed(const Type& from, const Type& to, int format_version);

// Checks the spec's identifier field rules for field `id` of `schema`: it exists, is a
// required primitive that is not float or double, and every enclosing field is a required
// struct (not a list or map, not an optional struct). kInvalidArgument otherwise.
Status ValidateIdentifierField(const Schema& schema, int32_t id);

struct SchemaUpdateResult {
  Schema schema;
  int32_t last_column_id = 0;
};

class SchemaUpdate {
 public:
  SchemaUpdate() = default;

  // Allows changes that can break readers of existing data or writers: requiring a column,
  // adding a required column without a default.
  SchemaUpdate& AllowIncompatibleChanges() {
    allow_incompatible_ = true;
    return *this;
  }

  // Adds an optional column. `parent` is "" for a top-level column, or the name of a struct
  // (a list or map whose element / value is a struct stands for that struct).
  SchemaUpdate& AddColumn(std::string_view parent, std::string name, TypePtr type,
                          std::string doc = {});
  // Adds a required column. Needs a default (v3: it becomes both initial-default and
  // write-default; the literal is cast to `type`) or AllowIncompatibleChanges().
  SchemaUpdate& AddRequiredColumn(std::string_view parent, std::string name, TypePtr type,
                                  std::string doc = {},
                                  std::optional<Literal> default_value = std::nullopt);
  SchemaUpdate& DeleteColumn(std::string_view name);
  SchemaUpdate& RenameColumn(std::string_view name, std::string new_name);
  // Changes a primitive column's type; only legal promotions (IsPromotionAllowed).
  SchemaUpdate& UpdateColumnType(std::string_view name, TypePtr new_type);
  SchemaUpdate& MakeOptional(std::string_view name);
  // Needs AllowIncompatibleChanges().
  SchemaUpdate& RequireColumn(std::string_view name);
  SchemaUpdate& UpdateDoc(std::string_view name, std::string doc);
  // Sets (or clears) the write-default of a primitive column (v3).
  SchemaUpdate& UpdateWriteDefault(std::string_view name, std::optional<Literal> value);
  SchemaUpdate& MoveFirst(std::string_view name);
  SchemaUpdate& MoveBefore(std::string_view name, std::string_view before);
  SchemaUpdate& MoveAfter(std::string_view name, std::string_view after);
  // Replaces the identifier fields (validated with ValidateIdentifierField on the result).
  SchemaUpdate& SetIdentifierFields(std::vector<std::string> names);

  // Applies the changes to `base`. The result keeps base's schema id (the table metadata
  // builder assigns ids). kInvalidArgument for unknown columns, conflicting or illegal
  // changes; kFailedPrecondition when format_version is too low for a change (defaults,
  // v3 promotions).
  Result<SchemaUpdateResult> Apply(const Schema& base, int32_t last_column_id,
                                   int format_version) const;

 private:
  enum class Op : uint8_t {
    kAdd,
    kDelete,
    kRename,
    kUpdateType,
    kMakeOptional,
    kRequire,
    kUpdateDoc,
    kUpdateWriteDefault,
    kMoveFirst,
    kMoveBefore,
    kMoveAfter,
  };
  struct Change {
    Op op;
    std::string name;  // the column (for kAdd: the parent)
    std::string arg;   // new name, doc, added name, move target
    TypePtr type;      // kAdd, kUpdateType
    bool required = false;
    std::optional<Literal> literal;
    std::string doc;  // kAdd
  };

  std::vector<Change> changes_;
  std::optional<std::vector<std::string>> identifier_names_;
  bool allow_incompatible_ = false;
};

}  // namespace floe::iceberg

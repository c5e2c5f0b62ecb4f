// Avro schemas: an immutable tree parsed from schema JSON (Avro 1.12 spec, "Schema
// Declaration", "Names", "Aliases", "Logical Types"), its Parsing Canonical Form and the
// CRC-64-AVRO fingerprint ("Parsing Canonical Form for Schemas").
//
// The tree keeps every member of every JSON object in its original order, including the
// ones the spec does not define (Iceberg's field-id, element-id, key-id, value-id,
// adjust-to-utc, logicalType "map"), so ToJson() writes back what was read. Named types
// may be referenced after their definition, also recursively; a reference resolves to the
// one defining Node, so the tree is a graph (possibly cyclic) owned by its Schema.
//
// Thread-safety: a Schema and its Nodes are immutable and may be shared across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"

namespace floe::format::avro {

enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// "null", "boolean", ..., "record", "union".
std::string_view AvroTypeName(AvroType type);

// Logical types this implementation understands. A logicalType attribute that is unknown
// or invalid for its node (a decimal whose scale exceeds its precision, a uuid on an int)
// leaves the node at kNone, and readers use the underlying type, as the spec requires.
enum class LogicalType : uint8_t {
  kNone,
  kDecimal,               // bytes or fixed; precision(), scale()
  kUuid,                  // string or fixed(16)
  kDate,                  // int
  kTimeMillis,            // int
  kTimeMicros,            // long
  kTimestampMillis,       // long
  kTimestampMicros,       // long
  kTimestampNanos,        // long
  kLocalTimestampMillis,  // long
  kLocalTimestampMicros,  // long
  kLocalTimestampNanos,   // long
  kDuration,              // fixed(12)
};

std::string_view LogicalTypeName(LogicalType type);

// A member of a schema JSON object that the spec does not reserve for that object
// ("field-id", "logicalType", "precision", "adjust-to-utc", ...), with its value as
// compact JSON text.
struct Property {
  std::string key;
  std::string json;
};

class Node;

namespace internal {
// A position in the tree that holds a schema: the node, and when the JSON at that position
// was a reference to a named type ("Foo" or {"type": "Foo"}), its original text.
struct Slot {
  const Node* node = nullptr;
  std::string reference;
};
// A member of a JSON object: its key and compact JSON value. Members whose value is a
// schema or a list of fields are written from the tree and have an empty `json`.
struct Member {
  std::string key;
  std::string json;
};
class SchemaParser;
}  // namespace internal

class RecordField {
 public:
  const std::string& name() const { return name_; }
  const Node& type() const { return *type_.node; }
  const std::vector<std::string>& aliases() const { return aliases_; }
  const std::string& doc() const { return doc_; }
  // The "default" value as compact JSON text; nullopt when the field has none.
  const std::optional<std::string>& default_json() const { return default_json_; }
  // The "field-id" property when it is an integer in the int32 range (Iceberg).
  std::optional<int32_t> field_id() const { return field_id_; }
  // Members the spec does not reserve for fields, in order.
  const std::vector<Property>& properties() const { return properties_; }
  const Property* FindProperty(std::string_view key) const;

 private:
  friend class internal::SchemaParser;
  friend class Schema;

  std::string name_;
  internal::Slot type_;
  std::vector<std::string> aliases_;
  std::string doc_;
  std::optional<std::string> default_json_;
  std::optional<int32_t> field_id_;
  std::vector<Property> properties_;
  std::vector<internal::Member> members_;
};

class Node {
 public:
  AvroType type() const { return type_; }
  LogicalType logical_type() const { return logical_; }
  // Decimal only.
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }

  bool is_named() const {
    return type_ == AvroType::kRecord || type_ == AvroType::kEnum || type_ == AvroType::kFixed;
  }
  bool is_primitive() const { return type_ <= AvroType::kString; }
  // Named types: the fullname ("a.b.Foo"), the simple name ("Foo"), the namespace ("a.b",
  // empty for the null namespace) and the aliases as fullnames.
  const std::string& full_name() const { return full_name_; }
  const std::string& name() const { return name_; }
  const std::string& name_space() const { return namespace_; }
  const std::vector<std::string>& aliases() const { return aliases_; }
  const std::string& doc() const { return doc_; }

  // kRecord
  const std::vector<RecordField>& fields() const { return fields_; }
  // kEnum; enum_default() is the "default" symbol used during resolution.
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::optional<std::string>& enum_default() const { return enum_default_; }
  // kFixed
  int32_t fixed_size() const { return fixed_size_; }
  // kArray
  const Node& items() const { return *items_.node; }
  // kMap
  const Node& values() const { return *values_.node; }
  // kUnion
  size_t num_branches() const { return branches_.size(); }
  const Node& branch(size_t i) const { return *branches_[i].node; }

  // Members the spec does not reserve for this type, in order.
  const std::vector<Property>& properties() const { return properties_; }
  const Property* FindProperty(std::string_view key) const;
  // The property's value when it is a JSON integer / string.
  std::optional<int64_t> IntProperty(std::string_view key) const;
  std::optional<std::string> StringProperty(std::string_view key) const;

  // The name of this schema as a union branch in the JSON encoding: the fullname of a
  // named type, else the type name ("long", "array").
  std::string_view branch_label() const {
    return is_named() ? std::string_view(full_name_) : AvroTypeName(type_);
  }

 private:
  friend class internal::SchemaParser;
  friend class Schema;

  AvroType type_ = AvroType::kNull;
  LogicalType logical_ = LogicalType::kNone;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  int32_t fixed_size_ = 0;
  bool bare_ = false;  // written as a bare type name ("int") rather than an object
  std::string full_name_;
  std::string name_;
  std::string namespace_;
  std::vector<std::string> aliases_;
  std::string doc_;
  std::vector<RecordField> fields_;
  std::vector<std::string> symbols_;
  std::optional<std::string> enum_default_;
  internal::Slot items_;
  internal::Slot values_;
  std::vector<internal::Slot> branches_;
  std::vector<Property> properties_;
  std::vector<internal::Member> members_;
};

struct ParseOptions {
  // Check names, namespaces, field names and enum symbols against the spec's grammar.
  // Readers of files written by others turn this off, as Java's file reader does.
  bool validate_names = true;
  // Also reject what lenient parsing tolerates: logical types that are invalid for their
  // node (otherwise ignored) and field defaults that do not fit the field's type
  // (otherwise treated as absent).
  bool strict = false;
  // What Confluent's registry refuses (Avro Java with validateDefaults): field defaults
  // that do not fit the field's type (also part of `strict`), and record types no value can
  // ever end (every value of the record holds another one, with no null, array or map branch
  // on the way).
  bool validate_defaults = false;
  bool reject_unterminated_records = false;
};

class Schema {
 public:
  // Parses schema JSON. Malformed JSON and invalid schemas are kInvalidArgument with a
  // message naming the offending type or field.
  static Result<std::shared_ptr<const Schema>> Parse(std::string_view json,
                                                     const ParseOptions& options = {});

  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  const Node& root() const { return *root_.node; }

  // Compact JSON with every member of every object in its original order.
  std::string ToJson() const;
  // The Parsing Canonical Form.
  std::string CanonicalForm() const;
  // CRC-64-AVRO of the Parsing Canonical Form.
  uint64_t Fingerprint64() const;

  // The named type with this fullname, or nullptr.
  const Node* FindNamed(std::string_view full_name) const;

 private:
  friend class internal::SchemaParser;
  Schema() = default;
  static void WriteSlot(const internal::Slot& slot, std::string* out);
  static void WriteCanonical(const internal::Slot& slot, std::string* out);

  std::vector<std::unique_ptr<Node>> nodes_;
  internal::Slot root_;
  std::unordered_map<std::string, const Node*> named_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

// CRC-64-AVRO (the spec's 64-bit Rabin fingerprint) of `bytes`.
uint64_t Crc64Avro(std::string_view bytes);

}  // namespace floe::format::avro

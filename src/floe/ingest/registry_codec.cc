#include "floe/ingest/registry_codec.h"

#include <algorithm>
#include <set>

#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/columnar/gather.h"
#include "floe/format/avro/columnar_schema.h"
#include "floe/iceberg/data_reader.h"

namespace floe::ingest {

namespace avro = floe::format::avro;
namespace col = floe::columnar;
using iceberg::NestedField;
using iceberg::TypeKind;
using iceberg::TypePtr;

Result<WireHeader> ParseWireHeader(std::span<const uint8_t> value) {
  if (value.size() < 5 || value[0] != 0) {
    return Status::InvalidArgument(
        "the value lacks the schema registry header (magic byte 0 and a 4-byte schema id)");
  }
  WireHeader h;
  h.schema_id = static_cast<int32_t>((uint32_t{value[1]} << 24) | (uint32_t{value[2]} << 16) |
                                     (uint32_t{value[3]} << 8) | uint32_t{value[4]});
  h.payload = value.subspan(5);
  return h;
}

namespace {

Result<int64_t> ReadZigZag(std::span<const uint8_t>* in) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in->empty()) return Status::InvalidArgument("truncated message indexes");
    uint8_t b = (*in)[0];
    *in = in->subspan(1);
    v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  return Status::InvalidArgument("bad varint in message indexes");
}

}  // namespace

Result<std::vector<int32_t>> ReadMessageIndexes(std::span<const uint8_t>* payload) {
  FLOE_ASSIGN_OR_RETURN(int64_t count, ReadZigZag(payload));
  if (count == 0) return std::vector<int32_t>{0};
  if (count < 0 || count > 64) {
    return Status::InvalidArgument("bad message index count {}", count);
  }
  std::vector<int32_t> out;
  for (int64_t i = 0; i < count; ++i) {
    FLOE_ASSIGN_OR_RETURN(int64_t index, ReadZigZag(payload));
    if (index < 0 || index > INT32_MAX) return Status::InvalidArgument("bad message index");
    out.push_back(static_cast<int32_t>(index));
  }
  return out;
}

// ---- Avro

std::string UnionMemberName(std::string_view branch_label) {
  const size_t dot = branch_label.rfind('.');
  return std::string(dot == std::string_view::npos ? branch_label : branch_label.substr(dot + 1));
}

namespace {

// The records being derived (a recursive one has no columnar form) and a budget of nodes,
// since a named type used twice per level makes a small schema's tree exponential.
struct AvroStack {
  std::vector<const avro::Node*> open;
  int64_t budget = 100000;
  int unions = 0;  // unions of several types being derived (one may not hold another)
};
Result<TypePtr> AvroType(const avro::Node& node, int depth, bool* nullable, AvroStack& stack);

Result<std::vector<NestedField>> AvroRecordFields(const avro::Node& record, int depth,
                                                  AvroStack& stack) {
  // A recursive record has no columnar form.
  if (--stack.budget < 0) return Status::Unimplemented("the schema is too large");
  if (std::find(stack.open.begin(), stack.open.end(), &record) != stack.open.end()) {
    return Status::Unimplemented("recursive record {} is not supported", record.full_name());
  }
  stack.open.push_back(&record);
  struct Pop {
    AvroStack& s;
    ~Pop() { s.open.pop_back(); }
  } pop{stack};
  std::vector<NestedField> fields;
  for (const avro::RecordField& f : record.fields()) {
    bool nullable = false;
    FLOE_ASSIGN_OR_RETURN(TypePtr t, AvroType(f.type(), depth + 1, &nullable, stack));
    if (t == nullptr) continue;  // a field that is always null holds nothing
    fields.push_back(NestedField::Optional(0, f.name(), std::move(t)));
  }
  return fields;
}

Result<TypePtr> AvroType(const avro::Node& node, int depth, bool* nullable, AvroStack& stack) {
  using T = avro::AvroType;
  using L = avro::LogicalType;
  *nullable = false;
  if (depth > 64) return Status::Unimplemented("the schema nests too deeply (recursive?)");
  switch (node.logical_type()) {
    case L::kDecimal:
      if (node.precision() > 38) {
        return Status::Unimplemented("decimal precision {} above 38", node.precision());
      }
      return iceberg::DecimalType(node.precision(), node.scale());
    case L::kUuid: return node.type() == T::kFixed ? iceberg::UuidType() : iceberg::StringType();
    case L::kDate: return iceberg::DateType();
    case L::kTimeMillis:
    case L::kTimeMicros: return iceberg::TimeType();
    case L::kTimestampMillis:
    case L::kTimestampMicros: return iceberg::TimestampTzType();
    case L::kLocalTimestampMillis:
    case L::kLocalTimestampMicros: return iceberg::TimestampType();
    case L::kTimestampNanos:
    case L::kLocalTimestampNanos:
      return Status::Unimplemented("nanosecond timestamps need format version 3");
    case L::kDuration:
    case L::kNone: break;
  }
  switch (node.type()) {
    case T::kNull: *nullable = true; return TypePtr();
    case T::kBoolean: return iceberg::BooleanType();
    case T::kInt: return iceberg::IntType();
    case T::kLong: return iceberg::LongType();
    case T::kFloat: return iceberg::FloatType();
    case T::kDouble: return iceberg::DoubleType();
    case T::kBytes: return iceberg::BinaryType();
    case T::kString: return iceberg::StringType();
    case T::kEnum: return iceberg::StringType();
    case T::kFixed: return iceberg::FixedType(node.fixed_size());
    case T::kRecord: {
      FLOE_ASSIGN_OR_RETURN(auto fields, AvroRecordFields(node, depth, stack));
      if (fields.empty()) return TypePtr();
      return iceberg::StructType(std::move(fields));
    }
    case T::kArray: {
      bool element_nullable = false;
      FLOE_ASSIGN_OR_RETURN(TypePtr e, AvroType(node.items(), depth + 1, &element_nullable, stack));
      if (e == nullptr) return Status::Unimplemented("an array of nulls");
      return iceberg::ListType(0, e, false);
    }
    case T::kMap: {
      bool value_nullable = false;
      FLOE_ASSIGN_OR_RETURN(TypePtr v, AvroType(node.values(), depth + 1, &value_nullable, stack));
      if (v == nullptr) return Status::Unimplemented("a map of nulls");
      return iceberg::MapType(0, iceberg::StringType(), 0, v, false);
    }
    case T::kUnion: {
      avro::UnionShape shape = avro::ClassifyUnion(node);
      if (shape.dense) {
        // One optional field per non-null branch, at most one of them set per value (as
        // Redpanda and Kafka Connect's AvroData map unions); the union's null is the
        // struct's.
        *nullable = shape.null_branch >= 0;
        if (stack.unions > 0) {
          return Status::Unimplemented("a union of several types within another one");
        }
        ++stack.unions;
        struct Leave {
          AvroStack& s;
          ~Leave() { --s.unions; }
        } leave{stack};
        std::vector<NestedField> members;
        for (size_t i = 0; i < node.num_branches(); ++i) {
          const avro::Node& branch = node.branch(i);
          if (branch.type() == T::kNull) continue;
          bool inner = false;
          FLOE_ASSIGN_OR_RETURN(TypePtr t, AvroType(branch, depth + 1, &inner, stack));
          if (t == nullptr) continue;  // an empty record holds nothing
          std::string name = UnionMemberName(branch.branch_label());
          for (const NestedField& m : members) {
            if (m.name == name) {
              return Status::Unimplemented("union branches {} and {} have one field name", m.name,
                                           branch.branch_label());
            }
          }
          members.push_back(NestedField::Optional(0, std::move(name), std::move(t)));
        }
        if (members.empty()) return TypePtr();
        return iceberg::StructType(std::move(members));
      }
      *nullable = shape.null_branch >= 0;
      if (shape.value_branch < 0) return TypePtr();
      bool inner = false;
      return AvroType(node.branch(static_cast<size_t>(shape.value_branch)), depth + 1, &inner,
                      stack);
    }
  }
  return Status::Unimplemented("unsupported Avro type");
}

}  // namespace

Result<std::vector<NestedField>> AvroColumns(const avro::Schema& schema) {
  const avro::Node& root = schema.root();
  AvroStack stack;
  if (root.type() == avro::AvroType::kRecord) return AvroRecordFields(root, 0, stack);
  bool nullable = false;
  FLOE_ASSIGN_OR_RETURN(TypePtr t, AvroType(root, 0, &nullable, stack));
  if (t == nullptr) return Status::Unimplemented("a schema of nulls holds nothing");
  return std::vector<NestedField>{NestedField::Optional(0, "value", std::move(t))};
}

// ---- Protobuf

namespace {

Result<TypePtr> ProtoScalar(const proto::Field& f) {
  using F = proto::FieldType;
  switch (f.type) {
    case F::kDouble: return iceberg::DoubleType();
    case F::kFloat: return iceberg::FloatType();
    case F::kInt32:
    case F::kSInt32:
    case F::kSFixed32: return iceberg::IntType();
    case F::kInt64:
    case F::kSInt64:
    case F::kSFixed64:
    case F::kUInt32:
    case F::kFixed32:
    case F::kUInt64:
    case F::kFixed64: return iceberg::LongType();
    case F::kBool: return iceberg::BooleanType();
    case F::kString:
    case F::kEnum: return iceberg::StringType();
    case F::kBytes: return iceberg::BinaryType();
    case F::kMessage: break;
  }
  return Status::Internal("not a scalar");
}

// As AvroStack, for messages.
struct ProtoStack {
  std::vector<const proto::Message*> open;
  int64_t budget = 100000;
};
Result<std::vector<NestedField>> ProtoFields(const proto::Message& m, int depth, ProtoStack& stack);

Result<TypePtr> ProtoValueType(const proto::Field& f, int depth, ProtoStack& stack) {
  if (f.type != proto::FieldType::kMessage) return ProtoScalar(f);
  if (proto::IsTimestamp(*f.message)) return iceberg::TimestampTzType();
  FLOE_ASSIGN_OR_RETURN(auto fields, ProtoFields(*f.message, depth + 1, stack));
  if (fields.empty()) return TypePtr();
  return iceberg::StructType(std::move(fields));
}

Result<std::vector<NestedField>> ProtoFields(const proto::Message& m, int depth,
                                             ProtoStack& stack) {
  if (depth > 32) return Status::Unimplemented("message {} nests too deeply", m.full_name);
  if (--stack.budget < 0) return Status::Unimplemented("the schema is too large");
  if (std::find(stack.open.begin(), stack.open.end(), &m) != stack.open.end()) {
    return Status::Unimplemented("recursive message {} is not supported", m.full_name);
  }
  stack.open.push_back(&m);
  struct Pop {
    ProtoStack& s;
    ~Pop() { s.open.pop_back(); }
  } pop{stack};
  std::vector<NestedField> out;
  for (const proto::Field& f : m.fields) {
    TypePtr t;
    if (f.is_map) {
      const proto::Message& entry = *f.message;
      FLOE_ASSIGN_OR_RETURN(TypePtr k, ProtoScalar(entry.fields[0]));
      FLOE_ASSIGN_OR_RETURN(TypePtr v, ProtoValueType(entry.fields[1], depth, stack));
      if (v == nullptr) continue;
      t = iceberg::MapType(0, k, 0, v, false);
    } else {
      FLOE_ASSIGN_OR_RETURN(TypePtr v, ProtoValueType(f, depth, stack));
      if (v == nullptr) continue;  // an empty message holds nothing
      t = f.repeated ? iceberg::ListType(0, v, false) : v;
    }
    out.push_back(NestedField::Optional(0, f.name, std::move(t)));
  }
  return out;
}

}  // namespace

Result<std::vector<NestedField>> ProtoColumns(const proto::Message& message) {
  if (proto::IsTimestamp(message)) {
    return std::vector<NestedField>{NestedField::Optional(0, "value", iceberg::TimestampTzType())};
  }
  ProtoStack stack;
  return ProtoFields(message, 0, stack);
}

// ---- JSON Schema

namespace {

// The document a schema's local references ("#/definitions/X", "#/$defs/X") resolve in,
// the references being followed (a recursive one has no columnar form), and a budget of
// nodes, since a definition used twice per level makes a small schema's tree exponential.
struct JsonSchemaScope {
  const nlohmann::ordered_json& root;
  std::vector<std::string> open;
  int64_t budget = 100000;
};

Result<TypePtr> JsonSchemaType(const nlohmann::ordered_json& s, int depth, JsonSchemaScope& scope);

// The schema a local "$ref" points at (a JSON Pointer into the document, RFC 6901).
Result<const nlohmann::ordered_json*> ResolveJsonRef(const nlohmann::ordered_json& root,
                                                     const std::string& ref) {
  if (ref != "#" && !ref.starts_with("#/")) {
    return Status::Unimplemented(
        "JSON Schema $ref '{}' is not local (#/definitions/..., "
        "#/$defs/...)",
        ref);
  }
  const nlohmann::ordered_json* at = &root;
  size_t start = 2;
  while (ref.size() > 1 && start <= ref.size()) {
    size_t slash = ref.find('/', start);
    std::string token = ref.substr(start, slash == std::string::npos ? slash : slash - start);
    // RFC 6901 escapes: ~1 is '/', ~0 is '~'.
    for (size_t i = 0; (i = token.find('~', i)) != std::string::npos; ++i) {
      if (i + 1 < token.size() && token[i + 1] == '1')
        token.replace(i, 2, "/");
      else if (i + 1 < token.size() && token[i + 1] == '0')
        token.replace(i, 2, "~");
    }
    if (!at->is_object() || !at->contains(token)) {
      return Status::Unimplemented("JSON Schema $ref '{}' points at nothing", ref);
    }
    at = &(*at)[token];
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return at;
}

// oneOf / anyOf: [null, T] (in any order) is an optional T; nullptr when there is no such
// member (the schema has its own type).
Result<const nlohmann::ordered_json*> NullableMember(const nlohmann::ordered_json& s) {
  for (const char* key : {"oneOf", "anyOf"}) {
    if (!s.contains(key)) continue;
    const auto& members = s[key];
    if (!members.is_array()) return Status::Unimplemented("JSON Schema {} is not a list", key);
    const nlohmann::ordered_json* value = nullptr;
    for (const auto& m : members) {
      if (m.is_object() && m.size() == 1 && m.contains("type") && m["type"] == "null") continue;
      if (value != nullptr) {
        return Status::Unimplemented("JSON Schema {} of several non-null schemas", key);
      }
      value = &m;
    }
    if (value == nullptr) return Status::Unimplemented("JSON Schema {} of only null", key);
    return value;
  }
  return nullptr;
}

Result<TypePtr> JsonSchemaType(const nlohmann::ordered_json& s, int depth, JsonSchemaScope& scope) {
  if (depth > 64) return Status::Unimplemented("the JSON Schema nests too deeply");
  if (--scope.budget < 0) return Status::Unimplemented("the JSON Schema is too large");
  if (!s.is_object()) return Status::Unimplemented("a boolean JSON Schema has no type");
  if (s.contains("$ref") && s["$ref"].is_string()) {
    const std::string ref = s["$ref"].get<std::string>();
    if (std::find(scope.open.begin(), scope.open.end(), ref) != scope.open.end()) {
      return Status::Unimplemented("recursive JSON Schema $ref '{}' is not supported", ref);
    }
    FLOE_ASSIGN_OR_RETURN(const nlohmann::ordered_json* target, ResolveJsonRef(scope.root, ref));
    scope.open.push_back(ref);
    Result<TypePtr> t = JsonSchemaType(*target, depth + 1, scope);
    scope.open.pop_back();
    return t;
  }
  FLOE_ASSIGN_OR_RETURN(const nlohmann::ordered_json* member, NullableMember(s));
  if (member != nullptr) return JsonSchemaType(*member, depth + 1, scope);
  std::string type;
  if (s.contains("type")) {
    const auto& t = s["type"];
    if (t.is_string()) {
      type = t.get<std::string>();
    } else if (t.is_array()) {
      for (const auto& x : t) {
        if (!x.is_string() || x == "null") continue;
        if (!type.empty()) {
          return Status::Unimplemented("JSON Schema with several types ({}, {})", type,
                                       x.get<std::string>());
        }
        type = x.get<std::string>();
      }
    }
  } else if (s.contains("properties")) {
    type = "object";
  }
  if (type == "object") {
    std::vector<NestedField> fields;
    if (s.contains("properties") && s["properties"].is_object()) {
      for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
        FLOE_ASSIGN_OR_RETURN(TypePtr t, JsonSchemaType(it.value(), depth + 1, scope));
        if (t != nullptr) fields.push_back(NestedField::Optional(0, it.key(), std::move(t)));
      }
    }
    if (fields.empty()) return TypePtr();
    return iceberg::StructType(std::move(fields));
  }
  if (type == "array") {
    if (!s.contains("items")) return Status::Unimplemented("a JSON Schema array without items");
    FLOE_ASSIGN_OR_RETURN(TypePtr e, JsonSchemaType(s["items"], depth + 1, scope));
    if (e == nullptr) return Status::Unimplemented("a JSON Schema array of empty objects");
    return iceberg::ListType(0, e, false);
  }
  if (type == "integer") return iceberg::LongType();
  if (type == "number") return iceberg::DoubleType();
  if (type == "boolean") return iceberg::BooleanType();
  if (type == "string") {
    if (s.contains("format") && s["format"] == "date") return iceberg::DateType();
    if (s.contains("format") && s["format"] == "date-time") return iceberg::TimestampTzType();
    return iceberg::StringType();
  }
  if (type == "null") return TypePtr();
  return Status::Unimplemented("JSON Schema type '{}' is not supported",
                               type.empty() ? "(none)" : type);
}

}  // namespace

Result<std::vector<NestedField>> JsonSchemaColumns(const nlohmann::ordered_json& schema) {
  JsonSchemaScope scope{schema, {}};
  FLOE_ASSIGN_OR_RETURN(TypePtr t, JsonSchemaType(schema, 0, scope));
  if (t == nullptr) return Status::Unimplemented("the JSON Schema holds no properties");
  if (t->kind() == TypeKind::kStruct) return t->fields();
  return std::vector<NestedField>{NestedField::Optional(0, "value", std::move(t))};
}

// ---- schema changes

namespace {

std::string Full(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

// `table_type` (at full name `full`) against `record_type`.
Status TypeChanges(const TypePtr& table_type, const TypePtr& record_type, const std::string& full,
                   std::vector<SchemaChange>* changes) {
  const TypeKind tk = table_type->kind();
  const TypeKind rk = record_type->kind();
  auto conflict = [&] {
    return Status::InvalidArgument("column \"{}\": {} does not fit column type {}", full,
                                   record_type->ToString(), table_type->ToString());
  };
  if (tk == TypeKind::kStruct) {
    if (rk != TypeKind::kStruct) return conflict();
    return RecordChanges(table_type->fields(), record_type->fields(), full, changes);
  }
  if (tk == TypeKind::kList) {
    if (rk != TypeKind::kList) return conflict();
    // Struct elements: fields added under the list column (UpdateSchema resolves a list
    // parent to its element struct); the element's own full name for other changes.
    const TypePtr& te = table_type->element().type;
    const TypePtr& re = record_type->element().type;
    if (te->kind() == TypeKind::kStruct && re->kind() == TypeKind::kStruct) {
      std::vector<SchemaChange> inner;
      FLOE_RETURN_IF_ERROR(RecordChanges(te->fields(), re->fields(), full + ".element", &inner));
      for (SchemaChange& c : inner) {
        if (c.kind == SchemaChange::Kind::kAddColumn && c.parent == full + ".element")
          c.parent = full;
        changes->push_back(std::move(c));
      }
      return Status::OK();
    }
    return TypeChanges(te, re, full + ".element", changes);
  }
  if (tk == TypeKind::kMap) {
    if (rk != TypeKind::kMap) return conflict();
    if (!table_type->key().type->Equals(*record_type->key().type)) {
      return TypeChanges(table_type->key().type, record_type->key().type, full + ".key", changes);
    }
    const TypePtr& tv = table_type->value().type;
    const TypePtr& rv = record_type->value().type;
    if (tv->kind() == TypeKind::kStruct && rv->kind() == TypeKind::kStruct) {
      std::vector<SchemaChange> inner;
      FLOE_RETURN_IF_ERROR(RecordChanges(tv->fields(), rv->fields(), full + ".value", &inner));
      for (SchemaChange& c : inner) {
        if (c.kind == SchemaChange::Kind::kAddColumn && c.parent == full + ".value")
          c.parent = full;
        changes->push_back(std::move(c));
      }
      return Status::OK();
    }
    return TypeChanges(tv, rv, full + ".value", changes);
  }
  if (rk == tk) {
    if (tk == TypeKind::kDecimal) {
      if (table_type->scale() != record_type->scale()) return conflict();
      if (record_type->precision() > table_type->precision()) {
        changes->push_back({SchemaChange::Kind::kWiden, "", full, record_type});
      }
    } else if (tk == TypeKind::kFixed && table_type->length() != record_type->length()) {
      return conflict();
    }
    return Status::OK();
  }
  // Promotions (Iceberg spec, Schema Evolution): the table widens to the record's type, or
  // already holds a wider one the record's values convert to.
  if (tk == TypeKind::kInt && rk == TypeKind::kLong) {
    changes->push_back({SchemaChange::Kind::kWiden, "", full, iceberg::LongType()});
    return Status::OK();
  }
  if (tk == TypeKind::kFloat && rk == TypeKind::kDouble) {
    changes->push_back({SchemaChange::Kind::kWiden, "", full, iceberg::DoubleType()});
    return Status::OK();
  }
  if ((tk == TypeKind::kLong && rk == TypeKind::kInt) ||
      (tk == TypeKind::kDouble && rk == TypeKind::kFloat) ||
      (tk == TypeKind::kBinary && rk == TypeKind::kString) ||
      (tk == TypeKind::kString && rk == TypeKind::kBinary) ||
      (tk == TypeKind::kTimestampTz && rk == TypeKind::kTimestamp) ||
      (tk == TypeKind::kTimestamp && rk == TypeKind::kTimestampTz) ||
      (tk == TypeKind::kFixed && rk == TypeKind::kUuid && table_type->length() == 16) ||
      (tk == TypeKind::kUuid && rk == TypeKind::kFixed && record_type->length() == 16)) {
    return Status::OK();
  }
  return conflict();
}

}  // namespace

Status RecordChanges(const std::vector<NestedField>& table, const std::vector<NestedField>& record,
                     const std::string& parent, std::vector<SchemaChange>* changes) {
  for (const NestedField& t : table) {
    const NestedField* r = nullptr;
    for (const NestedField& f : record) {
      if (f.name == t.name) r = &f;
    }
    const std::string full = Full(parent, t.name);
    // Every record column may be null (an Avro union with null, a Protobuf field without
    // presence is still absent in an older version): required columns become optional.
    if (t.required) changes->push_back({SchemaChange::Kind::kMakeOptional, "", full, nullptr});
    if (r != nullptr) FLOE_RETURN_IF_ERROR(TypeChanges(t.type, r->type, full, changes));
  }
  for (const NestedField& r : record) {
    bool present = false;
    for (const NestedField& t : table) present |= t.name == r.name;
    if (present) continue;
    if (r.name.find('.') != std::string::npos) {
      return Status::InvalidArgument("field \"{}\": a '.' in a new column name is not allowed",
                                     Full(parent, r.name));
    }
    changes->push_back({SchemaChange::Kind::kAddColumn, parent, r.name, r.type});
  }
  return Status::OK();
}

// ---- conforming decoded columns

namespace {

// A decoded dense union (Avro, one member per branch) as the struct AvroColumns gives it:
// one field per non-null member, named UnionMemberName(label), set in the rows of that
// member; the row is null where the union holds null.
Result<col::Array> UnionToStruct(const col::Array& a) {
  const int64_t n = a.length();
  const int8_t* ids = a.union_type_ids();
  const int32_t* offsets = a.union_offsets();
  const auto& members = a.type()->children();
  Buffer validity;
  validity.ResizeZeroed(static_cast<size_t>(col::BytesForBits(n)));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto m = static_cast<size_t>(ids[i]);
    if (m >= members.size()) return Status::Internal("union type id out of range");
    if (members[m].type->id() == col::TypeId::kNull) {
      ++nulls;
    } else {
      col::SetBit(validity.data(), i);
    }
  }
  std::vector<col::Field> fields;
  std::vector<col::Array> children;
  for (size_t m = 0; m < members.size(); ++m) {
    if (members[m].type->id() == col::TypeId::kNull) continue;
    col::Array null_row = col::Array::Nulls(members[m].type, 1);
    std::vector<col::RowRef> picks(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      picks[static_cast<size_t>(i)] = static_cast<size_t>(ids[i]) == m
                                          ? col::RowRef{0, static_cast<uint32_t>(offsets[i])}
                                          : col::RowRef{1, 0};
    }
    FLOE_ASSIGN_OR_RETURN(col::Array child, col::Gather({&a.child(m), &null_row}, picks));
    fields.emplace_back(UnionMemberName(members[m].name), child.type(), true);
    children.push_back(std::move(child));
  }
  return col::Array(col::Struct(std::move(fields)), n, nulls, std::move(validity), Buffer(),
                    Buffer(), std::move(children));
}

Result<col::Array> ConformByName(col::Array a, const NestedField& target) {
  const iceberg::Type& tt = *target.type;
  if (a.type_id() == col::TypeId::kUnion && tt.kind() == TypeKind::kStruct) {
    FLOE_ASSIGN_OR_RETURN(a, UnionToStruct(a));
  }
  if (a.type_id() == col::TypeId::kNull || tt.is_primitive()) {
    return iceberg::ConformArray(std::move(a), target);
  }
  col::DataTypePtr t = iceberg::ColumnarTypeOf(tt);
  auto mismatch = [&] {
    return Status::InvalidArgument("column '{}': decoded {} does not fit {}", target.name,
                                   a.type()->ToString(), tt.ToString());
  };
  switch (tt.kind()) {
    case TypeKind::kStruct: {
      if (a.type_id() != col::TypeId::kStruct) return mismatch();
      col::DataTypePtr stored = a.type();
      col::Array::Parts p = std::move(a).Release();
      std::vector<std::string> names;
      for (size_t i = 0; i < stored->children().size(); ++i) names.push_back(stored->child(i).name);
      FLOE_ASSIGN_OR_RETURN(std::vector<col::Array> children,
                            ConformColumns(std::move(p.children), names, tt.fields(), p.length));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(), Buffer(),
                        std::move(children));
    }
    case TypeKind::kList: {
      if (a.type_id() != col::TypeId::kList) return mismatch();
      col::Array::Parts p = std::move(a).Release();
      if (p.children.size() != 1) return mismatch();
      FLOE_ASSIGN_OR_RETURN(col::Array element,
                            ConformByName(std::move(p.children[0]), tt.element()));
      std::vector<col::Array> children;
      children.push_back(std::move(element));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(),
                        std::move(p.offsets), std::move(children));
    }
    case TypeKind::kMap: {
      if (a.type_id() != col::TypeId::kMap) return mismatch();
      col::Array::Parts p = std::move(a).Release();
      if (p.children.size() != 1) return mismatch();
      col::Array::Parts e = std::move(p.children[0]).Release();
      if (e.children.size() != 2) return mismatch();
      FLOE_ASSIGN_OR_RETURN(col::Array keys, ConformByName(std::move(e.children[0]), tt.key()));
      FLOE_ASSIGN_OR_RETURN(col::Array values, ConformByName(std::move(e.children[1]), tt.value()));
      std::vector<col::Array> kv;
      kv.push_back(std::move(keys));
      kv.push_back(std::move(values));
      col::Array entries(t->child(0).type, e.length, e.null_count, std::move(e.validity), Buffer(),
                         Buffer(), std::move(kv));
      std::vector<col::Array> children;
      children.push_back(std::move(entries));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(),
                        std::move(p.offsets), std::move(children));
    }
    default: return mismatch();
  }
}

}  // namespace

Result<std::vector<col::Array>> ConformColumns(std::vector<col::Array> columns,
                                               const std::vector<std::string>& names,
                                               const std::vector<NestedField>& targets,
                                               int64_t num_rows) {
  std::vector<col::Array> out;
  out.reserve(targets.size());
  for (const NestedField& t : targets) {
    size_t found = names.size();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == t.name) found = i;
    }
    if (found == names.size()) {
      out.push_back(col::Array::Nulls(iceberg::ColumnarTypeOf(*t.type), num_rows));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(col::Array c, ConformByName(std::move(columns[found]), t));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace floe::ingest

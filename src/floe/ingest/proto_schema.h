// ProtoSchema: a parser for the `.proto` text a schema registry stores (Protocol Buffers
// Language Specification, proto3 and the proto2 subset producers use), giving the messages
// and enums with their fields resolved, so that records in the Protobuf wire format can be
// decoded (proto_decoder.h) without generated code.
//
// Understood: syntax, package, import (the imported files' text comes from the registry's
// references; google/protobuf/timestamp.proto is built in), option statements (skipped),
// messages with nested messages and enums, fields with repeated / optional / required labels,
// map<K, V>, oneof, field options ([packed = ...]; others skipped), reserved and extensions
// ranges (skipped), enums, services and extend blocks (skipped). Groups are kUnimplemented.
// Type names resolve with the language's scoping rules (innermost scope first; a leading
// '.' is fully qualified).
//
// Thread-safety: immutable after Parse.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"

namespace floe::ingest::proto {

enum class FieldType : uint8_t {
  kDouble,
  kFloat,
  kInt64,
  kUInt64,
  kInt32,
  kFixed64,
  kFixed32,
  kBool,
  kString,
  kBytes,
  kUInt32,
  kSFixed32,
  kSFixed64,
  kSInt32,
  kSInt64,
  kEnum,
  kMessage,
};

// The wire type a field of this type is written with (0 varint, 1 64-bit, 2 length-delimited,
// 5 32-bit).
int WireTypeOf(FieldType type);
std::string_view FieldTypeName(FieldType type);

// Protobuf's own default recursion limit (CodedInputStream): the deepest nesting of message
// declarations ProtoSchema::Parse and a descriptor (proto_descriptor.h) accept, and of
// messages within a record ProtoDecoder decodes. Deeper is kInvalidArgument / kCorrupt.
inline constexpr int kMaxMessageDepth = 100;

struct Message;
struct Enum;

struct Field {
  std::string name;
  int32_t number = 0;
  FieldType type = FieldType::kInt32;
  std::string type_name;  // kMessage / kEnum: the resolved full name
  bool repeated = false;
  // Explicit presence: proto2 optional/required, proto3 `optional`, oneof members and
  // message fields. Without it an absent scalar reads as its zero value.
  bool has_presence = false;
  bool is_map = false;  // a repeated message of the synthesized <Name>Entry{key=1, value=2}
  int32_t oneof_index = -1;
  const Message* message = nullptr;   // kMessage
  const Enum* enumeration = nullptr;  // kEnum
};

struct Enum {
  std::string full_name;
  std::vector<std::pair<std::string, int32_t>> values;
  // The symbol of a number, or nullptr.
  const std::string* NameOf(int32_t number) const;
};

struct Message {
  std::string full_name;
  std::vector<Field> fields;
  std::vector<std::string> oneofs;
  std::vector<const Message*> nested;  // in declaration order (message indexes)
  bool map_entry = false;
  // Index into `fields` by field number (-1: unknown).
  int FieldIndex(int32_t number) const {
    if (number >= 0 && static_cast<size_t>(number) < dense_index.size()) {
      return dense_index[static_cast<size_t>(number)];
    }
    auto it = sparse_index.find(number);
    return it == sparse_index.end() ? -1 : it->second;
  }
  std::vector<int> dense_index;                   // numbers below 1024
  std::unordered_map<int32_t, int> sparse_index;  // the others
};

class ProtoSchema {
 public:
  // Parses `text`; `imports` maps import paths to their text (registry references).
  // kInvalidArgument naming the line for syntax errors, unresolved types and message
  // declarations nested deeper than kMaxMessageDepth.
  static Result<std::unique_ptr<ProtoSchema>> Parse(
      std::string_view text, const std::map<std::string, std::string>& imports = {});

  const std::string& package() const { return package_; }
  // The top-level messages of the parsed file (not of its imports), in order.
  const std::vector<const Message*>& top_level() const { return top_level_; }
  // Every message, imports included.
  const std::vector<std::unique_ptr<Message>>& messages() const { return messages_; }
  const Message* FindMessage(std::string_view full_name) const;
  // The message a Confluent message-index path names ([0] = the first top-level message,
  // [1, 0] = the first nested message of the second, ...). kInvalidArgument when out of range.
  Result<const Message*> MessageAt(const std::vector<int32_t>& indexes) const;

  struct Builder;

 private:
  ProtoSchema() = default;
  std::string package_;
  std::vector<const Message*> top_level_;
  std::vector<std::unique_ptr<Message>> messages_;
  std::vector<std::unique_ptr<Enum>> enums_;
  std::unordered_map<std::string, const Message*> message_by_name_;
  std::unordered_map<std::string, const Enum*> enum_by_name_;
};

// True for google.protobuf.Timestamp, decoded as a timestamptz column.
inline bool IsTimestamp(const Message& m) { return m.full_name == "google.protobuf.Timestamp"; }

}  // namespace floe::ingest::proto

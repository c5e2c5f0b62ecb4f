// ProtoDecoder: decodes Protocol Buffers wire-format messages (Protocol Buffers Encoding:
// varint, zig-zag, 32- and 64-bit, length-delimited; packed and unpacked repeated fields)
// straight into column builders of the message's columns (registry_codec.h, ProtoColumns).
//
// A message's fields may come in any order and a singular field may repeat (the last one
// wins), so each message level first notes where each of its fields is (a scratch slot per
// field, reused across records: no allocation per record) while repeated fields append to
// their list builders as they come; then it appends every field in column order, nested
// messages recursively. Absent fields: null with explicit presence (proto2, proto3
// `optional`, oneof members, messages), else the zero value (0, "", false, the enum's
// number-0 symbol); absent repeated fields and maps are empty.
//
// Malformed bytes (truncation, bad varints, a wire type that does not match the field,
// groups, invalid UTF-8 in a string) are kCorrupt; after an error the pending rows are
// unusable: discard the decoder.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/type.h"
#include "floe/ingest/proto_schema.h"

namespace floe::ingest {

class ProtoDecoder {
 public:
  // REQUIRES: `message` (and its schema) outlives the decoder.
  static Result<std::unique_ptr<ProtoDecoder>> Make(const proto::Message& message);
  ~ProtoDecoder();

  // The columns Read() fills (ProtoColumns of the message).
  const std::vector<iceberg::NestedField>& columns() const { return columns_; }

  // Decodes one message and appends it as a row.
  Status Read(std::span<const uint8_t> bytes);
  int64_t num_rows() const { return num_rows_; }
  // The rows since the last call, one array per column.
  std::vector<columnar::Array> Finish();

  struct Plan;

 private:
  ProtoDecoder() = default;
  struct Slot {
    uint64_t raw = 0;
    const uint8_t* data = nullptr;
    uint32_t size = 0;
    bool seen = false;
  };
  const Plan* PlanFor(const proto::Message& m);
  Status DecodeMessage(const Plan& plan, std::span<const uint8_t> bytes,
                       columnar::StructBuilder* parent, int depth);
  Status AppendSlot(const proto::Field& f, const Slot& s, columnar::ArrayBuilder* b,
                    const Plan* sub, int depth);
  Status AppendMessage(const proto::Field& f, std::span<const uint8_t> bytes,
                       columnar::ArrayBuilder* b, const Plan* sub, int depth);
  columnar::ArrayBuilder* Child(columnar::StructBuilder* parent, int column) {
    return parent != nullptr ? parent->child(static_cast<size_t>(column))
                             : builders_[static_cast<size_t>(column)].get();
  }

  const proto::Message* root_ = nullptr;
  std::vector<iceberg::NestedField> columns_;
  std::vector<std::unique_ptr<columnar::ArrayBuilder>> builders_;
  std::unordered_map<const proto::Message*, std::unique_ptr<Plan>> plans_;
  std::vector<std::vector<Slot>> scratch_;  // per nesting depth
  int64_t num_rows_ = 0;
};

}  // namespace floe::ingest

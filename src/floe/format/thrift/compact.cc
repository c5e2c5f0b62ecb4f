#include "floe/format/thrift/compact.h"

#include <fmt/format.h>

namespace floe::format::thrift {

namespace {

// Fewest bytes one element of `type` occupies on the wire. A container whose size times
// this exceeds the bytes left is corrupt, which bounds every allocation by the input size.
size_t MinElementBytes(WireType type) {
  switch (type) {
    case WireType::kDouble: return 8;
    case WireType::kUuid: return 16;
    default: return 1;  // bool and i8 bytes, varints, a binary length, a container header, STOP
  }
}

// Element types 1..13; bool elements use 1 (C++, Java, Rust) or 2 (the spec's original
// text, some Go writers), normalized to kBoolTrue.
Result<WireType> ElementType(uint8_t nibble) {
  if (FLOE_PREDICT_FALSE(nibble == 0 || nibble > static_cast<uint8_t>(WireType::kUuid))) {
    return Status::Corrupt("thrift: invalid container element type {}", nibble);
  }
  auto type = static_cast<WireType>(nibble);
  return IsBool(type) ? WireType::kBoolTrue : type;
}

}  // namespace

std::string WireTypeName(WireType t) {
  switch (t) {
    case WireType::kStop: return "stop";
    case WireType::kBoolTrue:
    case WireType::kBoolFalse: return "bool";
    case WireType::kI8: return "i8";
    case WireType::kI16: return "i16";
    case WireType::kI32: return "i32";
    case WireType::kI64: return "i64";
    case WireType::kDouble: return "double";
    case WireType::kBinary: return "binary";
    case WireType::kList: return "list";
    case WireType::kSet: return "set";
    case WireType::kMap: return "map";
    case WireType::kStruct: return "struct";
    case WireType::kUuid: return "uuid";
  }
  return fmt::format("type({})", static_cast<int>(t));
}

Status CompactReader::CheckDepth() const {
  if (FLOE_PREDICT_FALSE(static_cast<int>(field_id_stack_.size()) + container_depth_ >=
                         limits_.max_depth)) {
    return Status::Corrupt("thrift: nesting deeper than {} levels", limits_.max_depth);
  }
  return Status::OK();
}

Status CompactReader::BeginStruct() {
  FLOE_RETURN_IF_ERROR(CheckDepth());
  field_id_stack_.push_back(last_field_id_);
  last_field_id_ = 0;
  return Status::OK();
}

void CompactReader::EndStruct() {
  FLOE_DCHECK(!field_id_stack_.empty());
  last_field_id_ = field_id_stack_.back();
  field_id_stack_.pop_back();
}

Status CompactReader::CheckContainerSize(uint32_t size, size_t min_bytes_per_element,
                                         std::string_view what) {
  // Thrift sizes are i32 on the wire; larger varints are negative sizes to other readers.
  if (FLOE_PREDICT_FALSE(size > static_cast<uint32_t>(INT32_MAX) ||
                         size > limits_.max_container_elements)) {
    return Status::Corrupt("thrift: {} of {} elements exceeds the limit of {}", what, size,
                           limits_.max_container_elements);
  }
  if (FLOE_PREDICT_FALSE(static_cast<uint64_t>(size) * min_bytes_per_element > remaining())) {
    return Status::Corrupt("thrift: {} of {} elements cannot fit in the {} bytes left", what, size,
                           remaining());
  }
  return Status::OK();
}

Result<ListHeader> CompactReader::ReadListHeader() {
  FLOE_ASSIGN_OR_RETURN(uint8_t b, in_.ReadByte());
  ListHeader h;
  h.size = b >> 4;
  if (h.size == 15) {
    FLOE_ASSIGN_OR_RETURN(h.size, in_.ReadVarint32());
  }
  FLOE_ASSIGN_OR_RETURN(h.element_type, ElementType(b & 0x0F));
  FLOE_RETURN_IF_ERROR(CheckContainerSize(h.size, MinElementBytes(h.element_type), "list"));
  return h;
}

Result<MapHeader> CompactReader::ReadMapHeader() {
  MapHeader h;
  FLOE_ASSIGN_OR_RETURN(h.size, in_.ReadVarint32());
  if (h.size == 0) return h;  // an empty map has no key/value type byte
  FLOE_ASSIGN_OR_RETURN(uint8_t kv, in_.ReadByte());
  FLOE_ASSIGN_OR_RETURN(h.key_type, ElementType(kv >> 4));
  FLOE_ASSIGN_OR_RETURN(h.value_type, ElementType(kv & 0x0F));
  FLOE_RETURN_IF_ERROR(CheckContainerSize(
      h.size, MinElementBytes(h.key_type) + MinElementBytes(h.value_type), "map"));
  return h;
}

Status CompactReader::SkipContainer(WireType element_type, uint32_t count) {
  // Fixed-size elements are skipped in one step; CheckContainerSize bounded count * width.
  // Bool elements are read one by one so that invalid bytes are reported.
  switch (element_type) {
    case WireType::kI8: return in_.Skip(count);
    case WireType::kDouble: return in_.Skip(static_cast<size_t>(count) * 8);
    case WireType::kUuid: return in_.Skip(static_cast<size_t>(count) * 16);
    default: break;
  }
  for (uint32_t i = 0; i < count; ++i) {
    FLOE_RETURN_IF_ERROR(SkipValue(element_type, /*in_container=*/true));
  }
  return Status::OK();
}

Status CompactReader::SkipValue(WireType type, bool in_container) {
  switch (type) {
    case WireType::kBoolTrue:
    case WireType::kBoolFalse:
      // A bool field's value is in its header; a bool element is one byte.
      return in_container ? ReadBoolElement().status() : Status::OK();
    case WireType::kI8: return in_.Skip(1);
    case WireType::kI16: return ReadI16().status();
    case WireType::kI32: return ReadI32().status();
    case WireType::kI64: return ReadI64().status();
    case WireType::kDouble: return in_.Skip(8);
    case WireType::kBinary: return ReadBinary().status();
    case WireType::kUuid: return in_.Skip(16);
    case WireType::kList:
    case WireType::kSet: {
      FLOE_RETURN_IF_ERROR(CheckDepth());
      FLOE_ASSIGN_OR_RETURN(ListHeader h, ReadListHeader());
      ++container_depth_;
      FLOE_RETURN_IF_ERROR(SkipContainer(h.element_type, h.size));
      --container_depth_;
      return Status::OK();
    }
    case WireType::kMap: {
      FLOE_RETURN_IF_ERROR(CheckDepth());
      FLOE_ASSIGN_OR_RETURN(MapHeader h, ReadMapHeader());
      ++container_depth_;
      for (uint32_t i = 0; i < h.size; ++i) {
        FLOE_RETURN_IF_ERROR(SkipValue(h.key_type, /*in_container=*/true));
        FLOE_RETURN_IF_ERROR(SkipValue(h.value_type, /*in_container=*/true));
      }
      --container_depth_;
      return Status::OK();
    }
    case WireType::kStruct:
      return ReadStruct([this](const FieldHeader& h) { return SkipValue(h.type, false); });
    case WireType::kStop: break;
  }
  return Status::Corrupt("thrift: cannot skip a value of type {}", WireTypeName(type));
}

}  // namespace floe::format::thrift

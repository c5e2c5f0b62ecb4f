// The Thrift compact protocol (bare structs, no message envelope), as Parquet uses it for
// FileMetaData, page headers, Bloom filter headers and the page index.
//
// CompactReader decodes untrusted bytes: every read is bounds-checked, string lengths,
// container sizes and nesting depth are limited, and any violation returns kCorrupt.
// CompactWriter appends to a Buffer and cannot fail.
//
// Neither class knows any schema: callers read a struct as a loop over field headers,
// decode the fields they know and Skip() the others (forward compatibility). ReadStruct()
// wraps that loop.
//
// Spec: Thrift `doc/specs/thrift-compact-protocol.md`; shared/reference/parquet.md §2.
// Thread-safety: a reader or writer is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/base/status.h"

namespace floe::format::thrift {

// The 4-bit type ids of field headers and container element types.
enum class WireType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,   // field header: a bool field whose value is true; element type: bool
  kBoolFalse = 2,  // field header: a bool field whose value is false; element type: bool
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,  // also enums
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,  // binary and string
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,  // structs and unions
  kUuid = 13,
};

inline bool IsBool(WireType t) { return t == WireType::kBoolTrue || t == WireType::kBoolFalse; }

// Name of a wire type for error messages ("i32", "struct", ...); "type(N)" if unknown.
std::string WireTypeName(WireType t);

struct FieldHeader {
  int16_t id = 0;
  WireType type = WireType::kStop;

  bool is_stop() const { return type == WireType::kStop; }
  bool is_bool() const { return IsBool(type); }
  // The value of a bool field, which the compact protocol carries in the header.
  bool bool_value() const { return type == WireType::kBoolTrue; }
};

// A list or set header. Bool elements are normalized to kBoolTrue whichever of the two
// element type ids (1 or 2) the writer used.
struct ListHeader {
  WireType element_type = WireType::kStop;
  uint32_t size = 0;
};

struct MapHeader {
  WireType key_type = WireType::kStop;
  WireType value_type = WireType::kStop;
  uint32_t size = 0;
};

// Bounds for untrusted input; the defaults fit Parquet footers of very wide files.
struct ReaderLimits {
  // Longest binary or string value.
  size_t max_string_bytes = 100u << 20;
  // Most elements in one list, set or map.
  size_t max_container_elements = 10'000'000;
  // Deepest nesting of structs and containers.
  int max_depth = 64;
};

// Decodes compact-protocol values from a byte span it does not own; the span must outlive
// the reader and any views returned by ReadBinary().
class CompactReader {
 public:
  explicit CompactReader(std::span<const uint8_t> bytes, ReaderLimits limits = {})
      : start_(bytes.data()), in_(bytes), limits_(limits) {}

  // Bytes consumed so far.
  size_t position() const { return static_cast<size_t>(in_.position() - start_); }
  size_t remaining() const { return in_.remaining(); }
  const ReaderLimits& limits() const { return limits_; }

  // Enters a struct: field ids restart from 0. Corrupt if nesting exceeds max_depth.
  Status BeginStruct();
  // Leaves the struct entered last (after its STOP field was read).
  void EndStruct();

  // Reads the next field header; type kStop marks the end of the struct. A short-form header
  // adds its delta to the previous field id of this struct; a long-form header carries the id.
  Result<FieldHeader> ReadFieldHeader() {
    FLOE_ASSIGN_OR_RETURN(uint8_t b, in_.ReadByte());
    FieldHeader h;
    h.type = static_cast<WireType>(b & 0x0F);
    if (b == 0) return h;
    if (FLOE_PREDICT_FALSE(h.type == WireType::kStop || h.type > WireType::kUuid)) {
      return Status::Corrupt("thrift: invalid field type {} in field header 0x{:02x}", b & 0x0F, b);
    }
    uint8_t delta = b >> 4;
    if (delta != 0) {
      h.id = static_cast<int16_t>(last_field_id_ + delta);
    } else {
      FLOE_ASSIGN_OR_RETURN(h.id, ReadI16());
    }
    last_field_id_ = h.id;
    return h;
  }

  // Reads a whole struct: calls `on_field(const FieldHeader&)` (returning Status) for each
  // field until STOP. `on_field` must consume the field's value (read it or Skip it).
  template <typename OnField>
  Status ReadStruct(OnField&& on_field) {
    FLOE_RETURN_IF_ERROR(BeginStruct());
    while (true) {
      FLOE_ASSIGN_OR_RETURN(FieldHeader h, ReadFieldHeader());
      if (h.is_stop()) break;
      FLOE_RETURN_IF_ERROR(on_field(h));
    }
    EndStruct();
    return Status::OK();
  }

  // A bool list element: one byte, 1 = true, 0 or 2 = false (parquet.md §2.4); any other
  // byte is corrupt.
  Result<bool> ReadBoolElement() {
    FLOE_ASSIGN_OR_RETURN(uint8_t b, in_.ReadByte());
    if (FLOE_PREDICT_FALSE(b > 2)) return Status::Corrupt("thrift: invalid bool byte {}", b);
    return b == 1;
  }
  Result<int8_t> ReadI8() {
    FLOE_ASSIGN_OR_RETURN(uint8_t b, in_.ReadByte());
    return static_cast<int8_t>(b);
  }
  Result<int16_t> ReadI16() {
    FLOE_ASSIGN_OR_RETURN(int32_t v, in_.ReadZigZag32());
    if (FLOE_PREDICT_FALSE(v < INT16_MIN || v > INT16_MAX)) {
      return Status::Corrupt("thrift: i16 value {} out of range", v);
    }
    return static_cast<int16_t>(v);
  }
  Result<int32_t> ReadI32() { return in_.ReadZigZag32(); }
  Result<int64_t> ReadI64() { return in_.ReadZigZag64(); }
  // 8 bytes little-endian (the compact protocol's de-facto byte order).
  Result<double> ReadDouble() { return in_.ReadLE<double>(); }
  // Returns a view into the input; valid as long as the input bytes are.
  Result<std::span<const uint8_t>> ReadBinary() {
    FLOE_ASSIGN_OR_RETURN(uint32_t n, in_.ReadVarint32());
    if (FLOE_PREDICT_FALSE(n > limits_.max_string_bytes)) {
      return Status::Corrupt("thrift: binary of {} bytes exceeds the limit of {}", n,
                             limits_.max_string_bytes);
    }
    return in_.Take(n);
  }
  // Copies a binary or string value into `out`.
  Status ReadString(std::string* out) {
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, ReadBinary());
    out->assign(reinterpret_cast<const char*>(b.data()), b.size());
    return Status::OK();
  }
  // 16 raw bytes.
  Result<std::span<const uint8_t>> ReadUuid() { return in_.Take(16); }

  // Reads a list or set header. Corrupt if the size exceeds max_container_elements or could
  // not fit in the remaining bytes, so callers may reserve `size` elements.
  Result<ListHeader> ReadListHeader();
  // Reads a map header, with the same size checks as ReadListHeader.
  Result<MapHeader> ReadMapHeader();

  // Skips one value of `type` (for a field header type, kBoolTrue/kBoolFalse skip nothing).
  Status Skip(WireType type) { return SkipValue(type, /*in_container=*/false); }
  // Skips one value and returns the bytes it spanned, so an unknown value can be kept and
  // written back unchanged with CompactWriter::WriteRaw.
  Result<std::span<const uint8_t>> SkipAndCapture(WireType type) {
    const uint8_t* begin = in_.position();
    FLOE_RETURN_IF_ERROR(Skip(type));
    return std::span<const uint8_t>(begin, static_cast<size_t>(in_.position() - begin));
  }

 private:
  Status SkipValue(WireType type, bool in_container);
  Status SkipContainer(WireType element_type, uint32_t count);
  Status CheckDepth() const;
  Status CheckContainerSize(uint32_t size, size_t min_bytes_per_element, std::string_view what);

  const uint8_t* start_;
  ByteReader in_;
  ReaderLimits limits_;
  int16_t last_field_id_ = 0;
  // The enclosing structs' last field ids; its size is the struct nesting depth.
  std::vector<int16_t> field_id_stack_;
  // Containers being skipped (Skip recurses into them); adds to the nesting depth.
  int container_depth_ = 0;
};

// Encodes compact-protocol values, appending to a Buffer it does not own.
class CompactWriter {
 public:
  explicit CompactWriter(Buffer* out) : out_(out) {}

  // Enters a struct: field ids restart from 0.
  void BeginStruct() {
    field_id_stack_.push_back(last_field_id_);
    last_field_id_ = 0;
  }
  // Writes the STOP field and leaves the struct.
  void EndStruct() {
    out_->PushBack(0);
    FLOE_DCHECK(!field_id_stack_.empty());
    last_field_id_ = field_id_stack_.back();
    field_id_stack_.pop_back();
  }

  // Writes a field header: short form when the id is 1..15 above the previous one, else
  // long form. For bool fields use WriteFieldBool, which puts the value in the header.
  void WriteFieldHeader(int16_t id, WireType type) {
    int delta = static_cast<int>(id) - last_field_id_;
    if (delta > 0 && delta <= 15) {
      out_->PushBack(static_cast<uint8_t>(delta << 4 | static_cast<uint8_t>(type)));
    } else {
      out_->PushBack(static_cast<uint8_t>(type));
      WriteI16(id);
    }
    last_field_id_ = id;
  }

  void WriteFieldBool(int16_t id, bool v) {
    WriteFieldHeader(id, v ? WireType::kBoolTrue : WireType::kBoolFalse);
  }
  void WriteFieldI8(int16_t id, int8_t v) {
    WriteFieldHeader(id, WireType::kI8);
    WriteI8(v);
  }
  void WriteFieldI16(int16_t id, int16_t v) {
    WriteFieldHeader(id, WireType::kI16);
    WriteI16(v);
  }
  void WriteFieldI32(int16_t id, int32_t v) {
    WriteFieldHeader(id, WireType::kI32);
    WriteI32(v);
  }
  void WriteFieldI64(int16_t id, int64_t v) {
    WriteFieldHeader(id, WireType::kI64);
    WriteI64(v);
  }
  void WriteFieldDouble(int16_t id, double v) {
    WriteFieldHeader(id, WireType::kDouble);
    WriteDouble(v);
  }
  void WriteFieldBinary(int16_t id, std::string_view v) {
    WriteFieldHeader(id, WireType::kBinary);
    WriteBinary(v);
  }

  // A bool list element: 1 = true, 2 = false, as C++ and Java Thrift write it.
  void WriteBoolElement(bool v) { out_->PushBack(v ? 1 : 2); }
  void WriteI8(int8_t v) { out_->PushBack(static_cast<uint8_t>(v)); }
  void WriteI16(int16_t v) { WriteVarint(ZigZagEncode32(v)); }
  void WriteI32(int32_t v) { WriteVarint(ZigZagEncode32(v)); }
  void WriteI64(int64_t v) { WriteVarint(ZigZagEncode64(v)); }
  void WriteDouble(double v) { out_->AppendValue(v); }
  void WriteBinary(std::string_view v) {
    WriteVarint(v.size());
    out_->Append(v);
  }
  void WriteBinary(std::span<const uint8_t> v) {
    WriteVarint(v.size());
    out_->Append(v);
  }

  // Writes a list or set header. Bool lists take element type kBoolTrue (1), like C++ and
  // Java Thrift. REQUIRES: size <= INT32_MAX.
  void WriteListHeader(WireType element_type, size_t size) {
    FLOE_DCHECK(size <= static_cast<size_t>(INT32_MAX));
    if (IsBool(element_type)) element_type = WireType::kBoolTrue;
    if (size < 15) {
      out_->PushBack(static_cast<uint8_t>(size << 4 | static_cast<uint8_t>(element_type)));
    } else {
      out_->PushBack(static_cast<uint8_t>(0xF0 | static_cast<uint8_t>(element_type)));
      WriteVarint(size);
    }
  }
  // REQUIRES: size <= INT32_MAX.
  void WriteMapHeader(WireType key_type, WireType value_type, size_t size) {
    FLOE_DCHECK(size <= static_cast<size_t>(INT32_MAX));
    WriteVarint(size);
    if (size == 0) return;
    if (IsBool(key_type)) key_type = WireType::kBoolTrue;
    if (IsBool(value_type)) value_type = WireType::kBoolTrue;
    out_->PushBack(static_cast<uint8_t>(static_cast<uint8_t>(key_type) << 4 |
                                        static_cast<uint8_t>(value_type)));
  }

  // Appends bytes captured by CompactReader::SkipAndCapture (one encoded value).
  void WriteRaw(std::string_view encoded_value) { out_->Append(encoded_value); }

 private:
  void WriteVarint(uint64_t v) {
    uint8_t* p = out_->AppendUninitialized(10);
    size_t n = EncodeVarint64(v, p);
    out_->Resize(out_->size() - (10 - n));
  }

  Buffer* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> field_id_stack_;
};

}  // namespace floe::format::thrift

// Helpers shared by the manifest and manifest list readers: an InputFile over bytes in
// memory, and typed access to decoded columns that tolerates the widths different writers
// use (int for long, string for bytes). Not part of the public API.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/io/file_io.h"

namespace floe::iceberg::internal {

// An InputFile over shared bytes, so that a manifest read once can be opened twice (header,
// then data with a reader schema built from the header).
class BytesInputFile final : public io::InputFile {
 public:
  BytesInputFile(std::string location, std::shared_ptr<const std::string> bytes)
      : location_(std::move(location)), bytes_(std::move(bytes)) {}
  const std::string& location() const override { return location_; }
  uint64_t size() const override { return bytes_->size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > bytes_->size() || n > bytes_->size() - offset) {
      return Status::Corrupt("read past the end of {}", location_);
    }
    if (n > 0) std::memcpy(out, bytes_->data() + offset, n);
    return Status::OK();
  }

 private:
  std::string location_;
  std::shared_ptr<const std::string> bytes_;
};

// Reads the whole file, refusing files larger than `max_bytes`.
inline Result<std::shared_ptr<const std::string>> ReadAllBytes(const io::InputFile& file,
                                                               uint64_t max_bytes) {
  if (file.size() > max_bytes) {
    return Status::Corrupt("{} is {} bytes, more than the {} accepted", file.location(),
                           file.size(), max_bytes);
  }
  auto bytes = std::make_shared<std::string>(file.size(), '\0');
  if (!bytes->empty()) {
    FLOE_RETURN_IF_ERROR(file.ReadAt(0, bytes->size(), reinterpret_cast<uint8_t*>(bytes->data())));
  }
  return std::shared_ptr<const std::string>(std::move(bytes));
}

// The child of a struct column named `name`, or nullptr.
inline const columnar::Array* Child(const columnar::Array& s, std::string_view name) {
  const auto& fields = s.type()->children();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return &s.child(i);
  }
  return nullptr;
}

inline std::optional<int64_t> GetLong(const columnar::Array* a, int64_t row) {
  if (a == nullptr || a->IsNull(row)) return std::nullopt;
  switch (a->type_id()) {
    case columnar::TypeId::kInt32:
    case columnar::TypeId::kDate32: return a->Value<int32_t>(row);
    case columnar::TypeId::kInt64:
    case columnar::TypeId::kTimestamp:
    case columnar::TypeId::kTime64: return a->Value<int64_t>(row);
    default: return std::nullopt;
  }
}

inline std::optional<std::string> GetBytes(const columnar::Array* a, int64_t row) {
  if (a == nullptr || a->IsNull(row)) return std::nullopt;
  switch (a->type_id()) {
    case columnar::TypeId::kString:
    case columnar::TypeId::kBinary: return std::string(a->BinaryValue(row));
    case columnar::TypeId::kFixedBinary:
    case columnar::TypeId::kUuid: return std::string(a->FixedValue(row));
    default: return std::nullopt;
  }
}

inline std::optional<bool> GetBool(const columnar::Array* a, int64_t row) {
  if (a == nullptr || a->IsNull(row) || a->type_id() != columnar::TypeId::kBool) {
    return std::nullopt;
  }
  return a->BoolValue(row);
}

}  // namespace floe::iceberg::internal

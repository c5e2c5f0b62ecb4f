#include "floe/format/puffin/deletion_vector.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/macros.h"

namespace floe::format::puffin {

namespace {

constexpr uint8_t kDvMagic[4] = {0xD1, 0xD3, 0x39, 0x64};
constexpr uint32_t kMaxKey = INT32_MAX - 1;
// Length prefix and CRC around magic + vector.
constexpr uint64_t kFramingBytes = 8;
// Java reads a blob into one byte array.
constexpr uint64_t kMaxBlobBytes = uint64_t{1} << 31;
// Smallest serialized entry: a key and an empty bitmap (cookie + container count).
constexpr uint64_t kMinEntryBytes = 4 + 8;

}  // namespace

Status PositionBitmap::Add(uint64_t pos) {
  if (FLOE_PREDICT_FALSE(pos > kMaxPosition)) {
    return Status::InvalidArgument("row position {} exceeds the maximum {}", pos, kMaxPosition);
  }
  bitmaps_[static_cast<uint32_t>(pos >> 32)].Add(static_cast<uint32_t>(pos));
  return Status::OK();
}

Status PositionBitmap::AddRange(uint64_t start, uint64_t end) {
  if (start >= end) return Status::OK();
  if (end - 1 > kMaxPosition) {
    return Status::InvalidArgument("row position {} exceeds the maximum {}", end - 1, kMaxPosition);
  }
  for (uint64_t key = start >> 32; key <= (end - 1) >> 32; ++key) {
    const uint64_t base = key << 32;
    bitmaps_[static_cast<uint32_t>(key)].AddRange(std::max(start, base) - base,
                                                  std::min(end, base + (uint64_t{1} << 32)) - base);
  }
  return Status::OK();
}

bool PositionBitmap::Contains(uint64_t pos) const {
  auto it = bitmaps_.find(static_cast<uint32_t>(pos >> 32));
  return pos <= kMaxPosition && it != bitmaps_.end() &&
         it->second.Contains(static_cast<uint32_t>(pos));
}

uint64_t PositionBitmap::Max() const {
  const auto& [key, bitmap] = *bitmaps_.rbegin();
  return (uint64_t{key} << 32) | bitmap.Max();
}

uint64_t PositionBitmap::cardinality() const {
  uint64_t n = 0;
  for (const auto& [key, bitmap] : bitmaps_) n += bitmap.cardinality();
  return n;
}

void PositionBitmap::Merge(const PositionBitmap& other) {
  for (const auto& [key, bitmap] : other.bitmaps_) bitmaps_[key].Merge(bitmap);
}

std::vector<uint64_t> PositionBitmap::ToSortedVector() const {
  std::vector<uint64_t> out;
  out.reserve(cardinality());
  ForEach([&](uint64_t pos) { out.push_back(pos); });
  return out;
}

uint64_t PositionBitmap::FillKeepBitmap(uint64_t first_row, uint64_t num_rows,
                                        uint8_t* keep) const {
  if (num_rows == 0) return 0;
  const uint64_t bytes = (num_rows + 7) / 8;
  std::memset(keep, 0xFF, bytes);
  if (num_rows % 8 != 0) keep[bytes - 1] = static_cast<uint8_t>((1u << (num_rows % 8)) - 1);
  // Positions past kMaxPosition never occur, so clamping the end avoids overflow.
  const uint64_t end = num_rows > kMaxPosition + 1 - std::min(first_row, kMaxPosition + 1)
                           ? kMaxPosition + 1
                           : first_row + num_rows;
  if (first_row >= end) return 0;
  uint64_t deleted = 0;
  for (auto it = bitmaps_.lower_bound(static_cast<uint32_t>(first_row >> 32));
       it != bitmaps_.end() && uint64_t{it->first} <= (end - 1) >> 32; ++it) {
    const uint64_t base = uint64_t{it->first} << 32;
    const uint64_t lo = std::max(first_row, base) - base;
    const uint64_t hi = std::min(end, base + (uint64_t{1} << 32)) - base;
    deleted += it->second.ClearInRange(lo, hi, keep, base + lo - first_row);
  }
  return deleted;
}

void PositionBitmap::SerializeVector(Buffer* out) const {
  if (bitmaps_.empty()) {
    out->AppendValue<uint64_t>(0);
    return;
  }
  // Java (RoaringPositionBitmap.serialize) writes every key up to the largest.
  const uint32_t max_key = bitmaps_.rbegin()->first;
  out->AppendValue<uint64_t>(uint64_t{max_key} + 1);
  const Bitmap32 empty;
  auto it = bitmaps_.begin();
  for (uint64_t key = 0; key <= max_key; ++key) {
    out->AppendValue<uint32_t>(static_cast<uint32_t>(key));
    if (it != bitmaps_.end() && it->first == key) {
      it->second.SerializePortable(out);
      ++it;
    } else {
      empty.SerializePortable(out);
    }
  }
}

Result<PositionBitmap> PositionBitmap::DeserializeVector(std::span<const uint8_t> bytes) {
  ByteReader in(bytes);
  FLOE_ASSIGN_OR_RETURN(uint64_t count, in.ReadLE<uint64_t>());
  if (count > in.remaining() / kMinEntryBytes) {
    return Status::Corrupt("deletion vector claims {} bitmaps in {} bytes", count, in.remaining());
  }
  PositionBitmap result;
  int64_t prev_key = -1;
  for (uint64_t i = 0; i < count; ++i) {
    FLOE_ASSIGN_OR_RETURN(uint32_t key, in.ReadLE<uint32_t>());
    if (key > kMaxKey) {
      return Status::Corrupt("deletion vector key {} exceeds {}", key, kMaxKey);
    }
    if (int64_t{key} <= prev_key) {
      return Status::Corrupt("deletion vector keys not ascending ({} after {})", key, prev_key);
    }
    prev_key = key;
    Result<Bitmap32> bitmap = Bitmap32::DeserializePortable(&in);
    if (!bitmap.ok()) return bitmap.status().WithContext("deletion vector key {}", key);
    if (!bitmap->empty())
      result.bitmaps_.emplace_hint(result.bitmaps_.end(), key, std::move(*bitmap));
  }
  if (!in.empty()) {
    return Status::Corrupt("{} bytes after the last deletion vector bitmap", in.remaining());
  }
  return result;
}

void SerializeDeletionVector(const PositionBitmap& positions, Buffer* out) {
  const size_t start = out->size();
  out->AppendUninitialized(4);
  out->Append(kDvMagic, sizeof(kDvMagic));
  positions.SerializeVector(out);
  const size_t length = out->size() - start - 4;
  StoreBE<uint32_t>(out->data() + start, static_cast<uint32_t>(length));
  const uint32_t crc = Crc32(0, out->data() + start + 4, length);
  out->AppendValue<uint32_t>(std::byteswap(crc));
}

Result<PositionBitmap> DeserializeDeletionVector(std::span<const uint8_t> blob,
                                                 std::optional<uint64_t> expected_cardinality) {
  if (blob.size() < kFramingBytes + sizeof(kDvMagic)) {
    return Status::Corrupt("deletion vector blob of {} bytes is too short", blob.size());
  }
  const uint32_t length = LoadBE<uint32_t>(blob.data());
  if (uint64_t{length} != blob.size() - kFramingBytes) {
    return Status::Corrupt("deletion vector length {} does not match the blob size {} - 8", length,
                           blob.size());
  }
  if (std::memcmp(blob.data() + 4, kDvMagic, sizeof(kDvMagic)) != 0) {
    return Status::Corrupt("bad deletion vector magic");
  }
  const uint32_t stored_crc = LoadBE<uint32_t>(blob.data() + 4 + length);
  const uint32_t crc = Crc32(0, blob.data() + 4, length);
  if (crc != stored_crc) {
    return Status::Corrupt("deletion vector CRC {:08x} does not match the stored {:08x}", crc,
                           stored_crc);
  }
  FLOE_ASSIGN_OR_RETURN(PositionBitmap positions,
                        PositionBitmap::DeserializeVector(blob.subspan(8, length - 4)));
  if (expected_cardinality) {
    const uint64_t cardinality = positions.cardinality();
    if (cardinality != *expected_cardinality) {
      return Status::Corrupt("deletion vector holds {} positions, expected {}", cardinality,
                             *expected_cardinality);
    }
  }
  return positions;
}

Result<DeletionVectorInfo> WriteDeletionVectorBlob(PuffinWriter& writer,
                                                   std::string_view referenced_data_file,
                                                   const PositionBitmap& positions) {
  Buffer blob;
  SerializeDeletionVector(positions, &blob);
  const uint64_t cardinality = positions.cardinality();
  Properties properties;
  properties.emplace_back(std::string(kReferencedDataFileProperty),
                          std::string(referenced_data_file));
  properties.emplace_back(std::string(kCardinalityProperty), std::to_string(cardinality));
  const int32_t fields[] = {kRowPositionFieldId};
  FLOE_ASSIGN_OR_RETURN(BlobLocation location,
                        writer.AddBlob(kDeletionVectorBlobType, fields, -1, -1, blob.span(),
                                       std::move(properties), PuffinCodec::kNone));
  return DeletionVectorInfo{location.offset, location.length, cardinality};
}

Result<PositionBitmap> ReadDeletionVector(const io::InputFile& file, uint64_t content_offset,
                                          uint64_t content_size_in_bytes,
                                          int64_t expected_cardinality) {
  if (content_offset > file.size() || content_size_in_bytes > file.size() - content_offset) {
    return Status::Corrupt("deletion vector range [{}, +{}) is outside the {}-byte file {}",
                           content_offset, content_size_in_bytes, file.size(), file.location());
  }
  if (content_size_in_bytes > kMaxBlobBytes) {
    return Status::Corrupt("deletion vector of {} bytes is too large", content_size_in_bytes);
  }
  FLOE_ASSIGN_OR_RETURN(Buffer blob, file.Read(content_offset, content_size_in_bytes));
  std::optional<uint64_t> expected;
  if (expected_cardinality >= 0) expected = static_cast<uint64_t>(expected_cardinality);
  return DeserializeDeletionVector(blob.span(), expected);
}

}  // namespace floe::format::puffin

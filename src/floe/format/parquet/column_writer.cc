#include "floe/format/parquet/column_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <xxhash.h>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/columnar/value_format.h"
#include "floe/format/parquet/encoding/bit_pack.h"
#include "floe/format/parquet/encoding/dictionary.h"
#include "floe/format/parquet/encoding/levels.h"
#include "floe/format/parquet/encoding/plain.h"
#include "floe/format/parquet/statistics.h"

namespace floe::format::parquet {

namespace col = floe::columnar;

namespace {

// A v1 level section of n copies of `level`: u32 LE length, then one RLE run (header
// n << 1, the value in ceil(bit width / 8) bytes), as the RLE/bit-packing hybrid allows.
void AppendConstantLevelsV1(int16_t level, size_t n, Buffer* out) {
  uint8_t run[16];
  size_t len = EncodeVarint64(static_cast<uint64_t>(n) << 1, run);
  const int width = BitWidth(static_cast<uint64_t>(level));
  for (int b = 0; b < (width + 7) / 8; ++b) run[len++] = static_cast<uint8_t>(level >> (8 * b));
  out->AppendValue<uint32_t>(static_cast<uint32_t>(len));
  out->Append(run, len);
}

inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// Calls fn(slot) for each slot of leaf.array that holds one of the slice's values.
template <typename Fn>
void ForEachValueSlot(const ShreddedLeaf& leaf, Fn fn) {
  if (!leaf.all_valid) {
    for (int64_t slot : leaf.value_indices) fn(slot);
    return;
  }
  const col::Array& a = *leaf.array;
  const int64_t end = leaf.slot_offset + leaf.num_entries;
  if (a.validity().empty()) {
    for (int64_t i = leaf.slot_offset; i < end; ++i) fn(i);
  } else {
    const uint8_t* bits = a.validity().data();
    for (int64_t i = leaf.slot_offset; i < end; ++i) {
      if (col::GetBit(bits, i)) fn(i);
    }
  }
}

// Minimal big-endian two's complement bytes of v (at least one byte).
size_t MinimalBigEndian(__int128 v, uint8_t out[16]) {
  uint8_t be[16];
  auto u = static_cast<unsigned __int128>(v);
  for (int i = 15; i >= 0; --i) {
    be[i] = static_cast<uint8_t>(u);
    u >>= 8;
  }
  size_t start = 0;
  while (start < 15) {
    const bool redundant = (be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                           (be[start] == 0xFF && (be[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  std::memcpy(out, be + start, 16 - start);
  return 16 - start;
}

bool FitsBigEndian(__int128 v, size_t width) {
  if (width >= 16) return true;
  const __int128 limit = static_cast<__int128>(1) << (8 * width - 1);
  return v >= -limit && v < limit;
}

}  // namespace

// The dictionary of one chunk: an open-addressing hash table over the physical values.
class ColumnWriter::Dictionary {
 public:
  explicit Dictionary(size_t width) : width_(width) { Rehash(1024); }

  size_t size() const { return count_; }
  int64_t plain_bytes() const { return plain_bytes_; }

  // Inserts the `n` values of `width_` bytes at `values`, appending their indices. One
  // width dispatch per batch, so the probe loop compares and hashes at a constant width.
  void InsertFixedBatch(const uint8_t* values, size_t n, std::vector<uint32_t>* indices) {
    switch (width_) {
      case 4: return InsertFixedBatchOf<4>(values, n, indices);
      case 8: return InsertFixedBatchOf<8>(values, n, indices);
      case 16: return InsertFixedBatchOf<16>(values, n, indices);
      default: return InsertFixedBatchOf<0>(values, n, indices);
    }
  }

  uint32_t InsertBinary(std::string_view v) {
    const uint64_t h = XXH3_64bits(v.data(), v.size());
    size_t pos = h & mask_;
    for (;;) {
      const int32_t idx = slots_[pos];
      if (idx < 0) break;
      if (hashes_[idx] == h && Binary(static_cast<uint32_t>(idx)) == v) {
        return static_cast<uint32_t>(idx);
      }
      pos = (pos + 1) & mask_;
    }
    const auto idx = static_cast<uint32_t>(count_++);
    slots_[pos] = static_cast<int32_t>(idx);
    hashes_.push_back(h);
    values_.Append(v);
    offsets_.push_back(static_cast<int64_t>(values_.size()));
    plain_bytes_ += 4 + static_cast<int64_t>(v.size());
    if (count_ * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return idx;
  }

  std::string_view Binary(uint32_t i) const {
    return {reinterpret_cast<const char*>(values_.data()) + offsets_[i],
            static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }
  const uint8_t* Fixed(uint32_t i) const { return values_.data() + width_ * i; }

  // The PLAIN body of the dictionary page.
  Status EncodePlain(Buffer* out) const {
    if (width_ > 0) {
      out->Append(values_.data(), values_.size());
      return Status::OK();
    }
    return EncodePlainByteArrays(offsets_.data(), values_.data(), count_, out);
  }

 private:
  template <size_t W>  // W = 0: width_ bytes, known only at run time
  uint64_t HashFixedOf(const uint8_t* v) const {
    if constexpr (W == 4) return Mix64(LoadLE<uint32_t>(v));
    if constexpr (W == 8) return Mix64(LoadLE<uint64_t>(v));
    return XXH3_64bits(v, W == 0 ? width_ : W);
  }

  template <size_t W>
  bool EqualFixed(const uint8_t* a, const uint8_t* b) const {
    // With W a constant the compiler inlines the compare as loads.
    return std::memcmp(a, b, W == 0 ? width_ : W) == 0;
  }

  template <size_t W>
  uint32_t InsertFixedOf(const uint8_t* v) {
    const size_t width = W == 0 ? width_ : W;
    const uint64_t h = HashFixedOf<W>(v);
    size_t pos = h & mask_;
    for (;;) {
      const int32_t idx = slots_[pos];
      if (idx < 0) break;
      if (hashes_[idx] == h && EqualFixed<W>(values_.data() + width * idx, v)) {
        return static_cast<uint32_t>(idx);
      }
      pos = (pos + 1) & mask_;
    }
    const auto idx = static_cast<uint32_t>(count_++);
    slots_[pos] = static_cast<int32_t>(idx);
    hashes_.push_back(h);
    values_.Append(v, width);
    plain_bytes_ += static_cast<int64_t>(width);
    if (count_ * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return idx;
  }

  template <size_t W>
  void InsertFixedBatchOf(const uint8_t* values, size_t n, std::vector<uint32_t>* indices) {
    const size_t width = W == 0 ? width_ : W;
    const size_t base = indices->size();
    indices->resize(base + n);
    uint32_t* out = indices->data() + base;
    for (size_t i = 0; i < n; ++i) out[i] = InsertFixedOf<W>(values + width * i);
  }

  void Rehash(size_t capacity) {
    slots_.assign(capacity, -1);
    mask_ = capacity - 1;
    for (size_t i = 0; i < count_; ++i) {
      size_t pos = hashes_[i] & mask_;
      while (slots_[pos] >= 0) pos = (pos + 1) & mask_;
      slots_[pos] = static_cast<int32_t>(i);
    }
  }

  const size_t width_;  // 0: byte arrays
  size_t count_ = 0;
  int64_t plain_bytes_ = 0;
  std::vector<int32_t> slots_;
  size_t mask_ = 0;
  std::vector<uint64_t> hashes_;
  Buffer values_;
  std::vector<int64_t> offsets_ = {0};
};

ColumnWriter::ColumnWriter(const ColumnDescriptor& column, const WriterOptions& options,
                           Codec* codec)
    : column_(column),
      options_(options),
      codec_(codec),
      width_(column.physical_width()),
      is_binary_(column.physical_type == Type::kByteArray),
      is_bool_(column.physical_type == Type::kBoolean),
      is_float_(column.physical_type == Type::kFloat || column.physical_type == Type::kDouble),
      has_stats_(SortOrderOf(column) != SortOrder::kUndefined &&
                 column.type->id() != col::TypeId::kNull),
      sort_order_(SortOrderOf(column)),
      is_decimal_(column.logical_type && column.logical_type->kind == LogicalType::Kind::kDecimal),
      is_float16_(column.logical_type && column.logical_type->kind == LogicalType::Kind::kFloat16) {
  metrics_.leaf = column.index;
  metrics_.field_id = column.field_id;
  if (is_float_) metrics_.nan_count = 0;
  page_is_dictionary_ = options_.dictionary && !is_bool_ && column.type->id() != col::TypeId::kNull;
  fallen_back_ = !page_is_dictionary_;
  if (!fallen_back_) dictionary_ = std::make_unique<Dictionary>(width_);
}

ColumnWriter::~ColumnWriter() = default;

Status ColumnWriter::GatherValues(const ShreddedLeaf& leaf) {
  const col::Array& a = *leaf.array;
  const auto n = static_cast<size_t>(leaf.num_values);
  const col::TypeId id = a.type_id();
  binary_.clear();
  bools_.clear();
  if (n == 0 || id == col::TypeId::kNull) return Status::OK();
  if (is_bool_) {
    bools_.reserve(n);
    ForEachValueSlot(leaf, [&](int64_t i) { bools_.push_back(a.BoolValue(i) ? 1 : 0); });
    return Status::OK();
  }
  if (is_binary_) {
    binary_.reserve(n);
    if (id == col::TypeId::kDecimal128) {
      // Minimal big-endian bytes; views are made after all bytes are in place.
      converted_bytes_.Clear();
      std::vector<uint32_t> lengths;
      lengths.reserve(n);
      ForEachValueSlot(leaf, [&](int64_t i) {
        uint8_t be[16];
        size_t len = MinimalBigEndian(a.Value<__int128>(i), be);
        converted_bytes_.Append(be, len);
        lengths.push_back(static_cast<uint32_t>(len));
      });
      size_t pos = 0;
      for (uint32_t len : lengths) {
        binary_.emplace_back(reinterpret_cast<const char*>(converted_bytes_.data()) + pos, len);
        pos += len;
      }
      return Status::OK();
    }
    ForEachValueSlot(leaf, [&](int64_t i) { binary_.push_back(a.BinaryValue(i)); });
    return Status::OK();
  }
  // Fixed-width physical values.
  const size_t cw = static_cast<size_t>(a.type()->fixed_width());
  const bool same_layout =
      cw == width_ && id != col::TypeId::kDecimal128 && column_.physical_type != Type::kInt96;
  if (same_layout && leaf.all_valid && a.null_count() == 0) {
    fixed_values_ = a.values().data() + width_ * static_cast<size_t>(leaf.slot_offset);
    return Status::OK();
  }
  fixed_.Resize(n * width_);
  uint8_t* out = fixed_.data();
  fixed_values_ = out;
  if (same_layout) {
    const uint8_t* src = a.values().data();
    ForEachValueSlot(leaf, [&](int64_t i) {
      std::memcpy(out, src + width_ * static_cast<size_t>(i), width_);
      out += width_;
    });
    return Status::OK();
  }
  Status status;
  switch (id) {
    case col::TypeId::kInt8:
      ForEachValueSlot(leaf,
                       [&](int64_t i) { StoreLE<int32_t>(out, a.Value<int8_t>(i)), out += 4; });
      break;
    case col::TypeId::kUInt8:
      ForEachValueSlot(leaf,
                       [&](int64_t i) { StoreLE<int32_t>(out, a.Value<uint8_t>(i)), out += 4; });
      break;
    case col::TypeId::kInt16:
      ForEachValueSlot(leaf,
                       [&](int64_t i) { StoreLE<int32_t>(out, a.Value<int16_t>(i)), out += 4; });
      break;
    case col::TypeId::kUInt16:
      ForEachValueSlot(leaf,
                       [&](int64_t i) { StoreLE<int32_t>(out, a.Value<uint16_t>(i)), out += 4; });
      break;
    case col::TypeId::kTimestamp:  // INT96: Julian day and nanoseconds of the day
      ForEachValueSlot(leaf, [&](int64_t i) {
        const int64_t ns = a.Value<int64_t>(i);
        int64_t days = ns / 86400000000000LL;
        int64_t nanos = ns % 86400000000000LL;
        if (nanos < 0) {
          nanos += 86400000000000LL;
          --days;
        }
        StoreLE<int64_t>(out, nanos);
        StoreLE<int32_t>(out + 8, static_cast<int32_t>(days + 2440588));
        out += 12;
      });
      break;
    case col::TypeId::kDecimal128:
      ForEachValueSlot(leaf, [&](int64_t i) {
        const __int128 v = a.Value<__int128>(i);
        if (!FitsBigEndian(v, width_)) {
          if (status.ok()) {
            status = Status::InvalidArgument("column '{}': decimal {} does not fit {} bytes",
                                             column_.PathString(),
                                             col::FormatDecimal(v, a.type()->scale()), width_);
          }
          return;
        }
        if (column_.physical_type == Type::kInt32) {
          StoreLE<int32_t>(out, static_cast<int32_t>(v));
        } else if (column_.physical_type == Type::kInt64) {
          StoreLE<int64_t>(out, static_cast<int64_t>(v));
        } else {
          // The low `width_` bytes, big-endian: byte-swap and keep the tail.
          const unsigned __int128 be = ByteSwap128(static_cast<unsigned __int128>(v));
          uint8_t bytes[16];
          std::memcpy(bytes, &be, 16);
          std::memcpy(out, bytes + 16 - width_, width_);
        }
        out += width_;
      });
      break;
    default:
      return Status::InvalidArgument("column '{}': cannot write {} values as {}",
                                     column_.PathString(), a.type()->ToString(),
                                     EnumToString(column_.physical_type));
  }
  return status;
}

Status ColumnWriter::Write(const ShreddedLeaf& leaf) {
  FLOE_RETURN_IF_ERROR(GatherValues(leaf));
  const int64_t entries = leaf.num_entries;
  const int16_t* defs = leaf.def_levels.empty() ? nullptr : leaf.def_levels.data_as<int16_t>();
  const int16_t* reps = leaf.rep_levels.empty() ? nullptr : leaf.rep_levels.data_as<int16_t>();
  const int16_t max_def = column_.max_def;
  int64_t e = 0;
  size_t v = 0;
  while (e < entries) {
    const int64_t rows_left = std::max<int64_t>(1, options_.page_rows - page_rows_);
    int64_t bytes_left = std::max<int64_t>(
        1, options_.page_bytes -
               (page_is_dictionary_ ? 0 : static_cast<int64_t>(page_values_.size())));
    // Choose [e, e2): at most rows_left records, and (for variable-size values) about
    // bytes_left bytes; always at least one record.
    int64_t e2 = e;
    size_t v2 = v;
    int64_t rows = 0;
    const int64_t fixed_bytes = static_cast<int64_t>(std::max<size_t>(width_, 1));
    if (reps == nullptr && !is_binary_) {
      // Flat fixed-width column: one record per entry; take the whole run at once.
      const int64_t take = std::max<int64_t>(
          1, std::min<int64_t>({entries - e, rows_left, bytes_left / fixed_bytes + 1}));
      e2 = e + take;
      rows = take;
      if (defs == nullptr) {
        v2 = v + static_cast<size_t>(take);
      } else {
        size_t count = 0;
        for (int64_t i = e; i < e2; ++i) count += defs[i] == max_def;
        v2 = v + count;
      }
    } else {
      int64_t bytes = 0;
      while (e2 < entries) {
        const bool record_start = reps == nullptr || reps[e2] == 0;
        if (record_start) {
          if (rows >= rows_left || (rows > 0 && bytes >= bytes_left)) break;
          ++rows;
        }
        if (defs == nullptr || defs[e2] == max_def) {
          bytes += is_binary_ ? static_cast<int64_t>(binary_[v2].size()) + 4 : fixed_bytes;
          ++v2;
        }
        ++e2;
      }
    }
    FLOE_RETURN_IF_ERROR(AddEntries(leaf, e, e2, v, v2));
    page_rows_ += rows;
    e = e2;
    v = v2;
    const int64_t page_bytes = page_is_dictionary_ ? static_cast<int64_t>(page_indices_.size()) * 4
                                                   : static_cast<int64_t>(page_values_.size());
    if (page_rows_ >= options_.page_rows || page_bytes >= options_.page_bytes) {
      FLOE_RETURN_IF_ERROR(FlushPage());
    }
    if (!fallen_back_ && dictionary_ &&
        dictionary_->plain_bytes() > options_.dictionary_page_bytes) {
      // Dictionary too big: close the page and write the rest of the chunk as PLAIN.
      FLOE_RETURN_IF_ERROR(FlushPage());
      fallen_back_ = true;
      page_is_dictionary_ = false;
    }
  }
  return Status::OK();
}

Status ColumnWriter::AddEntries(const ShreddedLeaf& leaf, int64_t entry_begin, int64_t entry_end,
                                size_t value_begin, size_t value_end) {
  const auto n = static_cast<size_t>(entry_end - entry_begin);
  if (column_.max_def > 0) {
    page_def_.Append(leaf.def_levels.data() + sizeof(int16_t) * static_cast<size_t>(entry_begin),
                     n * sizeof(int16_t));
  }
  if (column_.max_rep > 0) {
    page_rep_.Append(leaf.rep_levels.data() + sizeof(int16_t) * static_cast<size_t>(entry_begin),
                     n * sizeof(int16_t));
  }
  page_entries_ += static_cast<int64_t>(n);
  const auto values = static_cast<int64_t>(value_end - value_begin);
  page_nulls_ += static_cast<int64_t>(n) - values;
  chunk_nulls_ += static_cast<int64_t>(n) - values;
  if (values == 0 || column_.type->id() == col::TypeId::kNull) return Status::OK();
  if (is_float_) {
    int64_t nans = 0;
    if (column_.physical_type == Type::kFloat) {
      for (size_t i = value_begin; i < value_end; ++i)
        nans += std::isnan(LoadLE<float>(fixed_values_ + 4 * i));
    } else {
      for (size_t i = value_begin; i < value_end; ++i)
        nans += std::isnan(LoadLE<double>(fixed_values_ + 8 * i));
    }
    chunk_nans_ += nans;
  }
  if (!fallen_back_) return AddValuesDictionary(value_begin, value_end);
  AddValuesPlain(value_begin, value_end);
  return Status::OK();
}

Status ColumnWriter::AddValuesDictionary(size_t begin, size_t end) {
  const size_t first_new = dictionary_->size();
  if (is_binary_) {
    for (size_t i = begin; i < end; ++i) {
      page_indices_.push_back(dictionary_->InsertBinary(binary_[i]));
      page_plain_bytes_ += 4 + static_cast<int64_t>(binary_[i].size());
    }
  } else {
    dictionary_->InsertFixedBatch(fixed_values_ + width_ * begin, end - begin, &page_indices_);
    page_plain_bytes_ += static_cast<int64_t>((end - begin) * width_);
  }
  // Statistics and Bloom hashes need each distinct value once: the new entries.
  const size_t last_new = dictionary_->size();
  if (last_new == first_new) return Status::OK();
  if (is_binary_) {
    std::vector<std::string_view> fresh;
    fresh.reserve(last_new - first_new);
    for (size_t k = first_new; k < last_new; ++k)
      fresh.push_back(dictionary_->Binary(static_cast<uint32_t>(k)));
    std::swap(fresh, binary_);
    UpdateStatistics(0, binary_.size());
    CollectBloomHashes(0, binary_.size());
    std::swap(fresh, binary_);
  } else {
    const uint8_t* saved = fixed_values_;
    fixed_values_ = dictionary_->Fixed(static_cast<uint32_t>(first_new));
    UpdateStatistics(0, last_new - first_new);
    CollectBloomHashes(0, last_new - first_new);
    fixed_values_ = saved;
  }
  return Status::OK();
}

void ColumnWriter::AddValuesPlain(size_t begin, size_t end) {
  const size_t n = end - begin;
  if (is_bool_) {
    // Booleans of a page are bit-packed as one run: gather them for FlushPage.
    for (size_t i = begin; i < end; ++i) page_values_.PushBack(bools_[i]);
  } else if (is_binary_) {
    for (size_t i = begin; i < end; ++i) {
      page_values_.AppendValue<uint32_t>(static_cast<uint32_t>(binary_[i].size()));
      page_values_.Append(binary_[i]);
    }
  } else {
    page_values_.Append(fixed_values_ + width_ * begin, width_ * n);
  }
  UpdateStatistics(begin, end);
  CollectBloomHashes(begin, end);
}

void ColumnWriter::UpdateStatistics(size_t begin, size_t end) {
  if (!has_stats_ || begin == end) return;
  std::optional<std::string> lo, hi;
  auto set = [&](const void* p, size_t size, std::optional<std::string>& dst) {
    dst.emplace(static_cast<const char*>(p), size);
  };
  const SortOrder order = sort_order_;
  switch (column_.physical_type) {
    case Type::kBoolean: {
      bool any_true = false, any_false = false;
      for (size_t i = begin; i < end; ++i) (bools_[i] ? any_true : any_false) = true;
      uint8_t mn = any_false ? 0 : 1, mx = any_true ? 1 : 0;
      set(&mn, 1, lo);
      set(&mx, 1, hi);
      break;
    }
    case Type::kInt32:
    case Type::kInt64: {
      auto scan = [&](auto tag) {
        using T = decltype(tag);
        T mn = LoadLE<T>(fixed_values_ + sizeof(T) * begin), mx = mn;
        for (size_t i = begin + 1; i < end; ++i) {
          T x = LoadLE<T>(fixed_values_ + sizeof(T) * i);
          mn = std::min(mn, x);
          mx = std::max(mx, x);
        }
        set(&mn, sizeof(T), lo);
        set(&mx, sizeof(T), hi);
      };
      if (column_.physical_type == Type::kInt32) {
        order == SortOrder::kUnsigned ? scan(uint32_t{}) : scan(int32_t{});
      } else {
        order == SortOrder::kUnsigned ? scan(uint64_t{}) : scan(int64_t{});
      }
      break;
    }
    case Type::kFloat:
    case Type::kDouble: {
      auto scan = [&](auto tag) {
        using T = decltype(tag);
        bool any = false;
        T mn = 0, mx = 0;
        for (size_t i = begin; i < end; ++i) {
          T x = LoadLE<T>(fixed_values_ + sizeof(T) * i);
          if (std::isnan(x)) continue;
          if (!any) {
            mn = mx = x;
            any = true;
          } else {
            // -0.0 sorts before +0.0 for min, +0.0 after -0.0 for max (parquet.md §7.3).
            if (x < mn || (x == mn && std::signbit(x))) mn = x;
            if (x > mx || (x == mx && !std::signbit(x))) mx = x;
          }
        }
        if (!any) return;
        if (mn == 0) mn = -static_cast<T>(0);
        if (mx == 0) mx = static_cast<T>(0);
        set(&mn, sizeof(T), lo);
        set(&mx, sizeof(T), hi);
      };
      column_.physical_type == Type::kFloat ? scan(float{}) : scan(double{});
      break;
    }
    case Type::kFixedLenByteArray:
    case Type::kByteArray: {
      const bool fixed = !is_binary_;
      auto value = [&](size_t i) {
        return fixed ? std::string_view(reinterpret_cast<const char*>(fixed_values_) + width_ * i,
                                        width_)
                     : binary_[i];
      };
      size_t mn = end, mx = end;
      if (is_decimal_) {
        // Numeric order of big-endian two's complement values (at most 16 bytes).
        __int128 lo_v = 0, hi_v = 0;
        for (size_t i = begin; i < end; ++i) {
          std::string_view x = value(i);
          if (x.empty() || x.size() > 16) continue;
          // Big-endian bytes to a sign-extended int128: byte-swap, then shift arithmetically.
          uint8_t be[16] = {};
          std::memcpy(be, x.data(), x.size());
          unsigned __int128 raw;
          std::memcpy(&raw, be, 16);
          const auto v = static_cast<__int128>(ByteSwap128(raw)) >> (8 * (16 - x.size()));
          if (mn == end || v < lo_v) lo_v = v, mn = i;
          if (mx == end || v > hi_v) hi_v = v, mx = i;
        }
      } else if (is_float16_) {
        float lo_v = 0, hi_v = 0;
        for (size_t i = begin; i < end; ++i) {
          const float v = col::HalfToFloat(LoadLE<uint16_t>(value(i).data()));
          if (std::isnan(v)) continue;
          if (mn == end || v < lo_v) lo_v = v, mn = i;
          if (mx == end || v > hi_v) hi_v = v, mx = i;
        }
      } else {
        // Unsigned lexicographic order: std::string_view compares bytes as unsigned char.
        std::string_view lo_v, hi_v;
        for (size_t i = begin; i < end; ++i) {
          std::string_view v = value(i);
          if (mn == end || v < lo_v) lo_v = v, mn = i;
          if (mx == end || v > hi_v) hi_v = v, mx = i;
        }
      }
      if (mn == end) return;
      lo.emplace(value(mn));
      hi.emplace(value(mx));
      break;
    }
    case Type::kInt96: return;
  }
  if (lo && (!chunk_min_ || CompareStatValues(column_, *lo, *chunk_min_) < 0))
    chunk_min_ = std::move(lo);
  if (hi && (!chunk_max_ || CompareStatValues(column_, *hi, *chunk_max_) > 0))
    chunk_max_ = std::move(hi);
}

void ColumnWriter::CollectBloomHashes(size_t begin, size_t end) {
  if (!options_.bloom_filter_leaves.contains(column_.index) || begin == end) return;
  const size_t n = end - begin;
  const size_t base = bloom_hashes_.size();
  bloom_hashes_.resize(base + n);
  if (is_bool_) {
    for (size_t i = 0; i < n; ++i)
      bloom_hashes_[base + i] = BloomHash(std::span<const uint8_t>(&bools_[begin + i], 1));
  } else if (is_binary_) {
    for (size_t i = 0; i < n; ++i) bloom_hashes_[base + i] = BloomHash(binary_[begin + i]);
  } else {
    BloomHashFixed(fixed_values_ + width_ * begin, n, width_, bloom_hashes_.data() + base);
  }
}

Result<ColumnWriter::EncodedPage> ColumnWriter::MakePage(PageType type, Buffer levels,
                                                         Buffer& values, bool compress,
                                                         PageHeader header) {
  EncodedPage page;
  const size_t uncompressed = levels.size() + values.size();
  page.levels = std::move(levels);
  if (compress && codec_->kind() != CompressionKind::kUncompressed) {
    FLOE_RETURN_IF_ERROR(codec_->Compress(values.span(), &page.body));
  } else {
    page.body = std::move(values);
  }
  const size_t on_disk = page.levels.size() + page.body.size();
  if (uncompressed > static_cast<size_t>(INT32_MAX) || on_disk > static_cast<size_t>(INT32_MAX)) {
    return Status::InvalidArgument("column '{}': a page of {} bytes exceeds 2 GiB",
                                   column_.PathString(), uncompressed);
  }
  header.type = type;
  header.uncompressed_page_size = static_cast<int32_t>(uncompressed);
  header.compressed_page_size = static_cast<int32_t>(on_disk);
  if (options_.write_page_crc) {
    uint32_t crc = Crc32(0, page.levels.data(), page.levels.size());
    header.crc = static_cast<int32_t>(Crc32(crc, page.body.data(), page.body.size()));
  }
  Serialize(header, &page.header);
  chunk_uncompressed_ += static_cast<int64_t>(page.header.size() + uncompressed);
  return page;
}

void ColumnWriter::MaybeAbandonDictionary() {
  if (!page_is_dictionary_ || dictionary_pages_ > 0 || page_indices_.empty()) return;
  const size_t width = static_cast<size_t>(BitWidth(dictionary_->size() - 1));
  const int64_t encoded =
      dictionary_->plain_bytes() + static_cast<int64_t>((page_indices_.size() * width + 7) / 8);
  if (encoded < page_plain_bytes_) return;
  // Re-encode this page's values PLAIN from the dictionary. Statistics and Bloom hashes
  // were taken from the dictionary entries, which are exactly this page's distinct values.
  page_values_.Clear();
  if (is_binary_) {
    for (uint32_t idx : page_indices_) {
      std::string_view v = dictionary_->Binary(idx);
      page_values_.AppendValue<uint32_t>(static_cast<uint32_t>(v.size()));
      page_values_.Append(v);
    }
  } else {
    uint8_t* out = page_values_.AppendUninitialized(page_indices_.size() * width_);
    for (size_t i = 0; i < page_indices_.size(); ++i) {
      std::memcpy(out + i * width_, dictionary_->Fixed(page_indices_[i]), width_);
    }
  }
  page_indices_.clear();
  page_is_dictionary_ = false;
  fallen_back_ = true;
  dictionary_.reset();
}

Status ColumnWriter::FlushPage() {
  if (page_entries_ == 0) return Status::OK();
  MaybeAbandonDictionary();
  const auto n = static_cast<size_t>(page_entries_);
  const bool v2 = options_.page_version == 2;
  Buffer levels;
  Buffer values;
  int32_t rep_len = 0, def_len = 0;
  if (v2) {
    if (column_.max_rep > 0) {
      rep_len = static_cast<int32_t>(
          EncodeLevelsV2(page_rep_.data_as<int16_t>(), n, column_.max_rep, &levels));
    }
    if (column_.max_def > 0) {
      def_len = static_cast<int32_t>(
          EncodeLevelsV2(page_def_.data_as<int16_t>(), n, column_.max_def, &levels));
    }
  } else {
    if (column_.max_rep > 0)
      EncodeLevelsV1(page_rep_.data_as<int16_t>(), n, column_.max_rep, &levels);
    if (column_.max_def > 0) {
      if (page_nulls_ == 0 && column_.max_rep == 0) {
        // Every entry defined (the common case): one RLE run, no per-level work.
        AppendConstantLevelsV1(column_.max_def, n, &levels);
      } else {
        EncodeLevelsV1(page_def_.data_as<int16_t>(), n, column_.max_def, &levels);
      }
    }
  }
  Encoding encoding = Encoding::kPlain;
  if (page_is_dictionary_) {
    encoding = Encoding::kRleDictionary;
    const int width = BitWidth(dictionary_->size() > 0 ? dictionary_->size() - 1 : 0);
    EncodeDictionaryIndices(page_indices_.data(), page_indices_.size(), width, &values);
    ++dictionary_pages_;
  } else if (is_bool_) {
    EncodePlainBooleans(page_values_.data(), page_values_.size(), &values);
    ++plain_pages_;
  } else {
    // PLAIN values are page_values_ itself: a compressed page only reads them (and the
    // buffer, already faulted in, serves the next page); an uncompressed one takes them.
    values = std::move(page_values_);
    ++plain_pages_;
  }
  const bool values_are_plain = !page_is_dictionary_ && !is_bool_;
  PageHeader header;
  EncodedPage page;
  if (v2) {
    DataPageHeaderV2 dh;
    dh.num_values = static_cast<int32_t>(page_entries_);
    dh.num_nulls = static_cast<int32_t>(page_nulls_);
    dh.num_rows = static_cast<int32_t>(page_rows_);
    dh.encoding = encoding;
    dh.definition_levels_byte_length = def_len;
    dh.repetition_levels_byte_length = rep_len;
    dh.is_compressed = codec_->kind() != CompressionKind::kUncompressed && !values.empty();
    header.data_page_header_v2 = dh;
    FLOE_ASSIGN_OR_RETURN(
        page, MakePage(PageType::kDataPageV2, std::move(levels), values, dh.is_compressed, header));
  } else {
    DataPageHeader dh;
    dh.num_values = static_cast<int32_t>(page_entries_);
    dh.encoding = encoding;
    dh.definition_level_encoding = Encoding::kRle;
    dh.repetition_level_encoding = Encoding::kRle;
    header.data_page_header = dh;
    if (codec_->kind() == CompressionKind::kUncompressed) {
      FLOE_ASSIGN_OR_RETURN(
          page, MakePage(PageType::kDataPage, std::move(levels), values, false, header));
    } else {
      // v1 compresses levels and values as one stream; the codec reads both pieces.
      EncodedPage p;
      const std::span<const uint8_t> pieces[2] = {levels.span(), values.span()};
      FLOE_RETURN_IF_ERROR(codec_->CompressPieces(pieces, &p.body));
      const size_t uncompressed = levels.size() + values.size();
      if (uncompressed > static_cast<size_t>(INT32_MAX) ||
          p.body.size() > static_cast<size_t>(INT32_MAX)) {
        return Status::InvalidArgument("column '{}': a page of {} bytes exceeds 2 GiB",
                                       column_.PathString(), uncompressed);
      }
      header.type = PageType::kDataPage;
      header.uncompressed_page_size = static_cast<int32_t>(uncompressed);
      header.compressed_page_size = static_cast<int32_t>(p.body.size());
      if (options_.write_page_crc) {
        header.crc = static_cast<int32_t>(Crc32(0, p.body.data(), p.body.size()));
      }
      Serialize(header, &p.header);
      chunk_uncompressed_ += static_cast<int64_t>(p.header.size() + uncompressed);
      page = std::move(p);
    }
  }
  if (values_are_plain) {
    if (values.capacity() > 0) {
      page_values_ = std::move(values);  // not taken by the page: reuse it
    } else {
      page_values_.Reserve(page.body.size());  // taken: the next page starts sized alike
    }
  }
  chunk_page_bytes_ += static_cast<int64_t>(page.size());
  chunk_pages_.push_back(std::move(page));
  chunk_entries_ += page_entries_;
  page_entries_ = page_rows_ = page_nulls_ = 0;
  page_def_.Clear();
  page_rep_.Clear();
  page_indices_.clear();
  page_plain_bytes_ = 0;
  page_values_.Clear();
  return Status::OK();
}

int64_t ColumnWriter::buffered_bytes() const {
  int64_t open_page = page_is_dictionary_ ? static_cast<int64_t>(page_indices_.size()) * 2
                                          : static_cast<int64_t>(page_values_.size());
  int64_t dict = dictionary_ ? dictionary_->plain_bytes() : 0;
  return chunk_page_bytes_ + open_page + dict;
}

void ColumnWriter::FinishStatistics(ColumnMetaData* meta) {
  Statistics s;
  s.null_count = chunk_nulls_;
  if (is_float_) s.nan_count = chunk_nans_;
  if (chunk_min_ && chunk_max_) {
    std::string mn = *chunk_min_;
    std::optional<std::string> mx = *chunk_max_;
    bool min_exact = true, max_exact = true;
    if (is_binary_ &&
        !(column_.logical_type && column_.logical_type->kind == LogicalType::Kind::kDecimal)) {
      const bool utf8 = column_.type->id() == col::TypeId::kString;
      const size_t limit = options_.statistics_truncate_bytes;
      if (mn.size() > limit) {
        mn = TruncateLowerBound(mn, limit, utf8);
        min_exact = false;
      }
      if (mx->size() > limit) {
        mx = TruncateUpperBound(*mx, limit, utf8);
        max_exact = false;
      }
    }
    s.min_value = mn;
    s.is_min_value_exact = min_exact;
    if (mx) {
      s.max_value = *mx;
      s.is_max_value_exact = max_exact;
    }
    // Old readers only know the legacy fields, which assume signed comparison.
    if (SortOrderOf(column_) == SortOrder::kSigned) {
      s.min = s.min_value;
      s.max = s.max_value;
    }
    // File-level bounds for Iceberg.
    if (!metrics_.min || CompareStatValues(column_, mn, *metrics_.min) < 0) {
      metrics_.min = mn;
      metrics_.min_exact = min_exact;
    }
    // A chunk without an upper bound (a long value of 0xFF bytes) leaves the file without
    // one: keeping another chunk's maximum would understate the file's.
    if (!mx) {
      max_unbounded_ = true;
      metrics_.max.reset();
    } else if (!max_unbounded_ &&
               (!metrics_.max || CompareStatValues(column_, *mx, *metrics_.max) > 0)) {
      metrics_.max = *mx;
      metrics_.max_exact = max_exact;
    }
  }
  meta->statistics = std::move(s);
}

Status ColumnWriter::Flush(io::OutputStream* out, ColumnChunk* chunk) {
  FLOE_RETURN_IF_ERROR(FlushPage());
  const auto start = static_cast<int64_t>(out->position());
  ColumnMetaData meta;
  meta.type = column_.physical_type;
  meta.path_in_schema = column_.path;
  meta.codec = [&] {
    switch (codec_->kind()) {
      case CompressionKind::kSnappy: return CompressionCodec::kSnappy;
      case CompressionKind::kGzip: return CompressionCodec::kGzip;
      case CompressionKind::kZstd: return CompressionCodec::kZstd;
      case CompressionKind::kLz4Raw: return CompressionCodec::kLz4Raw;
      case CompressionKind::kLz4Hadoop: return CompressionCodec::kLz4;
      default: return CompressionCodec::kUncompressed;
    }
  }();
  meta.num_values = chunk_entries_;
  std::vector<PageEncodingStats> encoding_stats;
  EncodedPage dict_page;
  if (dictionary_pages_ > 0) {
    Buffer body;
    FLOE_RETURN_IF_ERROR(dictionary_->EncodePlain(&body));
    PageHeader header;
    DictionaryPageHeader dh;
    dh.num_values = static_cast<int32_t>(dictionary_->size());
    dh.encoding = Encoding::kPlain;
    header.dictionary_page_header = dh;
    FLOE_ASSIGN_OR_RETURN(dict_page,
                          MakePage(PageType::kDictionaryPage, Buffer(), body, true, header));
    meta.dictionary_page_offset = start;
    meta.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
    encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, dictionary_pages_});
  } else {
    meta.encodings = {Encoding::kPlain, Encoding::kRle};
  }
  if (plain_pages_ > 0) {
    encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_pages_});
    if (dictionary_pages_ > 0) meta.encodings.push_back(Encoding::kPlain);
  }
  // Drop the duplicate PLAIN (dictionary page and fallback pages share it).
  std::sort(meta.encodings.begin(), meta.encodings.end());
  meta.encodings.erase(std::unique(meta.encodings.begin(), meta.encodings.end()),
                       meta.encodings.end());
  meta.encoding_stats = std::move(encoding_stats);
  meta.data_page_offset = start + static_cast<int64_t>(dict_page.size());
  meta.total_compressed_size = static_cast<int64_t>(dict_page.size()) + chunk_page_bytes_;
  meta.total_uncompressed_size = chunk_uncompressed_;
  FinishStatistics(&meta);
  auto write_page = [&](const EncodedPage& p) -> Status {
    FLOE_RETURN_IF_ERROR(out->Write(p.header.data(), p.header.size()));
    FLOE_RETURN_IF_ERROR(out->Write(p.levels.data(), p.levels.size()));
    return out->Write(p.body.data(), p.body.size());
  };
  FLOE_RETURN_IF_ERROR(write_page(dict_page));
  for (const auto& p : chunk_pages_) FLOE_RETURN_IF_ERROR(write_page(p));

  metrics_.compressed_bytes += meta.total_compressed_size;
  metrics_.value_count += chunk_entries_;
  metrics_.null_count += chunk_nulls_;
  if (is_float_) *metrics_.nan_count += chunk_nans_;

  if (options_.bloom_filter_leaves.contains(column_.index)) {
    std::sort(bloom_hashes_.begin(), bloom_hashes_.end());
    bloom_hashes_.erase(std::unique(bloom_hashes_.begin(), bloom_hashes_.end()),
                        bloom_hashes_.end());
    FLOE_ASSIGN_OR_RETURN(size_t bytes,
                          BloomFilter::OptimalNumBytes(std::max<uint64_t>(bloom_hashes_.size(), 1),
                                                       options_.bloom_filter_fpp));
    const auto cap = static_cast<size_t>(
        std::max<int64_t>(BloomFilter::kMinBytes, options_.bloom_filter_max_bytes));
    if (bytes > cap) bytes = std::bit_floor(cap);
    FLOE_ASSIGN_OR_RETURN(BloomFilter filter, BloomFilter::Make(bytes));
    filter.InsertBatch(bloom_hashes_.data(), bloom_hashes_.size());
    bloom_filters_.emplace_back(std::move(filter));
    bloom_hashes_.clear();
  } else {
    bloom_filters_.emplace_back(std::nullopt);
  }

  chunk->file_offset = 0;
  chunk->meta_data = std::move(meta);
  // Reset for the next row group.
  chunk_pages_.clear();
  chunk_page_bytes_ = 0;
  chunk_entries_ = chunk_uncompressed_ = chunk_nulls_ = chunk_nans_ = 0;
  dictionary_pages_ = plain_pages_ = 0;
  chunk_min_.reset();
  chunk_max_.reset();
  fallen_back_ = !options_.dictionary || is_bool_ || column_.type->id() == col::TypeId::kNull;
  page_is_dictionary_ = !fallen_back_;
  if (!fallen_back_) dictionary_ = std::make_unique<Dictionary>(width_);
  return Status::OK();
}

}  // namespace floe::format::parquet

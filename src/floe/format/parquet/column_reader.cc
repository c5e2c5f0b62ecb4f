#include "floe/format/parquet/column_reader.h"

#include <algorithm>
#include <cstring>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/encoding/byte_stream_split.h"
#include "floe/format/parquet/encoding/delta.h"
#include "floe/format/parquet/encoding/dictionary.h"
#include "floe/format/parquet/encoding/levels.h"
#include "floe/format/parquet/encoding/plain.h"
#include "floe/format/parquet/writer_version.h"

namespace floe::format::parquet {

namespace col = floe::columnar;

namespace {

Result<CompressionKind> CompressionFor(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed: return CompressionKind::kUncompressed;
    case CompressionCodec::kSnappy: return CompressionKind::kSnappy;
    case CompressionCodec::kGzip: return CompressionKind::kGzip;
    case CompressionCodec::kZstd: return CompressionKind::kZstd;
    case CompressionCodec::kLz4: return CompressionKind::kLz4Hadoop;
    case CompressionCodec::kLz4Raw: return CompressionKind::kLz4Raw;
    default:
      return Status::Unimplemented("compression codec {} is not supported", EnumToString(codec));
  }
}

// How decoded physical values become columnar values.
enum class Conversion : uint8_t {
  kNone,          // same bytes (or bits, or offsets + data)
  kNarrow8,       // INT32 -> int8/uint8
  kNarrow16,      // INT32 -> int16/uint16
  kInt32Decimal,  // INT32 -> decimal128
  kInt64Decimal,  // INT64 -> decimal128
  kInt96Nanos,    // INT96 -> timestamp[ns]
  kFixedDecimal,  // FIXED_LEN_BYTE_ARRAY big-endian -> decimal128
  kBytesDecimal,  // BYTE_ARRAY big-endian -> decimal128
};

Conversion ConversionFor(const ColumnDescriptor& c) {
  const col::TypeId id = c.type->id();
  switch (c.physical_type) {
    case Type::kInt32:
      if (id == col::TypeId::kInt8 || id == col::TypeId::kUInt8) return Conversion::kNarrow8;
      if (id == col::TypeId::kInt16 || id == col::TypeId::kUInt16) return Conversion::kNarrow16;
      if (id == col::TypeId::kDecimal128) return Conversion::kInt32Decimal;
      return Conversion::kNone;
    case Type::kInt64:
      return id == col::TypeId::kDecimal128 ? Conversion::kInt64Decimal : Conversion::kNone;
    case Type::kInt96: return Conversion::kInt96Nanos;
    case Type::kFixedLenByteArray:
      return id == col::TypeId::kDecimal128 ? Conversion::kFixedDecimal : Conversion::kNone;
    case Type::kByteArray:
      return id == col::TypeId::kDecimal128 ? Conversion::kBytesDecimal : Conversion::kNone;
    default: return Conversion::kNone;
  }
}

// Sign-extends a big-endian two's complement integer of 1..16 bytes: the bytes land in the
// high end of a 16-byte word, byte-swapped, then an arithmetic shift extends the sign.
__int128 BigEndianToInt128(const uint8_t* p, size_t n) {
  if (n == 0) return 0;
  uint8_t be[16] = {};
  std::memcpy(be, p, n);
  unsigned __int128 raw;
  std::memcpy(&raw, be, 16);
  const auto v = static_cast<__int128>(ByteSwap128(raw));
  return v >> (8 * (16 - n));
}

// The bytes the first n values of a DELTA_BYTE_ARRAY section expand to: the sum of their
// prefix and suffix lengths (negative lengths count as 0; the decoder rejects them).
Result<int64_t> DeltaByteArrayOutputBytes(std::span<const uint8_t> data, size_t n) {
  DeltaBinaryPackedDecoder<int32_t> prefixes;
  FLOE_RETURN_IF_ERROR(prefixes.Reset(data));
  FLOE_ASSIGN_OR_RETURN(size_t prefix_bytes, prefixes.EncodedSize());
  DeltaBinaryPackedDecoder<int32_t> suffixes;
  FLOE_RETURN_IF_ERROR(suffixes.Reset(data.subspan(std::min(prefix_bytes, data.size()))));
  if (prefixes.values_left() < n || suffixes.values_left() < n) {
    return Status::Corrupt("DELTA_BYTE_ARRAY section holds fewer than {} values", n);
  }
  int32_t p[1024], q[1024];
  int64_t total = 0;
  for (size_t done = 0; done < n;) {
    const size_t k = std::min<size_t>(1024, n - done);
    FLOE_RETURN_IF_ERROR(prefixes.Decode(p, k));
    FLOE_RETURN_IF_ERROR(suffixes.Decode(q, k));
    for (size_t i = 0; i < k; ++i) total += std::max(0, p[i]) + int64_t{std::max(0, q[i])};
    done += k;
  }
  return total;
}

}  // namespace

// The bytes of a column chunk, read through a bounded window: a page must be contiguous,
// so the window grows only when one page is larger than it.
class ChunkStream {
 public:
  ChunkStream(const io::InputFile& file, uint64_t start, uint64_t length, size_t window)
      : file_(file), next_(start), end_(start + length), window_(std::max<size_t>(window, 4096)) {}

  uint64_t remaining() const { return (filled_ - pos_) + (end_ - next_); }

  // Buffers at least min(n, remaining()) bytes and returns every buffered byte.
  Result<std::span<const uint8_t>> Ensure(size_t n) {
    n = static_cast<size_t>(std::min<uint64_t>(n, remaining()));
    if (filled_ - pos_ < n) {
      const size_t keep = filled_ - pos_;
      if (pos_ > 0 && keep > 0) std::memmove(buf_.data(), buf_.data() + pos_, keep);
      pos_ = 0;
      filled_ = keep;
      const size_t target = std::max(n, window_);
      const auto read = static_cast<size_t>(std::min<uint64_t>(target - keep, end_ - next_));
      buf_.Resize(keep + read);
      FLOE_RETURN_IF_ERROR(file_.ReadAt(next_, read, buf_.data() + keep));
      next_ += read;
      filled_ += read;
    }
    return std::span<const uint8_t>(buf_.data() + pos_, filled_ - pos_);
  }

  void Consume(size_t n) { pos_ += n; }

 private:
  const io::InputFile& file_;
  uint64_t next_;  // the next file offset to read
  uint64_t end_;
  size_t window_;
  Buffer buf_;
  size_t pos_ = 0;     // first unconsumed byte in buf_
  size_t filled_ = 0;  // valid bytes in buf_
};

class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& column, const ColumnReadOptions& options,
               std::unique_ptr<ChunkStream> stream, int64_t expected_values,
               std::unique_ptr<Codec> codec)
      : column_(column),
        options_(options),
        stream_(std::move(stream)),
        expected_values_(expected_values),
        codec_(std::move(codec)),
        conversion_(ConversionFor(column)),
        physical_width_(column.physical_width()),
        columnar_width_(static_cast<size_t>(column.type->fixed_width())),
        is_null_type_(column.type->id() == col::TypeId::kNull),
        is_binary_(column.type->is_binary_like()),
        is_bool_(column.type->id() == col::TypeId::kBool) {}

  // Decodes the next `records` whole records (fewer at the end of the chunk) into `dst`,
  // which must be empty. Returns the number of records.
  Result<int64_t> ReadRecords(int64_t records, LeafData* dst) {
    if (is_binary_ && pending_.offsets.empty()) pending_.offsets.AppendValue<int64_t>(0);
    Reserve(records);
    // Decode pages until `records` records are complete (the record after them has started,
    // or the chunk has ended: v1 pages may split a record).
    while (!AtEnd() && CompleteRecords(records) < records) {
      FLOE_RETURN_IF_ERROR(DecodeNextPage());
    }
    const int64_t taken = Split(records, dst);
    return taken;
  }

  bool AtEnd() const { return seen_ >= expected_values_; }

 private:
  // Reserves the pending buffers for about `records` records, from what earlier batches
  // held per record and per value (the footer's counts are untrusted: the estimate never
  // exceeds the entries left in the chunk, and stays within the decoding budget).
  void Reserve(int64_t records) {
    const int64_t per_record =
        records_out_ > 0 ? std::max<int64_t>(1, (entries_out_ + records_out_ - 1) / records_out_)
                         : 1;
    const int64_t entries_left = expected_values_ - seen_ + pending_.num_entries;
    // Decoding stops at the page that completes the batch: leave room for one more page.
    const int64_t wanted = records > (entries_left - max_page_entries_) / per_record
                               ? entries_left
                               : records * per_record + max_page_entries_;
    const int64_t entries = std::min(wanted, entries_left);
    const int64_t per_entry = (column_.max_def > 0 ? 2 : 0) + (column_.max_rep > 0 ? 2 : 0) +
                              static_cast<int64_t>(is_binary_ ? 8 : columnar_width_);
    if (per_entry == 0 || entries <= 0 || entries > options_.max_decoded_bytes / per_entry) return;
    const auto n = static_cast<size_t>(entries);
    if (column_.max_def > 0) pending_.def_levels.Reserve(n * sizeof(int16_t));
    if (column_.max_rep > 0) pending_.rep_levels.Reserve(n * sizeof(int16_t));
    if (is_binary_) {
      pending_.offsets.Reserve((n + 1) * sizeof(int64_t));
      if (values_out_ > 0) {
        const int64_t bytes = bytes_out_ / values_out_ * entries;
        if (bytes > 0 && bytes < options_.max_decoded_bytes) {
          pending_.values.Reserve(static_cast<size_t>(bytes));
        }
      }
    } else if (columnar_width_ > 0) {
      pending_.values.Reserve(n * columnar_width_);
    }
  }

  // Records of pending_ known to be complete, counting no further than `limit`: for flat
  // columns every entry; for repeated ones the records followed by a record start (or by
  // the end of the chunk). Remembers how far it scanned.
  int64_t CompleteRecords(int64_t limit) {
    if (column_.max_rep == 0) return pending_.num_entries;
    const int16_t* r = pending_.reps();
    while (scan_pos_ < pending_.num_entries && starts_ <= limit) {
      if (r[scan_pos_] == 0) {
        if (starts_ == limit) break;  // the start of record limit + 1: limit are complete
        ++starts_;
      }
      ++scan_pos_;
    }
    if (scan_pos_ < pending_.num_entries) return starts_;  // stopped at a record start
    return AtEnd() ? starts_ : std::max<int64_t>(0, starts_ - 1);
  }

  // Moves the first `records` records of pending_ (all of them when fewer) into dst,
  // keeping the rest pending. The head keeps pending_'s buffers; only the tail is copied.
  int64_t Split(int64_t records, LeafData* dst) {
    int64_t entries = pending_.num_entries;
    int64_t taken;
    if (column_.max_rep == 0) {
      entries = std::min(entries, records);
      taken = entries;
    } else {
      // scan_pos_ stopped at the start of record records + 1, or at the end.
      taken = CompleteRecords(records);
      entries = scan_pos_ < pending_.num_entries ? scan_pos_ : pending_.num_entries;
    }
    int64_t values = entries;
    if (column_.max_def > 0) {
      const int16_t* d = pending_.defs();
      values = 0;
      for (int64_t i = 0; i < entries; ++i) values += d[i] == column_.max_def;
    }
    if (is_null_type_) values = std::min(values, pending_.num_values);
    LeafData tail;
    const int64_t tail_entries = pending_.num_entries - entries;
    const int64_t tail_values = pending_.num_values - values;
    const auto e = static_cast<size_t>(entries);
    const auto v = static_cast<size_t>(values);
    if (tail_entries > 0) {
      if (!pending_.def_levels.empty()) {
        tail.def_levels.Append(pending_.def_levels.data() + 2 * e,
                               2 * static_cast<size_t>(tail_entries));
      }
      if (!pending_.rep_levels.empty()) {
        tail.rep_levels.Append(pending_.rep_levels.data() + 2 * e,
                               2 * static_cast<size_t>(tail_entries));
      }
      tail.num_entries = tail_entries;
      tail.num_values = tail_values;
      if (is_null_type_) {
        // no values
      } else if (is_bool_) {
        tail.values.ResizeZeroed(static_cast<size_t>(col::BytesForBits(tail_values)));
        col::CopyBits(pending_.values.data(), values, tail_values, tail.values.data(), 0);
      } else if (is_binary_) {
        const int64_t* o = pending_.offsets.data_as<int64_t>();
        const int64_t base = o[v];
        tail.offsets.Resize(sizeof(int64_t) * static_cast<size_t>(tail_values + 1));
        auto* to = tail.offsets.data_as<int64_t>();
        for (int64_t i = 0; i <= tail_values; ++i) to[i] = o[v + static_cast<size_t>(i)] - base;
        tail.values.Append(pending_.values.data() + base,
                           static_cast<size_t>(o[pending_.num_values] - base));
      } else {
        tail.values.Append(pending_.values.data() + v * columnar_width_,
                           static_cast<size_t>(tail_values) * columnar_width_);
      }
    } else if (is_binary_) {
      tail.offsets.AppendValue<int64_t>(0);
    }
    // Truncate the head in place and hand it over.
    if (!pending_.def_levels.empty()) pending_.def_levels.Resize(2 * e);
    if (!pending_.rep_levels.empty()) pending_.rep_levels.Resize(2 * e);
    if (is_bool_) {
      pending_.values.Resize(static_cast<size_t>(col::BytesForBits(values)));
    } else if (is_binary_) {
      pending_.offsets.Resize(sizeof(int64_t) * (v + 1));
      pending_.values.Resize(static_cast<size_t>(pending_.offsets.data_as<int64_t>()[v]));
    } else if (!is_null_type_) {
      pending_.values.Resize(v * columnar_width_);
    }
    pending_.num_entries = entries;
    pending_.num_values = values;
    records_out_ += taken;
    entries_out_ += entries;
    values_out_ += values;
    if (is_binary_) bytes_out_ += static_cast<int64_t>(pending_.values.size());
    *dst = std::move(pending_);
    pending_ = std::move(tail);
    scan_pos_ = 0;
    starts_ = 0;
    decoded_bytes_ = EntryBytes(pending_.num_entries, pending_.num_values);
    return taken;
  }

  Status DecodeNextPage() {
    ChunkStream& stream = *stream_;
    const int page = page_;
    if (stream.remaining() == 0) {
      return Status::Corrupt("pages hold {} values, the chunk metadata says {}", seen_,
                             expected_values_);
    }
    // Page headers are small, but statistics can make them large: retry with more bytes.
    PageHeader header;
    size_t header_size = 0;
    for (size_t want = 16 * 1024;; want *= 4) {
      FLOE_ASSIGN_OR_RETURN(auto view, stream.Ensure(want));
      Status hs = Deserialize(view, &header, &header_size);
      if (hs.ok()) break;
      if (view.size() >= stream.remaining() || want >= (size_t{64} << 20)) {
        return hs.WithContext("page {} header", page);
      }
    }
    stream.Consume(header_size);
    if (header.compressed_page_size < 0 || header.uncompressed_page_size < 0) {
      return Status::Corrupt("page {} has a negative size", page);
    }
    if (header.uncompressed_page_size > options_.max_page_bytes) {
      return Status::Corrupt("page {} declares {} uncompressed bytes, over the limit of {}", page,
                             header.uncompressed_page_size, options_.max_page_bytes);
    }
    const auto compressed = static_cast<size_t>(header.compressed_page_size);
    if (compressed > stream.remaining()) {
      return Status::Corrupt("page {} body of {} bytes runs past the column chunk", page,
                             compressed);
    }
    FLOE_ASSIGN_OR_RETURN(auto buffered, stream.Ensure(compressed));
    const std::span<const uint8_t> body = buffered.subspan(0, compressed);
    if (options_.verify_crc && header.crc.has_value()) {
      uint32_t crc = Crc32(0, body.data(), body.size());
      if (crc != static_cast<uint32_t>(*header.crc)) {
        return Status::Corrupt("page {} CRC mismatch (stored {:08x}, computed {:08x})", page,
                               static_cast<uint32_t>(*header.crc), crc);
      }
    }
    Status s;
    switch (header.type) {
      case PageType::kDictionaryPage: s = DictionaryPage(header, body); break;
      case PageType::kDataPage: s = DataPageV1(header, body, &seen_); break;
      case PageType::kDataPageV2: s = DataPageV2(header, body, &seen_); break;
      default: break;  // index pages and unknown page types are skipped
    }
    if (!s.ok()) return s.WithContext("page {}", page);
    stream.Consume(compressed);
    if (seen_ > expected_values_) {
      return Status::Corrupt("pages hold more values than the chunk metadata's {}",
                             expected_values_);
    }
    ++page_;
    return Status::OK();
  }

 private:
  // Counts `bytes` of decoded output against the chunk's budget before they are allocated.
  Status Charge(int64_t bytes) {
    if (bytes < 0 || bytes > options_.max_decoded_bytes - decoded_bytes_) {
      return Status::Corrupt("decoding would exceed the limit of {} bytes for one column chunk",
                             options_.max_decoded_bytes);
    }
    decoded_bytes_ += bytes;
    return Status::OK();
  }

  // The decoded size of n entries with `values` of them non-null (levels and values).
  int64_t EntryBytes(int64_t n, int64_t values) const {
    const int64_t levels = (column_.max_def > 0 ? 2 : 0) + (column_.max_rep > 0 ? 2 : 0);
    const int64_t per_value =
        is_binary_ ? 8 : std::max<int64_t>(1, static_cast<int64_t>(columnar_width_));
    return n * levels + values * per_value;
  }

  Status Decompress(std::span<const uint8_t> in, size_t uncompressed_size,
                    std::span<const uint8_t>* out) {
    if (codec_->kind() == CompressionKind::kUncompressed) {
      if (in.size() != uncompressed_size) {
        return Status::Corrupt("uncompressed page of {} bytes declares {}", in.size(),
                               uncompressed_size);
      }
      *out = in;
      return Status::OK();
    }
    page_buffer_.Resize(uncompressed_size);
    FLOE_RETURN_IF_ERROR(codec_->Decompress(in, page_buffer_.data(), uncompressed_size));
    *out = page_buffer_.span();
    return Status::OK();
  }

  Status DictionaryPage(const PageHeader& header, std::span<const uint8_t> body) {
    if (!header.dictionary_page_header) {
      return Status::Corrupt("dictionary page without a dictionary page header");
    }
    if (has_dictionary_) return Status::Corrupt("a second dictionary page");
    if (data_pages_ > 0) return Status::Corrupt("dictionary page after data pages");
    const auto& dh = *header.dictionary_page_header;
    if (dh.encoding != Encoding::kPlain && dh.encoding != Encoding::kPlainDictionary) {
      return Status::Corrupt("dictionary page encoding {}", EnumToString(dh.encoding));
    }
    if (dh.num_values < 0) return Status::Corrupt("negative dictionary size");
    // PLAIN values take at least a bit (booleans), 4 bytes (byte arrays' lengths) or their
    // width each: a count the page cannot hold is corrupt.
    const int64_t min_bits =
        is_bool_ ? 1
                 : 8 * static_cast<int64_t>(is_binary_ ? 4 : std::max<size_t>(physical_width_, 1));
    if (dh.num_values > int64_t{header.uncompressed_page_size} * 8 / min_bits) {
      return Status::Corrupt("dictionary page claims {} values in {} bytes", dh.num_values,
                             header.uncompressed_page_size);
    }
    FLOE_RETURN_IF_ERROR(Charge(int64_t{dh.num_values} *
                                    std::max<int64_t>(1, static_cast<int64_t>(columnar_width_)) +
                                int64_t{header.uncompressed_page_size}));
    std::span<const uint8_t> data;
    FLOE_RETURN_IF_ERROR(
        Decompress(body, static_cast<size_t>(header.uncompressed_page_size), &data));
    has_dictionary_ = true;
    dictionary_ = LeafData();
    if (is_binary_) dictionary_.offsets.AppendValue<int64_t>(0);
    if (is_null_type_) return Status::OK();
    if (is_bool_) {
      // Booleans are not dictionary-encoded by any known writer; keep them one per byte.
      dict_bools_.Resize(static_cast<size_t>(dh.num_values));
      PlainBooleanDecoder d;
      d.Reset(data);
      FLOE_RETURN_IF_ERROR(d.Decode(dict_bools_.data(), static_cast<size_t>(dh.num_values)));
      dictionary_.num_values = dh.num_values;
      return Status::OK();
    }
    FLOE_RETURN_IF_ERROR(DecodeValues(Encoding::kPlain, data, dh.num_values, &dictionary_));
    return Status::OK();
  }

  Status DataPageV1(const PageHeader& header, std::span<const uint8_t> body, int64_t* seen) {
    if (!header.data_page_header) return Status::Corrupt("data page without a data page header");
    const auto& dh = *header.data_page_header;
    if (dh.num_values < 0) return Status::Corrupt("negative value count");
    FLOE_RETURN_IF_ERROR(Charge(EntryBytes(dh.num_values, 0)));
    ++data_pages_;
    std::span<const uint8_t> data;
    FLOE_RETURN_IF_ERROR(
        Decompress(body, static_cast<size_t>(header.uncompressed_page_size), &data));
    const auto n = static_cast<size_t>(dh.num_values);
    size_t used = 0;
    if (column_.max_rep > 0) {
      FLOE_ASSIGN_OR_RETURN(LevelEncoding enc, LevelEncodingOf(dh.repetition_level_encoding));
      LevelDecoder d;
      FLOE_RETURN_IF_ERROR(d.ResetV1(enc, column_.max_rep, static_cast<uint32_t>(n), data, &used));
      FLOE_RETURN_IF_ERROR(DecodeLevels(d, n, &pending_.rep_levels));
      data = data.subspan(used);
    }
    if (column_.max_def > 0) {
      FLOE_ASSIGN_OR_RETURN(LevelEncoding enc, LevelEncodingOf(dh.definition_level_encoding));
      LevelDecoder d;
      FLOE_RETURN_IF_ERROR(d.ResetV1(enc, column_.max_def, static_cast<uint32_t>(n), data, &used));
      FLOE_RETURN_IF_ERROR(DecodeLevels(d, n, &pending_.def_levels));
      data = data.subspan(used);
    }
    const int64_t non_null = CountNonNull(n);
    pending_.num_entries += static_cast<int64_t>(n);
    *seen += static_cast<int64_t>(n);
    max_page_entries_ = std::max<int64_t>(max_page_entries_, static_cast<int64_t>(n));
    return DecodeValues(dh.encoding, data, non_null, &pending_);
  }

  Status DataPageV2(const PageHeader& header, std::span<const uint8_t> body, int64_t* seen) {
    if (!header.data_page_header_v2) {
      return Status::Corrupt("data page v2 without a data page v2 header");
    }
    const auto& dh = *header.data_page_header_v2;
    if (dh.num_values < 0 || dh.num_nulls < 0 || dh.num_nulls > dh.num_values || dh.num_rows < 0 ||
        dh.num_rows > dh.num_values || dh.repetition_levels_byte_length < 0 ||
        dh.definition_levels_byte_length < 0) {
      return Status::Corrupt("data page v2 header has negative or inconsistent counts");
    }
    FLOE_RETURN_IF_ERROR(Charge(EntryBytes(dh.num_values, 0)));
    ++data_pages_;
    const auto rep_len = static_cast<size_t>(dh.repetition_levels_byte_length);
    const auto def_len = static_cast<size_t>(dh.definition_levels_byte_length);
    if (rep_len + def_len > body.size() ||
        rep_len + def_len > static_cast<size_t>(header.uncompressed_page_size)) {
      return Status::Corrupt("data page v2 level lengths exceed the page");
    }
    const auto n = static_cast<size_t>(dh.num_values);
    // Level sections are never compressed; always skip them, even when the max level is 0
    // (Athena writes bytes there: ARROW-17453).
    if (column_.max_rep > 0) {
      LevelDecoder d;
      FLOE_RETURN_IF_ERROR(d.ResetV2(column_.max_rep, body.subspan(0, rep_len)));
      FLOE_RETURN_IF_ERROR(DecodeLevels(d, n, &pending_.rep_levels));
    }
    if (column_.max_def > 0) {
      LevelDecoder d;
      FLOE_RETURN_IF_ERROR(d.ResetV2(column_.max_def, body.subspan(rep_len, def_len)));
      FLOE_RETURN_IF_ERROR(DecodeLevels(d, n, &pending_.def_levels));
    }
    const int64_t non_null = CountNonNull(n);
    if (column_.max_def > 0 && non_null != dh.num_values - dh.num_nulls) {
      return Status::Corrupt("data page v2 declares {} nulls, its levels hold {}", dh.num_nulls,
                             dh.num_values - non_null);
    }
    auto values = body.subspan(rep_len + def_len);
    const size_t values_size =
        static_cast<size_t>(header.uncompressed_page_size) - rep_len - def_len;
    // parquet-cpp before 2.0.0 marked v2 pages uncompressed but compressed them (ARROW-10353).
    const bool compressed = dh.is_compressed || writer_.IsBefore("parquet-cpp", 2, 0, 0);
    std::span<const uint8_t> data = values;
    // An empty values area (an all-null page) is not decompressed (GH-31992).
    if (compressed && !values.empty()) {
      FLOE_RETURN_IF_ERROR(Decompress(values, values_size, &data));
    }
    pending_.num_entries += static_cast<int64_t>(n);
    *seen += static_cast<int64_t>(n);
    max_page_entries_ = std::max<int64_t>(max_page_entries_, static_cast<int64_t>(n));
    return DecodeValues(dh.encoding, data, non_null, &pending_);
  }

  static Result<LevelEncoding> LevelEncodingOf(Encoding e) {
    if (e == Encoding::kRle) return LevelEncoding::kRle;
    if (e == Encoding::kBitPacked) return LevelEncoding::kBitPacked;
    return Status::Corrupt("level encoding {} is not RLE or BIT_PACKED", EnumToString(e));
  }

  static Status DecodeLevels(LevelDecoder& d, size_t n, Buffer* levels) {
    auto* dst = reinterpret_cast<int16_t*>(levels->AppendUninitialized(n * sizeof(int16_t)));
    return d.Decode(dst, n);
  }

  // Non-null entries among the last n decoded definition levels.
  int64_t CountNonNull(size_t n) const {
    if (column_.max_def == 0) return static_cast<int64_t>(n);
    const int16_t* d = pending_.defs() + (pending_.num_entries);
    const int16_t max = column_.max_def;
    int64_t count = 0;
    for (size_t i = 0; i < n; ++i) count += d[i] == max;
    return count;
  }

  // Decodes n values of `encoding` from `data`, appending them to `dst` in columnar layout.
  Status DecodeValues(Encoding encoding, std::span<const uint8_t> data, int64_t count,
                      LeafData* dst) {
    if (count == 0) return Status::OK();
    const auto n = static_cast<size_t>(count);
    if (is_null_type_) {
      dst->num_values += count;
      return Status::OK();
    }
    if (dst == &pending_) FLOE_RETURN_IF_ERROR(Charge(EntryBytes(0, count)));
    if (encoding == Encoding::kPlainDictionary || encoding == Encoding::kRleDictionary) {
      return DecodeDictionaryIndices(data, n, dst);
    }
    if (is_bool_) return DecodeBooleans(encoding, data, n, dst);
    if (column_.physical_type == Type::kByteArray) return DecodeByteArrays(encoding, data, n, dst);
    // Fixed-width physical values: decode into place, or into scratch and convert.
    uint8_t* raw;
    if (conversion_ == Conversion::kNone) {
      raw = dst->values.AppendUninitialized(n * physical_width_);
    } else {
      scratch_.Resize(n * physical_width_);
      raw = scratch_.data();
    }
    switch (encoding) {
      case Encoding::kPlain: {
        PlainFixedDecoder d;
        FLOE_RETURN_IF_ERROR(d.Reset(data, physical_width_));
        FLOE_RETURN_IF_ERROR(d.Decode(raw, n));
        break;
      }
      case Encoding::kDeltaBinaryPacked:
        if (column_.physical_type == Type::kInt32) {
          DeltaBinaryPackedDecoder<int32_t> d;
          FLOE_RETURN_IF_ERROR(d.Reset(data));
          FLOE_RETURN_IF_ERROR(d.Decode(reinterpret_cast<int32_t*>(raw), n));
        } else if (column_.physical_type == Type::kInt64) {
          DeltaBinaryPackedDecoder<int64_t> d;
          FLOE_RETURN_IF_ERROR(d.Reset(data));
          FLOE_RETURN_IF_ERROR(d.Decode(reinterpret_cast<int64_t*>(raw), n));
        } else {
          return Unsupported(encoding);
        }
        break;
      case Encoding::kDeltaByteArray: {
        if (column_.physical_type != Type::kFixedLenByteArray) return Unsupported(encoding);
        FLOE_RETURN_IF_ERROR(delta_byte_array_.Reset(data, delta_pages_));
        FLOE_RETURN_IF_ERROR(delta_byte_array_.DecodeFixed(n, physical_width_, raw));
        break;
      }
      case Encoding::kByteStreamSplit:
        if (column_.physical_type == Type::kInt96) return Unsupported(encoding);
        {
          ByteStreamSplitDecoder d;
          FLOE_RETURN_IF_ERROR(d.Reset(data, physical_width_));
          FLOE_RETURN_IF_ERROR(d.Decode(raw, n));
          break;
        }
      default: return Unsupported(encoding);
    }
    dst->num_values += count;
    if (conversion_ != Conversion::kNone) return Convert(raw, n, dst);
    return Status::OK();
  }

  Status Unsupported(Encoding e) const {
    return Status::Unimplemented("encoding {} is not supported for {} column '{}'", EnumToString(e),
                                 EnumToString(column_.physical_type), column_.PathString());
  }

  Status DecodeBooleans(Encoding encoding, std::span<const uint8_t> data, size_t n, LeafData* dst) {
    const int64_t first = dst->num_values;
    dst->values.ResizeZeroed(
        static_cast<size_t>(col::BytesForBits(first + static_cast<int64_t>(n))));
    if (encoding == Encoding::kPlain) {
      PlainBooleanDecoder d;
      d.Reset(data);
      FLOE_RETURN_IF_ERROR(d.DecodeBits(dst->values.data(), first, n));
    } else if (encoding == Encoding::kRle) {
      FLOE_ASSIGN_OR_RETURN(RleBitPackedDecoder d, MakeRleBooleanDecoder(data));
      scratch_.Resize(n);
      FLOE_ASSIGN_OR_RETURN(size_t got, d.GetBatch(scratch_.data(), n));
      if (got != n) return Status::Corrupt("RLE booleans hold {} values, expected {}", got, n);
      for (size_t i = 0; i < n; ++i) {
        if (scratch_.data()[i]) col::SetBit(dst->values.data(), first + static_cast<int64_t>(i));
      }
    } else {
      return Unsupported(encoding);
    }
    dst->num_values += static_cast<int64_t>(n);
    return Status::OK();
  }

  Status DecodeByteArrays(Encoding encoding, std::span<const uint8_t> data, size_t n,
                          LeafData* dst) {
    Buffer* offsets = &dst->offsets;
    Buffer* bytes = &dst->values;
    if (conversion_ == Conversion::kBytesDecimal) {
      scratch_offsets_.Clear();
      scratch_offsets_.AppendValue<int64_t>(0);
      scratch_.Clear();
      offsets = &scratch_offsets_;
      bytes = &scratch_;
    }
    auto* ends = reinterpret_cast<int64_t*>(offsets->AppendUninitialized(n * sizeof(int64_t)));
    switch (encoding) {
      case Encoding::kPlain: {
        PlainByteArrayDecoder d;
        d.Reset(data);
        FLOE_RETURN_IF_ERROR(d.Decode(n, ends, bytes));
        break;
      }
      case Encoding::kDeltaLengthByteArray: {
        DeltaLengthByteArrayDecoder d;
        FLOE_RETURN_IF_ERROR(d.Reset(data));
        FLOE_RETURN_IF_ERROR(d.Decode(n, ends, bytes));
        break;
      }
      case Encoding::kDeltaByteArray: {
        // Shared prefixes let a small page expand a lot: size the output from the two
        // length streams and charge it before decoding.
        FLOE_ASSIGN_OR_RETURN(int64_t total, DeltaByteArrayOutputBytes(data, n));
        FLOE_RETURN_IF_ERROR(Charge(total));
        FLOE_RETURN_IF_ERROR(delta_byte_array_.Reset(data, delta_pages_));
        FLOE_RETURN_IF_ERROR(delta_byte_array_.Decode(n, ends, bytes));
        break;
      }
      default: return Unsupported(encoding);
    }
    dst->num_values += static_cast<int64_t>(n);
    if (conversion_ == Conversion::kBytesDecimal) {
      const auto* o = scratch_offsets_.data_as<int64_t>();
      auto* out = reinterpret_cast<__int128*>(dst->values.AppendUninitialized(n * 16));
      for (size_t i = 0; i < n; ++i) {
        const int64_t len = o[i + 1] - o[i];
        if (len > 16) {
          return Status::Corrupt("decimal value of {} bytes does not fit 128 bits", len);
        }
        out[i] = BigEndianToInt128(scratch_.data() + o[i], static_cast<size_t>(len));
      }
    }
    return Status::OK();
  }

  Status DecodeDictionaryIndices(std::span<const uint8_t> data, size_t n, LeafData* dst) {
    if (!has_dictionary_) return Status::Corrupt("dictionary-encoded page without a dictionary");
    DictionaryIndexDecoder d;
    FLOE_RETURN_IF_ERROR(d.Reset(data, static_cast<uint32_t>(dictionary_.num_values)));
    if (is_bool_) {
      const int64_t first = dst->num_values;
      dst->values.ResizeZeroed(
          static_cast<size_t>(col::BytesForBits(first + static_cast<int64_t>(n))));
      index_scratch_.resize(n);
      FLOE_ASSIGN_OR_RETURN(size_t got, d.DecodeIndices(index_scratch_.data(), n));
      if (got != n) return Status::Corrupt("page holds {} indices, expected {}", got, n);
      for (size_t i = 0; i < n; ++i) {
        if (dict_bools_.data()[index_scratch_[i]]) {
          col::SetBit(dst->values.data(), first + static_cast<int64_t>(i));
        }
      }
    } else if (is_binary_) {
      // Gather through the indices, charging the bytes first: a few index bytes can
      // repeat a long dictionary value many times.
      index_scratch_.resize(n);
      FLOE_ASSIGN_OR_RETURN(size_t got, d.DecodeIndices(index_scratch_.data(), n));
      if (got != n) return Status::Corrupt("page holds {} indices, expected {}", got, n);
      const auto* dict_offsets = dictionary_.offsets.data_as<int64_t>();
      int64_t bytes = 0;
      for (uint32_t idx : index_scratch_) bytes += dict_offsets[idx + 1] - dict_offsets[idx];
      FLOE_RETURN_IF_ERROR(Charge(bytes));
      auto* ends =
          reinterpret_cast<int64_t*>(dst->offsets.AppendUninitialized(n * sizeof(int64_t)));
      uint8_t* data = dst->values.AppendUninitialized(static_cast<size_t>(bytes));
      const uint8_t* dict_data = dictionary_.values.data();
      int64_t end = static_cast<int64_t>(dst->values.size()) - bytes;
      for (size_t i = 0; i < n; ++i) {
        const int64_t begin = dict_offsets[index_scratch_[i]];
        const int64_t len = dict_offsets[index_scratch_[i] + 1] - begin;
        if (len > 0) std::memcpy(data, dict_data + begin, static_cast<size_t>(len));
        data += len;
        end += len;
        ends[i] = end;
      }
    } else {
      uint8_t* out = dst->values.AppendUninitialized(n * columnar_width_);
      switch (columnar_width_) {
        case 4:
          FLOE_RETURN_IF_ERROR(d.Decode(dictionary_.values.data_as<uint32_t>(),
                                        reinterpret_cast<uint32_t*>(out), n));
          break;
        case 8:
          FLOE_RETURN_IF_ERROR(d.Decode(dictionary_.values.data_as<uint64_t>(),
                                        reinterpret_cast<uint64_t*>(out), n));
          break;
        default:
          FLOE_RETURN_IF_ERROR(d.DecodeFixed(dictionary_.values.data(), columnar_width_, out, n));
      }
    }
    dst->num_values += static_cast<int64_t>(n);
    return Status::OK();
  }

  // Converts n physical values at `raw` and appends them to dst->values.
  Status Convert(const uint8_t* raw, size_t n, LeafData* dst) {
    uint8_t* out = dst->values.AppendUninitialized(n * columnar_width_);
    switch (conversion_) {
      case Conversion::kNarrow8:
        for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(LoadLE<int32_t>(raw + 4 * i));
        break;
      case Conversion::kNarrow16:
        for (size_t i = 0; i < n; ++i) {
          StoreLE<uint16_t>(out + 2 * i, static_cast<uint16_t>(LoadLE<int32_t>(raw + 4 * i)));
        }
        break;
      case Conversion::kInt32Decimal:
        for (size_t i = 0; i < n; ++i) {
          StoreLE<__int128>(out + 16 * i, LoadLE<int32_t>(raw + 4 * i));
        }
        break;
      case Conversion::kInt64Decimal:
        for (size_t i = 0; i < n; ++i) {
          StoreLE<__int128>(out + 16 * i, LoadLE<int64_t>(raw + 8 * i));
        }
        break;
      case Conversion::kInt96Nanos:
        for (size_t i = 0; i < n; ++i) {
          // bytes 0-7: nanoseconds within the day; 8-11: Julian day (epoch = 2440588).
          const auto nanos = LoadLE<uint64_t>(raw + 12 * i);
          const auto day = static_cast<int64_t>(LoadLE<int32_t>(raw + 12 * i + 8));
          const uint64_t v = static_cast<uint64_t>(day - 2440588) * 86400000000000ull + nanos;
          StoreLE<int64_t>(out + 8 * i, static_cast<int64_t>(v));
        }
        break;
      case Conversion::kFixedDecimal:
        for (size_t i = 0; i < n; ++i) {
          StoreLE<__int128>(out + 16 * i,
                            BigEndianToInt128(raw + physical_width_ * i, physical_width_));
        }
        break;
      case Conversion::kNone:
      case Conversion::kBytesDecimal: break;
    }
    return Status::OK();
  }

  const ColumnDescriptor& column_;
  const ColumnReadOptions options_;
  std::unique_ptr<ChunkStream> stream_;
  const int64_t expected_values_;
  std::unique_ptr<Codec> codec_;
  LeafData pending_;  // decoded and not handed out yet
  int64_t seen_ = 0;  // level entries decoded from data pages
  int page_ = 0;
  int64_t scan_pos_ = 0;  // CompleteRecords' progress over pending_
  int64_t starts_ = 0;
  int64_t max_page_entries_ = 0;  // the largest data page so far
  // Handed out so far: sizes the next batch's buffers.
  int64_t records_out_ = 0;
  int64_t entries_out_ = 0;
  int64_t values_out_ = 0;
  int64_t bytes_out_ = 0;
  const Conversion conversion_;
  const size_t physical_width_;
  const size_t columnar_width_;
  const bool is_null_type_;
  const bool is_binary_;
  const bool is_bool_;
  Buffer page_buffer_;
  Buffer scratch_;
  Buffer scratch_offsets_;
  std::vector<uint32_t> index_scratch_;
  int64_t decoded_bytes_ = 0;
  // Kept across pages: parquet-mr < 1.8.0 carried DELTA_BYTE_ARRAY's previous value from
  // one page to the next (PARQUET-246).
  DeltaByteArrayDecoder delta_byte_array_;
  const WriterVersion writer_ = WriterVersion::Parse(options_.created_by);
  const DeltaByteArrayPages delta_pages_ = writer_.IsBefore("parquet-mr", 1, 8, 0)
                                               ? DeltaByteArrayPages::kCarryOver
                                               : DeltaByteArrayPages::kIndependent;
  bool has_dictionary_ = false;
  LeafData dictionary_;
  Buffer dict_bools_;
  int data_pages_ = 0;
};

Result<io::ByteRange> ColumnChunkRange(const ColumnChunk& chunk, uint64_t data_end) {
  if (!chunk.meta_data) return Status::Corrupt("column chunk without metadata");
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.num_values < 0 || md.total_compressed_size < 0 || md.data_page_offset < 0) {
    return Status::Corrupt("negative sizes or offsets in the chunk metadata");
  }
  // An empty chunk (pyarrow writes one per column for an empty table, with offsets that
  // point nowhere) has nothing to read.
  if (md.num_values == 0) return io::ByteRange{};
  // Start at the dictionary page when there is one; the data page offset is unreliable
  // in several writers (parquet.md §1).
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset >= 4 &&
      *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  const auto end = static_cast<int64_t>(data_end);
  if (start < 4 || start > end || md.total_compressed_size > end - start) {
    return Status::Corrupt("chunk range [{}, +{}) lies outside the file's data", start,
                           md.total_compressed_size);
  }
  // parquet-mr <= 1.2.8 left the dictionary page header out of total_compressed_size:
  // read a little more when the file has it (PARQUET-816).
  const int64_t length =
      md.total_compressed_size + std::min<int64_t>(100, end - start - md.total_compressed_size);
  return io::ByteRange{static_cast<uint64_t>(start), static_cast<uint64_t>(length)};
}

ColumnChunkReader::ColumnChunkReader(const ColumnDescriptor& column) : column_(column) {}
ColumnChunkReader::~ColumnChunkReader() = default;

Result<std::unique_ptr<ColumnChunkReader>> ColumnChunkReader::Make(
    const io::InputFile& file, const ColumnDescriptor& column, const ColumnChunk& chunk,
    const ColumnReadOptions& options) {
  auto fail = [&](Status s) { return s.WithContext("column '{}'", column.PathString()); };
  if (chunk.crypto_metadata || chunk.encrypted_column_metadata) {
    return fail(Status::Unimplemented("the column is encrypted (Parquet modular encryption)"));
  }
  if (chunk.file_path) {
    return fail(
        Status::Unimplemented("the column chunk lives in another file ('{}')", *chunk.file_path));
  }
  if (!chunk.meta_data) return fail(Status::Corrupt("column chunk without metadata"));
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != column.physical_type) {
    return fail(Status::Corrupt("chunk type {} differs from the schema's {}", EnumToString(md.type),
                                EnumToString(column.physical_type)));
  }
  auto range = ColumnChunkRange(chunk, options.data_end);
  if (!range.ok()) return fail(std::move(range).status());
  auto kind = CompressionFor(md.codec);
  if (!kind.ok()) return fail(std::move(kind).status());
  auto codec = Codec::Make(*kind);
  if (!codec.ok()) return fail(std::move(codec).status());
  std::unique_ptr<ColumnChunkReader> reader(new ColumnChunkReader(column));
  auto stream =
      std::make_unique<ChunkStream>(file, range->offset, range->length, options.window_bytes);
  reader->decoder_ = std::make_unique<ChunkDecoder>(column, options, std::move(stream),
                                                    md.num_values, std::move(*codec));
  return reader;
}

Result<int64_t> ColumnChunkReader::ReadRecords(int64_t records, LeafData* out) {
  *out = LeafData();
  auto r = decoder_->ReadRecords(records, out);
  if (!r.ok()) return std::move(r).status().WithContext("column '{}'", column_.PathString());
  return r;
}

bool ColumnChunkReader::AtEnd() const { return decoder_->AtEnd(); }

}  // namespace floe::format::parquet

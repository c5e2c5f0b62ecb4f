// ColumnWriter: encodes one leaf column into pages and column chunks (internal to
// FileWriter). Values arrive as ShreddedLeaf slices of whole records; pages are cut at
// record boundaries by size and row count; the dictionary (per row group) is kept until
// the chunk is flushed, since its page must come first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/assembly.h"
#include "floe/format/parquet/encoding/bloom_filter.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema.h"
#include "floe/format/parquet/statistics.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet {

class ColumnWriter {
 public:
  // `codec` is shared by the file's columns (the writer is single-threaded).
  ColumnWriter(const ColumnDescriptor& column, const WriterOptions& options, Codec* codec);
  ~ColumnWriter();

  // Appends the entries of one slice.
  Status Write(const ShreddedLeaf& leaf);

  // Bytes held for the current row group: encoded pages, the open page and the dictionary.
  int64_t buffered_bytes() const;

  // Writes the current chunk (dictionary page, then data pages) at out's position, fills
  // `chunk`, and starts a new chunk for the next row group.
  Status Flush(io::OutputStream* out, ColumnChunk* chunk);

  // Bloom filters of the flushed chunks (one per row group, nullopt when disabled).
  std::vector<std::optional<BloomFilter>>& bloom_filters() { return bloom_filters_; }
  const ColumnMetrics& metrics() const { return metrics_; }

 private:
  class Dictionary;

  Status GatherValues(const ShreddedLeaf& leaf);
  Status AddEntries(const ShreddedLeaf& leaf, int64_t entry_begin, int64_t entry_end,
                    size_t value_begin, size_t value_end);
  Status AddValuesDictionary(size_t begin, size_t end);
  void AddValuesPlain(size_t begin, size_t end);
  void UpdateStatistics(size_t begin, size_t end);
  void CollectBloomHashes(size_t begin, size_t end);
  Status FlushPage();
  // parquet-java's rule: if the first page of a chunk is no smaller dictionary-encoded
  // (dictionary included) than PLAIN, write it and the rest of the chunk PLAIN.
  void MaybeAbandonDictionary();
  // An encoded page: its Thrift header and its on-disk body, kept as the pieces they were
  // built from (uncompressed levels, then values, compressed or not) so no page is copied
  // to join them.
  struct EncodedPage {
    Buffer header;
    Buffer levels;
    Buffer body;
    size_t size() const { return header.size() + levels.size() + body.size(); }
  };
  // Builds a page: `levels` are stored uncompressed (v2 level sections); `values` are
  // compressed with the chunk codec unless `compress` is false. Takes `levels`, and takes
  // `values` only when it stores them uncompressed (else the caller keeps the buffer).
  Result<EncodedPage> MakePage(PageType type, Buffer levels, Buffer& values, bool compress,
                               PageHeader header);
  void FinishStatistics(ColumnMetaData* meta);

  const ColumnDescriptor& column_;
  const WriterOptions& options_;
  Codec* codec_;
  const size_t width_;  // bytes per physical value (0 for BOOLEAN and BYTE_ARRAY)
  const bool is_binary_;
  const bool is_bool_;
  const bool is_float_;   // FLOAT / DOUBLE: count NaNs
  const bool has_stats_;  // the column has a defined sort order
  const SortOrder sort_order_;
  const bool is_decimal_;
  const bool is_float16_;

  // Values of the slice being written, in physical form.
  Buffer fixed_;                           // width_ bytes per value
  const uint8_t* fixed_values_ = nullptr;  // fixed_ or the array's own buffer
  std::vector<std::string_view> binary_;
  Buffer converted_bytes_;  // storage behind binary_ for converted values (decimals)
  std::vector<uint8_t> bools_;

  // The open page.
  Buffer page_def_;
  Buffer page_rep_;
  int64_t page_entries_ = 0;
  int64_t page_rows_ = 0;
  int64_t page_nulls_ = 0;
  std::vector<uint32_t> page_indices_;  // dictionary mode
  int64_t page_plain_bytes_ = 0;        // dictionary mode: the page's size were it PLAIN
  Buffer page_values_;                  // plain mode: encoded values
  bool page_is_dictionary_ = true;

  // The chunk of the current row group.
  std::unique_ptr<Dictionary> dictionary_;
  bool fallen_back_ = false;
  std::vector<EncodedPage> chunk_pages_;  // encoded data pages
  int64_t chunk_page_bytes_ = 0;
  int64_t chunk_entries_ = 0;
  int64_t chunk_uncompressed_ = 0;
  int64_t chunk_nulls_ = 0;
  int64_t chunk_nans_ = 0;
  int32_t dictionary_pages_ = 0;
  int32_t plain_pages_ = 0;
  std::optional<std::string> chunk_min_;
  std::optional<std::string> chunk_max_;
  std::vector<uint64_t> bloom_hashes_;

  std::vector<std::optional<BloomFilter>> bloom_filters_;
  ColumnMetrics metrics_;
  bool max_unbounded_ = false;  // some chunk had no upper bound: the file has none
};

}  // namespace floe::format::parquet

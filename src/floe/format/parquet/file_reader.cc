#include "floe/format/parquet/file_reader.h"

#include <cstring>
#include <new>

#include "floe/base/macros.h"
#include "floe/format/parquet/column_reader.h"

namespace floe::format::parquet {

namespace col = floe::columnar;

Status FileReader::WithFile(Status s) const {
  if (s.ok()) return s;
  return s.WithContext("{}", file_->location());
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::unique_ptr<io::InputFile> file,
                                                     ReaderOptions options) {
  std::unique_ptr<FileReader> r(new FileReader(std::move(file), options));
  try {
    FLOE_RETURN_IF_ERROR(r->WithFile(r->ReadFooter()));
  } catch (const std::bad_alloc&) {
    return r->WithFile(Status::Corrupt("out of memory while reading the footer"));
  }
  return r;
}

Status FileReader::ReadFooter() {
  const uint64_t size = file_->size();
  if (size < 12) return Status::Corrupt("not a Parquet file: {} bytes is too small", size);
  // Read the tail speculatively: most footers fit in 64 KiB, saving a second read. It is
  // kept: the column chunks of a small file (most files of a streaming table) are in it,
  // and on an object store the whole file then costs one request.
  const uint64_t tail_size = std::min<uint64_t>(size, 64 * 1024);
  FLOE_ASSIGN_OR_RETURN(tail_, file_->Read(size - tail_size, tail_size));
  tail_offset_ = size - tail_size;
  const Buffer& tail = tail_;
  uint8_t head[4];
  if (tail_offset_ == 0) {
    std::memcpy(head, tail.data(), 4);
  } else {
    FLOE_RETURN_IF_ERROR(file_->ReadAt(0, 4, head));
  }
  const uint8_t* end = tail.data() + tail.size();
  if (std::memcmp(end - 4, "PARE", 4) == 0) {
    return Status::Unimplemented("the footer is encrypted (Parquet modular encryption)");
  }
  if (std::memcmp(end - 4, "PAR1", 4) != 0) {
    return Status::Corrupt("not a Parquet file: no PAR1 magic at the end");
  }
  if (std::memcmp(head, "PAR1", 4) != 0) {
    return Status::Corrupt("not a Parquet file: no PAR1 magic at the start");
  }
  const uint64_t footer_len = LoadLE<uint32_t>(end - 8);
  if (footer_len > size - 12) {
    return Status::Corrupt("footer length {} exceeds the file size {}", footer_len, size);
  }
  if (footer_len > options_.max_footer_bytes) {
    return Status::Corrupt("footer length {} exceeds the limit of {} bytes", footer_len,
                           options_.max_footer_bytes);
  }
  data_end_ = size - 8 - footer_len;
  std::span<const uint8_t> footer;
  Buffer footer_buf;
  if (footer_len + 8 <= tail_size) {
    footer = std::span<const uint8_t>(end - 8 - footer_len, footer_len);
  } else {
    FLOE_ASSIGN_OR_RETURN(footer_buf, file_->Read(data_end_, footer_len));
    footer = footer_buf.span();
  }
  Status s = Deserialize(footer, &metadata_);
  if (!s.ok()) return s.WithContext("footer");
  if (metadata_.encryption_algorithm) {
    return Status::Unimplemented("the file is encrypted (Parquet modular encryption)");
  }
  FLOE_ASSIGN_OR_RETURN(schema_, SchemaDescriptor::Make(metadata_.schema));
  if (metadata_.num_rows < 0) return Status::Corrupt("negative row count");
  int64_t rows = 0;
  for (size_t i = 0; i < metadata_.row_groups.size(); ++i) {
    const RowGroup& rg = metadata_.row_groups[i];
    if (rg.columns.size() != static_cast<size_t>(schema_->num_leaves())) {
      return Status::Corrupt("row group {} has {} column chunks, the schema has {} columns", i,
                             rg.columns.size(), schema_->num_leaves());
    }
    if (rg.num_rows < 0) return Status::Corrupt("row group {} has a negative row count", i);
    rows += rg.num_rows;
  }
  if (rows != metadata_.num_rows) {
    return Status::Corrupt("row groups hold {} rows, the footer says {}", rows, metadata_.num_rows);
  }
  if (metadata_.key_value_metadata) {
    for (const auto& kv : *metadata_.key_value_metadata) {
      key_values_.emplace_back(kv.key, kv.value.value_or(""));
    }
  }
  return Status::OK();
}

ColumnReadOptions FileReader::ColumnOptions() const {
  ColumnReadOptions copts;
  copts.verify_crc = options_.verify_crc;
  copts.created_by = metadata_.created_by.value_or("");
  copts.data_end = data_end_;
  copts.max_page_bytes = options_.max_page_bytes;
  copts.max_decoded_bytes = options_.max_decoded_bytes;
  return copts;
}

Result<col::RecordBatch> FileReader::ReadRowGroup(
    int index, const SchemaDescriptor::Projection& projection) const {
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument("{}: row group {} out of range (0..{})", file_->location(),
                                   index, num_row_groups() - 1);
  }
  const int64_t rows = metadata_.row_groups[static_cast<size_t>(index)].num_rows;
  FLOE_ASSIGN_OR_RETURN(auto batches, ReadBatches(projection, std::max<int64_t>(rows, 1), {index}));
  FLOE_ASSIGN_OR_RETURN(auto batch, batches->Next());
  if (!batch) {
    // An empty row group: an empty batch of the projection's schema.
    std::vector<col::Array> columns;
    for (const auto& f : projection.schema->fields())
      columns.push_back(col::Array::Nulls(f.type, 0));
    return col::RecordBatch(std::make_shared<col::Schema>(projection.schema->fields(), key_values_),
                            0, std::move(columns));
  }
  return std::move(*batch);
}

Result<std::unique_ptr<BatchReader>> FileReader::ReadBatches(
    SchemaDescriptor::Projection projection, int64_t batch_rows,
    std::vector<int> row_groups) const {
  if (batch_rows <= 0) return Status::InvalidArgument("batch size must be positive");
  if (row_groups.empty()) {
    for (int i = 0; i < num_row_groups(); ++i) row_groups.push_back(i);
  }
  for (int rg : row_groups) {
    if (rg < 0 || rg >= num_row_groups()) {
      return Status::InvalidArgument("{}: row group {} out of range (0..{})", file_->location(), rg,
                                     num_row_groups() - 1);
    }
  }
  return std::unique_ptr<BatchReader>(
      new BatchReader(*this, std::move(projection), batch_rows, std::move(row_groups)));
}

BatchReader::BatchReader(const FileReader& reader, SchemaDescriptor::Projection projection,
                         int64_t batch_rows, std::vector<int> row_groups)
    : reader_(reader),
      projection_(std::move(projection)),
      schema_(std::make_shared<col::Schema>(projection_.schema->fields(), reader.key_values_)),
      batch_rows_(batch_rows),
      row_groups_(std::move(row_groups)) {}

BatchReader::~BatchReader() = default;

Status BatchReader::OpenRowGroup(int index) {
  const RowGroup& rg = reader_.metadata_.row_groups[static_cast<size_t>(index)];
  const ColumnReadOptions copts = reader_.ColumnOptions();
  columns_.clear();
  columns_.resize(static_cast<size_t>(reader_.schema_->num_leaves()));
  // The projected chunks a reader reads whole, in one read (no larger than its window), are
  // fetched together where they are near (io/coalesced_input.h): on an object store a
  // projection of many narrow columns costs a few requests, not one per column. Chunks in
  // the tail read at open cost none. Larger chunks stream through their windows.
  std::vector<io::ByteRange> ranges;
  const std::span<const uint8_t> tail = reader_.tail_.span();
  for (int leaf : projection_.leaves) {
    auto range = ColumnChunkRange(rg.columns[static_cast<size_t>(leaf)], copts.data_end);
    if (!range.ok() || range->length > copts.window_bytes) continue;  // Make reports it
    if (range->offset >= reader_.tail_offset_) continue;
    ranges.push_back(*range);
  }
  file_ = std::make_unique<io::CoalescedInputFile>(
      *reader_.file_, std::move(ranges), io::CoalesceOptions(), tail, reader_.tail_offset_);
  // The column readers read their chunks one after another; on an object store the
  // ranges are fetched together first (the same requests, about one round trip).
  if (Status s = file_->Prefetch(); !s.ok()) return s.WithContext("row group {}", index);
  for (int leaf : projection_.leaves) {
    auto r = ColumnChunkReader::Make(*file_, reader_.schema_->leaf(leaf),
                                     rg.columns[static_cast<size_t>(leaf)], copts);
    if (!r.ok()) return std::move(r).status().WithContext("row group {}", index);
    columns_[static_cast<size_t>(leaf)] = std::move(*r);
  }
  current_ = index;
  rows_left_ = rg.num_rows;
  return Status::OK();
}

Result<std::optional<col::RecordBatch>> BatchReader::Next() {
  // Sizes in a file are checked against limits before use; an allocation that still
  // fails (a process memory limit) is reported, not fatal.
  try {
    auto r = NextImpl();
    if (!r.ok()) return reader_.WithFile(std::move(r).status());
    return r;
  } catch (const std::bad_alloc&) {
    return reader_.WithFile(Status::Corrupt(
        "row group {}: out of memory while decoding (the file's sizes are implausible or "
        "exceed this process's memory limit)",
        current_));
  }
}

Result<std::optional<col::RecordBatch>> BatchReader::NextImpl() {
  while (rows_left_ == 0) {
    if (current_ >= 0) {
      // The row group is done: every column must have ended with it.
      for (int leaf : projection_.leaves) {
        if (!columns_[static_cast<size_t>(leaf)]->AtEnd()) {
          return Status::Corrupt("row group {}: column '{}' holds more rows than the row group",
                                 current_, reader_.schema_->leaf(leaf).PathString());
        }
      }
      current_ = -1;
      columns_.clear();
      file_.reset();
    }
    if (next_row_group_ >= row_groups_.size()) return std::nullopt;
    FLOE_RETURN_IF_ERROR(OpenRowGroup(row_groups_[next_row_group_++]));
  }
  const int64_t rows = std::min(batch_rows_, rows_left_);
  std::vector<LeafData> leaves(static_cast<size_t>(reader_.schema_->num_leaves()));
  for (int leaf : projection_.leaves) {
    const ColumnDescriptor& c = reader_.schema_->leaf(leaf);
    LeafData& data = leaves[static_cast<size_t>(leaf)];
    auto got = columns_[static_cast<size_t>(leaf)]->ReadRecords(rows, &data);
    if (!got.ok()) return std::move(got).status().WithContext("row group {}", current_);
    if (*got != rows) {
      return Status::Corrupt("row group {}: column '{}' holds fewer rows than the row group",
                             current_, c.PathString());
    }
    if (c.max_rep > 0 && data.num_entries > 0 && data.reps()[0] != 0) {
      return Status::Corrupt("row group {}: column '{}' starts inside a record", current_,
                             c.PathString());
    }
  }
  std::vector<col::Array> columns;
  columns.reserve(projection_.fields.size());
  for (const auto& node : projection_.fields) {
    auto a = AssembleArray(node, leaves);
    if (!a.ok()) return std::move(a).status().WithContext("row group {}", current_);
    if (a->length() != rows) {
      return Status::Corrupt("row group {}: a column assembles to {} rows, expected {}", current_,
                             a->length(), rows);
    }
    columns.push_back(std::move(*a));
  }
  rows_left_ -= rows;
  return std::optional<col::RecordBatch>(col::RecordBatch(schema_, rows, std::move(columns)));
}

Result<bool> FileReader::RowGroupMayMatch(int row_group,
                                          std::span<const ColumnPredicate> conjuncts) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::InvalidArgument("row group {} out of range", row_group);
  }
  const RowGroup& rg = metadata_.row_groups[static_cast<size_t>(row_group)];
  for (const ColumnPredicate& p : conjuncts) {
    if (p.leaf < 0 || p.leaf >= schema_->num_leaves()) {
      return Status::InvalidArgument("predicate on column {} out of range", p.leaf);
    }
    const ColumnDescriptor& c = schema_->leaf(p.leaf);
    const ColumnChunk& chunk = rg.columns[static_cast<size_t>(p.leaf)];
    if (!chunk.meta_data) continue;
    if (!ChunkMayMatch(c, TrustedStatistics(c, *chunk.meta_data, metadata_), p)) return false;
    if (p.op == ColumnPredicate::Op::kEq && ValidStatValue(c, p.value) &&
        c.physical_type != Type::kBoolean) {
      FLOE_ASSIGN_OR_RETURN(auto filter, ReadBloomFilter(row_group, p.leaf));
      if (filter && !filter->Check(BloomHash(std::string_view(p.value)))) return false;
    }
  }
  return true;
}

Result<std::optional<BloomFilter>> FileReader::ReadBloomFilter(int row_group, int leaf) const {
  if (row_group < 0 || row_group >= num_row_groups() || leaf < 0 || leaf >= schema_->num_leaves()) {
    return Status::InvalidArgument("bloom filter of row group {} column {} out of range", row_group,
                                   leaf);
  }
  const ColumnChunk& chunk =
      metadata_.row_groups[static_cast<size_t>(row_group)].columns[static_cast<size_t>(leaf)];
  if (!chunk.meta_data || !chunk.meta_data->bloom_filter_offset) return std::nullopt;
  const int64_t offset = *chunk.meta_data->bloom_filter_offset;
  if (offset < 4 || static_cast<uint64_t>(offset) >= data_end_) {
    return WithFile(Status::Corrupt("bloom filter offset {} outside the file's data", offset));
  }
  // With a length, one read; without (older writers), read the header first.
  uint64_t avail = data_end_ - static_cast<uint64_t>(offset);
  uint64_t length = chunk.meta_data->bloom_filter_length
                        ? static_cast<uint64_t>(std::max(0, *chunk.meta_data->bloom_filter_length))
                        : std::min<uint64_t>(avail, 64);
  if (length > avail) return WithFile(Status::Corrupt("bloom filter runs past the file's data"));
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, file_->Read(static_cast<uint64_t>(offset), length));
  BloomFilterHeader header;
  size_t header_size = 0;
  Status s = Deserialize(bytes.span(), &header, &header_size);
  if (!s.ok()) return WithFile(s.WithContext("bloom filter header"));
  if (header.algorithm != BloomFilterAlgorithm::kBlock || header.hash != BloomFilterHash::kXxHash ||
      header.compression != BloomFilterCompression::kUncompressed) {
    return std::nullopt;  // a filter kind floe does not know: it cannot be used
  }
  if (header.num_bytes < 0 || static_cast<uint64_t>(header.num_bytes) > avail - header_size) {
    return WithFile(
        Status::Corrupt("bloom filter of {} bytes runs past the file's data", header.num_bytes));
  }
  std::span<const uint8_t> bitset;
  Buffer more;
  if (header_size + static_cast<size_t>(header.num_bytes) <= bytes.size()) {
    bitset = bytes.span().subspan(header_size, static_cast<size_t>(header.num_bytes));
  } else {
    FLOE_ASSIGN_OR_RETURN(more, file_->Read(static_cast<uint64_t>(offset) + header_size,
                                            static_cast<size_t>(header.num_bytes)));
    bitset = more.span();
  }
  auto filter = BloomFilter::FromBitset(bitset);
  if (!filter.ok()) return WithFile(std::move(filter).status());
  return std::optional<BloomFilter>(std::move(*filter));
}

}  // namespace floe::format::parquet

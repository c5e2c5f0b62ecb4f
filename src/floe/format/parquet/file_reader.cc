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
  uint8_t head[4];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(0, 4, head));
  // Read the tail speculatively: most footers fit in 64 KiB, saving a second read.
  const uint64_t tail_size = std::min<uint64_t>(size, 64 * 1024);
  FLOE_ASSIGN_OR_RETURN(Buffer tail, file_->Read(size - tail_size, tail_size));
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
    return Status::Corrupt("row groups hold {} rows, the footer says {}", rows,
                           metadata_.num_rows);
  }
  if (metadata_.key_value_metadata) {
    for (const auto& kv : *metadata_.key_value_metadata) {
      key_values_.emplace_back(kv.key, kv.value.value_or(""));
    }
  }
  return Status::OK();
}

namespace {

// Records in a leaf: entries starting a record (rep == 0).
int64_t CountRecords(const LeafData& leaf) {
  if (leaf.rep_levels.empty()) return leaf.num_entries;
  const int16_t* r = leaf.reps();
  int64_t n = 0;
  for (int64_t i = 0; i < leaf.num_entries; ++i) n += r[i] == 0;
  return n;
}

}  // namespace

Result<col::RecordBatch> FileReader::ReadRowGroup(
    int index, const SchemaDescriptor::Projection& projection) const {
  // Sizes in a file are checked against limits before use; an allocation that still
  // fails (a process memory limit) is reported, not fatal.
  try {
    return ReadRowGroupImpl(index, projection);
  } catch (const std::bad_alloc&) {
    return WithFile(Status::Corrupt(
        "row group {}: out of memory while decoding (the file's sizes are implausible or "
        "exceed this process's memory limit)", index));
  }
}

Result<col::RecordBatch> FileReader::ReadRowGroupImpl(
    int index, const SchemaDescriptor::Projection& projection) const {
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument("{}: row group {} out of range (0..{})", file_->location(),
                                   index, num_row_groups() - 1);
  }
  const RowGroup& rg = metadata_.row_groups[static_cast<size_t>(index)];
  ColumnReadOptions copts;
  copts.verify_crc = options_.verify_crc;
  copts.created_by = metadata_.created_by.value_or("");
  copts.data_end = data_end_;
  copts.max_page_bytes = options_.max_page_bytes;
  copts.max_decoded_bytes = options_.max_decoded_bytes;
  std::vector<LeafData> leaves(static_cast<size_t>(schema_->num_leaves()));
  for (int leaf : projection.leaves) {
    const ColumnDescriptor& c = schema_->leaf(leaf);
    LeafData& data = leaves[static_cast<size_t>(leaf)];
    Status s = ReadColumnChunk(*file_, c, rg.columns[static_cast<size_t>(leaf)], copts, &data);
    if (!s.ok()) return WithFile(s.WithContext("row group {}", index));
    if (CountRecords(data) != rg.num_rows) {
      return WithFile(Status::Corrupt("row group {}: column '{}' holds {} rows, expected {}",
                                      index, c.PathString(), CountRecords(data), rg.num_rows));
    }
    if (c.max_rep > 0 && data.num_entries > 0 && data.reps()[0] != 0) {
      return WithFile(Status::Corrupt("row group {}: column '{}' starts inside a record",
                                      index, c.PathString()));
    }
  }
  std::vector<col::Array> columns;
  columns.reserve(projection.fields.size());
  for (const auto& node : projection.fields) {
    auto a = AssembleArray(node, leaves);
    if (!a.ok()) return WithFile(std::move(a).status().WithContext("row group {}", index));
    if (a->length() != rg.num_rows) {
      return WithFile(Status::Corrupt("row group {}: a column assembles to {} rows, expected {}",
                                      index, a->length(), rg.num_rows));
    }
    columns.push_back(std::move(*a));
  }
  auto schema = std::make_shared<col::Schema>(projection.schema->fields(), key_values_);
  return col::RecordBatch(std::move(schema), rg.num_rows, std::move(columns));
}

Result<std::optional<BloomFilter>> FileReader::ReadBloomFilter(int row_group, int leaf) const {
  if (row_group < 0 || row_group >= num_row_groups() || leaf < 0 ||
      leaf >= schema_->num_leaves()) {
    return Status::InvalidArgument("bloom filter of row group {} column {} out of range",
                                   row_group, leaf);
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
    return WithFile(Status::Corrupt("bloom filter of {} bytes runs past the file's data",
                                    header.num_bytes));
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

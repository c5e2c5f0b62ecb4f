#include "floe/format/parquet/file_writer.h"

#include <algorithm>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/format/parquet/column_writer.h"

namespace floe::format::parquet {

namespace col = floe::columnar;

namespace {
// Rows shredded at a time: bounds the level buffers and lets row groups be cut finely.
constexpr int64_t kSliceRows = 16384;
}  // namespace

FileWriter::FileWriter(std::unique_ptr<io::OutputStream> out,
                       std::shared_ptr<const SchemaDescriptor> schema, WriterOptions options)
    : out_(std::move(out)), schema_(std::move(schema)), options_(std::move(options)) {}

FileWriter::~FileWriter() = default;

Status CheckParquetCompression(CompressionKind kind) {
  if (kind == CompressionKind::kDeflate || kind == CompressionKind::kLz4Frame) {
    return Status::InvalidArgument("Parquet has no {} codec", CompressionKindName(kind));
  }
  return Status::OK();
}

Result<std::unique_ptr<FileWriter>> FileWriter::Make(std::unique_ptr<io::OutputStream> out,
                                                     std::shared_ptr<const SchemaDescriptor> schema,
                                                     WriterOptions options) {
  if (options.page_version != 1 && options.page_version != 2) {
    return Status::InvalidArgument("page version must be 1 or 2, got {}", options.page_version);
  }
  if (options.row_group_bytes <= 0 || options.page_bytes <= 0 || options.page_rows <= 0 ||
      options.dictionary_page_bytes <= 0) {
    return Status::InvalidArgument("row group, page and dictionary sizes must be positive");
  }
  if (!(options.bloom_filter_fpp > 0 && options.bloom_filter_fpp < 1)) {
    return Status::InvalidArgument("bloom filter false-positive rate must be in (0, 1)");
  }
  for (int leaf : options.bloom_filter_leaves) {
    if (leaf < 0 || leaf >= schema->num_leaves()) {
      return Status::InvalidArgument("bloom filter column {} out of range", leaf);
    }
  }
  FLOE_RETURN_IF_ERROR(CheckParquetCompression(options.compression));
  std::unique_ptr<FileWriter> w(
      new FileWriter(std::move(out), std::move(schema), std::move(options)));
  FLOE_ASSIGN_OR_RETURN(w->codec_,
                        Codec::Make(w->options_.compression, w->options_.compression_level));
  for (const auto& leaf : w->schema_->leaves()) {
    w->columns_.push_back(std::make_unique<ColumnWriter>(leaf, w->options_, w->codec_.get()));
  }
  FLOE_RETURN_IF_ERROR(w->out_->Write("PAR1", 4));
  return w;
}

Status FileWriter::Write(const col::RecordBatch& batch) {
  if (closed_) return Status::FailedPrecondition("{}: write after close", out_->location());
  const col::Schema& expected = *schema_->schema();
  if (batch.num_columns() != expected.num_fields()) {
    return Status::InvalidArgument("batch has {} columns, the file schema {}", batch.num_columns(),
                                   expected.num_fields());
  }
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    const auto& got = *batch.column(i).type();
    const auto& want = *expected.field(i).type;
    if (!got.Equals(want)) {
      return Status::InvalidArgument("column '{}' has type {}, the file schema says {}",
                                     expected.field(i).name, got.ToString(), want.ToString());
    }
  }
  int64_t offset = 0;
  while (offset < batch.num_rows()) {
    // Size the slice so a row group closes near row_group_bytes: from the bytes per row
    // seen so far, or a small first slice to measure them.
    int64_t slice = 128;
    const int64_t buffered = BufferedBytes();
    if (row_group_rows_ > 0 && buffered > 0) {
      const int64_t per_row = std::max<int64_t>(1, buffered / row_group_rows_);
      slice = (options_.row_group_bytes - buffered) / per_row + 1;
    }
    const int64_t length =
        std::clamp<int64_t>(slice, 1, std::min(kSliceRows, batch.num_rows() - offset));
    FLOE_RETURN_IF_ERROR(WriteSlice(batch, offset, length));
    offset += length;
    if (BufferedBytes() >= options_.row_group_bytes) FLOE_RETURN_IF_ERROR(FlushRowGroup());
  }
  return Status::OK();
}

Status FileWriter::WriteSlice(const col::RecordBatch& batch, int64_t offset, int64_t length) {
  std::vector<ShreddedLeaf> leaves;
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    leaves.clear();
    const AssemblyNode& node = schema_->fields()[i];
    Status s = ShredArray(node, batch.column(i), offset, length, &leaves);
    if (!s.ok()) return s.WithContext("column '{}'", batch.schema()->field(i).name);
    // Leaves of a top-level field are consecutive, starting at its first leaf.
    for (size_t k = 0; k < leaves.size(); ++k) {
      FLOE_RETURN_IF_ERROR(columns_[static_cast<size_t>(node.first_leaf) + k]->Write(leaves[k]));
    }
  }
  row_group_rows_ += length;
  num_rows_ += length;
  return Status::OK();
}

int64_t FileWriter::BufferedBytes() const {
  int64_t total = 0;
  for (const auto& c : columns_) total += c->buffered_bytes();
  return total;
}

int64_t FileWriter::EstimatedSize() const {
  return static_cast<int64_t>(out_->position()) + BufferedBytes();
}

Status FileWriter::FlushRowGroup() {
  if (row_group_rows_ == 0) return Status::OK();
  RowGroup rg;
  rg.file_offset = static_cast<int64_t>(out_->position());
  row_group_offsets_.push_back(*rg.file_offset);
  int64_t compressed = 0;
  for (auto& c : columns_) {
    ColumnChunk chunk;
    FLOE_RETURN_IF_ERROR(c->Flush(out_.get(), &chunk));
    rg.total_byte_size += chunk.meta_data->total_uncompressed_size;
    compressed += chunk.meta_data->total_compressed_size;
    rg.columns.push_back(std::move(chunk));
  }
  rg.num_rows = row_group_rows_;
  rg.total_compressed_size = compressed;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  metadata_.row_groups.push_back(std::move(rg));
  row_group_rows_ = 0;
  return Status::OK();
}

Result<WriteResult> FileWriter::Close() {
  if (closed_) return Status::FailedPrecondition("{}: closed twice", out_->location());
  FLOE_RETURN_IF_ERROR(FlushRowGroup());
  closed_ = true;
  // Bloom filters go after the row groups (as Arrow writes them), before the footer.
  for (size_t leaf = 0; leaf < columns_.size(); ++leaf) {
    auto& filters = columns_[leaf]->bloom_filters();
    for (size_t rg = 0; rg < filters.size(); ++rg) {
      if (!filters[rg]) continue;
      Buffer bytes;
      BloomFilterHeader header;
      header.num_bytes = static_cast<int32_t>(filters[rg]->num_bytes());
      Serialize(header, &bytes);
      bytes.Append(filters[rg]->bitset());
      ColumnMetaData& meta = *metadata_.row_groups[rg].columns[leaf].meta_data;
      meta.bloom_filter_offset = static_cast<int64_t>(out_->position());
      meta.bloom_filter_length = static_cast<int32_t>(bytes.size());
      FLOE_RETURN_IF_ERROR(out_->Write(bytes.data(), bytes.size()));
    }
  }
  metadata_.version = 1;
  metadata_.schema = schema_->elements();
  metadata_.num_rows = num_rows_;
  metadata_.created_by = options_.created_by;
  if (!options_.key_value_metadata.empty())
    metadata_.key_value_metadata = options_.key_value_metadata;
  metadata_.column_orders = std::vector<ColumnOrder>(columns_.size());
  Buffer footer;
  Serialize(metadata_, &footer);
  footer.AppendValue<uint32_t>(static_cast<uint32_t>(footer.size()));
  footer.Append("PAR1", 4);
  FLOE_RETURN_IF_ERROR(out_->Write(footer.data(), footer.size()));
  WriteResult result;
  result.file_bytes = static_cast<int64_t>(out_->position());
  FLOE_RETURN_IF_ERROR(out_->Close());
  result.num_rows = num_rows_;
  result.row_group_offsets = row_group_offsets_;
  for (const auto& c : columns_) result.columns.push_back(c->metrics());
  result.metadata = std::move(metadata_);
  return result;
}

}  // namespace floe::format::parquet

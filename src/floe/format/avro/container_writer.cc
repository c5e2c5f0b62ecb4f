#include <random>

#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/container.h"
#include "floe/format/avro/datum_writer.h"

namespace floe::format::avro {

ContainerWriter::~ContainerWriter() = default;

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Make(
    std::unique_ptr<io::OutputStream> out, SchemaPtr schema, ContainerWriterOptions options) {
  for (const auto& [key, value] : options.metadata) {
    if (key.starts_with("avro.")) {
      return Status::InvalidArgument("metadata key '{}' is reserved for avro", key);
    }
  }
  std::unique_ptr<ContainerWriter> w(new ContainerWriter());
  w->out_ = std::move(out);
  w->schema_ = std::move(schema);
  w->options_ = std::move(options);
  if (w->options_.sync_marker) {
    w->sync_ = *w->options_.sync_marker;
  } else if (w->options_.random_bytes) {
    w->options_.random_bytes(w->sync_.data(), w->sync_.size());
  } else {
    std::random_device rd;
    for (auto& b : w->sync_) b = static_cast<uint8_t>(rd());
  }
  CompressionKind kind = CompressionKind::kUncompressed;
  switch (w->options_.codec) {
    case AvroCodec::kNull: break;
    case AvroCodec::kDeflate: kind = CompressionKind::kDeflate; break;
    case AvroCodec::kSnappy: kind = CompressionKind::kSnappy; break;
    case AvroCodec::kZstandard: kind = CompressionKind::kZstd; break;
  }
  if (kind != CompressionKind::kUncompressed) {
    FLOE_ASSIGN_OR_RETURN(w->compressor_, Codec::Make(kind, w->options_.level));
  }

  // Spec, "Object Container Files": magic, the metadata map<bytes>, the sync marker.
  Buffer header;
  header.Append("Obj\x01", 4);
  std::string schema_json = w->schema_->ToJson();
  std::string_view codec = AvroCodecName(w->options_.codec);
  AppendLong(&header, static_cast<int64_t>(2 + w->options_.metadata.size()));
  AppendBytes(&header, kSchemaKey.data(), kSchemaKey.size());
  AppendBytes(&header, schema_json.data(), schema_json.size());
  AppendBytes(&header, kCodecKey.data(), kCodecKey.size());
  AppendBytes(&header, codec.data(), codec.size());
  for (const auto& [key, value] : w->options_.metadata) {
    AppendBytes(&header, key.data(), key.size());
    AppendBytes(&header, value.data(), value.size());
  }
  AppendLong(&header, 0);
  header.Append(w->sync_.data(), w->sync_.size());
  FLOE_RETURN_IF_ERROR(w->out_->Write(header.data(), header.size()));
  return w;
}

Status ContainerWriter::Write(const columnar::RecordBatch& batch) {
  if (closed_) return Status::FailedPrecondition("avro writer is closed");
  if (datum_writer_ == nullptr || !batch.schema()->Equals(*datum_writer_columns_)) {
    FLOE_ASSIGN_OR_RETURN(datum_writer_, DatumWriter::Make(*schema_, *batch.schema()));
    datum_writer_columns_ = batch.schema();
  }
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    size_t mark = pending_.size();
    Status s = datum_writer_->Write(batch, row, &pending_);
    if (!s.ok()) {
      pending_.Resize(mark);
      return s.WithContext("row {}", row);
    }
    ++pending_records_;
    if (pending_.size() >= options_.block_size_bytes) FLOE_RETURN_IF_ERROR(FlushBlock());
  }
  return Status::OK();
}

Status ContainerWriter::WriteEncoded(std::span<const uint8_t> datum) {
  if (closed_) return Status::FailedPrecondition("avro writer is closed");
  pending_.Append(datum);
  ++pending_records_;
  if (pending_.size() >= options_.block_size_bytes) return FlushBlock();
  return Status::OK();
}

Status ContainerWriter::FlushBlock() {
  if (pending_records_ == 0) return Status::OK();
  std::span<const uint8_t> data = pending_.span();
  if (compressor_ != nullptr) {
    scratch_.Clear();
    FLOE_RETURN_IF_ERROR(compressor_->Compress(pending_.span(), &scratch_));
    if (options_.codec == AvroCodec::kSnappy) {
      uint8_t crc[4];
      StoreBE<uint32_t>(crc, Crc32(0, pending_.data(), pending_.size()));
      scratch_.Append(crc, 4);
    }
    data = scratch_.span();
  }
  Buffer header;
  AppendLong(&header, pending_records_);
  AppendLong(&header, static_cast<int64_t>(data.size()));
  FLOE_RETURN_IF_ERROR(out_->Write(header.data(), header.size()));
  FLOE_RETURN_IF_ERROR(out_->Write(data.data(), data.size()));
  FLOE_RETURN_IF_ERROR(out_->Write(sync_.data(), sync_.size()));
  records_written_ += pending_records_;
  pending_records_ = 0;
  pending_.Clear();
  return Status::OK();
}

Status ContainerWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  FLOE_RETURN_IF_ERROR(FlushBlock());
  return out_->Close();
}

}  // namespace floe::format::avro

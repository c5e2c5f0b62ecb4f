#include "floe/ingest/partition_reader.h"

#include <algorithm>

#include "floe/base/macros.h"

namespace floe::ingest {

void PartitionReader::Add(int32_t partition, const kafka::Record& r) {
  RecordRef row{};
  row.partition = partition;
  row.offset = r.offset;
  row.timestamp_ms = r.timestamp;
  auto put = [&](std::optional<std::span<const uint8_t>> bytes, int64_t* pos, int64_t* len) {
    *pos = static_cast<int64_t>(arena_.size());
    if (!bytes) {
      *len = -1;
      return;
    }
    *len = static_cast<int64_t>(bytes->size());
    arena_.Append(bytes->data(), bytes->size());
  };
  put(r.key, &row.key_pos, &row.key_len);
  put(r.value, &row.value_pos, &row.value_len);
  row.headers_pos = static_cast<int64_t>(arena_.size());
  row.header_count = static_cast<int32_t>(r.headers.size());
  for (const kafka::RecordHeader& h : r.headers) {
    arena_.AppendValue<uint32_t>(static_cast<uint32_t>(h.key.size()));
    arena_.Append(h.key);
    arena_.AppendValue<int32_t>(h.value ? static_cast<int32_t>(h.value->size()) : -1);
    if (h.value) arena_.Append(*h.value);
  }
  records_.push_back(row);
}

Status PartitionReader::Read(int32_t p, int64_t end, int64_t* next, int64_t* first_ms) {
  while (*next < end && !full()) {
    read_buffer_.Clear();
    FLOE_RETURN_IF_ERROR(read_(p, *next, options_.read_bytes, &read_buffer_));
    std::span<const uint8_t> bytes(read_buffer_.data(), read_buffer_.size());
    bool progressed = false;
    while (bytes.size() >= kafka::kBatchHeaderBytes) {
      FLOE_ASSIGN_OR_RETURN(kafka::BatchHeader h, kafka::ParseBatchHeader(bytes));
      if (h.total_bytes() > bytes.size()) break;
      std::span<const uint8_t> batch = bytes.first(h.total_bytes());
      bytes = bytes.subspan(h.total_bytes());
      if (h.last_offset() < *next) continue;
      FLOE_ASSIGN_OR_RETURN(h, kafka::ValidateBatch(batch));
      if (!h.control()) {
        const int64_t from = *next;
        FLOE_RETURN_IF_ERROR(kafka::DecodeRecords(batch, options_.max_uncompressed_batch_bytes,
                                                  &scratch_, [&](const kafka::Record& r) {
                                                    if (r.offset < from) return Status::OK();
                                                    if (*first_ms < 0)
                                                      *first_ms = std::max<int64_t>(0, r.timestamp);
                                                    Add(p, r);
                                                    return Status::OK();
                                                  }));
      }
      *next = h.last_offset() + 1;
      progressed = true;
    }
    if (!progressed) {
      return Status::Corrupt("partition {} of '{}': no whole batch at offset {}", p, topic_, *next);
    }
  }
  return Status::OK();
}

}  // namespace floe::ingest

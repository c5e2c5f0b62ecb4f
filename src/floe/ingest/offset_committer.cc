#include "floe/ingest/offset_committer.h"

#include <charconv>

#include "floe/base/macros.h"
#include "floe/iceberg/metadata_updates.h"

namespace floe::ingest {

std::string FormatOffsets(const std::vector<int64_t>& ends) {
  std::string out;
  for (size_t p = 0; p < ends.size(); ++p) {
    if (p > 0) out += ',';
    out += std::to_string(p) + ":" + std::to_string(ends[p]);
  }
  return out;
}

Result<std::vector<int64_t>> ParseOffsets(std::string_view text) {
  std::vector<int64_t> ends;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = text.substr(start, comma - start);
    size_t colon = part.find(':');
    int64_t p = -1;
    int64_t end = -1;
    if (colon == std::string_view::npos ||
        std::from_chars(part.data(), part.data() + colon, p).ptr != part.data() + colon ||
        std::from_chars(part.data() + colon + 1, part.data() + part.size(), end).ptr !=
            part.data() + part.size() ||
        p != static_cast<int64_t>(ends.size()) || end < 0) {
      return Status::Corrupt("bad {} entry '{}'", kPropertyOffsets, part);
    }
    ends.push_back(end);
    start = comma + 1;
  }
  return ends;
}

Status OffsetCommitter::Start(size_t partitions, const iceberg::TableMetadata* md) {
  ends_.assign(partitions, 0);
  property_.clear();
  if (md == nullptr) return Status::OK();
  auto it = md->properties.find(std::string(kPropertyOffsets));
  if (it == md->properties.end()) return Status::OK();
  property_ = it->second;
  FLOE_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ParseOffsets(property_));
  for (size_t p = 0; p < ends.size() && p < ends_.size(); ++p) ends_[p] = ends[p];
  return Status::OK();
}

std::string OffsetCommitter::Ranges(const std::vector<int64_t>& ends) const {
  std::string ranges;
  for (size_t p = 0; p < ends.size(); ++p) {
    if (p > 0) ranges += ',';
    ranges += std::to_string(p) + ":" + std::to_string(p < ends_.size() ? ends_[p] : 0) + "-" +
              std::to_string(ends[p]);
  }
  return ranges;
}

Status OffsetCommitter::Commit(iceberg::Transaction& txn, iceberg::SnapshotProducer& producer,
                               const std::vector<int64_t>& ends) {
  producer.AddBaseCheck([expected = property_, what = what_](const iceberg::TableMetadata& base) {
    auto it = base.properties.find(std::string(kPropertyOffsets));
    std::string now = it == base.properties.end() ? std::string() : it->second;
    if (now != expected) {
      return Status::Conflict("{} moved from '{}' to '{}': another coordinator committed", what,
                              expected, now);
    }
    return Status::OK();
  });
  FLOE_RETURN_IF_ERROR(producer.Commit());
  iceberg::UpdateProperties& props = txn.NewUpdateProperties();
  std::string property = FormatOffsets(ends);
  props.Set(std::string(kPropertyOffsets), property);
  FLOE_RETURN_IF_ERROR(props.Commit());
  FLOE_RETURN_IF_ERROR(txn.Commit());
  property_ = std::move(property);
  ends_ = ends;
  return Status::OK();
}

}  // namespace floe::ingest

#include "floe/io/coalesced_input.h"

#include <algorithm>
#include <cstring>

#include "floe/base/macros.h"

namespace floe::io {

std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges,
                                      const CoalesceOptions& options) {
  std::erase_if(ranges, [](const ByteRange& r) { return r.length == 0; });
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.length < b.length;
  });
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    if (!out.empty()) {
      ByteRange& last = out.back();
      const uint64_t end = std::max(last.end(), r.end());
      // Overlapping ranges always merge (their bytes are read either way); near ones while
      // the merged read stays within the limit.
      const bool overlaps = r.offset < last.end();
      const bool near = r.offset - std::min(r.offset, last.end()) <= options.hole_size_limit &&
                        end - last.offset <= options.range_size_limit;
      if (overlaps || near) {
        last.length = end - last.offset;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

CoalescedInputFile::CoalescedInputFile(const InputFile& base, std::vector<ByteRange> ranges,
                                       const CoalesceOptions& options,
                                       std::span<const uint8_t> preloaded,
                                       uint64_t preloaded_offset)
    : base_(base), preloaded_(preloaded), preloaded_offset_(preloaded_offset) {
  std::erase_if(ranges, [&](const ByteRange& r) {
    return r.length == 0 || r.offset > base.size() || r.length > base.size() - r.offset;
  });
  for (const ByteRange& r : CoalesceRanges(ranges, options)) {
    Merged m;
    m.range = r;
    merged_.push_back(std::move(m));
  }
  for (const ByteRange& r : ranges) {
    auto it = std::upper_bound(merged_.begin(), merged_.end(), r.offset,
                               [](uint64_t offset, const Merged& m) {
                                 return offset < m.range.offset;
                               });
    // Every announced range lies inside the merged range starting at or before it.
    Merged& m = *std::prev(it);
    ++m.members;
    m.unread += r.length;
  }
}

Status CoalescedInputFile::ReadAt(uint64_t offset, size_t n, uint8_t* out) const {
  if (n == 0) return Status::OK();
  if (offset >= preloaded_offset_ && offset - preloaded_offset_ <= preloaded_.size() &&
      n <= preloaded_.size() - (offset - preloaded_offset_)) {
    std::memcpy(out, preloaded_.data() + (offset - preloaded_offset_), n);
    return Status::OK();
  }
  {
    std::lock_guard lock(mu_);
    auto it = std::upper_bound(merged_.begin(), merged_.end(), offset,
                               [](uint64_t o, const Merged& m) { return o < m.range.offset; });
    if (it != merged_.begin()) {
      Merged& m = *std::prev(it);
      const bool inside = offset + n <= m.range.end();
      if (inside && m.members > 1 && m.state != State::kReleased) {
        if (m.state == State::kPending) {
          m.bytes = Buffer(m.range.length);
          Status s = base_.ReadAt(m.range.offset, m.range.length, m.bytes.data());
          if (!s.ok()) {
            m.bytes = Buffer();
            return s;
          }
          m.state = State::kFetched;
        }
        std::memcpy(out, m.bytes.data() + (offset - m.range.offset), n);
        m.unread -= std::min<uint64_t>(m.unread, n);
        if (m.unread == 0) {
          m.bytes = Buffer();
          m.state = State::kReleased;
        }
        return Status::OK();
      }
    }
  }
  return base_.ReadAt(offset, n, out);
}

std::vector<ByteRange> CoalescedInputFile::merged_ranges() const {
  std::lock_guard lock(mu_);
  std::vector<ByteRange> out;
  for (const Merged& m : merged_) {
    if (m.members > 1) out.push_back(m.range);
  }
  return out;
}

}  // namespace floe::io

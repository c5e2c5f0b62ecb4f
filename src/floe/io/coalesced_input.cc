#include "floe/io/coalesced_input.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <system_error>
#include <thread>

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
      // A range inside the last one (or starting with it) merges: it adds no request. Near
      // and overlapping ones merge while the merged read stays within the limit; past it an
      // overlapping range starts the next read, whose first bytes the last one also reads.
      // (The Parquet reader's chunk ranges overlap their successors by up to 100 bytes,
      // PARQUET-816: merging them regardless would make a row group one unbounded read.)
      const bool contained = r.end() <= last.end() || r.offset == last.offset;
      const bool near = r.offset - std::min(r.offset, last.end()) <= options.hole_size_limit &&
                        end - last.offset <= options.range_size_limit;
      if (contained || near) {
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
    : base_(base),
      prefetch_limit_bytes_(options.prefetch_limit_bytes),
      preloaded_(preloaded),
      preloaded_offset_(preloaded_offset) {
  std::erase_if(ranges, [&](const ByteRange& r) {
    return r.length == 0 || r.offset > base.size() || r.length > base.size() - r.offset;
  });
  for (const ByteRange& r : CoalesceRanges(ranges, options)) {
    Merged m;
    m.range = r;
    merged_.push_back(std::move(m));
  }
  for (const ByteRange& r : ranges) {
    auto it =
        std::upper_bound(merged_.begin(), merged_.end(), r.offset,
                         [](uint64_t offset, const Merged& m) { return offset < m.range.offset; });
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
      // A single announced range is read straight from `base` (a buffer would only add a
      // copy), unless Prefetch already fetched it.
      const bool buffered = m.members > 1 || m.state == State::kFetched;
      if (inside && buffered && m.state != State::kReleased) {
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

Status CoalescedInputFile::Prefetch() {
  const auto concurrency = static_cast<size_t>(std::max(1, base_.max_concurrent_reads()));
  if (concurrency < 2) return Status::OK();
  std::vector<size_t> picked;  // indexes into merged_, whose `range` never changes
  {
    std::lock_guard lock(mu_);
    uint64_t held = 0;
    for (const Merged& m : merged_) {
      if (m.state == State::kFetched) held += m.range.length;
    }
    for (size_t i = 0; i < merged_.size(); ++i) {
      const Merged& m = merged_[i];
      if (m.state != State::kPending) continue;
      if ((!picked.empty() || held > 0) && held + m.range.length > prefetch_limit_bytes_) break;
      picked.push_back(i);
      held += m.range.length;
    }
  }
  if (picked.size() < 2) return Status::OK();

  std::vector<Buffer> fetched(picked.size());
  std::vector<Status> results(picked.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  // Each worker takes the next range until none is left (or one read failed): never more
  // reads in flight than workers.
  auto work = [&] {
    while (!failed.load()) {
      const size_t k = next.fetch_add(1);
      if (k >= picked.size()) break;
      const ByteRange r = merged_[picked[k]].range;
      fetched[k] = Buffer(r.length);
      results[k] = base_.ReadAt(r.offset, r.length, fetched[k].data());
      if (!results[k].ok()) failed.store(true);
    }
  };
  std::vector<std::thread> workers;
  const size_t threads = std::min(concurrency, picked.size()) - 1;
  for (size_t t = 0; t < threads; ++t) {
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running (and this one) do the rest
    }
  }
  work();
  for (std::thread& t : workers) t.join();

  Status first_error = Status::OK();
  std::lock_guard lock(mu_);
  for (size_t k = 0; k < picked.size(); ++k) {
    Merged& m = merged_[picked[k]];
    if (!results[k].ok()) {
      if (first_error.ok()) first_error = results[k];
      continue;
    }
    // Skipped after a failure (not read), or read meanwhile by ReadAt (its reader was
    // served): nothing to keep.
    if (fetched[k].size() != m.range.length || m.state != State::kPending) continue;
    m.bytes = std::move(fetched[k]);
    m.state = State::kFetched;
  }
  return first_error;
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

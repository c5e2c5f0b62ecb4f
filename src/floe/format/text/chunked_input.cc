#include "floe/format/text/chunked_input.h"

#include <algorithm>
#include <cstring>

namespace floe::format::text::internal {

Status ChunkedInput::Fill() {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_bytes_, file_->size() - offset_));
  const size_t keep = end_ - start_;
  if (keep + n > capacity_) {
    // Grows only while one record is longer than the window (bounded by the caller's
    // record limit).
    size_t capacity = std::max(keep + n, capacity_ * 2);
    std::unique_ptr<char[]> buf(new char[capacity]);
    if (keep > 0) std::memcpy(buf.get(), buf_.get() + start_, keep);
    buf_ = std::move(buf);
    capacity_ = capacity;
  } else if (start_ > 0 && keep > 0) {
    std::memmove(buf_.get(), buf_.get() + start_, keep);
  }
  start_ = 0;
  end_ = keep;
  if (n > 0) {
    Status st = file_->ReadAt(offset_, n, reinterpret_cast<uint8_t*>(buf_.get() + end_));
    if (!st.ok()) return st;
    end_ += n;
    offset_ += n;
  }
  return Status::OK();
}

}  // namespace floe::format::text::internal

// ChunkedInput: a sliding window over an InputFile, read a chunk at a time, so the text
// readers hold at most one record plus one chunk in memory. Internal to the text readers.
#pragma once

#include <cstdint>
#include <memory>

#include "floe/base/status.h"
#include "floe/io/file_io.h"

namespace floe::format::text::internal {

class ChunkedInput {
 public:
  ChunkedInput(std::unique_ptr<io::InputFile> file, size_t chunk_bytes)
      : file_(std::move(file)), chunk_bytes_(chunk_bytes < 4096 ? 4096 : chunk_bytes) {}

  // The unconsumed bytes.
  const char* begin() const { return buf_.get() + start_; }
  const char* end() const { return buf_.get() + end_; }
  size_t available() const { return end_ - start_; }
  // Every byte of the file has been read into the window.
  bool eof() const { return offset_ >= file_->size(); }
  // Drops the window's bytes before `p`.
  void Consume(const char* p) { start_ = static_cast<size_t>(p - buf_.get()); }

  // Appends the next chunk of the file to the window, keeping the unconsumed bytes.
  // Invalidates pointers into the window. REQUIRES: !eof().
  Status Fill();

  const std::string& location() const { return file_->location(); }

 private:
  std::unique_ptr<io::InputFile> file_;
  size_t chunk_bytes_;
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;
  size_t start_ = 0;
  size_t end_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace floe::format::text::internal

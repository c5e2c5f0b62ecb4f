// FileIO: the only way floe reads and writes files. Implementations: local files
// (local_file_io.h), memory (memory_file_io.h), S3 (s3/s3_file_io.h), several schemes at once
// (routing_file_io.h). Locations are strings (paths or URIs) interpreted by the implementation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::io {

// A file opened for random-access reads.
// Thread-safety: ReadAt may be called concurrently.
class InputFile {
 public:
  virtual ~InputFile() = default;

  virtual const std::string& location() const = 0;
  // Size in bytes, fixed at open.
  virtual uint64_t size() const = 0;
  // Reads exactly `n` bytes at `offset` into `out`. A range past the end is kCorrupt
  // (the caller computed it from file contents); OS failures are kIOError.
  virtual Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const = 0;
  // How many ReadAt calls are worth having in flight at once: an object store answers
  // each after a round trip, so readers that know several ranges they need (a Parquet row
  // group's column chunks, io/coalesced_input.h) send up to this many together. 1 (the
  // default): overlapping reads gain nothing (local files, memory).
  virtual int max_concurrent_reads() const { return 1; }

  // Reads `n` bytes at `offset` into a new buffer.
  Result<Buffer> Read(uint64_t offset, size_t n) const;
};

// A file being written sequentially. Nothing is visible under the location before
// Close() succeeds for implementations that can promise that (object stores); local
// files may show partial content.
class OutputStream {
 public:
  virtual ~OutputStream() = default;

  virtual const std::string& location() const = 0;
  virtual Status Write(const void* data, size_t n) = 0;
  // Bytes written so far.
  virtual uint64_t position() const = 0;
  // Flushes and makes the file durable; the stream accepts no writes afterwards.
  virtual Status Close() = 0;

  Status Write(std::string_view s) { return Write(s.data(), s.size()); }
};

struct FileInfo {
  std::string location;
  uint64_t size = 0;
  int64_t modified_ms = 0;
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  virtual Result<std::unique_ptr<InputFile>> OpenInput(std::string_view location) = 0;
  // Creates the file; fails with kAlreadyExists when it exists and !overwrite.
  virtual Result<std::unique_ptr<OutputStream>> CreateOutput(std::string_view location,
                                                             bool overwrite) = 0;
  virtual Status Delete(std::string_view location) = 0;
  // Deletes every location, tolerating ones already gone (kNotFound is not an error).
  // Returns the first other error after trying them all. Object stores batch the requests;
  // the default deletes one at a time.
  virtual Status DeleteFiles(const std::vector<std::string>& locations);
  virtual Result<bool> Exists(std::string_view location) = 0;
  // Lists files whose location starts with `prefix` (recursively).
  virtual Result<std::vector<FileInfo>> List(std::string_view prefix) = 0;
  // Renames `from` to `to` atomically without ever replacing an existing `to`
  // (kAlreadyExists then, and `from` stays). Optional: object stores cannot promise it and
  // return kUnimplemented (this default); commits that rely on it (the filesystem catalog)
  // need a FileIO that has it.
  virtual Status RenameNoReplace(std::string_view from, std::string_view to);

  // Reads a whole file.
  Result<Buffer> ReadFile(std::string_view location);
  // Writes a whole file.
  Status WriteFile(std::string_view location, std::string_view contents, bool overwrite);
};

}  // namespace floe::io

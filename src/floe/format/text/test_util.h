// Helpers of the text format tests: read a string through the readers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/format/text/reader.h"
#include "floe/io/memory_file_io.h"

namespace floe::format::text::testing {

inline std::unique_ptr<io::InputFile> StringFile(const std::string& contents) {
  static io::MemoryFileIO* fio = new io::MemoryFileIO();  // leaked on purpose: tests only
  static int counter = 0;
  std::string name = "mem://text/" + std::to_string(counter++);
  fio->Put(name, contents);
  return fio->OpenInput(name).value();
}

// Reads every batch; returns the rows concatenated (one batch) or the error.
template <typename Reader>
Result<std::vector<columnar::RecordBatch>> ReadAll(const std::string& contents,
                                                   columnar::SchemaPtr schema,
                                                   ReadOptions options = {}) {
  auto reader = Reader::Open(StringFile(contents), std::move(schema), options);
  if (!reader.ok()) return reader.status();
  std::vector<columnar::RecordBatch> out;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) break;
    if (Status st = (*batch)->Validate(); !st.ok()) return st;
    out.push_back(std::move(**batch));
  }
  return out;
}

}  // namespace floe::format::text::testing

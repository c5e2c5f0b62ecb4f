#include "floe/io/file_io.h"

#include "floe/base/macros.h"

namespace floe::io {

Result<Buffer> InputFile::Read(uint64_t offset, size_t n) const {
  Buffer buf(n);
  FLOE_RETURN_IF_ERROR(ReadAt(offset, n, buf.data()));
  return buf;
}

Result<Buffer> FileIO::ReadFile(std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenInput(location));
  return in->Read(0, in->size());
}

Status FileIO::WriteFile(std::string_view location, std::string_view contents, bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(auto out, CreateOutput(location, overwrite));
  FLOE_RETURN_IF_ERROR(out->Write(contents));
  return out->Close();
}

Status FileIO::DeleteFiles(const std::vector<std::string>& locations) {
  Status first;
  for (const std::string& location : locations) {
    Status s = Delete(location);
    if (!s.ok() && !s.IsNotFound() && first.ok()) first = std::move(s);
  }
  return first;
}

Status FileIO::RenameNoReplace(std::string_view from, std::string_view to) {
  return Status::Unimplemented("rename {} to {}: this FileIO cannot rename without replacing", from,
                               to);
}

}  // namespace floe::io

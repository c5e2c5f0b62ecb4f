#include "floe/io/routing_file_io.h"

namespace floe::io {

RoutingFileIO::RoutingFileIO(std::unique_ptr<FileIO> fallback,
                             std::map<std::string, std::shared_ptr<FileIO>> by_scheme)
    : fallback_(std::move(fallback)), by_scheme_(std::move(by_scheme)) {}

FileIO& RoutingFileIO::Route(std::string_view location) {
  size_t sep = location.find("://");
  if (sep != std::string_view::npos) {
    auto it = by_scheme_.find(std::string(location.substr(0, sep)));
    if (it != by_scheme_.end()) return *it->second;
  }
  return *fallback_;
}

Result<std::unique_ptr<InputFile>> RoutingFileIO::OpenInput(std::string_view location) {
  return Route(location).OpenInput(location);
}

Result<std::unique_ptr<OutputStream>> RoutingFileIO::CreateOutput(std::string_view location,
                                                                  bool overwrite) {
  return Route(location).CreateOutput(location, overwrite);
}

Status RoutingFileIO::Delete(std::string_view location) { return Route(location).Delete(location); }

Status RoutingFileIO::DeleteFiles(const std::vector<std::string>& locations) {
  std::map<FileIO*, std::vector<std::string>> groups;
  for (const std::string& location : locations) groups[&Route(location)].push_back(location);
  Status first;
  for (auto& [target, group] : groups) {
    Status s = target->DeleteFiles(group);
    if (!s.ok() && first.ok()) first = std::move(s);
  }
  return first;
}

Result<bool> RoutingFileIO::Exists(std::string_view location) {
  return Route(location).Exists(location);
}

Result<std::vector<FileInfo>> RoutingFileIO::List(std::string_view prefix) {
  return Route(prefix).List(prefix);
}

Status RoutingFileIO::RenameNoReplace(std::string_view from, std::string_view to) {
  FileIO& target = Route(from);
  if (&target != &Route(to)) {
    return Status::Unimplemented("rename {} to {}: different storage", from, to);
  }
  return target.RenameNoReplace(from, to);
}

}  // namespace floe::io

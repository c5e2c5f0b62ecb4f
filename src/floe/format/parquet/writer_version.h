// WriterVersion: the application and version in a footer's created_by
// ("<app> version <major>.<minor>.<patch>[...] (build ...)"), which readers key the
// workarounds for known writer bugs on (parquet.md §7.4, §10).
#pragma once

#include <string>
#include <string_view>

namespace floe::format::parquet {

struct WriterVersion {
  std::string app;
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool parsed = false;  // created_by had the expected form

  static WriterVersion Parse(std::string_view created_by);

  // The writer is `app` at a version before major.minor.patch.
  bool IsBefore(std::string_view app_name, int major_v, int minor_v, int patch_v) const {
    if (!parsed || app != app_name) return false;
    if (major != major_v) return major < major_v;
    if (minor != minor_v) return minor < minor_v;
    return patch < patch_v;
  }
};

}  // namespace floe::format::parquet

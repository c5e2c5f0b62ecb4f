// WebAssets: the dashboard's built files (web/, built by Vite into build/<preset>/web),
// loaded into memory when the server starts and served at `/`.
//
// Serving from a map of the files found at load time means no request path ever reaches
// the filesystem, so there is no path traversal to get wrong. Files under `assets/` carry
// a content hash in their names (Vite's output) and are cached for a year; everything else
// (index.html above all) is revalidated by ETag on every load, so a new build shows at once.
// A path that names no file and has no extension is a client route of the single-page app
// and gets index.html; a missing file with an extension is a 404.
//
// Thread-safety: immutable after Load; Serve may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/http/http.h"
#include "floe/io/file_io.h"

namespace floe::server {

class WebAssets {
 public:
  // Reads every file under `dir` through `io`. kNotFound when `dir` holds no index.html;
  // kInvalidArgument when the files add up to more than `max_total_bytes`.
  static Result<std::unique_ptr<WebAssets>> Load(io::FileIO& io, const std::string& dir,
                                                 uint64_t max_total_bytes = 64ull << 20);

  // Answers a GET or HEAD of `request.path` (405 for other methods).
  http::HttpResponse Serve(const http::HttpRequest& request) const;

  size_t file_count() const { return files_.size(); }
  const std::string& dir() const { return dir_; }

 private:
  struct Asset {
    std::string body;
    std::string_view content_type;
    std::string etag;
    bool immutable = false;  // a content-hashed file under assets/
  };
  WebAssets() = default;
  http::HttpResponse Answer(const Asset& asset, const http::HttpRequest& request) const;

  std::string dir_;
  std::map<std::string, Asset, std::less<>> files_;  // by URL path: "/index.html"
};

// The Content-Type for a file name by its extension (application/octet-stream otherwise).
std::string_view ContentTypeFor(std::string_view name);

}  // namespace floe::server

#include "floe/server/web_assets.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "floe/base/buffer.h"
#include "floe/base/macros.h"

namespace floe::server {

namespace {

// FNV-1a: an ETag only has to change when the bytes do; it is not a security boundary.
std::string EtagOf(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("\"{:016x}-{:x}\"", h, bytes.size());
}

std::string_view Extension(std::string_view name) {
  size_t slash = name.rfind('/');
  std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : base.substr(dot + 1);
}

// Whether a client's If-None-Match list names `etag` (RFC 9110 §13.1.2, weak comparison).
bool Matches(const std::string* if_none_match, std::string_view etag) {
  if (if_none_match == nullptr) return false;
  std::string_view list = *if_none_match;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.starts_with("W/")) item.remove_prefix(2);
    if (item == "*" || item == etag) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

http::HttpResponse PlainError(int status, std::string_view message) {
  http::HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::string(message);
  return r;
}

}  // namespace

std::string_view ContentTypeFor(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kTypes{{
      {"html", "text/html; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"},
      {"css", "text/css; charset=utf-8"},
      {"json", "application/json"},
      {"map", "application/json"},
      {"svg", "image/svg+xml"},
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"ico", "image/x-icon"},
      {"webp", "image/webp"},
      {"woff2", "font/woff2"},
      {"woff", "font/woff"},
      {"txt", "text/plain; charset=utf-8"},
  }};
  std::string_view ext = Extension(name);
  for (const auto& [e, type] : kTypes) {
    if (ext.size() == e.size() && std::equal(ext.begin(), ext.end(), e.begin(), [](char a, char b) {
          return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b;
        })) {
      return type;
    }
  }
  return "application/octet-stream";
}

Result<std::unique_ptr<WebAssets>> WebAssets::Load(io::FileIO& io, const std::string& dir,
                                                   uint64_t max_total_bytes) {
  std::string root = dir;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  FLOE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> listed, io.List(root + "/"));
  std::unique_ptr<WebAssets> assets(new WebAssets());
  assets->dir_ = root;
  uint64_t total = 0;
  for (const io::FileInfo& info : listed) {
    if (!info.location.starts_with(root + "/")) continue;
    std::string url = info.location.substr(root.size());
    total += info.size;
    if (total > max_total_bytes) {
      return Status::InvalidArgument("the dashboard files in {} exceed {} bytes", root,
                                     max_total_bytes);
    }
    FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadFile(info.location));
    Asset asset;
    asset.body.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    asset.content_type = ContentTypeFor(url);
    asset.etag = EtagOf(asset.body);
    asset.immutable = url.starts_with("/assets/");
    assets->files_.emplace(std::move(url), std::move(asset));
  }
  if (!assets->files_.contains("/index.html")) {
    return Status::NotFound("no dashboard in {}: index.html is missing (build web/ first)", root);
  }
  return assets;
}

http::HttpResponse WebAssets::Answer(const Asset& asset, const http::HttpRequest& request) const {
  http::HttpResponse r;
  r.headers.emplace_back("ETag", asset.etag);
  r.headers.emplace_back("Cache-Control",
                         asset.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (asset.content_type.starts_with("text/html")) {
    // The dashboard loads only its own scripts and talks only to this server.
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'self'; img-src 'self' data:; "
                           "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
  }
  if (Matches(request.Header("if-none-match"), asset.etag)) {
    r.status = 304;
    r.content_type.clear();
    return r;
  }
  r.content_type = std::string(asset.content_type);
  r.body = asset.body;
  return r;
}

http::HttpResponse WebAssets::Serve(const http::HttpRequest& request) const {
  if (request.method != "GET" && request.method != "HEAD") {
    http::HttpResponse r = PlainError(405, "the dashboard is read with GET\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  auto decoded = http::PercentDecode(request.path);
  if (!decoded.ok()) return PlainError(400, decoded.status().message());
  std::string_view path = *decoded;
  if (path.empty() || path.front() != '/' || path.find('\0') != std::string_view::npos) {
    return PlainError(400, "bad path\n");
  }
  if (path == "/") path = "/index.html";
  if (auto it = files_.find(path); it != files_.end()) return Answer(it->second, request);
  // A name with an extension is a file that does not exist; anything else is a route of
  // the single-page app, which index.html's script renders.
  if (!Extension(path).empty()) return PlainError(404, "no such file\n");
  return Answer(files_.find("/index.html")->second, request);
}

}  // namespace floe::server

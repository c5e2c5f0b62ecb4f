#include "floe/catalog/location_policy.h"

#include <optional>
#include <variant>

#include "floe/base/macros.h"

namespace floe::catalog {

namespace {

Status Refused(std::string_view location, std::string_view why) {
  return Status::PermissionDenied("location '{}' is not allowed: {}", location, why);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `text` with every %XX escape decoded, or nullopt when it holds none.
std::optional<std::string> PercentDecoded(std::string_view text) {
  std::string out;
  bool any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      int hi = HexValue(text[i + 1]);
      int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        any = true;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  if (!any) return std::nullopt;
  return out;
}

// RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ':'. Returns its
// length, or 0 when `text` has none.
size_t SchemeLength(std::string_view text) {
  if (text.empty() || !((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z'))) {
    return 0;
  }
  for (size_t i = 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == ':') return i;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.';
    if (!ok) return 0;
  }
  return 0;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Result<NormalizedLocation> NormalizeOne(std::string_view original, std::string_view text) {
  if (text.empty()) return Refused(original, "it is empty");
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Refused(original, "it contains a control character");
    }
  }
  NormalizedLocation out;
  std::string_view path;
  if (size_t n = SchemeLength(text); n > 0) {
    std::string scheme = Lower(text.substr(0, n));
    std::string_view rest = text.substr(n + 1);
    if (scheme == "file") {
      if (rest.starts_with("//")) {
        rest.remove_prefix(2);
        size_t slash = rest.find('/');
        std::string_view host = rest.substr(0, slash);
        if (!host.empty() && Lower(host) != "localhost") {
          return Refused(original, "a file: URI with a remote host cannot be served");
        }
        if (slash == std::string_view::npos) return Refused(original, "it names no path");
        rest.remove_prefix(slash);
      }
      if (!rest.starts_with('/')) return Refused(original, "it is a relative path");
      out.scheme = "file";
      path = rest;
    } else if (scheme == "s3" || scheme == "s3a") {
      if (!rest.starts_with("//")) return Refused(original, "an s3 URI needs s3://bucket/");
      rest.remove_prefix(2);
      size_t slash = rest.find('/');
      out.bucket = std::string(rest.substr(0, slash));
      if (out.bucket.empty()) return Refused(original, "it names no bucket");
      out.scheme = "s3";
      path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    } else {
      return Refused(original, "floe serves only local paths, file:, s3:// and s3a:// locations");
    }
  } else {
    if (!text.starts_with('/')) return Refused(original, "it is a relative path");
    out.scheme = "file";
    path = text;
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view segment = path.substr(start, slash - start);
    if (segment == "..") return Refused(original, "it contains a '..' segment");
    if (!segment.empty() && segment != ".") out.segments.emplace_back(segment);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

}  // namespace

std::string NormalizedLocation::ToString() const {
  std::string out = scheme == "s3" ? "s3://" + bucket : std::string();
  for (const std::string& segment : segments) {
    out += '/';
    out += segment;
  }
  if (out.empty() || out == "s3://" + bucket) out += '/';
  return out;
}

bool NormalizedLocation::IsUnder(const NormalizedLocation& prefix) const {
  if (scheme != prefix.scheme || bucket != prefix.bucket) return false;
  if (segments.size() < prefix.segments.size()) return false;
  for (size_t i = 0; i < prefix.segments.size(); ++i) {
    if (segments[i] != prefix.segments[i]) return false;
  }
  return true;
}

Result<NormalizedLocation> NormalizeLocation(std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(NormalizedLocation raw, NormalizeOne(location, location));
  if (std::optional<std::string> decoded = PercentDecoded(location)) {
    // Whoever decodes it later (an HTTP layer, an object store) must not find a '..', a
    // control character or another scheme in it either.
    FLOE_RETURN_IF_ERROR(NormalizeOne(location, *decoded).status());
  }
  return raw;
}

const std::vector<std::string_view>& TableLocationProperties() {
  static const std::vector<std::string_view> kProperties = {
      "write.data.path", "write.metadata.path", "write.object-storage.path",
      "write.folder-storage.path"};
  return kProperties;
}

Result<LocationPolicy> LocationPolicy::Make(std::string catalog, std::string_view warehouse,
                                            const std::vector<std::string>& allowed) {
  LocationPolicy policy;
  policy.catalog_ = std::move(catalog);
  auto add = [&](std::string_view root, std::string_view what) -> Status {
    auto normalized = NormalizeLocation(root);
    if (!normalized.ok()) {
      return Status::InvalidArgument("catalog '{}': {} '{}' cannot be a root: {}", policy.catalog_,
                                     what, root, normalized.status().message());
    }
    if (normalized->segments.empty() && normalized->scheme == "file") {
      return Status::InvalidArgument("catalog '{}': {} '/' would allow the whole file system",
                                     policy.catalog_, what);
    }
    policy.roots_.push_back(*normalized);
    return Status::OK();
  };
  if (!warehouse.empty()) {
    FLOE_RETURN_IF_ERROR(add(warehouse, "warehouse"));
    policy.warehouse_.push_back(policy.roots_.back());
  }
  for (const std::string& root : allowed) {
    FLOE_RETURN_IF_ERROR(add(root, kAllowedLocationsProperty));
  }
  return policy;
}

std::vector<std::string> LocationPolicy::ParseAllowedLocations(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    std::string_view part = value.substr(start, comma - start);
    while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) part.remove_prefix(1);
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

Status LocationPolicy::Check(std::string_view location, std::string_view what) const {
  auto normalized = NormalizeLocation(location);
  if (!normalized.ok()) {
    return Status::PermissionDenied("{} of catalog '{}': {}", what, catalog_,
                                    normalized.status().message());
  }
  std::optional<NormalizedLocation> decoded;
  if (std::optional<std::string> text = PercentDecoded(location)) {
    FLOE_ASSIGN_OR_RETURN(decoded, NormalizeOne(location, *text));
  }
  for (const NormalizedLocation& root : roots_) {
    if (normalized->IsUnder(root) && (!decoded || decoded->IsUnder(root))) return Status::OK();
  }
  if (roots_.empty()) {
    return Status::PermissionDenied(
        "{} '{}' is not allowed: catalog '{}' has no warehouse and no {} property", what, location,
        catalog_, kAllowedLocationsProperty);
  }
  return Status::PermissionDenied(
      "{} '{}' is outside the allowed locations of catalog '{}' (its warehouse and {})", what,
      location, catalog_, kAllowedLocationsProperty);
}

Status LocationPolicy::CheckCleanupScope(
    const std::vector<std::string>& directories,
    const std::vector<NormalizedLocation>& other_tables) const {
  for (const std::string& dir : directories) {
    FLOE_RETURN_IF_ERROR(Check(dir, "orphan cleaning directory"));
    FLOE_ASSIGN_OR_RETURN(NormalizedLocation normalized, NormalizeLocation(dir));
    for (const NormalizedLocation& root : roots_) {
      if (root.IsUnder(normalized)) {
        return Status::PermissionDenied(
            "orphan cleaning directory '{}' is (or contains) the allowed location '{}' of catalog "
            "'{}': cleaning there would reach every table under it",
            dir, root.ToString(), catalog_);
      }
    }
    for (const NormalizedLocation& other : other_tables) {
      if (normalized.Overlaps(other)) {
        return Status::PermissionDenied(
            "orphan cleaning directory '{}' overlaps '{}' of another table of catalog '{}'", dir,
            other.ToString(), catalog_);
      }
    }
  }
  return Status::OK();
}

Status LocationPolicy::CheckTableProperties(
    const std::map<std::string, std::string>& properties) const {
  for (std::string_view key : TableLocationProperties()) {
    auto it = properties.find(std::string(key));
    if (it != properties.end()) FLOE_RETURN_IF_ERROR(Check(it->second, key));
  }
  return Status::OK();
}

Status LocationPolicy::CheckTableMetadata(const iceberg::TableMetadata& metadata) const {
  FLOE_RETURN_IF_ERROR(Check(metadata.location, "table location"));
  FLOE_RETURN_IF_ERROR(CheckTableProperties(metadata.properties));
  for (const iceberg::StatisticsFile& f : metadata.statistics) {
    FLOE_RETURN_IF_ERROR(Check(f.path, "statistics file"));
  }
  for (const iceberg::PartitionStatisticsFile& f : metadata.partition_statistics) {
    FLOE_RETURN_IF_ERROR(Check(f.path, "partition statistics file"));
  }
  return Status::OK();
}

Status LocationPolicy::CheckTableUpdates(const std::vector<iceberg::TableUpdate>& updates) const {
  for (const iceberg::TableUpdate& update : updates) {
    Status checked = std::visit(
        [&](const auto& u) -> Status {
          using U = std::decay_t<decltype(u)>;
          if constexpr (std::is_same_v<U, iceberg::update::SetLocation>) {
            return Check(u.location, "table location");
          } else if constexpr (std::is_same_v<U, iceberg::update::SetProperties>) {
            return CheckTableProperties(u.updates);
          } else if constexpr (std::is_same_v<U, iceberg::update::SetStatistics>) {
            return Check(u.statistics.path, "statistics file");
          } else if constexpr (std::is_same_v<U, iceberg::update::SetPartitionStatistics>) {
            return Check(u.partition_statistics.path, "partition statistics file");
          } else if constexpr (std::is_same_v<U, iceberg::update::AddSnapshot>) {
            if (u.snapshot.manifest_list.empty()) return Status::OK();
            return Check(u.snapshot.manifest_list, "manifest list");
          } else {
            return Status::OK();
          }
        },
        update);
    FLOE_RETURN_IF_ERROR(checked);
  }
  return Status::OK();
}

Status LocationPolicy::CheckNamespaceProperties(
    const std::map<std::string, std::string>& properties) const {
  auto it = properties.find("location");
  if (it == properties.end() || it->second.empty()) return Status::OK();
  return Check(it->second, "namespace location");
}

Status CheckPathSegment(std::string_view name, std::string_view what) {
  if (name.empty()) return Status::InvalidArgument("empty {} name", what);
  if (name == "." || name == "..") {
    return Status::InvalidArgument("{} name '{}' cannot be a path segment", what, name);
  }
  for (char c : name) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // The name is not echoed: it may hold control characters.
      return Status::InvalidArgument("a {} name cannot contain '/', '\\' or control characters",
                                     what);
    }
  }
  return Status::OK();
}

Status CheckNamespaceSegments(const Namespace& ns) {
  for (const std::string& level : ns.levels) {
    FLOE_RETURN_IF_ERROR(CheckPathSegment(level, "namespace level"));
  }
  return Status::OK();
}

}  // namespace floe::catalog

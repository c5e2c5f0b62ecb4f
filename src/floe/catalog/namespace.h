// Namespace: a catalog namespace as its list of levels, e.g. {"sales", "eu"}.
//
// The JDBC catalog schema (Iceberg Java JdbcCatalog, pyiceberg SqlCatalog) stores a namespace
// as its levels joined with '.', so a level itself cannot contain '.'.
#pragma once

#include <compare>
#include <string>
#include <string_view>
#include <vector>

namespace floe::catalog {

struct Namespace {
  std::vector<std::string> levels;

  bool empty() const { return levels.empty(); }

  // The stored form: "sales.eu". Empty for the root.
  std::string ToString() const {
    std::string out;
    for (size_t i = 0; i < levels.size(); ++i) {
      if (i > 0) out += '.';
      out += levels[i];
    }
    return out;
  }

  // Splits a stored form on '.'; "" is the root (no levels).
  static Namespace FromString(std::string_view dotted) {
    Namespace ns;
    if (dotted.empty()) return ns;
    size_t start = 0;
    while (true) {
      size_t dot = dotted.find('.', start);
      ns.levels.emplace_back(dotted.substr(start, dot - start));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    return ns;
  }

  friend auto operator<=>(const Namespace&, const Namespace&) = default;
  friend bool operator==(const Namespace&, const Namespace&) = default;
};

}  // namespace floe::catalog

#include "floe/iceberg/java_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;

void AppendString(std::string* out, const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

// Java's Double.toString: plain notation with at least one fraction digit for
// 1e-3 <= |v| < 1e7, else "d.dddE[-]n"; the digits are the shortest that round-trip.
void AppendDouble(std::string* out, double v) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[64];
  double a = std::fabs(v);
  if (a == 0 || (a >= 1e-3 && a < 1e7)) {
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    if (v == 0 && std::signbit(v)) s = "-0.0";
    out->append(s);
    return;
  }
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // e.g. "1.2345e+07", "1e-05"
  size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  int exponent = std::atoi(s.c_str() + e + 1);
  out->append(mantissa);
  out->push_back('E');
  out->append(std::to_string(exponent));
}

void Indent(std::string* out, int level) {
  out->push_back('\n');
  out->append(static_cast<size_t>(level) * 2, ' ');
}

// `level` is the object nesting depth (Jackson's arrays do not indent).
void Write(std::string* out, const OJson& v, bool pretty, int level) {
  switch (v.type()) {
    case OJson::value_t::object: {
      out->push_back('{');
      if (v.empty()) {
        if (pretty) out->push_back(' ');
        out->push_back('}');
        return;
      }
      bool first = true;
      for (const auto& [key, value] : v.items()) {
        if (!first) out->push_back(',');
        first = false;
        if (pretty) Indent(out, level + 1);
        AppendString(out, key);
        out->append(pretty ? " : " : ":");
        Write(out, value, pretty, level + 1);
      }
      if (pretty) Indent(out, level);
      out->push_back('}');
      return;
    }
    case OJson::value_t::array: {
      out->push_back('[');
      if (pretty) out->push_back(' ');
      bool first = true;
      for (const auto& e : v) {
        if (!first) out->append(pretty ? ", " : ",");
        first = false;
        Write(out, e, pretty, level);
      }
      if (pretty && !v.empty()) out->push_back(' ');
      out->push_back(']');
      return;
    }
    case OJson::value_t::string: AppendString(out, v.get_ref<const std::string&>()); return;
    case OJson::value_t::boolean: out->append(v.get<bool>() ? "true" : "false"); return;
    case OJson::value_t::number_integer: out->append(std::to_string(v.get<int64_t>())); return;
    case OJson::value_t::number_unsigned: out->append(std::to_string(v.get<uint64_t>())); return;
    case OJson::value_t::number_float: AppendDouble(out, v.get<double>()); return;
    case OJson::value_t::null:
    case OJson::value_t::discarded:
    case OJson::value_t::binary: out->append("null"); return;
  }
}

}  // namespace

std::string ToJavaJson(const nlohmann::ordered_json& value, bool pretty) {
  std::string out;
  Write(&out, value, pretty, 0);
  return out;
}

}  // namespace floe::iceberg

#include "floe/base/json_writer.h"

#include <cmath>

#include <fmt/format.h>

namespace floe {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  uint32_t cp;
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

void JsonWriter::AppendEscaped(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run that needs no escaping in one append.
    size_t run = i;
    while (run < s.size()) {
      auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++run;
    }
    out->append(s.data() + i, run - i);
    i = run;
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");
        ++i;
      } else {
        out->append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
    ++i;
  }
}

void JsonWriter::Key(std::string_view key) {
  Separator();
  out_->push_back('"');
  AppendEscaped(out_, key);
  out_->append("\":");
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  Separator();
  out_->push_back('"');
  AppendEscaped(out_, s);
  out_->push_back('"');
}

void JsonWriter::Int(int64_t v) {
  Separator();
  fmt::format_to(std::back_inserter(*out_), "{}", v);
}

void JsonWriter::UInt(uint64_t v) {
  Separator();
  fmt::format_to(std::back_inserter(*out_), "{}", v);
}

void JsonWriter::Double(double v) {
  if (std::isnan(v)) return String("NaN");
  if (std::isinf(v)) return String(v > 0 ? "Infinity" : "-Infinity");
  Separator();
  fmt::format_to(std::back_inserter(*out_), "{}", v);
}

void JsonWriter::Float(float v) {
  if (std::isnan(v)) return String("NaN");
  if (std::isinf(v)) return String(v > 0 ? "Infinity" : "-Infinity");
  Separator();
  fmt::format_to(std::back_inserter(*out_), "{}", v);
}

void JsonWriter::Bool(bool v) {
  Separator();
  out_->append(v ? "true" : "false");
}

void JsonWriter::Null() {
  Separator();
  out_->append("null");
}

void JsonWriter::Raw(std::string_view json) {
  Separator();
  out_->append(json);
}

}  // namespace floe

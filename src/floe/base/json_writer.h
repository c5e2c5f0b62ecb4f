// JsonWriter: a streaming JSON text writer into a string. Commas and nesting are
// tracked for the caller; strings are escaped per RFC 8259 (invalid UTF-8 bytes are
// replaced by U+FFFD so the output is always valid JSON).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // Writes an object key; the next value call writes its value.
  void Key(std::string_view key);

  void String(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  // Shortest round-trip form; NaN and infinities are written as strings "NaN",
  // "Infinity", "-Infinity" since JSON has no literal for them.
  void Double(double v);
  void Float(float v);
  void Bool(bool v);
  void Null();
  // Writes pre-formatted JSON text as one value.
  void Raw(std::string_view json);

  // Appends `s` escaped (without quotes) to `out`.
  static void AppendEscaped(std::string* out, std::string_view s);

 private:
  void Separator() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_->push_back(',');
      first_.back() = false;
    }
  }
  void Open(char c) {
    Separator();
    out_->push_back(c);
    first_.push_back(true);
  }
  void Close(char c) {
    out_->push_back(c);
    first_.pop_back();
  }

  std::string* out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace floe

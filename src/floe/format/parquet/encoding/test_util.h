// Helpers for the encoding tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/bytes.h"

namespace floe::format::parquet::testing {

// Parses hex digits, ignoring spaces: "80 01 04" -> {0x80, 0x01, 0x04}.
inline std::vector<uint8_t> Hex(std::string_view hex) {
  std::vector<uint8_t> out;
  int hi = -1;
  for (char c : hex) {
    const int v = HexDigitValue(c);
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>(hi << 4 | v));
      hi = -1;
    }
  }
  EXPECT_EQ(hi, -1) << "odd number of hex digits";
  return out;
}

inline std::string ToHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  return out;
}

// A heap copy of exactly bytes.size() bytes, so that ASan reports any read past the end
// (vectors and Buffers may have spare capacity behind their size).
class ExactBytes {
 public:
  explicit ExactBytes(std::span<const uint8_t> bytes)
      : data_(new uint8_t[bytes.size() == 0 ? 1 : bytes.size()]), size_(bytes.size()) {
    if (!bytes.empty()) std::copy(bytes.begin(), bytes.end(), data_.get());
  }
  std::span<const uint8_t> span() const { return {data_.get(), size_}; }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_;
};

// The sizes every round trip runs through.
inline const std::vector<size_t>& EdgeSizes() {
  static const std::vector<size_t> sizes = {0, 1, 7, 8, 9, 31, 32, 33, 127, 128, 129, 1000};
  return sizes;
}

// EdgeSizes and 100k, for round trips cheap enough to run on large pages.
inline std::vector<size_t> EdgeSizesAndLarge() {
  std::vector<size_t> sizes = EdgeSizes();
  sizes.push_back(100000);
  return sizes;
}

}  // namespace floe::format::parquet::testing

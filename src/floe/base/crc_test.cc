#include "floe/base/crc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace floe {
namespace {

TEST(CrcTest, Crc32cCheckValues) {
  // RFC 3720 (iSCSI) B.4 test vectors and the catalogue check value for "123456789".
  EXPECT_EQ(Crc32c(0, "123456789", 9), 0xE3069283u);
  uint8_t zeros[32] = {};
  EXPECT_EQ(Crc32c(0, zeros, 32), 0x8A9136AAu);
  uint8_t ones[32];
  std::memset(ones, 0xFF, 32);
  EXPECT_EQ(Crc32c(0, ones, 32), 0x62A8AB43u);
  uint8_t inc[32];
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(Crc32c(0, inc, 32), 0x46DD794Eu);
  // Incremental equals one-shot.
  std::string s = "The quick brown fox jumps over the lazy dog";
  uint32_t part = Crc32c(0, s.data(), 10);
  EXPECT_EQ(Crc32c(part, s.data() + 10, s.size() - 10), Crc32c(0, s.data(), s.size()));
}

TEST(CrcTest, Crc32CheckValue) { EXPECT_EQ(Crc32(0, "123456789", 9), 0xCBF43926u); }

}  // namespace
}  // namespace floe

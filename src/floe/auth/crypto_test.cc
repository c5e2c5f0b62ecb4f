#include "floe/auth/crypto.h"

#include <string>

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::auth {
namespace {

TEST(Crypto, Sha256MatchesTheFipsExamples) {
  // FIPS 180-2, Appendix B.1 ("abc"), and the digest of the empty message.
  EXPECT_EQ(HexEncode(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HexEncode(Sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Crypto, HmacSha256MatchesRfc4231) {
  // RFC 4231 §4.3, test case 2.
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(Crypto, RandomBytesDiffer) {
  auto a = RandomBytes(32);
  auto b = RandomBytes(32);
  FLOE_ASSERT_OK(a);
  FLOE_ASSERT_OK(b);
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
}

TEST(Crypto, HexRoundTripAndErrors) {
  EXPECT_EQ(HexEncode(std::string("\x00\x7f\xff", 3)), "007fff");
  EXPECT_EQ(*HexDecode("007FfF"), std::string("\x00\x7f\xff", 3));
  EXPECT_FALSE(HexDecode("abc").ok());
  EXPECT_FALSE(HexDecode("zz").ok());
}

TEST(Crypto, Base64DecodesRfc4648ExamplesAndRefusesTheRest) {
  // RFC 4648 §10.
  EXPECT_EQ(*Base64Decode("Zm8="), "fo");
  EXPECT_EQ(*Base64Decode("Zm9v"), "foo");
  EXPECT_EQ(*Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(*Base64Decode("Zm9vYmFy"), "foobar");
  for (const char* bad : {"", "Zm9", "Zm=v", "Z===", "Zm9v\n", " Zm9v", "Zm9v====", "Zm-v"}) {
    EXPECT_FALSE(Base64Decode(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace floe::auth

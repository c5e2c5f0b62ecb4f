// SigV4 against AWS's published vectors: the Signature Version 4 test suite (credentials
// AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service "service") and the worked S3
// examples of the S3 API reference ("Signature Calculations for the Authorization Header",
// examplebucket, 2013-05-24).
#include "floe/io/s3/sigv4.h"

#include <gtest/gtest.h>

namespace floe::io::s3 {
namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

const AwsCredentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                       ""};
const SigningScope kSuiteScope{"20150830T123600Z", "us-east-1", "service"};

SigningRequest SuiteGet(std::vector<std::pair<std::string, std::string>> query) {
  SigningRequest r;
  r.method = "GET";
  r.path = "/";
  r.query = std::move(query);
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  r.payload_hash = kEmptySha256;
  return r;
}

std::string SignatureOf(const AwsCredentials& creds, const SigningScope& scope,
                        const SigningRequest& r) {
  return Signature(creds.secret_access_key, scope, StringToSign(scope, CanonicalRequest(r)));
}

TEST(SigV4Suite, GetVanilla) {
  SigningRequest r = SuiteGet({});
  EXPECT_EQ(CanonicalRequest(r),
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" +
                std::string(kEmptySha256));
  EXPECT_EQ(StringToSign(kSuiteScope, CanonicalRequest(r)),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(AuthorizationHeader(kSuiteCredentials, kSuiteScope, r),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Suite, QueryParameters) {
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> query;
    const char* signature;
  };
  const Case cases[] = {
      {"get-vanilla-query",
       {{"Param1", "value1"}},
       "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
      {"get-vanilla-query-order-key-case",
       {{"Param2", "value2"}, {"Param1", "value1"}},
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"get-vanilla-query-order-key",
       {{"Param1", "value2"}, {"Param1", "value1"}},
       "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"},
      {"get-vanilla-query-order-value",
       {{"Param1", "value2"}, {"Param1", "Value1"}},
       "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SignatureOf(kSuiteCredentials, kSuiteScope, SuiteGet(c.query)), c.signature)
        << c.name;
  }
  EXPECT_EQ(CanonicalRequest(SuiteGet({{"Param1", "value2"}, {"Param1", "Value1"}})).substr(0, 34),
            "GET\n/\nParam1=Value1&Param1=value2\n");
}

TEST(SigV4Suite, GetUnreserved) {
  SigningRequest r = SuiteGet({});
  r.path = "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  EXPECT_EQ(UriEncode(r.path, true), r.path);
  EXPECT_EQ(SignatureOf(kSuiteCredentials, kSuiteScope, r),
            "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
}

TEST(SigV4Suite, HeaderValueTrim) {
  SigningRequest r = SuiteGet({});
  r.headers = {{"Host", "example.amazonaws.com"},
               {"My-Header1", " value1"},
               {"My-Header2", " \"a   b   c\""},
               {"X-Amz-Date", "20150830T123600Z"}};
  EXPECT_NE(CanonicalRequest(r).find("my-header1:value1\nmy-header2:\"a b c\"\n"),
            std::string::npos);
  EXPECT_EQ(SignatureOf(kSuiteCredentials, kSuiteScope, r),
            "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
}

TEST(SigV4Suite, PostXWwwFormUrlencoded) {
  SigningRequest r;
  r.method = "POST";
  r.path = "/";
  r.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
               {"Host", "example.amazonaws.com"},
               {"X-Amz-Date", "20150830T123600Z"}};
  r.payload_hash = Sha256Hex("Param1=value1");
  EXPECT_EQ(r.payload_hash, "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  EXPECT_EQ(AuthorizationHeader(kSuiteCredentials, kSuiteScope, r),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date, "
            "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
}

const AwsCredentials kS3DocCredentials{"AKIAIOSFODNN7EXAMPLE",
                                       "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const SigningScope kS3DocScope{"20130524T000000Z", "us-east-1", "s3"};

SigningRequest S3DocRequest(std::string method, std::string path,
                            std::vector<std::pair<std::string, std::string>> query,
                            std::string payload_hash) {
  SigningRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(query);
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-date", "20130524T000000Z"},
               {"x-amz-content-sha256", payload_hash}};
  r.payload_hash = std::move(payload_hash);
  return r;
}

TEST(SigV4S3Examples, GetObject) {
  SigningRequest r = S3DocRequest("GET", "/test.txt", {}, kEmptySha256);
  r.headers.emplace_back("Range", "bytes=0-9");
  EXPECT_EQ(Sha256Hex(CanonicalRequest(r)),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(AuthorizationHeader(kS3DocCredentials, kS3DocScope, r),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4S3Examples, PutObject) {
  std::string payload = Sha256Hex("Welcome to Amazon S3.");
  EXPECT_EQ(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  SigningRequest r = S3DocRequest("PUT", "/" + UriEncode("test$file.text", true), {}, payload);
  EXPECT_EQ(r.path, "/test%24file.text");
  r.headers.emplace_back("Date", "Fri, 24 May 2013 00:00:00 GMT");
  r.headers.emplace_back("x-amz-storage-class", "REDUCED_REDUNDANCY");
  EXPECT_EQ(Sha256Hex(CanonicalRequest(r)),
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(SignatureOf(kS3DocCredentials, kS3DocScope, r),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4S3Examples, BucketLifecycleAndListObjects) {
  EXPECT_EQ(SignatureOf(kS3DocCredentials, kS3DocScope,
                        S3DocRequest("GET", "/", {{"lifecycle", ""}}, kEmptySha256)),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  // Parameters given out of order: the canonical query sorts them.
  EXPECT_EQ(
      SignatureOf(kS3DocCredentials, kS3DocScope,
                  S3DocRequest("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, kEmptySha256)),
      "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, UriEncode) {
  EXPECT_EQ(UriEncode("a b/c+d~é", true), "a%20b/c%2Bd~%C3%A9");
  EXPECT_EQ(UriEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("", true), "");
}

TEST(SigV4, AmzDateAndDigests) {
  EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z");
  EXPECT_EQ(AmzDate(0), "19700101T000000Z");
  EXPECT_EQ(Sha256Hex(""), kEmptySha256);
  // RFC 1321 test suite.
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

TEST(SigV4, SessionTokenIsSignedLikeAnyHeader) {
  SigningRequest r = SuiteGet({});
  std::string without = SignatureOf(kSuiteCredentials, kSuiteScope, r);
  r.headers.emplace_back("X-Amz-Security-Token", "token");
  EXPECT_EQ(SignedHeaderNames(r), "host;x-amz-date;x-amz-security-token");
  EXPECT_NE(SignatureOf(kSuiteCredentials, kSuiteScope, r), without);
}

}  // namespace
}  // namespace floe::io::s3

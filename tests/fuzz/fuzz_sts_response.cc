// Fuzzes the STS AssumeRole answer parser (io/s3/sts.h) that the REST catalog runs on what
// an STS endpoint returns: the first byte picks the HTTP status, the rest is the body. Any
// result is fine; a crash, a hang or a read out of bounds is not.
//
// Seeds: tests/fuzz/corpus/fuzz_sts_response/ (the STS API reference's AssumeRole response
// and an ErrorResponse).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/io/s3/sts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr int kStatuses[] = {200, 400, 403, 500, 503};
  const int status = kStatuses[data[0] % (sizeof(kStatuses) / sizeof(kStatuses[0]))];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto parsed = floe::io::s3::ParseAssumeRoleResponse(status, body);
  if (parsed.has_value() && parsed->credentials.session_token.empty()) __builtin_trap();
  return 0;
}

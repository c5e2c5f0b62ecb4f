// Every StatusCode's Confluent error code, as Confluent's Schema Registry answers them
// (io.confluent.kafka.schemaregistry.rest.exceptions.Errors): 40401 / 40402 / 40403 for the
// route's missing object, 409 an incompatible schema, 42201 an invalid schema, 50001 its
// store's failures; 50701 (HTTP 507) is floe's for a full disk, as the REST catalog answers.
#include "floe/ingest/registry_errors.h"

#include <gtest/gtest.h>

#include <iterator>

namespace floe::ingest {
namespace {

TEST(RegistryErrors, EveryStatusCodeHasItsErrorCode) {
  struct Case {
    StatusCode code;
    int error_code;
  };
  const Case cases[] = {
      {StatusCode::kOk, 50001},
      {StatusCode::kInvalidArgument, 42201},
      {StatusCode::kNotFound, 40402},  // the route's: a version here
      {StatusCode::kAlreadyExists, 50001},
      {StatusCode::kFailedPrecondition, 50001},
      {StatusCode::kConflict, 409},
      {StatusCode::kUnavailable, 50001},
      {StatusCode::kDeadlineExceeded, 50001},
      {StatusCode::kUnauthenticated, 50001},
      {StatusCode::kPermissionDenied, 50001},
      {StatusCode::kCorrupt, 50001},
      {StatusCode::kUnimplemented, 50001},
      {StatusCode::kIOError, 50001},
      {StatusCode::kResourceExhausted, 50701},
      {StatusCode::kInternal, 50001},
  };
  ASSERT_EQ(std::size(cases), std::size(kAllStatusCodes));
  for (size_t i = 0; i < std::size(cases); ++i) {
    ASSERT_EQ(cases[i].code, kAllStatusCodes[i]);
    EXPECT_EQ(RegistryErrorFor(cases[i].code, 40402), cases[i].error_code)
        << StatusCodeName(cases[i].code);
  }
  EXPECT_EQ(RegistryErrorFor(StatusCode::kNotFound, 40401), 40401);
  EXPECT_EQ(RegistryErrorFor(StatusCode::kNotFound, 40403), 40403);
}

TEST(RegistryErrors, HttpStatusIsTheCodesFirstThreeDigits) {
  EXPECT_EQ(RegistryHttpStatus(40401), 404);
  EXPECT_EQ(RegistryHttpStatus(40101), 401);
  EXPECT_EQ(RegistryHttpStatus(42201), 422);
  EXPECT_EQ(RegistryHttpStatus(42901), 429);
  EXPECT_EQ(RegistryHttpStatus(50001), 500);
  EXPECT_EQ(RegistryHttpStatus(50701), 507);
  EXPECT_EQ(RegistryHttpStatus(409), 409);
}

}  // namespace
}  // namespace floe::ingest

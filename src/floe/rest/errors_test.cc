// The HTTP status and error type of every StatusCode, as Iceberg's REST spec and Java client
// name them (ErrorHandlers: 400 BadRequest, 401 NotAuthorized, 403 Forbidden, 404 NotFound,
// 406 UnsupportedOperation, 409 AlreadyExists / CommitFailed, 503 ServiceUnavailable, 5xx
// ServerError), and that a client never sees a 500 for its own mistake.
#include "floe/rest/errors.h"

#include <gtest/gtest.h>

#include <iterator>

#include <nlohmann/json.hpp>

namespace floe::rest {
namespace {

TEST(RestErrors, EveryStatusCodeHasItsHttpError) {
  struct Case {
    StatusCode code;
    int status;
    std::string_view type;
  };
  const Case cases[] = {
      {StatusCode::kOk, 500, "ServerErrorException"},  // no error: answering it is a bug
      {StatusCode::kInvalidArgument, 400, "BadRequestException"},
      {StatusCode::kNotFound, 404, "NotFoundException"},
      {StatusCode::kAlreadyExists, 409, "AlreadyExistsException"},
      {StatusCode::kFailedPrecondition, 409, "ConflictException"},
      {StatusCode::kConflict, 409, "CommitFailedException"},
      {StatusCode::kUnavailable, 503, "ServiceUnavailableException"},
      {StatusCode::kDeadlineExceeded, 503, "ServiceUnavailableException"},
      {StatusCode::kUnauthenticated, 401, "NotAuthorizedException"},
      {StatusCode::kPermissionDenied, 403, "ForbiddenException"},
      {StatusCode::kCorrupt, 500, "ServerErrorException"},
      {StatusCode::kUnimplemented, 406, "UnsupportedOperationException"},
      {StatusCode::kIOError, 500, "ServerErrorException"},
      {StatusCode::kResourceExhausted, 507, "InsufficientStorageException"},
      {StatusCode::kInternal, 500, "ServerErrorException"},
  };
  // One case per code, in kAllStatusCodes's order: a code added to StatusCode must be added
  // here.
  ASSERT_EQ(std::size(cases), std::size(kAllStatusCodes));
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    ASSERT_EQ(c.code, kAllStatusCodes[i]);
    HttpError e = HttpErrorFor(c.code);
    EXPECT_EQ(e.status, c.status) << StatusCodeName(c.code);
    EXPECT_EQ(e.type, c.type) << StatusCodeName(c.code);
    if (c.code == StatusCode::kOk) continue;  // an OK Status carries no message
    http::HttpResponse response = ErrorFromStatus(Status(c.code, "what happened"));
    EXPECT_EQ(response.status, c.status);
    nlohmann::json body = nlohmann::json::parse(response.body);
    EXPECT_EQ(body["error"]["code"], c.status);
    EXPECT_EQ(body["error"]["type"], c.type);
    EXPECT_EQ(body["error"]["message"], "what happened");
  }
}

TEST(RestErrors, WrongJsonTypesAreABadRequestWithoutLibraryText) {
  http::HttpResponse response = BadJsonTypeResponse();
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(response.body.find("json.exception"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["type"], "BadRequestException");
}

}  // namespace
}  // namespace floe::rest

#include "floe/rest/errors.h"

#include "floe/rest/rest_catalog_service.h"

namespace floe::rest {

HttpError HttpErrorFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return {400, "BadRequestException"};
    case StatusCode::kNotFound: return {404, "NotFoundException"};
    case StatusCode::kAlreadyExists: return {409, "AlreadyExistsException"};
    case StatusCode::kFailedPrecondition: return {409, "ConflictException"};
    case StatusCode::kConflict: return {409, "CommitFailedException"};
    case StatusCode::kUnavailable: return {503, "ServiceUnavailableException"};
    case StatusCode::kDeadlineExceeded: return {503, "ServiceUnavailableException"};
    case StatusCode::kUnauthenticated: return {401, "NotAuthorizedException"};
    case StatusCode::kPermissionDenied: return {403, "ForbiddenException"};
    case StatusCode::kUnimplemented: return {406, "UnsupportedOperationException"};
    // RFC 4918 §11.5: the server cannot store what the request needs; nothing was stored,
    // and the request may succeed once space is freed.
    case StatusCode::kResourceExhausted: return {507, "InsufficientStorageException"};
    case StatusCode::kCorrupt:
    case StatusCode::kIOError:
    case StatusCode::kInternal:
    case StatusCode::kOk: return {500, "ServerErrorException"};
  }
  return {500, "ServerErrorException"};
}

http::HttpResponse ErrorFromStatus(const Status& status) {
  HttpError e = HttpErrorFor(status.code());
  return ErrorResponse(e.status, e.type, status.message());
}

http::HttpResponse BadJsonTypeResponse() {
  return ErrorResponse(400, "BadRequestException",
                       "malformed request: a field has the wrong JSON type or is missing");
}

}  // namespace floe::rest

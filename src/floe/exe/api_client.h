// The CLI's calls of floe server's management API (/api/v1): `floe status`, `floe table
// health`, `floe optimize --server`, `floe optimizer`, `floe group` share them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"
#include "floe/http/http_client.h"

namespace floe::exe {

// Sends `method` `server`/api/v1`path` with a bearer `token` (when not empty), a JSON `body`
// (when not empty) and `headers`. Transport errors are the Status; an HTTP error answer is
// the response, for the caller to judge (ApiError).
Result<http::ClientResponse> SendApiRequest(
    http::HttpClient& client, std::string_view server, std::string_view token,
    std::string_view method, std::string_view path, std::string body = {},
    std::vector<std::pair<std::string, std::string>> headers = {});

// An error answer as a Status: "<what>: the server answered <status>[: <error.message>]",
// 400 kInvalidArgument, 401 kUnauthenticated, 403 kPermissionDenied, 404 kNotFound,
// 409 kFailedPrecondition, others kIOError.
Status ApiError(const http::ClientResponse& response, std::string_view what);

}  // namespace floe::exe

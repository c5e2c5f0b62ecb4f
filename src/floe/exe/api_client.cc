#include "floe/exe/api_client.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"

namespace floe::exe {

Result<http::ClientResponse> SendApiRequest(
    http::HttpClient& client, std::string_view server, std::string_view token,
    std::string_view method, std::string_view path, std::string body,
    std::vector<std::pair<std::string, std::string>> headers) {
  http::ClientRequest request;
  request.method = std::string(method);
  while (server.ends_with('/')) server.remove_suffix(1);
  request.url = fmt::format("{}/api/v1{}", server, path);
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  if (!token.empty())
    request.headers.emplace_back("Authorization", fmt::format("Bearer {}", token));
  for (auto& header : headers) request.headers.push_back(std::move(header));
  request.body = std::move(body);
  return client.Send(request);
}

Status ApiError(const http::ClientResponse& response, std::string_view what) {
  std::string message = fmt::format("{}: the server answered {}", what, response.status);
  const nlohmann::json body = ParseJson(response.body).value_or(nlohmann::json());
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    message += ": " + body["error"].value("message", std::string());
  }
  switch (response.status) {
    case 400: return Status::InvalidArgument("{}", message);
    case 401: return Status::Unauthenticated("{}", message);
    case 403: return Status::PermissionDenied("{}", message);
    case 404: return Status::NotFound("{}", message);
    case 409: return Status::FailedPrecondition("{}", message);
    default: return Status::IOError("{}", message);
  }
}

}  // namespace floe::exe

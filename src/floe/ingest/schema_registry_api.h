// The Confluent Schema Registry REST API subset over SchemaRegistry (docs/table-topics.md,
// "Schema registry"): what the serializers of confluent-kafka, the Java client and kafkajs
// call, plus the listing, delete, config and compatibility routes tools use. Errors are
// Confluent's bodies, {"error_code": 40401, "message": "..."}, with HTTP status
// error_code / 100 (409 for incompatible schemas, whose error_code is 409 too).
//
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <span>

#include "floe/http/http.h"
#include "floe/http/route_table.h"
#include "floe/ingest/schema_registry.h"

namespace floe::ingest {

class SchemaRegistryApi {
 public:
  // REQUIRES: `registry` outlives the API.
  explicit SchemaRegistryApi(SchemaRegistry* registry) : registry_(registry) {}

  http::HttpResponse Handle(const http::HttpRequest& request) const;

  // Whether a request may change the registry (what needs write access with auth on): its
  // route's access (Routes). Requests no route answers write unless they are GET, HEAD,
  // OPTIONS or a POST under /compatibility.
  static bool Writes(const http::HttpRequest& request);

  // The routes (Confluent's paths, relative to the registry's root) with the access each
  // needs: reads are the GETs and the two POSTs that only read, a schema lookup
  // (POST /subjects/{subject}) and a compatibility test (POST /compatibility/...).
  static std::span<const http::RouteInfo> Routes();

  // An error in the registry's form ({"error_code", "message"}, the HTTP status being
  // error_code / 100 for Confluent's five-digit codes: 40101, 40301, 42901, ...).
  static http::HttpResponse ErrorResponse(int error_code, std::string_view message);

 private:
  http::HttpResponse Route(const http::HttpRequest& request) const;  // Handle, unguarded

  SchemaRegistry* registry_;
};

}  // namespace floe::ingest

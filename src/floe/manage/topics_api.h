// The topics part of the management API (docs/management-api.md, "Topics"): the Kafka
// topics of the server with their table-topic translation state, one topic's details, and
// a sample of its newest records.
//
//   GET /api/v1/topics                         list (page-size, page-token, sort, q,
//                                              table-topic=true|false)
//   GET /api/v1/topics/{topic}                 details (configs, partitions)
//   GET /api/v1/topics/{topic}/records?limit=N newest records from the log (1..500, 20)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "floe/base/status.h"
#include "floe/http/http.h"
#include "floe/ingest/ingest_service.h"

namespace floe::manage {

// The routes' answers (ManagementApi::Table). `ingest` is null when the Kafka endpoint is
// off: the list is then empty and a topic is not found.
Result<http::HttpResponse> TopicList(ingest::IngestService* ingest,
                                     const std::vector<std::pair<std::string, std::string>>& query,
                                     int64_t now_ms);
Result<http::HttpResponse> TopicDetails(ingest::IngestService* ingest, const std::string& name,
                                        int64_t now_ms);
Result<http::HttpResponse> TopicRecords(
    ingest::IngestService* ingest, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& query);

// The 405 of every other method under /api/v1/topics (whatever the path).
http::HttpResponse TopicsMethodNotAllowed(const std::string& method);

}  // namespace floe::manage

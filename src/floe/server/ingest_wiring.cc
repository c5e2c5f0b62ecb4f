// The table topics' service of `floe server`: translators reading the broker through the
// Kafka listener's thread, committing to the configured catalog, and telling the optimizer
// about every commit (docs/table-topics.md).
#include <cstdio>

#include "floe/server/server.h"

namespace floe::server {

Result<std::unique_ptr<ingest::IngestService>> StartIngest(
    const ServerConfig& config, std::shared_ptr<catalog::CatalogRegistry> registry,
    kafka::KafkaServer* kafka, optimize::OptimizingService* optimizer,
    const ingest::SchemaRegistry* schemas, ingest::KeyIndexStore* key_index, Executor* executor) {
  ingest::IngestServiceOptions options;
  options.executor = executor;
  options.catalog =
      config.kafka.table_catalog.empty() ? config.default_catalog : config.kafka.table_catalog;
  options.translator.default_namespace = config.kafka.table_namespace;
  options.translator.now_ms = config.now_ms;
  // Committing at half the throttle bound keeps a translator that keeps up from ever
  // throttling its producers, whatever the commit interval.
  const int64_t bound = config.kafka.lag_throttle_bytes > 0 ? config.kafka.lag_throttle_bytes
                                                            : config.kafka.lag_limit_bytes;
  options.translator.commit_backlog_bytes = bound > 0 ? bound / 2 : 0;
  options.translator.schema_registry = schemas;
  options.translator.key_index = key_index;
  if (optimizer != nullptr) {
    options.translator.on_table_changed =
        [optimizer, catalog = options.catalog](const catalog::TableIdentifier& id) {
          optimizer->NotifyTableChanged(catalog, id);
        };
  }
  options.log_error = [](const std::string& topic, const Status& status) {
    std::fprintf(stderr, "table topic %s: %s\n", topic.c_str(), status.ToString().c_str());
  };
  return ingest::IngestService::Start(
      std::move(registry),
      [kafka](const std::function<void(kafka::Broker&)>& fn) { return kafka->Call(fn); },
      std::move(options));
}

}  // namespace floe::server

// floe.yaml: the server's configuration file. Every key has a default (ServerConfig);
// environment variables override the file and command-line flags override both (exe/).
//
//   data-dir: ./floe-data                 # embedded metastore and default warehouse
//   metastore: postgresql://u:p@h/floe     # default sqlite:<data-dir>/floe.db
//   default-catalog: default               # REST routes without a prefix
//   warehouse: /data/warehouse             # the default catalog's, on first start
//   web-dir: /usr/share/floe/web           # the dashboard's files (default: beside the binary)
//   http:
//     host: 127.0.0.1
//     port: 8181
//     workers: 0                           # 0 = 4 per core
//     max-request-bytes: 16777216
//     access-log: "-"                      # "-" stderr, a path, or "none"
//     tls:                                 # HTTPS (http/tls.h; also kafka.tls and
//       cert-file: /etc/floe/server.pem    #   kafka.schema-registry.tls): the chain,
//       key-file: /etc/floe/server.key     #   its key (key-password if encrypted),
//       ca-file: /etc/floe/clients-ca.pem  #   CAs of client certificates and
//       client-auth: required              #   none | requested | required (mutual TLS)
//   optimizer:                             # self-optimizing (docs/optimizer-groups.md)
//     enabled: true                        # false: no evaluation, groups or optimizers
//     threads: 1                           # the local group's in-process threads; 0 =
//                                          # only standalone `floe optimizer` processes
//     memory-mb: 0                         # the local group's memory, split over its
//                                          # threads (0: 1 GiB per task; self-optimizing.md)
//     heartbeat-timeout-ms: 60000          # task protocol timeouts (Amoro's defaults
//     ack-timeout-ms: 30000                #   for heart-beat and task-ack; execute as
//     execute-timeout-ms: 3600000          #   Amoro's shipped config.yaml)
//     refresh-interval-ms: 60000           # every table looked at this often
//   history:                               # the overview's charts (docs/dashboard.md)
//     server-id: floe-1                    # this server's series (default host:http-port)
//     interval-ms: 60000                   # a sample of the totals this often
//     retention-ms: 604800000              # kept 7 days
//     max-samples: 20000                   # and at most this many rows
//   catalogs:                              # created or updated in the metastore at start
//     lake:                                # internal: pointers in the metastore
//       warehouse: /data/lake
//     legacy:                              # attach an Iceberg JDBC/SQL catalog
//       kind: sql
//       uri: postgresql://u:p@h/iceberg
//       warehouse: /data/legacy
//       properties: {catalog-name: prod}
//   kafka:                                 # the Kafka endpoint (docs/kafka.md)
//     enabled: true
//     host: 127.0.0.1
//     port: 9092                           # FLOE_KAFKA_PORT; 0 = any free port
//     advertised-host: kafka.example.com   # default: host
//     fsync: batch                         # or interval (flush-interval-ms)
//     num-partitions: 1                    # for auto-created topics
//     retention-ms: 604800000
//     table-catalog: lake                  # where table topics' tables go (default:
//                                          #   default-catalog)
//     table-namespace: kafka               # for topics without floe.table.topic.namespace
//     translator-threads: 0                # the table topics' rounds; 0 = one per core
//     key-index:                           # keyed topics in position mode (table-topics.md)
//       dir: /var/lib/floe/key-index       # default <data-dir>/key-index
//       memory-bytes: 268435456            # RocksDB's block cache and memtables, in all
//     lag-throttle-bytes: 268435456        # table topics: throttle produces past this
//     lag-limit-bytes: 1073741824          #   backlog and hold them past this one
//     schema-registry:                     # Confluent-compatible (docs/table-topics.md)
//       enabled: true                      # on whenever kafka is
//       host: 127.0.0.1
//       port: 8081                         # FLOE_SCHEMA_REGISTRY_PORT; 0 = any free port
//   auth:                                  # off by default (a server on loopback)
//     enabled: true                        # FLOE_AUTH_ENABLED
//     token-lifetime-seconds: 3600
//     token-key-file: /etc/floe/token.key  # default <data-dir>/auth-token.key
//     principals:                          # name = OAuth2 client_id
//       spark-etl:
//         secret-sha256: 9f86d081884c7d65...  # sha256 of the client secret, 64 hex digits
//         catalogs: {default: write, lake: read}
//       dashboards:
//         tokens-sha256: [2c26b46b68ffc68f...]  # static bearer tokens, hashed
//         catalogs: {"*": read}
//
// Unknown keys are errors, so a typo does not silently fall back to a default.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/server/server.h"

namespace floe::server {

// Parses YAML text into `config` (keys absent from the text keep their values).
// kInvalidArgument naming the key for bad YAML, unknown keys and wrong value types.
Status ParseServerConfig(std::string_view yaml_text, ServerConfig* config);
// Reads and parses a file (kNotFound / kIOError for the file).
Status LoadServerConfig(const std::string& path, ServerConfig* config);

// FLOE_DATA_DIR, FLOE_METASTORE, FLOE_HTTP_HOST, FLOE_HTTP_PORT, FLOE_KAFKA_PORT,
// FLOE_SCHEMA_REGISTRY_PORT, FLOE_ACCESS_LOG,
// FLOE_AUTH_ENABLED, FLOE_WEB_DIR.
// `getenv` is injected for tests.
Status ApplyServerEnvironment(const std::function<const char*(const char*)>& getenv,
                              ServerConfig* config);

}  // namespace floe::server

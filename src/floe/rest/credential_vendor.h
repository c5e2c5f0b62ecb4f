// CredentialVendor: what the REST catalog tells clients about storage. Per catalog (its
// properties, set in floe.yaml or through the management API):
//   - the storage settings clients need to reach the warehouse (s3.endpoint, s3.region /
//     client.region, s3.path-style-access, and `client-config.<key>` entries returned as
//     <key>) in /v1/config `defaults`; in load / create / register `config` (which overrides
//     the client's own settings) the `client-config.` entries, and with vended credentials
//     all of them; never the server's keys;
//   - on `X-Iceberg-Access-Delegation: vended-credentials`, short-lived credentials scoped to
//     the table, when its locations lie under `vended-credentials.allowed-locations`
//     (default: the catalog's warehouse): STS AssumeRole of `vended-credentials.role-arn` (with
//     `vended-credentials.external-id`) and a session policy allowing the table's locations
//     only, read-only for principals that may only read the catalog; or, where the operator
//     opts in with `vended-credentials.static-keys: true` and names no role, the server's
//     own keys. Returned as `storage-credentials` [{prefix, config}] (REST OpenAPI
//     StorageCredential) and in `config` for older clients, with
//     `client.refresh-credentials-endpoint` (Iceberg Java's AwsClientProperties) pointing at
//     the table's /credentials route (LoadCredentialsResponse).
// Credentials are cached per (catalog, locations, access, role) and handed out again while
// more than half of their lifetime is left.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/s3/sts.h"

namespace floe::rest {

// What a principal may do with a table's files.
enum class StorageAccess { kRead, kReadWrite };

struct StorageCredential {
  std::string prefix;
  std::map<std::string, std::string> config;
};

// The `config` and `storage-credentials` of a LoadTableResult.
struct TableStorage {
  std::map<std::string, std::string> config;
  std::vector<StorageCredential> credentials;
};

struct TableStorageRequest {
  std::string catalog;
  // The table's location first, then other places its files go (write.data.path,
  // write.metadata.path); see StorageLocations.
  std::vector<std::string> locations;
  StorageAccess access = StorageAccess::kRead;
  // The request carried X-Iceberg-Access-Delegation with vended-credentials.
  bool vended = false;
  // The table's /credentials route ("/v1/.../credentials"); clients get it relative to the
  // catalog URI, without the leading '/' ("v1/.../credentials").
  std::string refresh_endpoint;
};

struct CredentialVendorOptions {
  // A catalog's properties; nullopt for an unknown catalog.
  std::function<std::optional<std::map<std::string, std::string>>(const std::string&)>
      catalog_properties;
  // A catalog's warehouse: the default of vended-credentials.allowed-locations.
  std::function<std::string(const std::string&)> catalog_warehouse;
  // The storage settings clients of a catalog need (s3.endpoint, s3.region, client.region,
  // s3.path-style-access; never keys); null: none.
  std::function<std::map<std::string, std::string>(const std::string&)> client_settings;
  // The server's environment (AWS_* variables), as for the catalogs' FileIO; may be null.
  std::function<const char*(const char*)> getenv;
  // Injected for tests; defaults: one HTTP request per STS call, the system clock.
  io::s3::StsTransport sts_transport;
  std::function<std::chrono::system_clock::time_point()> now;
  size_t max_cached = 10'000;
};

class CredentialVendor {
 public:
  explicit CredentialVendor(CredentialVendorOptions options);

  // The storage settings every client of `catalog` gets (/v1/config `defaults`).
  std::map<std::string, std::string> ClientConfig(const std::string& catalog) const;

  // A load / create / register answer's `config` and `storage-credentials`. Credentials only
  // when `request.vended`, the table is on S3 and the catalog vends (a role, or static keys
  // opted in) and the table's locations are allowed (whoever may create or register tables
  // must not obtain credentials for any place the role reaches); otherwise the client
  // brings its own keys. Errors: the STS call's (kPermissionDenied, kUnavailable,
  // kInvalidArgument for a bad setting, kCorrupt).
  Result<TableStorage> ForTable(const TableStorageRequest& request);

  // GET .../credentials: fresh credentials for the table (empty for a table off S3).
  // Errors: kFailedPrecondition when the catalog does not vend or the table lies outside
  // its allowed locations; as ForTable.
  Result<std::vector<StorageCredential>> Credentials(const TableStorageRequest& request);

 private:
  struct Vended {
    io::s3::AwsCredentials credentials;
    std::optional<int64_t> expires_at_ms;  // none for static keys
  };
  // nullopt: the catalog does not vend.
  Result<std::optional<Vended>> Vend(const TableStorageRequest& request,
                                     const std::map<std::string, std::string>& properties);
  // kFailedPrecondition when a location lies outside vended-credentials.allowed-locations.
  Status CheckAllowed(const TableStorageRequest& request,
                      const std::map<std::string, std::string>& properties) const;
  int64_t NowMs() const;

  CredentialVendorOptions options_;
  struct CacheEntry {
    io::s3::TemporaryCredentials credentials;
    int64_t duration_ms = 0;
  };
  std::mutex mu_;
  std::unordered_map<std::string, CacheEntry> cache_;  // guarded by mu_
};

// The places a table's files go: its location, then write.data.path and
// write.metadata.path when set elsewhere.
std::vector<std::string> StorageLocations(const iceberg::TableMetadata& metadata);

// The IAM session policy for `locations` (s3:// or s3a://): objects under each location's
// prefix readable (and writable and deletable for kReadWrite), its bucket listable under
// that prefix only. `partition` is the ARN partition ("aws", "aws-cn", "aws-us-gov").
// Errors: kInvalidArgument (a location off S3).
Result<std::string> SessionPolicy(const std::vector<std::string>& locations, StorageAccess access,
                                  std::string_view partition);

// Whether an X-Iceberg-Access-Delegation value asks for vended credentials (a
// comma-separated list, REST OpenAPI parameter `data-access`).
bool WantsVendedCredentials(std::string_view header);

}  // namespace floe::rest

// RestCatalog: the Catalog as a client of an Iceberg REST catalog server
// (open-api/rest-catalog-open-api.yaml; reference notes in iceberg.md §2). The server keeps
// the pointers and writes metadata files; floe sends the REST commit model
// (CommitTableRequest: requirements + updates) and reads LoadTableResults. Data files go
// through the catalog's FileIO (LocalFileIO unless the options give one).
//
// URI: rest:http://host:port[/base][?key=value&...] (or rest:https://...). Query parameters
// are client properties, merged as Java's RESTSessionCatalog does: the server's /v1/config
// `defaults`, then these, then its `overrides`. Properties floe reads:
//   warehouse        sent to /v1/config (default: CatalogOptions::name)
//   token            static bearer token (else env FLOE_REST_TOKEN)
//   credential       client_id:secret, exchanged for a token with the client_credentials
//                    grant at oauth2-server-uri (default <base>/v1/oauth/tokens), scope
//                    `scope` (default "catalog") (else env FLOE_REST_CREDENTIAL)
//   prefix           the {prefix} of every route (normally from the server's overrides)
//   namespace-separator  between namespace levels in paths (default %1F)
//   rest-page-size   sent as pageSize when listing; pages are followed to the end
//   header.NAME      an extra request header
// `endpoints` from /v1/config are honoured: a route the server does not list is
// kUnimplemented, and exists checks fall back from HEAD to GET.
//
// Errors: the REST error model mapped to Status (RestError below), transport errors of
// http::HttpClient. A commit answered 500/502/503/504, or lost in transport after sending, has an
// unknown outcome: kUnavailable / kDeadlineExceeded, and callers must not delete its files.
//
// Thread-safety: not thread-safe (one HTTP connection); the TableOperations it hands out
// share it. REQUIRES: the catalog outlives them.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "floe/catalog/catalog.h"
#include "floe/http/http.h"
#include "floe/http/http_client.h"

namespace floe::catalog {

class RestCatalog final : public Catalog {
 public:
  // Parses `uri` (rest:...), fetches /v1/config (after the token exchange when a credential
  // is given). Errors: kInvalidArgument (URI), the server's and the transport's.
  static Result<std::unique_ptr<RestCatalog>> Open(std::string_view uri, CatalogOptions options);

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return *io_; }
  // The remote server decides where its tables go; this policy (CatalogOptions::
  // allowed_locations only: options.warehouse is the server's name) bounds what floe itself
  // deletes there (orphan cleanup).
  const LocationPolicy& location_policy() const override { return policy_; }
  iceberg::CommitEnvironment& env() override { return *env_; }
  // The merged properties (defaults, client properties, overrides).
  const Properties& properties() const { return properties_; }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Result<NamespacePropertiesUpdate> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates) override;
  Status DropNamespace(const Namespace& ns) override;

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  // The server assigns the location when the request has none.
  Result<iceberg::TableMetadataPtr> CreateTable(const TableIdentifier& id,
                                                const CreateTableRequest& request) override;
  Result<std::unique_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& id) override;
  Result<bool> TableExists(const TableIdentifier& id) override;
  // The server purges (purgeRequested=true).
  Status DropTable(const TableIdentifier& id, bool purge) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Result<iceberg::TableMetadataPtr> RegisterTable(const TableIdentifier& id,
                                                  std::string_view metadata_location,
                                                  bool overwrite = false) override;
  // The namespace's `location` property + "/<table>"; kUnimplemented when it has none (the
  // server decides).
  Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;

  // What a REST answer is for, where the error model differs: commits (409 = kConflict, 5xx =
  // unknown outcome) and everything else.
  enum class ErrorContext { kDefault, kCommit };

 private:
  friend class RestTableOperations;

  RestCatalog(std::string base_url, CatalogOptions options, std::unique_ptr<http::HttpClient> http);

  // One REST call with the catalog's headers (a non-empty `body` is sent as JSON); 2xx and 304
  // are results, anything else RestError(context).
  Result<http::ClientResponse> Call(std::string_view method, const std::string& url,
                                    std::string body, ErrorContext context,
                                    const http::HttpHeaders& extra_headers = {});
  // The URL of route `path` below /v1/{prefix}/ ("namespaces/a%1Fb/tables/t").
  std::string Url(std::string_view path) const;
  // The path of a table: namespaces/<ns>/tables/<name>.
  std::string TablePath(const TableIdentifier& id) const;

  Status Authenticate(const Properties& client);
  Status FetchConfig(const Properties& client);
  // kUnimplemented unless the server lists "<method> <route>" (or sent no endpoints and the
  // route is one of the default set).
  Status Require(std::string_view method, std::string_view route) const;
  bool Supports(std::string_view method, std::string_view route) const;
  std::string NamespacePath(const Namespace& ns) const;

  std::string name_;
  std::string base_url_;  // scheme://host:port[/base], no trailing '/'
  std::unique_ptr<io::FileIO> io_;
  std::unique_ptr<iceberg::CommitEnvironment> env_;
  std::unique_ptr<http::HttpClient> http_;
  LocationPolicy policy_;
  Properties properties_;
  http::HttpHeaders headers_;  // Authorization, header.* properties
  std::string prefix_;         // "" or "<prefix>/"
  std::string separator_ = "%1F";
  std::string page_size_;
  std::set<std::string> endpoints_;  // empty: the default set
  bool endpoints_listed_ = false;
};

// The pieces below are exposed for tests.

// "rest:http://h:1/base?token=t" -> base URL "http://h:1/base" and properties (query
// parameters percent-decoded). kInvalidArgument for another scheme, no host, or a malformed
// query.
struct RestUri {
  std::string base_url;
  Properties properties;
};
Result<RestUri> ParseRestUri(std::string_view uri);

// A namespace in a path: each level percent-encoded, joined by `separator` (used verbatim:
// "%1F" by default, or the server's namespace-separator).
std::string EncodeNamespace(const Namespace& ns, std::string_view separator = "%1F");

// The Status of a non-2xx REST answer. The body's {"error": {message, type, code}} (or the
// OAuth {error, error_description}) gives the message "<type>: <message>". By type first:
// NamespaceNotEmptyException -> kFailedPrecondition, CommitFailedException -> kConflict,
// CommitStateUnknownException -> kUnavailable, NoSuch*Exception -> kNotFound,
// AlreadyExistsException -> kAlreadyExists; else by status: 400/422 kInvalidArgument,
// 401/419 kUnauthenticated, 403 kPermissionDenied, 404 kNotFound, 406 kUnimplemented,
// 409 kAlreadyExists (kConflict for a commit), 503/500/502 kUnavailable, 504
// kDeadlineExceeded; for a commit every 5xx says the commit state is unknown.
Status RestError(int http_status, std::string_view body, RestCatalog::ErrorContext context);

}  // namespace floe::catalog

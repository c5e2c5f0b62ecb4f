// CredentialVendor with a fake STS: what reaches STS (role, external id, duration, the
// session policy's actions per access), caching until half the lifetime is gone, static
// keys only when opted in, and a catalog that does not vend.
#include "floe/rest/credential_vendor.h"

#include <ctime>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/http/http.h"

namespace floe::rest {
namespace {

using Clock = std::chrono::system_clock;

constexpr char kResponse[] =
    "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>"
    "<Credentials><AccessKeyId>ASIAFAKE{}</AccessKeyId><SecretAccessKey>secret</SecretAccessKey>"
    "<SessionToken>token</SessionToken><Expiration>{}</Expiration></Credentials>"
    "</AssumeRoleResult></AssumeRoleResponse>";

struct Fixture {
  std::map<std::string, std::string> properties = {
      {"s3.endpoint", "http://store:9000"},
      {"s3.region", "eu-west-1"},
      {"s3.access-key-id", "SERVERKEY"},
      {"s3.secret-access-key", "SERVERSECRET"},
      {"vended-credentials.role-arn", "arn:aws:iam::123456789012:role/r"},
      {"vended-credentials.external-id", "ext"},
      {"vended-credentials.duration-seconds", "900"}};
  Clock::time_point now = Clock::time_point(std::chrono::seconds(1'800'000'000));
  std::vector<std::map<std::string, std::string>> calls;  // forms sent to STS
  std::unique_ptr<CredentialVendor> vendor;

  Fixture() {
    CredentialVendorOptions options;
    options.catalog_properties =
        [this](const std::string& name) -> std::optional<std::map<std::string, std::string>> {
      if (name != "lake") return std::nullopt;
      return properties;
    };
    // As the server states them (server.h, ClientStorageSettings).
    options.client_settings = [this](const std::string&) {
      return std::map<std::string, std::string>{{"s3.endpoint", properties["s3.endpoint"]},
                                                {"s3.region", properties["s3.region"]},
                                                {"client.region", properties["s3.region"]}};
    };
    options.catalog_warehouse = [](const std::string&) { return "s3://bucket/wh"; };
    options.now = [this] { return now; };
    options.sts_transport = [this](const http::ClientRequest& r) -> Result<http::ClientResponse> {
      std::map<std::string, std::string> form;
      auto query = http::ParseQuery(r.body);
      for (const auto& [k, v] : *query) form[k] = v;
      calls.push_back(form);
      // STS's lifetime: 900 s from now, second precision.
      int64_t expires =
          std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count() + 900;
      std::time_t t = static_cast<std::time_t>(expires);
      std::tm tm{};
      gmtime_r(&t, &tm);
      char stamp[32];
      std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
      http::ClientResponse response;
      response.status = 200;
      response.body = fmt::format(kResponse, calls.size(), stamp);
      return response;
    };
    vendor = std::make_unique<CredentialVendor>(std::move(options));
  }

  TableStorageRequest Request(StorageAccess access) const {
    return TableStorageRequest{"lake",
                               {"s3://bucket/wh/ns/t"},
                               access,
                               true,
                               "/v1/lake/namespaces/ns/tables/t/credentials"};
  }
};

std::set<std::string> Actions(const std::string& policy) {
  std::set<std::string> out;
  const nlohmann::json parsed = nlohmann::json::parse(policy);
  for (const auto& statement : parsed["Statement"]) {
    EXPECT_EQ(statement["Effect"], "Allow");
    for (const auto& action : statement["Action"]) out.insert(action.get<std::string>());
  }
  return out;
}

TEST(CredentialVendor, AssumesTheRoleWithAPolicyPerAccess) {
  Fixture f;
  auto storage = f.vendor->ForTable(f.Request(StorageAccess::kRead));
  ASSERT_TRUE(storage.has_value()) << storage.error().ToString();
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0]["Action"], "AssumeRole");
  EXPECT_EQ(f.calls[0]["RoleArn"], "arn:aws:iam::123456789012:role/r");
  EXPECT_EQ(f.calls[0]["ExternalId"], "ext");
  EXPECT_EQ(f.calls[0]["DurationSeconds"], "900");
  std::set<std::string> read = Actions(f.calls[0]["Policy"]);
  EXPECT_TRUE(read.contains("s3:GetObject"));
  EXPECT_TRUE(read.contains("s3:ListBucket"));
  EXPECT_FALSE(read.contains("s3:PutObject"));
  EXPECT_FALSE(read.contains("s3:DeleteObject"));

  ASSERT_EQ(storage->credentials.size(), 1u);
  const StorageCredential& c = storage->credentials[0];
  EXPECT_EQ(c.prefix, "s3://bucket/wh/ns/t");
  EXPECT_EQ(c.config.at("s3.access-key-id"), "ASIAFAKE1");
  EXPECT_EQ(c.config.at("s3.session-token"), "token");
  EXPECT_EQ(c.config.at("s3.session-token-expires-at-ms"), "1800000900000");
  // Relative to the catalog URI and without a leading '/', as Iceberg Java's HTTPClient
  // requires of a request path (and as Iceberg's own REST test server answers).
  EXPECT_EQ(c.config.at("client.refresh-credentials-endpoint"),
            "v1/lake/namespaces/ns/tables/t/credentials");
  EXPECT_EQ(storage->config.at("client.refresh-credentials-endpoint"),
            "v1/lake/namespaces/ns/tables/t/credentials");
  EXPECT_EQ(storage->config.at("s3.access-key-id"), "ASIAFAKE1");
  EXPECT_EQ(storage->config.at("s3.endpoint"), "http://store:9000");
  EXPECT_EQ(storage->config.at("client.region"), "eu-west-1");
  for (const auto& [k, v] : storage->config) EXPECT_NE(v, "SERVERSECRET") << k;

  auto write = f.vendor->ForTable(f.Request(StorageAccess::kReadWrite));
  ASSERT_TRUE(write.has_value());
  ASSERT_EQ(f.calls.size(), 2u);
  std::set<std::string> rw = Actions(f.calls[1]["Policy"]);
  EXPECT_TRUE(rw.contains("s3:PutObject"));
  EXPECT_TRUE(rw.contains("s3:DeleteObject"));
  EXPECT_EQ(write->credentials[0].config.at("s3.access-key-id"), "ASIAFAKE2");
}

TEST(CredentialVendor, CachesUntilHalfTheLifetimeIsGone) {
  Fixture f;
  ASSERT_TRUE(f.vendor->ForTable(f.Request(StorageAccess::kRead)).has_value());
  f.now += std::chrono::seconds(400);
  auto cached = f.vendor->Credentials(f.Request(StorageAccess::kRead));
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(f.calls.size(), 1u);
  EXPECT_EQ((*cached)[0].config.at("s3.access-key-id"), "ASIAFAKE1");
  f.now += std::chrono::seconds(100);  // 400 s left of 900
  auto fresh = f.vendor->Credentials(f.Request(StorageAccess::kRead));
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(f.calls.size(), 2u);
  EXPECT_EQ((*fresh)[0].config.at("s3.access-key-id"), "ASIAFAKE2");
}

TEST(CredentialVendor, WithoutARoleNothingOrStaticKeysWhenOptedIn) {
  Fixture f;
  f.properties.erase("vended-credentials.role-arn");
  auto storage = f.vendor->ForTable(f.Request(StorageAccess::kRead));
  ASSERT_TRUE(storage.has_value());
  EXPECT_TRUE(storage->credentials.empty());
  EXPECT_FALSE(storage->config.contains("s3.access-key-id"));
  auto refused = f.vendor->Credentials(f.Request(StorageAccess::kRead));
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.error().message().find("vended-credentials.role-arn"), std::string::npos);

  f.properties["vended-credentials.static-keys"] = "true";
  auto keys = f.vendor->ForTable(f.Request(StorageAccess::kRead));
  ASSERT_TRUE(keys.has_value());
  ASSERT_EQ(keys->credentials.size(), 1u);
  EXPECT_EQ(keys->credentials[0].config.at("s3.access-key-id"), "SERVERKEY");
  EXPECT_FALSE(keys->credentials[0].config.contains("client.refresh-credentials-endpoint"));
  EXPECT_TRUE(f.calls.empty());
}

TEST(CredentialVendor, ConfigWithoutDelegationAndBadSettings) {
  Fixture f;
  f.properties["client-config.s3.endpoint"] = "http://public:9000";
  TableStorageRequest plain = f.Request(StorageAccess::kRead);
  plain.vended = false;
  auto storage = f.vendor->ForTable(plain);
  ASSERT_TRUE(storage.has_value());
  EXPECT_EQ(storage->config,
            (std::map<std::string, std::string>{{"s3.endpoint", "http://public:9000"}}));
  EXPECT_EQ(f.vendor->ClientConfig("lake").at("s3.endpoint"), "http://public:9000");
  EXPECT_TRUE(f.calls.empty());

  // A table off S3 gets no credentials.
  TableStorageRequest local = f.Request(StorageAccess::kRead);
  local.locations = {"/data/wh/ns/t"};
  EXPECT_TRUE(f.vendor->ForTable(local)->credentials.empty());
  EXPECT_TRUE(f.vendor->Credentials(local)->empty());

  f.properties["vended-credentials.duration-seconds"] = "60";
  EXPECT_EQ(f.vendor->ForTable(f.Request(StorageAccess::kRead)).error().code(),
            StatusCode::kInvalidArgument);
}

TEST(CredentialVendor, OnlyForLocationsUnderTheAllowedOnes) {
  Fixture f;
  TableStorageRequest elsewhere = f.Request(StorageAccess::kReadWrite);
  elsewhere.locations = {"s3://other-bucket/secrets"};
  // Loads answer without credentials; the credentials route says why.
  auto load = f.vendor->ForTable(elsewhere);
  ASSERT_TRUE(load.has_value());
  EXPECT_TRUE(load->credentials.empty());
  EXPECT_FALSE(load->config.contains("s3.access-key-id"));
  auto refused = f.vendor->Credentials(elsewhere);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.error().message().find("allowed-locations"), std::string::npos);
  // A sibling whose name extends the warehouse's is outside it too.
  elsewhere.locations = {"s3://bucket/wh2/t"};
  EXPECT_FALSE(f.vendor->Credentials(elsewhere).has_value());
  // write.data.path elsewhere counts as well.
  elsewhere.locations = {"s3://bucket/wh/ns/t", "s3://bucket/shared"};
  EXPECT_FALSE(f.vendor->Credentials(elsewhere).has_value());
  EXPECT_TRUE(f.calls.empty());

  f.properties["vended-credentials.allowed-locations"] = "s3://bucket/wh, s3a://bucket/shared/";
  auto allowed = f.vendor->ForTable(elsewhere);
  ASSERT_TRUE(allowed.has_value());
  EXPECT_EQ(allowed->credentials.size(), 2u);
  EXPECT_EQ(f.calls.size(), 1u);
}

TEST(CredentialVendor, DelegationHeader) {
  EXPECT_TRUE(WantsVendedCredentials("vended-credentials"));
  EXPECT_TRUE(WantsVendedCredentials("remote-signing, vended-credentials"));
  EXPECT_FALSE(WantsVendedCredentials("remote-signing"));
  EXPECT_FALSE(WantsVendedCredentials(""));
}

TEST(CredentialVendor, PolicyCoversEveryLocation) {
  auto policy = SessionPolicy({"s3://a/wh/t", "s3a://b/data/"}, StorageAccess::kRead, "aws");
  ASSERT_TRUE(policy.has_value());
  auto json = nlohmann::json::parse(*policy);
  std::set<std::string> objects;
  for (const auto& statement : json["Statement"]) {
    if (statement["Action"][0] == "s3:GetObject") {
      for (const auto& r : statement["Resource"]) objects.insert(r.get<std::string>());
    }
  }
  EXPECT_EQ(objects, (std::set<std::string>{"arn:aws:s3:::a/wh/t/*", "arn:aws:s3:::b/data/*"}));
  EXPECT_FALSE(SessionPolicy({"/local/path"}, StorageAccess::kRead, "aws").has_value());
}

}  // namespace
}  // namespace floe::rest

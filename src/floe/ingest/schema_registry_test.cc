// The schema registry's store and REST API: ids, versions, deletes, compatibility levels
// and the Confluent error codes (Confluent Schema Registry API reference), and the Avro
// resolution rules of the Avro specification ("Schema Resolution") behind BACKWARD /
// FORWARD / FULL.
#include "floe/ingest/schema_registry.h"

#include <unistd.h>

#include <filesystem>
#include <set>
#include <span>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/ingest/schema_compatibility.h"
#include "floe/ingest/schema_registry_api.h"
#include "floe/io/durable_file.h"

namespace floe::ingest {
namespace {

constexpr std::string_view kV1 =
    R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})";
// v1 plus an optional field with a default: readable both ways.
constexpr std::string_view kV2 =
    R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"},
        {"name":"email","type":["null","string"],"default":null}]})";
// A new field without a default: a v3 reader cannot read v1 data.
constexpr std::string_view kNoDefault =
    R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"},
        {"name":"age","type":"int"}]})";

TEST(SchemaRegistryTest, IdsVersionsAndDeletes) {
  auto opened = SchemaRegistry::Open("");
  FLOE_ASSERT_OK(opened);
  SchemaRegistry& r = **opened;
  auto id1 = r.Register("users-value", SchemaType::kAvro, kV1, {});
  FLOE_ASSERT_OK(id1);
  // Same schema (other whitespace) again: same id, no new version.
  auto again = r.Register(
      "users-value", SchemaType::kAvro,
      R"({"type": "record", "name": "User", "fields": [{"name": "id", "type": "long"}]})", {});
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(*again, *id1);
  // Ids are global: another subject gets the same id for the same schema.
  EXPECT_EQ(*r.Register("other-value", SchemaType::kAvro, kV1, {}), *id1);
  auto id2 = r.Register("users-value", SchemaType::kAvro, kV2, {});
  FLOE_ASSERT_OK(id2);
  EXPECT_NE(*id2, *id1);
  EXPECT_EQ(*r.Versions("users-value", false), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(r.GetVersion("users-value", -1, false)->id, *id2);
  auto found = r.Lookup("users-value", SchemaType::kAvro, kV1, {}, false);
  FLOE_ASSERT_OK(found);
  EXPECT_EQ(found->version, 1);
  // BACKWARD (the default) refuses a field without a default.
  auto refused = r.Register("users-value", SchemaType::kAvro, kNoDefault, {});
  ASSERT_THAT(refused, IsError(StatusCode::kConflict));
  // Soft delete of version 2; latest is 1 again; re-registering v2 makes version 3.
  FLOE_ASSERT_OK(r.DeleteVersion("users-value", 2, false));
  EXPECT_EQ(r.GetVersion("users-value", -1, false)->version, 1);
  EXPECT_EQ(*r.Register("users-value", SchemaType::kAvro, kV2, {}), *id2);
  EXPECT_EQ(r.GetVersion("users-value", -1, false)->version, 3);
  // A permanent delete needs a soft one first.
  EXPECT_EQ(r.DeleteSubject("other-value", true).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*r.DeleteSubject("other-value", false), std::vector<int32_t>{1});
  EXPECT_FALSE(r.HasSubject("other-value", false));
  EXPECT_TRUE(r.HasSubject("other-value", true));
  FLOE_EXPECT_OK(r.DeleteSubject("other-value", true));
  EXPECT_FALSE(r.HasSubject("other-value", true));
  // The schema itself stays readable by id.
  FLOE_EXPECT_OK(r.GetById(*id1));
  EXPECT_FALSE(r.GetById(999).ok());
  EXPECT_FALSE(r.Register("x", SchemaType::kAvro, "{not json", {}).ok());
}

TEST(SchemaRegistryTest, SurvivesReopen) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("floe-sr-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  int32_t id2 = 0;
  {
    auto r = SchemaRegistry::Open(dir.string());
    FLOE_ASSERT_OK(r);
    FLOE_ASSERT_OK((*r)->Register("s", SchemaType::kAvro, kV1, {}));
    id2 = *(*r)->Register("s", SchemaType::kAvro, kV2, {});
    FLOE_ASSERT_OK((*r)->SetCompatibility("s", Compatibility::kFull));
    FLOE_ASSERT_OK((*r)->DeleteVersion("s", 1, false));
  }
  {
    // A torn last line (a crash mid-append) is dropped.
    std::FILE* f = std::fopen((dir / "schemas.log").c_str(), "ab");
    std::fputs("{\"op\":\"vers", f);
    std::fclose(f);
  }
  auto r = SchemaRegistry::Open(dir.string());
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(*(*r)->Versions("s", false), std::vector<int32_t>{2});
  EXPECT_EQ(*(*r)->GetCompatibility("s"), Compatibility::kFull);
  EXPECT_EQ(*(*r)->Register("t", SchemaType::kAvro, kV2, {}), id2);
  // New ids continue after the replayed ones.
  auto id3 = (*r)->Register("u", SchemaType::kJson, R"({"type":"object"})", {});
  FLOE_ASSERT_OK(id3);
  EXPECT_GT(*id3, id2);
  std::filesystem::remove_all(dir);
}

// A full disk fails the call and changes nothing; once space is freed the registry works
// again without a restart, and the log it leaves replays.
TEST(SchemaRegistryTest, FullDiskFailsTheCallAndChangesNothing) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("floe-sr-full-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  io::FileFaults faults;
  int32_t id1 = 0;
  int32_t id3 = 0;
  {
    FLOE_ASSERT_OK_AND_ASSIGN(auto r, SchemaRegistry::Open(dir.string(), &faults));
    FLOE_ASSERT_OK_AND_ASSIGN(id1, r->Register("s", SchemaType::kAvro, kV1, {}));
    faults.FailWritesAfter(10);  // the next line is cut short, then the disk is full
    EXPECT_THAT(r->Register("s", SchemaType::kAvro, kV2, {}),
                IsError(StatusCode::kResourceExhausted));
    EXPECT_THAT(r->SetCompatibility("s", Compatibility::kNone),
                IsError(StatusCode::kResourceExhausted));
    EXPECT_EQ(*r->Versions("s", false), std::vector<int32_t>{1});
    faults.Clear();
    FLOE_ASSERT_OK_AND_ASSIGN(id3, r->Register("t", SchemaType::kJson, R"({"type":"object"})", {}));
    EXPECT_GT(id3, id1);
  }
  FLOE_ASSERT_OK_AND_ASSIGN(auto r, SchemaRegistry::Open(dir.string()));
  EXPECT_EQ(*r->Versions("s", false), std::vector<int32_t>{1});
  EXPECT_EQ(r->GetVersion("t", 1, false)->id, id3);
  EXPECT_FALSE(r->GetCompatibility("s").has_value());
  std::filesystem::remove_all(dir);
}

TEST(SchemaCompatibilityTest, AvroResolutionRules) {
  std::vector<std::string> m;
  auto can = [&](std::string_view reader, std::string_view writer) {
    m.clear();
    auto r = CanRead(SchemaType::kAvro, reader, writer, {}, &m);
    FLOE_EXPECT_OK(r);
    return r.ok() && *r;
  };
  EXPECT_TRUE(can(kV2, kV1));  // reader default fills the new field
  EXPECT_TRUE(can(kV1, kV2));  // writer's extra field is skipped
  EXPECT_FALSE(can(kNoDefault, kV1));
  EXPECT_FALSE(m.empty());
  // Promotions: int -> long, float, double; long -> float, double; float -> double;
  // string <-> bytes. Not the reverse.
  EXPECT_TRUE(can(R"("long")", R"("int")"));
  EXPECT_TRUE(can(R"("double")", R"("long")"));
  EXPECT_TRUE(can(R"("double")", R"("float")"));
  EXPECT_TRUE(can(R"("bytes")", R"("string")"));
  EXPECT_FALSE(can(R"("int")", R"("long")"));
  EXPECT_FALSE(can(R"("string")", R"("int")"));
  // Unions: each writer branch must be readable.
  EXPECT_TRUE(can(R"(["null","long"])", R"("int")"));
  EXPECT_FALSE(can(R"("long")", R"(["null","long"])"));
  // Enums: writer symbols in the reader, or a reader default.
  EXPECT_FALSE(can(R"({"type":"enum","name":"E","symbols":["A"]})",
                   R"({"type":"enum","name":"E","symbols":["A","B"]})"));
  EXPECT_TRUE(can(R"({"type":"enum","name":"E","symbols":["A"],"default":"A"})",
                  R"({"type":"enum","name":"E","symbols":["A","B"]})"));
  // Names must match; fixed sizes too.
  EXPECT_FALSE(can(R"({"type":"record","name":"A","fields":[]})",
                   R"({"type":"record","name":"B","fields":[]})"));
  EXPECT_FALSE(
      can(R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":8})"));
  EXPECT_TRUE(can(R"({"type":"array","items":"long"})", R"({"type":"array","items":"int"})"));
  EXPECT_TRUE(can(R"({"type":"map","values":"double"})", R"({"type":"map","values":"float"})"));
}

TEST(SchemaCompatibilityTest, LevelsAndTransitivity) {
  auto r = *SchemaRegistry::Open("");
  // FORWARD: the old schema must read the new one's data. A v1 reader skips kNoDefault's
  // extra field; a kNoDefault reader cannot read v1 data (no age, no default).
  FLOE_ASSERT_OK(r->SetCompatibility("f", Compatibility::kForward));
  FLOE_ASSERT_OK(r->Register("f", SchemaType::kAvro, kV1, {}));
  FLOE_EXPECT_OK(r->Register("f", SchemaType::kAvro, kNoDefault, {}));
  FLOE_ASSERT_OK(r->SetCompatibility("g", Compatibility::kForward));
  FLOE_ASSERT_OK(r->Register("g", SchemaType::kAvro, kNoDefault, {}));
  EXPECT_FALSE(r->Register("g", SchemaType::kAvro, R"({"type":"record","name":"User","fields":[
      {"name":"id","type":"long"},{"name":"age","type":"string"}]})",
                           {})
                   .ok());
  // NONE accepts anything of the same type.
  FLOE_ASSERT_OK(r->SetCompatibility("n", Compatibility::kNone));
  FLOE_ASSERT_OK(r->Register("n", SchemaType::kAvro, kV1, {}));
  FLOE_EXPECT_OK(r->Register("n", SchemaType::kAvro, R"("string")", {}));
  // BACKWARD checks the latest only; BACKWARD_TRANSITIVE every version.
  const std::string a = R"({"type":"record","name":"R","fields":[{"name":"x","type":"int"}]})";
  const std::string b = R"({"type":"record","name":"R","fields":[]})";
  const std::string c =
      R"({"type":"record","name":"R","fields":[{"name":"x","type":"string","default":""}]})";
  FLOE_ASSERT_OK(r->Register("b", SchemaType::kAvro, a, {}));
  FLOE_ASSERT_OK(r->Register("b", SchemaType::kAvro, b, {}));
  std::vector<std::string> m;
  EXPECT_TRUE(*r->TestCompatibility("b", -1, SchemaType::kAvro, c, {}, &m));
  FLOE_ASSERT_OK(r->SetCompatibility("b", Compatibility::kBackwardTransitive));
  EXPECT_FALSE(*r->TestCompatibility("b", -1, SchemaType::kAvro, c, {}, &m));
  // Against a given version.
  EXPECT_FALSE(*r->TestCompatibility("b", 1, SchemaType::kAvro, c, {}, &m));
  EXPECT_FALSE(r->TestCompatibility("b", 7, SchemaType::kAvro, c, {}, &m).ok());
}

TEST(SchemaCompatibilityTest, ProtobufAndJsonSubsets) {
  std::vector<std::string> m;
  const std::string p1 = "syntax = \"proto3\"; message M { int32 a = 1; string b = 2; }";
  const std::string p2 =
      "syntax = \"proto3\"; message M { int64 a = 1; string b = 2; bool c = 3; }";
  const std::string p3 = "syntax = \"proto3\"; message M { string a = 1; }";
  EXPECT_TRUE(*CanRead(SchemaType::kProtobuf, p2, p1, {}, &m));   // int32 -> int64: same wire
  EXPECT_FALSE(*CanRead(SchemaType::kProtobuf, p3, p1, {}, &m));  // varint -> bytes
  EXPECT_FALSE(*CanRead(SchemaType::kProtobuf,
                        "syntax = \"proto3\"; message M { repeated int32 a = 1; }", p1, {}, &m));
  const std::string j1 = R"({"type":"object","properties":{"a":{"type":"integer"}}})";
  const std::string j2 =
      R"({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["b"]})";
  const std::string j3 = R"({"type":"object","properties":{"a":{"type":"number"}}})";
  EXPECT_FALSE(*CanRead(SchemaType::kJson, j2, j1, {}, &m));  // b now required
  EXPECT_TRUE(*CanRead(SchemaType::kJson, j3, j1, {}, &m));   // integer -> number
  EXPECT_FALSE(*CanRead(SchemaType::kJson, j1, j3, {}, &m));  // number -> integer
}

// `levels` JSON Schema arrays around an integer: each level is one JSON level.
std::string NestedJsonSchema(int levels) {
  std::string out;
  for (int i = 0; i < levels; ++i) out += R"({"type":"array","items":)";
  out += R"({"type":"integer"})";
  return out + std::string(static_cast<size_t>(levels), '}');
}

// `levels` Avro arrays around a long.
std::string NestedAvroSchema(int levels) {
  std::string out;
  for (int i = 0; i < levels; ++i) out += R"({"type":"array","items":)";
  out += R"("long")";
  return out + std::string(static_cast<size_t>(levels), '}');
}

TEST(SchemaRegistryTest, SchemasNestAtMostTheJsonDepthLimit) {
  auto r = *SchemaRegistry::Open("");
  // 255 arrays around an integer object: 256 JSON levels, accepted.
  auto at_limit = r->Register("j-value", SchemaType::kJson, NestedJsonSchema(255), {});
  FLOE_ASSERT_OK(at_limit);
  for (int levels : {256, 50'000}) {
    auto past = r->Register("j2-value", SchemaType::kJson, NestedJsonSchema(levels), {});
    EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument) << levels;
    EXPECT_NE(past.status().message().find("nested deeper than 256 levels"), std::string::npos)
        << past.status().ToString();
  }
  // Avro: 256 array levels (the leaf is a string) accepted, 257 refused.
  auto avro = r->Register("a-value", SchemaType::kAvro, NestedAvroSchema(256), {});
  FLOE_ASSERT_OK(avro);
  for (int levels : {257, 50'000}) {
    auto past = r->Register("a2-value", SchemaType::kAvro, NestedAvroSchema(levels), {});
    EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument) << levels;
  }
  EXPECT_FALSE(r->HasSubject("j2-value", true));
  EXPECT_FALSE(r->HasSubject("a2-value", true));
}

TEST(SchemaCompatibilityTest, JsonSchemasTooDeepToCompareAreNotCompatible) {
  // The compatibility walk stops at 64 levels: a difference below cannot be checked, so
  // the answer is "not compatible", never a silent "compatible".
  std::vector<std::string> m;
  EXPECT_TRUE(*CanRead(SchemaType::kJson, NestedJsonSchema(64), NestedJsonSchema(64), {}, &m));
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(*CanRead(SchemaType::kJson, NestedJsonSchema(65), NestedJsonSchema(65), {}, &m));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("schemas nest too deeply"), std::string::npos) << m[0];
  EXPECT_EQ(CanRead(SchemaType::kJson, NestedJsonSchema(300), "{}", {}, &m).status().code(),
            StatusCode::kInvalidArgument);
}

http::HttpResponse Call(const SchemaRegistryApi& api, std::string method, std::string path,
                        std::string body = "", std::string query = "") {
  http::HttpRequest req;
  req.method = std::move(method);
  req.path = std::move(path);
  req.body = std::move(body);
  req.query = std::move(query);
  return api.Handle(req);
}

TEST(SchemaRegistryApiTest, ConfluentRoutesAndErrors) {
  auto r = *SchemaRegistry::Open("");
  SchemaRegistryApi api(r.get());
  const std::string v1 = nlohmann::json{{"schema", kV1}}.dump();
  auto reg = Call(api, "POST", "/subjects/users-value/versions", v1);
  ASSERT_EQ(reg.status, 200) << reg.body;
  EXPECT_EQ(reg.content_type, "application/vnd.schemaregistry.v1+json");
  const int id = nlohmann::json::parse(reg.body)["id"];
  auto by_id = nlohmann::json::parse(Call(api, "GET", "/schemas/ids/" + std::to_string(id)).body);
  EXPECT_FALSE(by_id.contains("schemaType"));  // AVRO is implied, as Confluent answers
  EXPECT_EQ(nlohmann::json::parse(by_id["schema"].get<std::string>()), nlohmann::json::parse(kV1));
  auto latest =
      nlohmann::json::parse(Call(api, "GET", "/subjects/users-value/versions/latest").body);
  EXPECT_EQ(latest["version"], 1);
  EXPECT_EQ(latest["id"], id);
  EXPECT_EQ(latest["subject"], "users-value");
  auto lookup = Call(api, "POST", "/subjects/users-value", v1);
  EXPECT_EQ(lookup.status, 200);
  EXPECT_EQ(nlohmann::json::parse(lookup.body)["version"], 1);
  auto err = [&](const http::HttpResponse& resp) {
    auto j = nlohmann::json::parse(resp.body);
    return std::make_pair(resp.status, j["error_code"].get<int>());
  };
  EXPECT_EQ(err(Call(api, "GET", "/subjects/nope/versions")), std::make_pair(404, 40401));
  EXPECT_EQ(err(Call(api, "GET", "/subjects/users-value/versions/9")), std::make_pair(404, 40402));
  EXPECT_EQ(err(Call(api, "GET", "/schemas/ids/999")), std::make_pair(404, 40403));
  EXPECT_EQ(err(Call(api, "POST", "/subjects/users-value", nlohmann::json{{"schema", kV2}}.dump())),
            std::make_pair(404, 40403));
  EXPECT_EQ(err(Call(api, "POST", "/subjects/users-value/versions",
                     nlohmann::json{{"schema", "{bad"}}.dump())),
            std::make_pair(422, 42201));
  EXPECT_EQ(err(Call(api, "POST", "/subjects/users-value/versions",
                     nlohmann::json{{"schema", kNoDefault}}.dump())),
            std::make_pair(409, 409));
  EXPECT_EQ(err(Call(api, "GET", "/subjects/users-value/versions/x")), std::make_pair(422, 42202));
  EXPECT_EQ(err(Call(api, "GET", "/config/users-value")), std::make_pair(404, 40408));
  EXPECT_EQ(nlohmann::json::parse(Call(api, "GET", "/config").body)["compatibilityLevel"],
            "BACKWARD");
  auto put = Call(api, "PUT", "/config/users-value", R"({"compatibility":"NONE"})");
  EXPECT_EQ(nlohmann::json::parse(put.body)["compatibility"], "NONE");
  EXPECT_EQ(err(Call(api, "PUT", "/config", R"({"compatibility":"SOMETIMES"})")),
            std::make_pair(422, 42203));
  auto compat = Call(api, "POST", "/compatibility/subjects/users-value/versions/latest",
                     nlohmann::json{{"schema", kNoDefault}}.dump());
  EXPECT_EQ(nlohmann::json::parse(compat.body)["is_compatible"], true);  // NONE now
  EXPECT_EQ(nlohmann::json::parse(Call(api, "GET", "/subjects").body),
            nlohmann::json::array({"users-value"}));
  auto del = Call(api, "DELETE", "/subjects/users-value");
  EXPECT_EQ(nlohmann::json::parse(del.body), nlohmann::json::array({1}));
  EXPECT_EQ(nlohmann::json::parse(Call(api, "GET", "/subjects").body), nlohmann::json::array());
  EXPECT_EQ(nlohmann::json::parse(Call(api, "GET", "/subjects", "", "deleted=true").body),
            nlohmann::json::array({"users-value"}));
  auto proto = Call(api, "POST", "/subjects/p-value/versions",
                    nlohmann::json{{"schema", "syntax = \"proto3\"; message M { int32 a = 1; }"},
                                   {"schemaType", "PROTOBUF"}}
                        .dump());
  ASSERT_EQ(proto.status, 200) << proto.body;
  auto pid = nlohmann::json::parse(proto.body)["id"].get<int>();
  EXPECT_EQ(nlohmann::json::parse(
                Call(api, "GET", "/schemas/ids/" + std::to_string(pid)).body)["schemaType"],
            "PROTOBUF");
  EXPECT_EQ(Call(api, "GET", "/schemas/types").status, 200);
}

TEST(SchemaRegistryApiTest, DeeplyNestedSchemasAndBodiesAreRefused) {
  auto r = *SchemaRegistry::Open("");
  SchemaRegistryApi api(r.get());
  auto err = [&](const http::HttpResponse& resp) {
    auto j = nlohmann::json::parse(resp.body);
    return std::make_pair(resp.status, j["error_code"].get<int>());
  };
  // A JSON Schema nested 50,000 levels once overflowed the stack.
  const std::string deep =
      nlohmann::json{{"schema", NestedJsonSchema(50'000)}, {"schemaType", "JSON"}}.dump();
  EXPECT_EQ(err(Call(api, "POST", "/subjects/deep-value/versions", deep)),
            std::make_pair(422, 42201));
  const std::string ok =
      nlohmann::json{{"schema", NestedJsonSchema(255)}, {"schemaType", "JSON"}}.dump();
  EXPECT_EQ(Call(api, "POST", "/subjects/deep-value/versions", ok).status, 200);
  // The request body itself nested too deep.
  const std::string body =
      R"({"schema":"{}","x":)" + std::string(300, '[') + std::string(300, ']') + "}";
  auto refused = Call(api, "POST", "/subjects/deep-value/versions", body);
  EXPECT_GE(refused.status, 400);
  EXPECT_LT(refused.status, 500);
  EXPECT_EQ(err(Call(api, "PUT", "/config",
                     R"({"compatibility":)" + std::string(300, '[') + std::string(300, ']') + "}")),
            std::make_pair(422, 42203));
}

// The registry's routes and the access each needs (the server asks write access of the
// table-topic catalog for writes): reads are GETs and the two POSTs that only read, a
// schema lookup and a compatibility test; written out from the Confluent API, not taken from
// the route table.
struct RegistryRoute {
  const char* method;
  const char* path;
  bool writes;
};
constexpr RegistryRoute kRegistryRoutes[] = {
    {"GET", "/schemas/types", false},
    {"GET", "/schemas/ids/{id}", false},
    {"GET", "/schemas/ids/{id}/schema", false},
    {"GET", "/schemas/ids/{id}/versions", false},
    {"GET", "/schemas/ids/{id}/subjects", false},
    {"GET", "/subjects", false},
    {"POST", "/subjects/{subject}", false},
    {"DELETE", "/subjects/{subject}", true},
    {"GET", "/subjects/{subject}/versions", false},
    {"POST", "/subjects/{subject}/versions", true},
    {"GET", "/subjects/{subject}/versions/{version}", false},
    {"DELETE", "/subjects/{subject}/versions/{version}", true},
    {"GET", "/subjects/{subject}/versions/{version}/schema", false},
    {"GET", "/subjects/{subject}/versions/{version}/referencedby", false},
    {"GET", "/config", false},
    {"PUT", "/config", true},
    {"GET", "/config/{subject}", false},
    {"PUT", "/config/{subject}", true},
    {"DELETE", "/config/{subject}", true},
    {"GET", "/mode", false},
    {"PUT", "/mode", true},
    {"GET", "/mode/{subject}", false},
    {"PUT", "/mode/{subject}", true},
    {"POST", "/compatibility/subjects/{subject}/versions", false},
    {"POST", "/compatibility/subjects/{subject}/versions/{version}", false},
};

http::HttpRequest RegistryRequest(std::string method, std::string path) {
  auto replace = [&](std::string_view param, std::string_view value) {
    if (size_t at = path.find(param); at != std::string::npos)
      path.replace(at, param.size(), value);
  };
  replace("{id}", "1");
  replace("{subject}", "s-value");
  replace("{version}", "1");
  http::HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  return request;
}

TEST(SchemaRegistryApiTest, EveryRouteNeedsItsAccess) {
  for (const RegistryRoute& route : kRegistryRoutes) {
    EXPECT_EQ(SchemaRegistryApi::Writes(RegistryRequest(route.method, route.path)), route.writes)
        << route.method << " " << route.path;
  }
  // Requests no route answers: reads for GET, HEAD and OPTIONS and for POSTs under
  // /compatibility, writes otherwise (refused to readers before the 404 or 405).
  const RegistryRoute unrouted[] = {
      {"GET", "/nothing", false},
      {"HEAD", "/subjects", false},
      {"OPTIONS", "/subjects/s", false},
      {"POST", "/", true},
      {"POST", "/subjects", true},
      {"PUT", "/subjects/s", true},
      {"POST", "/subjects/s/versions/1", true},
      {"POST", "/schemas/types", true},
      {"POST", "/compatibility", false},
      {"POST", "/compatibility/nothing", false},
      {"DELETE", "/compatibility/subjects/s/versions", true},
      {"DELETE", "/config", true},
      {"POST", "/mode", true},
      {"PATCH", "/nothing", true},
  };
  for (const RegistryRoute& route : unrouted) {
    EXPECT_EQ(SchemaRegistryApi::Writes(RegistryRequest(route.method, route.path)), route.writes)
        << route.method << " " << route.path;
  }
}

// The route table itself: the routes above in their order, each with a name of its own and
// the expected access, reads for every GET, and each row's access what Writes decides.
TEST(SchemaRegistryApiTest, TheRouteTableIsTheRegistrysRoutes) {
  std::span<const http::RouteInfo> routes = SchemaRegistryApi::Routes();
  ASSERT_EQ(routes.size(), std::size(kRegistryRoutes));
  std::set<std::string_view> ids;
  for (size_t i = 0; i < routes.size(); ++i) {
    const http::RouteInfo& route = routes[i];
    const RegistryRoute& expected = kRegistryRoutes[i];
    EXPECT_EQ(route.method, expected.method) << i;
    EXPECT_EQ(route.path, expected.path) << i;
    EXPECT_EQ(route.access, expected.writes ? http::Access::kWrite : http::Access::kRead)
        << route.method << " " << route.path;
    if (route.method == "GET") {
      EXPECT_EQ(route.access, http::Access::kRead) << route.path;
    }
    EXPECT_FALSE(route.cacheable) << route.path;
    EXPECT_FALSE(route.endpoint_id.empty()) << route.path;
    EXPECT_TRUE(ids.insert(route.endpoint_id).second) << route.endpoint_id;
    EXPECT_EQ(SchemaRegistryApi::Writes(
                  RegistryRequest(std::string(route.method), std::string(route.path))),
              route.access == http::Access::kWrite)
        << route.method << " " << route.path;
  }
}

// What a wrong method or an unknown path is answered, as Confluent's clients see it: 405 on
// the subjects, config and mode paths, 404 elsewhere, after the checks of a version path.
TEST(SchemaRegistryApiTest, WrongMethodsAndUnknownPaths) {
  auto r = *SchemaRegistry::Open("");
  SchemaRegistryApi api(r.get());
  ASSERT_EQ(Call(api, "POST", "/subjects/s-value/versions", nlohmann::json{{"schema", kV1}}.dump())
                .status,
            200);
  struct Case {
    const char* method;
    const char* path;
    int status;
    int error_code;
  };
  const Case cases[] = {
      {"POST", "/subjects", 405, 405},
      {"HEAD", "/subjects", 405, 405},
      {"PUT", "/subjects/s-value", 405, 405},
      {"DELETE", "/subjects/s-value/versions", 405, 405},
      {"PUT", "/subjects/s-value/versions/1", 405, 405},
      {"POST", "/subjects/s-value/versions/1/bogus", 405, 405},
      {"DELETE", "/subjects/s-value/versions/1/schema", 405, 405},
      // A version path's checks come before its method's.
      {"PUT", "/subjects/s-value/versions/x", 422, 42202},
      {"PUT", "/subjects/nope/versions/1", 404, 40401},
      {"GET", "/subjects/nope/versions/1/bogus", 404, 40401},
      {"GET", "/subjects/s-value/versions/7/bogus", 404, 40402},
      {"GET", "/subjects/s-value/versions/1/bogus", 404, 404},
      {"GET", "/subjects/s-value/bogus", 404, 404},
      {"GET", "/subjects/s-value/versions/1/schema/x", 404, 404},
      {"DELETE", "/config", 405, 405},
      {"POST", "/config/s-value", 405, 405},
      {"GET", "/config/a/b", 404, 404},
      {"DELETE", "/mode", 405, 405},
      {"GET", "/mode/a/b", 404, 404},
      {"POST", "/schemas/types", 404, 404},
      {"HEAD", "/schemas/types", 404, 404},
      {"GET", "/schemas/ids/x", 404, 40403},
      {"GET", "/schemas/ids/999/schema", 404, 40403},
      {"GET", "/schemas/ids/1/bogus", 404, 404},
      {"GET", "/schemas/ids/1/a/b", 404, 404},
      {"GET", "/compatibility/subjects/s-value/versions", 404, 404},
      {"POST", "/compatibility/subjects/s-value/versions/x", 422, 42202},
      {"GET", "/nothing", 404, 404},
  };
  for (const Case& c : cases) {
    http::HttpResponse response = Call(api, c.method, c.path);
    EXPECT_EQ(response.status, c.status) << c.method << " " << c.path << ": " << response.body;
    auto body = nlohmann::json::parse(response.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << c.method << " " << c.path;
    EXPECT_EQ(body["error_code"], c.error_code)
        << c.method << " " << c.path << ": " << response.body;
  }
  // The root answers any method (clients probe it).
  EXPECT_EQ(Call(api, "GET", "/").status, 200);
  EXPECT_EQ(Call(api, "POST", "/").status, 200);
}

}  // namespace
}  // namespace floe::ingest

#include "floe/iceberg/java_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;

// Layout of Jackson's DefaultPrettyPrinter (jackson-core DefaultPrettyPrinter:
// DefaultIndenter for objects, FixedSpaceIndenter for arrays, " : " separators).
TEST(JavaJsonTest, PrettyMatchesJacksonDefaultPrettyPrinter) {
  OJson j = OJson::object();
  j["format-version"] = 2;
  j["schemas"] =
      OJson::array({OJson{{"type", "struct"}, {"schema-id", 0}, {"fields", OJson::array()}}});
  j["properties"] = OJson::object();
  j["ids"] = OJson::array({1, 2});
  j["snapshots"] = OJson::array();
  EXPECT_EQ(ToJavaJson(j, true),
            "{\n"
            "  \"format-version\" : 2,\n"
            "  \"schemas\" : [ {\n"
            "    \"type\" : \"struct\",\n"
            "    \"schema-id\" : 0,\n"
            "    \"fields\" : [ ]\n"
            "  } ],\n"
            "  \"properties\" : { },\n"
            "  \"ids\" : [ 1, 2 ],\n"
            "  \"snapshots\" : [ ]\n"
            "}");
  EXPECT_EQ(ToJavaJson(j, false),
            R"({"format-version":2,"schemas":[{"type":"struct","schema-id":0,"fields":[]}],)"
            R"("properties":{},"ids":[1,2],"snapshots":[]})");
}

TEST(JavaJsonTest, StringsAndNumbersLikeJackson) {
  OJson j = OJson::array({"a\"b\\c\n\x01\x1f/\xc3\xa9", -5, 1.0, 1e10, 0.5, 1e-5, 123456.75});
  // Jackson escapes control characters with upper-case hex; Double.toString forms.
  EXPECT_EQ(ToJavaJson(j, false),
            R"(["a\"b\\c\n\u0001\u001F/é",-5,1.0,1.0E10,0.5,1.0E-5,123456.75])");
}

}  // namespace
}  // namespace floe::iceberg

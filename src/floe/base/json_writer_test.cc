#include "floe/base/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace floe {
namespace {

TEST(JsonWriterTest, NestingAndEscapes) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("a");
  w.Int(-3);
  w.Key("s\"");
  w.String("line\nbreak\t\x01\xC3\xA9");
  w.Key("list");
  w.BeginArray();
  w.Bool(true);
  w.Null();
  w.Double(0.1);
  w.Double(std::numeric_limits<double>::quiet_NaN());
  w.UInt(18446744073709551615ull);
  w.EndArray();
  w.Key("empty");
  w.BeginObject();
  w.EndObject();
  w.EndObject();
  EXPECT_EQ(out,
            "{\"a\":-3,\"s\\\"\":\"line\\nbreak\\t\\u0001\xC3\xA9\",\"list\":[true,null,0.1,"
            "\"NaN\",18446744073709551615],\"empty\":{}}");
}

TEST(JsonWriterTest, InvalidUtf8IsReplaced) {
  std::string out;
  JsonWriter::AppendEscaped(&out,
                            "a\xFF"
                            "b\xED\xA0\x80");  // 0xFF and a surrogate
  EXPECT_EQ(out,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace floe

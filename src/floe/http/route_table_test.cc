// The route matcher: literal and `{param}` segments, wrong methods told from unknown paths,
// HEAD answered by GET rows where an API wants it, Allow lists and the access of requests
// no row answers.
#include "floe/http/route_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::http {
namespace {

constexpr RouteInfo kRows[] = {
    {"GET", "/api/things", Access::kRead, true, "listThings"},
    {"POST", "/api/things", Access::kWrite, false, "createThing"},
    {"GET", "/api/things/{thing}", Access::kRead, false, "getThing"},
    {"DELETE", "/api/things/{thing}", Access::kWrite, false, "deleteThing"},
    {"POST", "/api/things/{thing}/report", Access::kRead, false, "reportThing"},
    {"GET", "/api/things/{thing}/parts/{part}", Access::kRead, false, "getPart"},
    {"GET", "/api/things/special", Access::kRead, false, "getSpecial"},
};

std::vector<std::string> Segments(std::initializer_list<const char*> parts) {
  return {parts.begin(), parts.end()};
}

TEST(RouteMatcher, BindsParametersAndTellsWrongMethodsFromUnknownPaths) {
  RouteMatcher matcher(kRows, {});
  RouteMatcher::Match part = matcher.Find("GET", Segments({"api", "things", "a", "parts", "b/c"}));
  ASSERT_EQ(part.row, 5u);
  EXPECT_EQ(part.params.Get("thing"), "a");
  EXPECT_EQ(part.params.Get("part"), "b/c");

  // The first row in table order wins: {thing} before the literal "special".
  EXPECT_EQ(matcher.Find("GET", Segments({"api", "things", "special"})).row, 2u);

  RouteMatcher::Match wrong = matcher.Find("PUT", Segments({"api", "things"}));
  EXPECT_FALSE(wrong.row.has_value());
  EXPECT_TRUE(wrong.path_known);
  RouteMatcher::Match unknown = matcher.Find("GET", Segments({"api", "things", "a", "b"}));
  EXPECT_FALSE(unknown.row.has_value());
  EXPECT_FALSE(unknown.path_known);
  EXPECT_FALSE(matcher.Find("GET", Segments({"api"})).path_known);
  EXPECT_FALSE(matcher.Find("GET", Segments({})).path_known);
}

TEST(RouteMatcher, HeadIsGetOnlyWhenAsked) {
  RouteMatcher strict(kRows, {});
  EXPECT_FALSE(strict.Find("HEAD", Segments({"api", "things"})).row.has_value());
  EXPECT_EQ(strict.AllowedMethods(Segments({"api", "things"})), "GET, POST");
  RouteMatcher lenient(kRows, {.head_as_get = true});
  EXPECT_EQ(lenient.Find("HEAD", Segments({"api", "things"})).row, 0u);
  EXPECT_EQ(lenient.AllowedMethods(Segments({"api", "things"})), "GET, HEAD, POST");
  EXPECT_EQ(lenient.AllowedMethods(Segments({"api", "things", "x", "report"})), "POST");
  EXPECT_EQ(lenient.AllowedMethods(Segments({"api", "nothing"})), "");
}

TEST(RouteMatcher, RequiredAccess) {
  RouteMatcher matcher(kRows, {});
  struct Case {
    const char* method;
    std::vector<std::string> segments;
    Access access;
  };
  const Case cases[] = {
      {"GET", Segments({"api", "things"}), Access::kRead},
      {"POST", Segments({"api", "things"}), Access::kWrite},
      {"POST", Segments({"api", "things", "x", "report"}), Access::kRead},
      // No row: GET and HEAD read.
      {"GET", Segments({"api", "nothing"}), Access::kRead},
      {"HEAD", Segments({"api", "things"}), Access::kRead},
      // Other methods: as the nearest path's other-than-GET rows, else write.
      {"PUT", Segments({"api", "things", "x", "report"}), Access::kRead},
      {"POST", Segments({"api", "things", "x", "report", "y"}), Access::kRead},
      {"PUT", Segments({"api", "things", "x"}), Access::kWrite},
      {"POST", Segments({"api", "things", "x", "parts", "y"}), Access::kWrite},
      {"POST", Segments({"api", "things", "x", "other"}), Access::kWrite},
      {"DELETE", Segments({"api", "nothing"}), Access::kWrite},
      {"DELETE", Segments({}), Access::kWrite},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(matcher.RequiredAccess(c.method, c.segments), c.access)
        << c.method << " " << c.segments.size();
  }
}

TEST(RouteTable, FindsTheHandler) {
  RouteTable<int> table({{{"GET", "/a/{x}", Access::kRead, false, "getA"}, 7},
                         {{"POST", "/a/{x}", Access::kWrite, false, "postA"}, 8}});
  auto found = table.Find("POST", Segments({"a", "1"}));
  ASSERT_NE(found.route, nullptr);
  EXPECT_EQ(found.route->handler, 8);
  EXPECT_EQ(found.params.Get("x"), "1");
  EXPECT_EQ(table.infos().size(), 2u);
  EXPECT_EQ(table.infos()[1].endpoint_id, "postA");
  EXPECT_EQ(table.Find("PUT", Segments({"a", "1"})).route, nullptr);
}

}  // namespace
}  // namespace floe::http

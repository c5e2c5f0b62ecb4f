#include "floe/server/web_assets.h"

#include <string>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/io/memory_file_io.h"

namespace floe::server {
namespace {

std::string HeaderOf(const http::HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

http::HttpRequest Get(std::string path) {
  http::HttpRequest r;
  r.method = "GET";
  r.path = std::move(path);
  return r;
}

class WebAssetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FLOE_ASSERT_OK(io_.WriteFile("/site/index.html", "<!doctype html><p>app</p>", false));
    FLOE_ASSERT_OK(io_.WriteFile("/site/assets/index-3f2a.js", "console.log(1)", false));
    FLOE_ASSERT_OK(io_.WriteFile("/site/assets/index-9b1c.css", "p{}", false));
    FLOE_ASSERT_OK(io_.WriteFile("/site/favicon.svg", "<svg/>", false));
    FLOE_ASSERT_OK(io_.WriteFile("/secret.txt", "outside the site", false));
    auto assets = WebAssets::Load(io_, "/site/");
    FLOE_ASSERT_OK(assets);
    assets_ = std::move(*assets);
  }

  io::MemoryFileIO io_;
  std::unique_ptr<WebAssets> assets_;
};

TEST_F(WebAssetsTest, ServesFilesWithTheirContentTypes) {
  EXPECT_EQ(assets_->file_count(), 4u);
  auto js = assets_->Serve(Get("/assets/index-3f2a.js"));
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(assets_->Serve(Get("/assets/index-9b1c.css")).content_type, "text/css; charset=utf-8");
  EXPECT_EQ(assets_->Serve(Get("/favicon.svg")).content_type, "image/svg+xml");
  auto root = assets_->Serve(Get("/"));
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(root.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(root.body, "<!doctype html><p>app</p>");
}

TEST_F(WebAssetsTest, HashedAssetsAreImmutableAndTheIndexIsRevalidated) {
  EXPECT_EQ(HeaderOf(assets_->Serve(Get("/assets/index-3f2a.js")), "Cache-Control"),
            "public, max-age=31536000, immutable");
  auto index = assets_->Serve(Get("/index.html"));
  EXPECT_EQ(HeaderOf(index, "Cache-Control"), "no-cache");
  EXPECT_NE(HeaderOf(index, "Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
  // RFC 9110 §13.1.2: a matching If-None-Match gets 304 without a body.
  http::HttpRequest again = Get("/index.html");
  again.headers.emplace_back("if-none-match", "\"other\", " + HeaderOf(index, "ETag"));
  auto not_modified = assets_->Serve(again);
  EXPECT_EQ(not_modified.status, 304);
  EXPECT_TRUE(not_modified.body.empty());
  again.headers.back().second = "\"other\"";
  EXPECT_EQ(assets_->Serve(again).status, 200);
}

TEST_F(WebAssetsTest, ClientRoutesGetTheIndexAndMissingFilesA404) {
  for (const char* route : {"/tables/default/db/t", "/catalogs", "/optimizers/"}) {
    auto r = assets_->Serve(Get(route));
    EXPECT_EQ(r.status, 200) << route;
    EXPECT_EQ(r.body, "<!doctype html><p>app</p>") << route;
  }
  EXPECT_EQ(assets_->Serve(Get("/assets/missing-0000.js")).status, 404);
  EXPECT_EQ(assets_->Serve(Get("/robots.txt")).status, 404);
}

TEST_F(WebAssetsTest, NoPathLeavesTheSite) {
  for (const char* path : {"/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt",
                           "/%2E%2E%2Fsecret.txt", "/..%5csecret.txt"}) {
    auto r = assets_->Serve(Get(path));
    EXPECT_NE(r.body, "outside the site") << path;
    EXPECT_EQ(r.status, 404) << path;
  }
  EXPECT_EQ(assets_->Serve(Get("/%zz")).status, 400);
  EXPECT_EQ(assets_->Serve(Get("/a%00b.js")).status, 400);
  http::HttpRequest post = Get("/");
  post.method = "POST";
  auto r = assets_->Serve(post);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(HeaderOf(r, "Allow"), "GET, HEAD");
}

TEST(WebAssetsLoadTest, ADirectoryWithoutIndexIsNotFound) {
  io::MemoryFileIO io;
  FLOE_ASSERT_OK(io.WriteFile("/site/app.js", "x", false));
  EXPECT_EQ(WebAssets::Load(io, "/site").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(WebAssets::Load(io, "/nowhere").status().code(), StatusCode::kNotFound);
  FLOE_ASSERT_OK(io.WriteFile("/site/index.html", "0123456789", false));
  EXPECT_EQ(WebAssets::Load(io, "/site", 5).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::server

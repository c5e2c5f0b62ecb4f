#include "floe/server/server.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "floe/metastore/metastore.h"

namespace floe::server {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe-server-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ServerConfig Config() {
    ServerConfig config;
    config.data_dir = dir_.string();
    config.http_port = 0;
    return config;
  }

  std::filesystem::path dir_;
};

TEST_F(ServerTest, FirstStartCreatesTheDefaultCatalogAndMigratesTheMetastore) {
  auto server = Server::Start(Config());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_GT((*server)->http_port(), 0);
  EXPECT_EQ((*server)->catalog_names(), std::vector<std::string>{"default"});
  (*server)->Stop();
  auto store = metastore::Metastore::Open("sqlite:" + (dir_ / "floe.db").string());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(*(*store)->SchemaVersion(), metastore::Metastore::kSchemaVersion);
  auto record = (*store)->LoadCatalog("default");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->kind, metastore::CatalogKind::kInternal);
  EXPECT_EQ(record->warehouse, (std::filesystem::absolute(dir_) / "warehouse").string());
}

TEST_F(ServerTest, ConfiguredCatalogsAreCreatedThenUpdated) {
  ServerConfig config = Config();
  metastore::CatalogRecord lake;
  lake.name = "lake";
  lake.warehouse = (dir_ / "lake1").string();
  config.catalogs.push_back(lake);
  {
    auto server = Server::Start(config);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    EXPECT_EQ((*server)->catalog_names(), (std::vector<std::string>{"default", "lake"}));
  }
  config.catalogs[0].warehouse = (dir_ / "lake2").string();
  {
    auto server = Server::Start(config);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
  }
  auto store = metastore::Metastore::Open("sqlite:" + (dir_ / "floe.db").string());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->LoadCatalog("lake")->warehouse, (dir_ / "lake2").string());
}

TEST_F(ServerTest, BadCatalogFailsTheStart) {
  ServerConfig config = Config();
  metastore::CatalogRecord broken;
  broken.name = "broken";
  broken.kind = metastore::CatalogKind::kSql;
  broken.uri = "nosuchscheme:x";
  config.catalogs.push_back(broken);
  auto server = Server::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument) << server.status().ToString();
}

TEST_F(ServerTest, ReservedCatalogNamesAreRefused) {
  auto store = metastore::Metastore::Open("sqlite:" + (dir_.string() + ".db"));
  ASSERT_TRUE(store.ok());
  metastore::CatalogRecord record;
  record.warehouse = "/w";
  for (const char* name : {"namespaces", "views", "", "a/b", "a b"}) {
    record.name = name;
    EXPECT_EQ((*store)->CreateCatalog(record).code(), StatusCode::kInvalidArgument) << name;
  }
  record.name = "ok-name_1.x";
  EXPECT_TRUE((*store)->CreateCatalog(record).ok());
  EXPECT_EQ((*store)->CreateCatalog(record).code(), StatusCode::kAlreadyExists);
  std::filesystem::remove(dir_.string() + ".db");
}

}  // namespace
}  // namespace floe::server

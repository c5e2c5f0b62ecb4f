#include "floe/io/durable_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "floe/base/testing.h"

namespace floe::io {
namespace {

class DurableFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_durable_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
};

TEST_F(DurableFileTest, ErrnoStatusMapsAFullDiskToResourceExhausted) {
  EXPECT_EQ(ErrnoStatus(ENOSPC, "write", "/x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus(EDQUOT, "write", "/x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus(ENOENT, "open", "/x").code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoStatus(EIO, "fsync", "/x").code(), StatusCode::kIOError);
  EXPECT_THAT(ErrnoStatus(ENOSPC, "write", "/x/y"),
              IsError(StatusCode::kResourceExhausted, ::testing::HasSubstr("/x/y")));
}

TEST_F(DurableFileTest, WriteFileAtomicallyReplacesOrKeepsTheOldFile) {
  const std::string path = (dir_ / "topic.json").string();
  FLOE_ASSERT_OK(WriteFileAtomically(path, "first"));
  EXPECT_EQ(Slurp(path), "first");
  FLOE_ASSERT_OK(WriteFileAtomically(path, "second, longer"));
  EXPECT_EQ(Slurp(path), "second, longer");

  FileFaults faults;
  faults.FailWritesAfter(3);  // the disk fills after 3 bytes of the new contents
  EXPECT_THAT(WriteFileAtomically(path, "third", &faults), IsError(StatusCode::kResourceExhausted));
  EXPECT_EQ(Slurp(path), "second, longer");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));  // its space is given back

  faults.Clear();
  faults.FailSyncs(true);
  EXPECT_THAT(WriteFileAtomically(path, "fourth", &faults), IsError(StatusCode::kIOError));
  EXPECT_EQ(Slurp(path), "second, longer");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  faults.Clear();  // space freed: the next write works
  FLOE_ASSERT_OK(WriteFileAtomically(path, "fifth", &faults));
  EXPECT_EQ(Slurp(path), "fifth");
}

TEST_F(DurableFileTest, RemoveTemporaryFilesDeletesOnlyLeftovers) {
  std::ofstream(dir_ / "topic.json.tmp") << "{\"partial";
  std::ofstream(dir_ / "cluster.id.tmp") << "";
  std::ofstream(dir_ / "topic.json") << "{}";
  std::ofstream(dir_ / "tmp") << "x";
  std::filesystem::create_directories(dir_ / "0.tmp");  // directories are not leftovers
  FLOE_ASSERT_OK_AND_ASSIGN(int removed, RemoveTemporaryFiles(dir_.string()));
  EXPECT_EQ(removed, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "topic.json.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cluster.id.tmp"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "topic.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "tmp"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "0.tmp"));
  FLOE_ASSERT_OK_AND_ASSIGN(removed, RemoveTemporaryFiles((dir_ / "missing").string()));
  EXPECT_EQ(removed, 0);
}

TEST_F(DurableFileTest, AppendIsAllOrNothing) {
  const std::string path = (dir_ / "offsets.log").string();
  FileFaults faults;
  {
    FLOE_ASSERT_OK_AND_ASSIGN(auto file, AppendFile::Open(path, &faults));
    EXPECT_EQ(file->size(), 0);
    FLOE_ASSERT_OK(file->Append(std::string_view("record-1;"), true));
    faults.FailWritesAfter(4);  // "reco" reaches the file, then the disk is full
    EXPECT_THAT(file->Append(std::string_view("record-2;"), true),
                IsError(StatusCode::kResourceExhausted));
    EXPECT_EQ(file->size(), 9);
    EXPECT_EQ(Slurp(path), "record-1;");  // the torn part is gone

    faults.Clear();
    faults.FailSyncs(true);  // written but not durable: not acknowledged either
    EXPECT_THAT(file->Append(std::string_view("record-3;"), true), IsError(StatusCode::kIOError));
    EXPECT_EQ(Slurp(path), "record-1;");

    faults.Clear();
    FLOE_ASSERT_OK(file->Append(std::string_view("record-4;"), true));
    EXPECT_EQ(file->size(), 18);
    uint8_t buf[32];
    FLOE_ASSERT_OK_AND_ASSIGN(size_t n, file->ReadAt(9, sizeof(buf), buf));
    EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), n), "record-4;");
  }
  FLOE_ASSERT_OK_AND_ASSIGN(auto reopened, AppendFile::Open(path));
  EXPECT_EQ(reopened->size(), 18);
  FLOE_ASSERT_OK(reopened->Truncate(9));
  EXPECT_EQ(Slurp(path), "record-1;");
  FLOE_ASSERT_OK(reopened->Append(std::string_view("record-5;"), false));
  FLOE_ASSERT_OK(reopened->Sync());
  EXPECT_EQ(Slurp(path), "record-1;record-5;");
}

TEST_F(DurableFileTest, OpenInAMissingDirectoryIsNotFound) {
  EXPECT_THAT(AppendFile::Open((dir_ / "no" / "such.log").string()),
              IsError(StatusCode::kNotFound));
}

}  // namespace
}  // namespace floe::io

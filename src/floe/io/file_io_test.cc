#include "floe/io/file_io.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "floe/base/testing.h"
#include "floe/io/local_file_io.h"
#include "floe/io/memory_file_io.h"

namespace floe::io {
namespace {

void ExerciseFileIO(FileIO& io, const std::string& root) {
  std::string loc = root + "/a/b/file.bin";
  FLOE_ASSERT_OK(io.WriteFile(loc, "hello world", /*overwrite=*/false));
  EXPECT_EQ(io.WriteFile(loc, "again", false).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(*io.Exists(loc));
  auto in = io.OpenInput(loc);
  FLOE_ASSERT_OK(in);
  EXPECT_EQ((*in)->size(), 11u);
  auto part = (*in)->Read(6, 5);
  FLOE_ASSERT_OK(part);
  EXPECT_EQ(part->view(), "world");
  EXPECT_TRUE((*in)->Read(7, 5).status().IsCorrupt());
  auto listed = io.List(root + "/a");
  FLOE_ASSERT_OK(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].location, loc);
  EXPECT_EQ((*listed)[0].size, 11u);
  FLOE_ASSERT_OK(io.Delete(loc));
  EXPECT_FALSE(*io.Exists(loc));
  EXPECT_TRUE(io.OpenInput(loc).status().IsNotFound());
}

TEST(FileIOTest, Local) {
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_io_test_" + std::to_string(::getpid()));
  LocalFileIO io;
  ExerciseFileIO(io, dir.string());
  std::filesystem::remove_all(dir);
}

TEST(FileIOTest, Memory) {
  MemoryFileIO io;
  ExerciseFileIO(io, "mem://bucket");
}

}  // namespace
}  // namespace floe::io

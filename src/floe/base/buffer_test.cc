#include "floe/base/buffer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace floe {
namespace {

TEST(BufferTest, GrowsAlignedAndKeepsContents) {
  Buffer b;
  for (int i = 0; i < 10000; ++i) b.AppendValue<int32_t>(i);
  ASSERT_EQ(b.size(), 40000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % Buffer::kAlignment, 0u);
  for (int i = 0; i < 10000; ++i) EXPECT_EQ(b.data_as<int32_t>()[i], i);
  Buffer moved = std::move(b);
  EXPECT_EQ(moved.size(), 40000u);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  Buffer copy = moved.Clone();
  EXPECT_EQ(copy.view(), moved.view());
  copy.ResizeZeroed(40004);
  EXPECT_EQ(copy.data_as<int32_t>()[10000], 0);
}

}  // namespace
}  // namespace floe

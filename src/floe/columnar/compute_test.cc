#include "floe/columnar/compute.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"

namespace floe::columnar {
namespace {

// The expected result of a filter is the array built from the kept rows only.
TEST(Filter, EveryLayout) {
  // list<struct<a: int32, s: string>> with nulls at each level, plus bool and fixed.
  DataTypePtr item = Struct({Field("a", Int32()), Field("s", String())});
  DataTypePtr type = List(Field("element", item));
  struct Row {
    bool null;
    std::vector<std::pair<std::optional<int32_t>, std::optional<std::string>>> items;
    std::optional<bool> flag;
    std::optional<std::string> fixed;
  };
  std::vector<Row> rows = {
      {false, {{1, "x"}, {std::nullopt, "yy"}}, true, "ab"},
      {true, {}, std::nullopt, std::nullopt},
      {false, {}, false, "cd"},
      {false, {{3, std::nullopt}}, std::nullopt, "ef"},
      {false, {{4, "zzzz"}, {5, ""}, {6, "w"}}, true, std::nullopt},
  };
  auto build = [&](const std::vector<uint8_t>& keep) {
    auto lb = MakeBuilder(type);
    auto* list = static_cast<ListBuilder*>(lb.get());
    BoolBuilder flags;
    FixedBinaryBuilder fixed(FixedBinary(2));
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!keep[r]) continue;
      const Row& row = rows[r];
      if (row.null) {
        list->AppendNull();
      } else {
        list->Append();
        auto* sb = static_cast<StructBuilder*>(list->child());
        for (const auto& [a, s] : row.items) {
          sb->Append();
          auto* ab = static_cast<FixedWidthBuilder<int32_t>*>(sb->child(0));
          auto* ssb = static_cast<BinaryBuilder*>(sb->child(1));
          if (a)
            ab->Append(*a);
          else
            ab->AppendNull();
          if (s)
            ssb->Append(*s);
          else
            ssb->AppendNull();
        }
        list->Close();
      }
      if (row.flag)
        flags.Append(*row.flag);
      else
        flags.AppendNull();
      if (row.fixed)
        fixed.Append(*row.fixed);
      else
        fixed.AppendNull();
    }
    std::vector<Array> out;
    out.push_back(list->Finish());
    out.push_back(flags.Finish());
    out.push_back(fixed.Finish());
    return out;
  };
  std::vector<uint8_t> all(rows.size(), 1);
  std::vector<Array> input = build(all);
  for (std::vector<uint8_t> keep : std::vector<std::vector<uint8_t>>{
           {1, 0, 1, 0, 1}, {0, 1, 0, 1, 0}, {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 1}}) {
    std::vector<Array> expected = build(keep);
    int64_t selected = CountSelected(keep.data(), static_cast<int64_t>(keep.size()));
    for (size_t c = 0; c < input.size(); ++c) {
      Array got = Filter(input[c], keep.data(), selected);
      FLOE_ASSERT_OK(got.Validate());
      EXPECT_TRUE(got.Equals(expected[c])) << "column " << c;
    }
  }
}

}  // namespace
}  // namespace floe::columnar

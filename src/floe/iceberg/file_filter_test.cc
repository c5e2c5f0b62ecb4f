#include "floe/iceberg/file_filter.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

// Cases follow Java's DeleteFileIndex.canContainEqDeletesForFile (Iceberg 1.11), the rule
// Iceberg Java applies when it attaches equality deletes to a data file.
class EqualityDeletesMayApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = Schema::Make(
        {NestedField::Required(1, "id", LongType()), NestedField::Optional(2, "name", StringType()),
         NestedField::Optional(3, "s", StructType({NestedField::Optional(4, "x", LongType())}))});
    FLOE_ASSERT_OK(schema);
    md_.schemas.push_back(*schema);
    md_.current_schema_id = 0;
  }

  static std::string Bytes(const Literal& l) {
    Result<std::string> r = l.ToBytes();
    return r.ok() ? std::move(*r) : std::string();
  }

  // `values` values of field `id` in the file, of which `nulls` are null.
  static void Counts(DataFile* f, int32_t id, int64_t values, int64_t nulls) {
    f->value_counts[id] = values;
    f->null_value_counts[id] = nulls;
  }

  static void Bounds(DataFile* f, int32_t id, const Literal& lo, const Literal& hi) {
    f->lower_bounds[id] = Bytes(lo);
    f->upper_bounds[id] = Bytes(hi);
  }

  static void Stats(DataFile* f, int32_t id, int64_t values, int64_t nulls, const Literal& lo,
                    const Literal& hi) {
    Counts(f, id, values, nulls);
    Bounds(f, id, lo, hi);
  }

  static DataFile Deletes(std::vector<int32_t> ids) {
    DataFile d;
    d.content = FileContent::kEqualityDeletes;
    d.equality_ids = std::move(ids);
    return d;
  }

  TableMetadata md_;
};

TEST_F(EqualityDeletesMayApplyTest, DisjointRangesDoNotApply) {
  DataFile data;
  Stats(&data, 1, 4, 0, Literal::Long(0), Literal::Long(9));
  DataFile far = Deletes({1});
  Stats(&far, 1, 1, 0, Literal::Long(12), Literal::Long(12));
  EXPECT_FALSE(EqualityDeletesMayApply(md_, data, far));
  DataFile below = Deletes({1});
  Stats(&below, 1, 1, 0, Literal::Long(-5), Literal::Long(-1));
  EXPECT_FALSE(EqualityDeletesMayApply(md_, data, below));
  DataFile inside = Deletes({1});
  Stats(&inside, 1, 2, 0, Literal::Long(9), Literal::Long(30));
  EXPECT_TRUE(EqualityDeletesMayApply(md_, data, inside));
}

TEST_F(EqualityDeletesMayApplyTest, MissingMetricsAssumeAMatch) {
  DataFile data;
  Stats(&data, 1, 4, 0, Literal::Long(0), Literal::Long(9));
  DataFile no_bounds = Deletes({1});
  Counts(&no_bounds, 1, 1, 0);
  EXPECT_TRUE(EqualityDeletesMayApply(md_, data, no_bounds));
  DataFile far = Deletes({1});
  Stats(&far, 1, 1, 0, Literal::Long(12), Literal::Long(12));
  EXPECT_TRUE(EqualityDeletesMayApply(md_, DataFile{}, far));
  // Nested and unknown fields are not judged.
  DataFile nested = Deletes({3, 99});
  EXPECT_TRUE(EqualityDeletesMayApply(md_, data, nested));
}

TEST_F(EqualityDeletesMayApplyTest, NullsDecideForOptionalFields) {
  DataFile all_null;
  Counts(&all_null, 2, 5, 5);
  DataFile no_null_deletes = Deletes({2});
  Stats(&no_null_deletes, 2, 1, 0, Literal::String("a"), Literal::String("a"));
  EXPECT_FALSE(EqualityDeletesMayApply(md_, all_null, no_null_deletes));

  DataFile no_nulls;
  Stats(&no_nulls, 2, 5, 0, Literal::String("a"), Literal::String("z"));
  DataFile null_deletes = Deletes({2});
  Counts(&null_deletes, 2, 2, 2);
  EXPECT_FALSE(EqualityDeletesMayApply(md_, no_nulls, null_deletes));

  // Both hold nulls: null deletes null, whatever the ranges.
  DataFile some_null;
  Stats(&some_null, 2, 5, 1, Literal::String("a"), Literal::String("c"));
  DataFile some_null_deletes = Deletes({2});
  Stats(&some_null_deletes, 2, 3, 1, Literal::String("x"), Literal::String("y"));
  EXPECT_TRUE(EqualityDeletesMayApply(md_, some_null, some_null_deletes));
  // Without the null there, the ranges decide.
  Stats(&some_null_deletes, 2, 3, 0, Literal::String("x"), Literal::String("y"));
  EXPECT_FALSE(EqualityDeletesMayApply(md_, some_null, some_null_deletes));
}

TEST_F(EqualityDeletesMayApplyTest, EveryEqualityFieldMustAllowAMatch) {
  DataFile data;
  Stats(&data, 1, 4, 0, Literal::Long(0), Literal::Long(9));
  Stats(&data, 2, 4, 0, Literal::String("a"), Literal::String("a"));
  DataFile deletes = Deletes({1, 2});
  Stats(&deletes, 1, 1, 0, Literal::Long(3), Literal::Long(3));
  Stats(&deletes, 2, 1, 0, Literal::String("b"), Literal::String("b"));
  EXPECT_FALSE(EqualityDeletesMayApply(md_, data, deletes));
  Stats(&deletes, 2, 1, 0, Literal::String("a"), Literal::String("a"));
  EXPECT_TRUE(EqualityDeletesMayApply(md_, data, deletes));
}

}  // namespace
}  // namespace floe::iceberg

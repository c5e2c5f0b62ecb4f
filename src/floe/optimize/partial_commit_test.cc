// CommittablePart (self-optimizing.allow-partial-commit): only whole partitions whose tasks
// all succeeded are committed, and a delete file that a left-out task still reads stays in
// the table (DESIGN.md §4 rule 2), however the full plan would have removed it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "floe/optimize/rewrite.h"

namespace floe::optimize {
namespace {

using iceberg::FileContent;
using iceberg::FileScanTask;
using iceberg::ScanFile;

std::shared_ptr<const ScanFile> File(const std::string& path, FileContent content) {
  auto f = std::make_shared<ScanFile>();
  f->file.file_path = path;
  f->file.content = content;
  return f;
}

RewriteTask Task(const std::string& partition, const std::string& data,
                 std::vector<std::shared_ptr<const ScanFile>> deletes) {
  RewriteTask t;
  t.partition_key = partition;
  FileScanTask f;
  f.data = File(data, FileContent::kData);
  for (const auto& d : deletes) {
    (d->file.content == FileContent::kEqualityDeletes ? f.equality_deletes : f.position_deletes)
        .push_back(d);
  }
  t.rewrite_data.push_back(f);
  t.rewritten_deletes = std::move(deletes);
  return t;
}

std::vector<std::string> Paths(const std::vector<std::shared_ptr<const ScanFile>>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f->file.file_path);
  return out;
}

TEST(PartialCommitTest, KeepsWholePartitionsAndTheDeletesOthersRead) {
  auto global = File("global-eq", FileContent::kEqualityDeletes);  // unpartitioned: A and B
  auto a_pos = File("a-pos", FileContent::kPositionDeletes);
  auto b_eq = File("b-eq", FileContent::kEqualityDeletes);
  OptimizingPlan plan;
  plan.type = OptimizingType::kMinor;
  plan.tasks.push_back(Task("0/[0]", "a1", {global, a_pos}));
  plan.tasks.push_back(Task("0/[0]", "a2", {global}));
  plan.tasks.push_back(Task("0/[1]", "b1", {global, b_eq}));
  plan.tasks.push_back(Task("0/[2]", "c1", {}));

  // Partition [1] failed; [0] succeeded in both its tasks; [2]'s only task failed too.
  PartialPlan part = CommittablePart(plan, {true, true, false, false});
  ASSERT_EQ(part.tasks, (std::vector<size_t>{0, 1}));
  ASSERT_EQ(part.plan.tasks.size(), 2u);
  EXPECT_EQ(part.plan.type, OptimizingType::kMinor);
  // The global delete still applies to b1, which stays: it must not be removed.
  EXPECT_EQ(Paths(part.plan.tasks[0].rewritten_deletes), (std::vector<std::string>{"a-pos"}));
  EXPECT_EQ(Paths(part.plan.tasks[0].read_only_deletes), (std::vector<std::string>{"global-eq"}));
  EXPECT_TRUE(part.plan.tasks[1].rewritten_deletes.empty());
  EXPECT_EQ(CountPlan(part.plan).removed_delete_files, 1);

  // One failed task of a partition holds back its other, successful task.
  PartialPlan none = CommittablePart(plan, {true, false, true, true});
  EXPECT_EQ(none.tasks, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(Paths(none.plan.tasks[0].rewritten_deletes), (std::vector<std::string>{"b-eq"}));

  PartialPlan empty = CommittablePart(plan, {false, false, false, false});
  EXPECT_TRUE(empty.plan.tasks.empty());
  EXPECT_FALSE(empty.plan.type.has_value());
}

}  // namespace
}  // namespace floe::optimize

// The planner against the cases in tests/cases/planner/ (see its README): expected plans
// worked out by hand from Amoro's rules.
#include "floe/optimize/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/base/testing.h"

namespace floe::optimize {
namespace {

using iceberg::DataFile;
using iceberg::FileScanTask;
using iceberg::Literal;
using iceberg::ScanFile;
using Json = nlohmann::json;

std::vector<Literal> PartitionValues(const Json& values) {
  std::vector<Literal> out;
  for (const Json& v : values) {
    out.push_back(v.is_string() ? Literal::String(v.get<std::string>())
                                : Literal::Int(v.get<int32_t>()));
  }
  return out;
}

std::vector<FileScanTask> Files(const Json& c) {
  std::map<std::string, std::shared_ptr<const ScanFile>> deletes;
  const Json delete_list = c.value("deletes", Json::array());
  for (const Json& d : delete_list) {
    auto f = std::make_shared<ScanFile>();
    f->file.file_path = d.at("path").get<std::string>();
    std::string content = d.at("content").get<std::string>();
    f->file.content = content == "equality" ? iceberg::FileContent::kEqualityDeletes
                                            : iceberg::FileContent::kPositionDeletes;
    if (content == "dv") {
      f->file.file_format = iceberg::FileFormat::kPuffin;
      f->file.content_offset = 4;
      f->file.content_size_in_bytes = d.at("size").get<int64_t>();
    }
    f->file.file_size_in_bytes = d.at("size").get<int64_t>();
    f->file.record_count = d.at("records").get<int64_t>();
    if (d.contains("referenced_data_file")) {
      f->file.referenced_data_file = d["referenced_data_file"].get<std::string>();
    }
    deletes[f->file.file_path] = f;
  }
  std::vector<FileScanTask> tasks;
  for (const Json& j : c.at("files")) {
    auto data = std::make_shared<ScanFile>();
    data->file.file_path = j.at("path").get<std::string>();
    data->file.spec_id = j.value("spec", 0);
    data->file.partition = PartitionValues(j.value("partition", Json::array()));
    data->file.file_size_in_bytes = j.at("size").get<int64_t>();
    data->file.record_count = j.at("records").get<int64_t>();
    FileScanTask task;
    task.data = data;
    const Json names = j.value("deletes", Json::array());
    for (const Json& name : names) {
      auto d = deletes.at(name.get<std::string>());
      (d->file.content == iceberg::FileContent::kEqualityDeletes ? task.equality_deletes
                                                                 : task.position_deletes)
          .push_back(d);
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

std::set<std::string> Paths(const std::vector<std::shared_ptr<const ScanFile>>& files) {
  std::set<std::string> out;
  for (const auto& f : files) out.insert(f->file.file_path);
  return out;
}

std::set<std::string> Paths(const std::vector<FileScanTask>& tasks) {
  std::set<std::string> out;
  for (const auto& t : tasks) out.insert(t.data->file.file_path);
  return out;
}

std::set<std::string> Paths(const Json& list) {
  std::set<std::string> out;
  for (const Json& p : list) out.insert(p.get<std::string>());
  return out;
}

// A task as comparable text: its four path sets and the spec its output is written with
// when not the input's.
std::string Describe(const std::set<std::string>& rewrite, const std::set<std::string>& pos,
                     const std::set<std::string>& read_only, const std::set<std::string>& removed,
                     std::optional<int32_t> output_spec) {
  std::ostringstream out;
  if (output_spec) out << "output_spec=" << *output_spec << ' ';
  auto list = [&out](const char* name, const std::set<std::string>& s) {
    out << name << "=[";
    for (const auto& p : s) out << p << ' ';
    out << "] ";
  };
  list("rewrite_data", rewrite);
  list("rewrite_pos_data", pos);
  list("read_only_deletes", read_only);
  list("rewritten_deletes", removed);
  return out.str();
}

int64_t Count(const PartitionEvaluation& e, const std::string& field) {
  if (field == "fragments") return e.fragments.count;
  if (field == "undersized") return e.undersized_segments.count;
  if (field == "rewrite_segments") return e.rewrite_segments.count;
  if (field == "rewrite_pos_segments") return e.rewrite_pos_segments.count;
  if (field == "equality_deletes") return e.equality_deletes.count;
  if (field == "position_deletes") return e.position_deletes.count;
  ADD_FAILURE() << "unknown expected field " << field;
  return -1;
}

void RunCase(const std::filesystem::path& path) {
  SCOPED_TRACE(path.filename().string());
  std::ifstream in(path);
  Json c = Json::parse(in);
  std::map<std::string, std::string> properties;
  const Json props = c.value("properties", Json::object());
  for (const auto& [k, v] : props.items()) {
    properties[k] = v.get<std::string>();
  }
  auto config = OptimizingConfig::FromProperties(properties);
  FLOE_ASSERT_OK(config);
  PlanOptions options;
  options.now_ms = c.at("now_ms").get<int64_t>();
  Json history = c.value("history", Json::object());
  options.history.last_minor_ms = history.value("last_minor_ms", int64_t{0});
  options.history.last_major_ms = history.value("last_major_ms", int64_t{0});
  options.history.last_full_ms = history.value("last_full_ms", int64_t{0});
  options.available_threads = c.value("threads", 1);
  if (c.contains("max_input_size_per_thread")) {
    options.max_input_size_per_thread = c["max_input_size_per_thread"].get<int64_t>();
  }
  if (c.contains("current_spec")) options.current_spec_id = c["current_spec"].get<int32_t>();
  if (c.contains("forced")) {
    std::string forced = c["forced"].get<std::string>();
    options.forced = forced == "full"    ? OptimizingType::kFull
                     : forced == "major" ? OptimizingType::kMajor
                                         : OptimizingType::kMinor;
  }

  OptimizingPlan plan = PlanOptimizing(Files(c), *config, options);
  const Json& expect = c.at("expect");

  if (expect.at("type").is_null()) {
    EXPECT_FALSE(plan.type.has_value()) << OptimizingTypeName(*plan.type);
  } else {
    ASSERT_TRUE(plan.type.has_value());
    EXPECT_EQ(OptimizingTypeName(*plan.type), expect["type"].get<std::string>());
  }

  for (const Json& p : expect.at("partitions")) {
    std::vector<Literal> values = PartitionValues(p.at("partition"));
    int32_t spec = p.value("spec", 0);
    auto it = std::find_if(
        plan.partitions.begin(), plan.partitions.end(),
        [&](const PartitionEvaluation& e) { return e.spec_id == spec && e.partition == values; });
    ASSERT_NE(it, plan.partitions.end()) << "no evaluation of partition " << p.dump();
    SCOPED_TRACE(it->key);
    for (const auto& [field, value] : p.items()) {
      if (field == "spec" || field == "partition") continue;
      if (field == "necessary") {
        EXPECT_EQ(it->necessary, value.get<bool>()) << it->reason;
      } else if (field == "type") {
        EXPECT_EQ(OptimizingTypeName(it->type), value.get<std::string>());
      } else if (field == "health") {
        EXPECT_EQ(it->health.total(), value.get<int>());
      } else {
        EXPECT_EQ(Count(*it, field), value.get<int64_t>()) << field;
      }
    }
    if (it->necessary) {
      EXPECT_FALSE(it->reason.empty());
    }
  }

  std::multiset<std::string> expected_tasks;
  for (const Json& t : expect.at("tasks")) {
    expected_tasks.insert(Describe(Paths(t.value("rewrite_data", Json::array())),
                                   Paths(t.value("rewrite_pos_data", Json::array())),
                                   Paths(t.value("read_only_deletes", Json::array())),
                                   Paths(t.value("rewritten_deletes", Json::array())),
                                   t.contains("output_spec")
                                       ? std::optional<int32_t>(t["output_spec"].get<int32_t>())
                                       : std::nullopt));
  }
  std::multiset<std::string> actual_tasks;
  for (const RewriteTask& t : plan.tasks) {
    actual_tasks.insert(Describe(Paths(t.rewrite_data), Paths(t.rewrite_pos_data),
                                 Paths(t.read_only_deletes), Paths(t.rewritten_deletes),
                                 t.output_spec_id));
  }
  EXPECT_EQ(actual_tasks, expected_tasks);
}

TEST(PlannerCases, MatchExpectedPlans) {
  std::filesystem::path dir(FLOE_PLANNER_CASES);
  std::vector<std::filesystem::path> cases;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 10u);
  for (const auto& path : cases) {
    try {
      RunCase(path);
    } catch (const Json::exception& e) {
      ADD_FAILURE() << path.filename() << ": malformed case: " << e.what();
    }
  }
}

// Task inputs: the bytes a task reads are its data files plus its distinct delete files,
// each delete counted once even when several of the task's files need it.
TEST(Planner, TaskInputCountsSharedDeletesOnce) {
  auto eq = std::make_shared<ScanFile>();
  eq->file.file_path = "e";
  eq->file.content = iceberg::FileContent::kEqualityDeletes;
  eq->file.file_size_in_bytes = 50;
  std::vector<FileScanTask> files;
  for (int i = 0; i < 3; ++i) {
    auto d = std::make_shared<ScanFile>();
    d->file.file_path = "f" + std::to_string(i);
    d->file.file_size_in_bytes = 100;
    d->file.record_count = 10;
    files.push_back(FileScanTask{d, {}, {eq}});
  }
  OptimizingConfig config;
  config.target_size = 1000;
  config.max_task_size = 1000;
  config.minor_trigger_file_count = 2;
  OptimizingPlan plan = PlanOptimizing(files, config, PlanOptions{});
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].input_bytes, 3 * 100 + 50);
  EXPECT_EQ(Paths(plan.tasks[0].rewritten_deletes), std::set<std::string>{"e"});
}

// With self-optimizing.filter only some files are planned; a delete file that a file left
// out by the filter still needs must stay.
TEST(Planner, FilteredPlanKeepsDeletesNeededOutsideTheFilter) {
  auto eq = std::make_shared<ScanFile>();
  eq->file.file_path = "e";
  eq->file.content = iceberg::FileContent::kEqualityDeletes;
  eq->file.file_size_in_bytes = 50;
  std::vector<FileScanTask> all;
  for (int i = 0; i < 3; ++i) {
    auto d = std::make_shared<ScanFile>();
    d->file.file_path = "f" + std::to_string(i);
    d->file.file_size_in_bytes = 100;
    d->file.record_count = 10;
    all.push_back(FileScanTask{d, {}, {eq}});
  }
  std::vector<FileScanTask> matching(all.begin(), all.begin() + 2);
  OptimizingConfig config;
  config.target_size = 1000;
  config.max_task_size = 1000;
  config.minor_trigger_file_count = 2;
  OptimizingPlan unfiltered = PlanOptimizing(matching, config, PlanOptions{});
  ASSERT_EQ(unfiltered.tasks.size(), 1u);
  EXPECT_EQ(Paths(unfiltered.tasks[0].rewritten_deletes), std::set<std::string>{"e"});
  OptimizingPlan filtered = PlanOptimizing(matching, config, PlanOptions{}, &all);
  ASSERT_EQ(filtered.tasks.size(), 1u);
  EXPECT_EQ(Paths(filtered.tasks[0].rewrite_data), (std::set<std::string>{"f0", "f1"}));
  EXPECT_TRUE(filtered.tasks[0].rewritten_deletes.empty());
  EXPECT_EQ(Paths(filtered.tasks[0].read_only_deletes), std::set<std::string>{"e"});
}

TEST(Planner, NoFilesNoPlan) {
  OptimizingPlan plan = PlanOptimizing({}, OptimizingConfig{}, PlanOptions{});
  EXPECT_FALSE(plan.type.has_value());
  EXPECT_TRUE(plan.partitions.empty());
  EXPECT_TRUE(plan.tasks.empty());
}

// A manual run plans partitions that no trigger selects.
TEST(Planner, ForcedRunIgnoresTriggers) {
  std::vector<FileScanTask> files;
  for (int i = 0; i < 2; ++i) {
    auto d = std::make_shared<ScanFile>();
    d->file.file_path = "f" + std::to_string(i);
    d->file.file_size_in_bytes = 100;
    d->file.record_count = 10;
    files.push_back(FileScanTask{d, {}, {}});
  }
  OptimizingConfig config;
  config.target_size = 1000;
  config.max_task_size = 1000;
  PlanOptions options;
  options.now_ms = 1;
  options.history.last_minor_ms = 1;
  EXPECT_TRUE(PlanOptimizing(files, config, options).tasks.empty());
  options.forced = OptimizingType::kMinor;
  OptimizingPlan plan = PlanOptimizing(files, config, options);
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(Paths(plan.tasks[0].rewrite_data), (std::set<std::string>{"f0", "f1"}));
}

}  // namespace
}  // namespace floe::optimize

// Test helpers for the table layer: a deterministic CommitEnvironment and a TableOperations
// that keeps the table pointer in memory and writes metadata files through any FileIO
// (MemoryFileIO in unit tests, LocalFileIO for interop checks). Its Commit follows the
// TableOperations contract (table_operations.h) the catalogs implement: requirements are
// checked against the current metadata (kConflict), updates applied with
// TableMetadataBuilder, a new metadata file written, the pointer swapped. Hooks inject
// concurrent commits and failures.
//
// Header-only so tests of other modules (catalogs: contract tests) can use it.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/iceberg/table_operations.h"

namespace floe::iceberg::testing {

// A clock that only moves when told to and UUIDs from a counter.
class FixedCommitEnvironment final : public CommitEnvironment {
 public:
  explicit FixedCommitEnvironment(int64_t now_ms = 1700000000000) : now_ms_(now_ms) {}
  int64_t NowMillis() override { return now_ms_; }
  std::string NewUuid() override {
    ++uuids_;
    return fmt::format("{:08x}-0000-4000-8000-{:012x}", uuids_ * 2654435761u % 0xFFFFFFFFu, uuids_);
  }
  void set_now(int64_t now_ms) { now_ms_ = now_ms; }
  void Advance(int64_t ms) { now_ms_ += ms; }

 private:
  int64_t now_ms_;
  uint64_t uuids_ = 0;
};

class InMemoryTableOperations final : public TableOperations {
 public:
  // Called before each commit validates; a non-OK status is returned as the commit's result
  // without committing (e.g. kConflict for a lost race).
  using Hook = std::function<Status()>;

  // Writes `initial` as version 0 under its location. REQUIRES: io and env outlive this.
  static Result<std::unique_ptr<InMemoryTableOperations>> Create(std::string name, io::FileIO& io,
                                                                 CommitEnvironment& env,
                                                                 TableMetadata initial) {
    auto ops = std::unique_ptr<InMemoryTableOperations>(
        new InMemoryTableOperations(std::move(name), io, env));
    std::string location = NewMetadataLocation(initial, 0, env.NewUuid());
    FLOE_RETURN_IF_ERROR(WriteTableMetadata(io, location, initial));
    initial.metadata_file_location = location;
    ops->current_ = std::make_shared<const TableMetadata>(std::move(initial));
    return ops;
  }

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return io_; }
  CommitEnvironment& env() override { return env_; }

  Result<TableMetadataPtr> Refresh() override {
    ++refreshes_;
    return current_;
  }

  Result<TableMetadataPtr> Commit(const std::vector<TableRequirement>& requirements,
                                  const std::vector<TableUpdate>& updates) override {
    ++commit_calls_;
    last_requirements_ = requirements;
    last_updates_ = updates;
    if (before_commit_) {
      Hook hook = std::move(before_commit_);
      before_commit_ = nullptr;
      FLOE_RETURN_IF_ERROR(hook());
    }
    for (const TableRequirement& r : requirements) {
      FLOE_RETURN_IF_ERROR(Validate(r, current_.get()));
    }
    TableMetadataBuilder builder = TableMetadataBuilder::From(current_);
    FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
    FLOE_ASSIGN_OR_RETURN(TableMetadataPtr built, builder.Build(env_.NowMillis()));
    auto md = std::make_shared<TableMetadata>(*built);
    std::string location = NewMetadataLocation(
        *md, NextMetadataVersion(current_->metadata_file_location), env_.NewUuid());
    FLOE_RETURN_IF_ERROR(WriteTableMetadata(io_, location, *md));
    md->metadata_file_location = location;
    current_ = md;
    ++commits_;
    if (fail_after_commit_) {
      Status s = std::move(*fail_after_commit_);
      fail_after_commit_.reset();
      return s;
    }
    return current_;
  }

  // The next commit runs `hook` first (once).
  void set_before_commit(Hook hook) { before_commit_ = std::move(hook); }
  // The next successful commit reports `status` (an unknown outcome) although it committed.
  void FailAfterNextCommit(Status status) { fail_after_commit_ = std::move(status); }

  const TableMetadataPtr& current() const { return current_; }
  int64_t commits() const { return commits_; }
  int64_t commit_calls() const { return commit_calls_; }
  int64_t refreshes() const { return refreshes_; }
  const std::vector<TableRequirement>& last_requirements() const { return last_requirements_; }
  const std::vector<TableUpdate>& last_updates() const { return last_updates_; }

 private:
  InMemoryTableOperations(std::string name, io::FileIO& io, CommitEnvironment& env)
      : name_(std::move(name)), io_(io), env_(env) {}

  std::string name_;
  io::FileIO& io_;
  CommitEnvironment& env_;
  TableMetadataPtr current_;
  Hook before_commit_;
  std::optional<Status> fail_after_commit_;
  int64_t commits_ = 0, commit_calls_ = 0, refreshes_ = 0;
  std::vector<TableRequirement> last_requirements_;
  std::vector<TableUpdate> last_updates_;
};

}  // namespace floe::iceberg::testing

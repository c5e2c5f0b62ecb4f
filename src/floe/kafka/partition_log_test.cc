#include "floe/kafka/partition_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "floe/base/testing.h"
#include "floe/io/durable_file.h"

namespace floe::kafka {
namespace {

class PartitionLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_plog_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static Buffer MakeBatch(int records, int64_t timestamp, size_t value_bytes = 10) {
    BatchBuilder b({});
    for (int i = 0; i < records; ++i) b.Add(timestamp + i, "k", std::string(value_bytes, 'v'));
    Buffer out;
    FLOE_EXPECT_OK(b.Finish(&out));
    return out;
  }

  std::filesystem::path dir_;
};

TEST_F(PartitionLogTest, AppendReadAndReopen) {
  std::vector<int64_t> replayed;
  {
    auto log = PartitionLog::Open(dir_.string(), {});
    FLOE_ASSERT_OK(log);
    for (int i = 0; i < 10; ++i) {
      Buffer b = MakeBatch(3, 1000 * i);
      Result<int64_t> base = (*log)->Append({b.data(), b.size()}, 0);
      FLOE_ASSERT_OK(base);
      EXPECT_EQ(*base, 3 * i);
    }
    EXPECT_EQ((*log)->log_end_offset(), 30);
    Buffer out;
    FLOE_ASSERT_OK((*log)->Read(16, 1, &out));  // at least one whole batch
    Result<BatchHeader> h = ValidateBatch(out.span());
    FLOE_ASSERT_OK(h);
    EXPECT_EQ(h->base_offset, 15);  // the batch containing 16
  }
  auto log = PartitionLog::Open(dir_.string(), {},
                                [&](const BatchHeader& h) { replayed.push_back(h.base_offset); });
  FLOE_ASSERT_OK(log);
  EXPECT_EQ((*log)->log_end_offset(), 30);
  EXPECT_EQ(replayed.size(), 10u);
  Buffer all;
  FLOE_ASSERT_OK((*log)->Read(0, 1 << 20, &all));
  EXPECT_EQ(all.size(), static_cast<size_t>((*log)->size_bytes()));
  EXPECT_TRUE((*log)->Read(31, 100, &all).IsNotFound());
}

TEST_F(PartitionLogTest, TornTailIsTruncatedOnOpen) {
  int64_t good_size = 0;
  {
    auto log = PartitionLog::Open(dir_.string(), {});
    FLOE_ASSERT_OK(log);
    for (int i = 0; i < 3; ++i) {
      Buffer b = MakeBatch(2, i);
      FLOE_ASSERT_OK((*log)->Append({b.data(), b.size()}, 0));
    }
    good_size = (*log)->size_bytes();
  }
  // A crash mid-write: half of a fourth batch, and a fifth whose bytes are garbage.
  Buffer torn = MakeBatch(2, 9);
  {
    std::ofstream f(dir_ / "00000000000000000000.log", std::ios::binary | std::ios::app);
    f.write(reinterpret_cast<const char*>(torn.data()),
            static_cast<std::streamsize>(torn.size() / 2));
  }
  auto log = PartitionLog::Open(dir_.string(), {});
  FLOE_ASSERT_OK(log);
  EXPECT_EQ((*log)->log_end_offset(), 6);
  EXPECT_EQ((*log)->size_bytes(), good_size);
  EXPECT_EQ(std::filesystem::file_size(dir_ / "00000000000000000000.log"),
            static_cast<uintmax_t>(good_size));
  // Appends continue after the good prefix.
  Buffer b = MakeBatch(1, 10);
  Result<int64_t> base = (*log)->Append({b.data(), b.size()}, 0);
  FLOE_ASSERT_OK(base);
  EXPECT_EQ(*base, 6);
}

TEST_F(PartitionLogTest, CorruptTailBatchFailsItsCrcAndIsDropped) {
  {
    auto log = PartitionLog::Open(dir_.string(), {});
    FLOE_ASSERT_OK(log);
    for (int i = 0; i < 2; ++i) {
      Buffer b = MakeBatch(2, i);
      FLOE_ASSERT_OK((*log)->Append({b.data(), b.size()}, 0));
    }
  }
  {
    std::fstream f(dir_ / "00000000000000000000.log",
                   std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(-1, std::ios::end);
    f.put('X');
  }
  auto log = PartitionLog::Open(dir_.string(), {});
  FLOE_ASSERT_OK(log);
  EXPECT_EQ((*log)->log_end_offset(), 2);
}

TEST_F(PartitionLogTest, SegmentsRollAndRetentionKeepsProtectedOffsets) {
  LogOptions options;
  options.segment_bytes = 400;
  auto log = PartitionLog::Open(dir_.string(), options);
  FLOE_ASSERT_OK(log);
  for (int i = 0; i < 20; ++i) {
    Buffer b = MakeBatch(1, 1000 + i, 100);
    FLOE_ASSERT_OK((*log)->Append({b.data(), b.size()}, 0));
  }
  size_t segments = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    segments += e.path().extension() == ".log";
  }
  EXPECT_GT(segments, 5u);
  // Everything is expired, but nothing at or past offset 4 may go.
  Result<int> deleted = (*log)->ApplyRetention(1'000'000, 1, -1, 4);
  FLOE_ASSERT_OK(deleted);
  EXPECT_GT(*deleted, 0);
  EXPECT_LE((*log)->log_start_offset(), 4);
  EXPECT_GT((*log)->log_start_offset(), 0);
  Buffer out;
  FLOE_EXPECT_OK((*log)->Read(4, 1, &out));
  // Unprotected: all sealed segments go; the active one stays.
  FLOE_ASSERT_OK((*log)->ApplyRetention(1'000'000, 1, -1, INT64_MAX));
  EXPECT_EQ((*log)->log_end_offset(), 20);
  EXPECT_GT((*log)->log_start_offset(), 4);
  // Reopen: the log starts at the oldest remaining segment.
  int64_t start = (*log)->log_start_offset();
  log->reset();
  auto again = PartitionLog::Open(dir_.string(), options);
  FLOE_ASSERT_OK(again);
  EXPECT_EQ((*again)->log_start_offset(), start);
  EXPECT_EQ((*again)->log_end_offset(), 20);
}

TEST_F(PartitionLogTest, BytesFromCountsWholeBatchesAcrossSegments) {
  LogOptions options;
  options.segment_bytes = 1000;  // a few batches per segment
  auto log = PartitionLog::Open(dir_.string(), options);
  FLOE_ASSERT_OK(log);
  std::vector<int64_t> sizes;
  for (int i = 0; i < 12; ++i) {
    Buffer b = MakeBatch(4, 1000 * i, 50);
    sizes.push_back(static_cast<int64_t>(b.size()));
    FLOE_ASSERT_OK((*log)->Append({b.data(), b.size()}, 0));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  EXPECT_EQ(*(*log)->BytesFrom(0), total);
  EXPECT_EQ(*(*log)->BytesFrom(-5), total);  // clamped to the log start
  // Offset 4k + j (j < 4) lies in batch k: its bytes and every later batch's count.
  for (int k = 0; k < 12; ++k) {
    int64_t from_k = 0;
    for (int i = k; i < 12; ++i) from_k += sizes[static_cast<size_t>(i)];
    EXPECT_EQ(*(*log)->BytesFrom(4 * k), from_k) << k;
    EXPECT_EQ(*(*log)->BytesFrom(4 * k + 3), from_k) << k;
  }
  EXPECT_EQ(*(*log)->BytesFrom(48), 0);
  EXPECT_EQ(*(*log)->BytesFrom(100), 0);
}

// A full disk (or a failed fdatasync) half-way through an append leaves nothing of the batch:
// the next append, once space is freed, continues at the last good offset, and a reopen sees
// exactly the acknowledged batches.
TEST_F(PartitionLogTest, FailedAppendLeavesTheLogAsItWas) {
  io::FileFaults faults;
  LogOptions options;
  options.faults = &faults;
  options.segment_bytes = 400;  // the third batch rolls a new segment
  const Buffer batch = MakeBatch(2, 1000, 40);
  const int64_t batch_bytes = static_cast<int64_t>(batch.size());
  ASSERT_LT(2 * batch_bytes, 400);
  ASSERT_GT(3 * batch_bytes, 400);
  {
    FLOE_ASSERT_OK_AND_ASSIGN(auto log, PartitionLog::Open(dir_.string(), options));
    Buffer b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK_AND_ASSIGN(int64_t first, log->Append({b.data(), b.size()}, 0));
    EXPECT_EQ(first, 0);

    faults.FailWritesAfter(batch_bytes / 2);
    b = MakeBatch(2, 1000, 40);
    EXPECT_THAT(log->Append({b.data(), b.size()}, 0), IsError(StatusCode::kResourceExhausted));
    EXPECT_EQ(log->log_end_offset(), 2);
    EXPECT_EQ(log->size_bytes(), batch_bytes);
    EXPECT_EQ(std::filesystem::file_size(dir_ / "00000000000000000000.log"),
              static_cast<uintmax_t>(batch_bytes));

    faults.Clear();
    faults.FailSyncs(true);
    b = MakeBatch(2, 1000, 40);
    EXPECT_THAT(log->Append({b.data(), b.size()}, 0), IsError(StatusCode::kIOError));
    EXPECT_EQ(log->log_end_offset(), 2);

    faults.Clear();  // space freed
    b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK_AND_ASSIGN(int64_t second, log->Append({b.data(), b.size()}, 0));
    EXPECT_EQ(second, 2);
    // The roll into a new segment fails too, then works.
    faults.FailWritesAfter(0);
    b = MakeBatch(2, 1000, 40);
    EXPECT_THAT(log->Append({b.data(), b.size()}, 0), IsError(StatusCode::kResourceExhausted));
    faults.Clear();
    b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK_AND_ASSIGN(int64_t third, log->Append({b.data(), b.size()}, 0));
    EXPECT_EQ(third, 4);
  }
  std::vector<int64_t> replayed;
  FLOE_ASSERT_OK_AND_ASSIGN(auto log,
                            PartitionLog::Open(dir_.string(), {}, [&](const BatchHeader& h) {
                              replayed.push_back(h.base_offset);
                            }));
  EXPECT_EQ(replayed, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(log->log_end_offset(), 6);
  Buffer all;
  FLOE_ASSERT_OK(log->Read(0, 1 << 20, &all));
  EXPECT_EQ(all.size(), static_cast<size_t>(3 * batch_bytes));
  for (int i = 0; i < 3; ++i) {
    FLOE_EXPECT_OK(ValidateBatch(all.span().subspan(static_cast<size_t>(i * batch_bytes),
                                                    static_cast<size_t>(batch_bytes))));
  }
}

// Group commit: appended batches are invisible until a sync of their segment comes back;
// a failed sync cuts them off the log and the file, so that a reopen (a restart after a
// power loss) and the next appends see only what was synced.
TEST_F(PartitionLogTest, GroupCommitShowsOnlySyncedBatchesAndDiscardsOnFailure) {
  io::FileFaults faults;
  LogOptions options;
  options.faults = &faults;
  const Buffer batch = MakeBatch(2, 1000, 40);
  const int64_t batch_bytes = static_cast<int64_t>(batch.size());
  {
    FLOE_ASSERT_OK_AND_ASSIGN(auto log, PartitionLog::Open(dir_.string(), options));
    log->EnableGroupCommit();
    for (int i = 0; i < 2; ++i) {
      Buffer b = MakeBatch(2, 1000, 40);
      FLOE_ASSERT_OK(log->Append({b.data(), b.size()}, 0).status());
    }
    EXPECT_EQ(log->log_end_offset(), 4);
    EXPECT_EQ(log->high_watermark(), 0);
    EXPECT_TRUE(log->has_unsynced());
    Buffer out;
    FLOE_ASSERT_OK(log->Read(0, 1 << 20, &out));
    EXPECT_EQ(out.size(), 0u);
    EXPECT_THAT(log->Read(2, 1 << 20, &out), IsError(StatusCode::kNotFound));
    FLOE_ASSERT_OK_AND_ASSIGN(auto found, log->FindByTimestamp(0));
    EXPECT_FALSE(found.has_value());

    SyncPoint point = log->PrepareSync();
    FLOE_ASSERT_OK_AND_ASSIGN(int64_t synced, log->CompleteSync(point, point.file->Sync()));
    EXPECT_EQ(synced, 2);
    EXPECT_EQ(log->high_watermark(), 4);
    FLOE_ASSERT_OK(log->Read(0, 1 << 20, &out));
    EXPECT_EQ(out.size(), static_cast<size_t>(2 * batch_bytes));

    // A failed sync: the batch goes, from the log and the file.
    Buffer b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK(log->Append({b.data(), b.size()}, 0).status());
    point = log->PrepareSync();
    faults.FailSyncs(true);
    Status failed = point.file->Sync();
    EXPECT_FALSE(failed.ok());
    EXPECT_THAT(log->CompleteSync(point, failed), IsError(StatusCode::kIOError));
    // A sync that reports success after a failed one is not trusted either.
    EXPECT_THAT(log->CompleteSync(point, Status::OK()), IsError(StatusCode::kIOError));
    EXPECT_FALSE(log->DiscardUnsynced().ok());  // the cut's own fsync fails too
    EXPECT_EQ(log->log_end_offset(), 4);
    EXPECT_EQ(log->high_watermark(), 4);
    EXPECT_EQ(log->discards(), 1u);
    EXPECT_EQ(std::filesystem::file_size(dir_ / "00000000000000000000.log"),
              static_cast<uintmax_t>(2 * batch_bytes));
    // A stale point (from before the discard) changes nothing, success or not.
    FLOE_ASSERT_OK_AND_ASSIGN(synced, log->CompleteSync(point, Status::OK()));
    EXPECT_EQ(synced, 0);
    // While the disk still fails, nothing is appended; once it works, the offsets are
    // assigned again from the synced end.
    b = MakeBatch(2, 1000, 40);
    EXPECT_FALSE(log->Append({b.data(), b.size()}, 0).ok());
    faults.Clear();
    b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK_AND_ASSIGN(int64_t base, log->Append({b.data(), b.size()}, 0));
    EXPECT_EQ(base, 4);
    point = log->PrepareSync();
    FLOE_ASSERT_OK_AND_ASSIGN(synced, log->CompleteSync(point, point.file->Sync()));
    EXPECT_EQ(synced, 1);
    EXPECT_EQ(log->high_watermark(), 6);
    // Unsynced at close: not visible, and not claimed durable.
    b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK(log->Append({b.data(), b.size()}, 0).status());
    EXPECT_EQ(log->high_watermark(), 6);
    FLOE_ASSERT_OK(log->Flush());  // what the broker does on shutdown
    EXPECT_EQ(log->high_watermark(), 8);
  }
  std::vector<int64_t> replayed;
  FLOE_ASSERT_OK_AND_ASSIGN(auto log,
                            PartitionLog::Open(dir_.string(), {}, [&](const BatchHeader& h) {
                              replayed.push_back(h.base_offset);
                            }));
  EXPECT_EQ(replayed, (std::vector<int64_t>{0, 2, 4, 6}));
}

// Rolling a segment under group commit syncs the sealed one: its batches become visible,
// and a sync prepared before the roll is stale.
TEST_F(PartitionLogTest, GroupCommitRollSyncsTheSealedSegment) {
  LogOptions options;
  options.segment_bytes = 400;
  FLOE_ASSERT_OK_AND_ASSIGN(auto log, PartitionLog::Open(dir_.string(), options));
  log->EnableGroupCommit();
  for (int i = 0; i < 2; ++i) {
    Buffer b = MakeBatch(2, 1000, 40);
    FLOE_ASSERT_OK(log->Append({b.data(), b.size()}, 0).status());
  }
  const SyncPoint before = log->PrepareSync();
  EXPECT_EQ(log->high_watermark(), 0);
  Buffer b = MakeBatch(2, 1000, 40);
  FLOE_ASSERT_OK(log->Append({b.data(), b.size()}, 0).status());  // rolls
  EXPECT_EQ(log->high_watermark(), 4);
  FLOE_ASSERT_OK_AND_ASSIGN(int64_t synced, log->CompleteSync(before, Status::OK()));
  EXPECT_EQ(synced, 0);
  EXPECT_EQ(log->high_watermark(), 4);
  const SyncPoint after = log->PrepareSync();
  FLOE_ASSERT_OK_AND_ASSIGN(synced, log->CompleteSync(after, after.file->Sync()));
  EXPECT_EQ(log->high_watermark(), 6);
}

}  // namespace
}  // namespace floe::kafka

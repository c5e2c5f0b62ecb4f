// LogSyncer: the group-commit worker of the broker's partition logs. The broker's thread
// appends batches without syncing and submits each dirty log's SyncPoint here; one worker
// thread takes everything submitted since its last round, fdatasyncs each file once, and
// hands the round's outcomes to `deliver`, which passes them back to the broker's thread.
// Many producers' batches on many partitions so cost one fdatasync per dirty file per
// round, and the broker's thread never waits for the disk to sync.
//
// Thread-safety: Submit from any thread; `deliver` runs on the worker thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "floe/base/status.h"
#include "floe/kafka/partition_log.h"

namespace floe::kafka {

class LogSyncer {
 public:
  struct Outcome {
    uint64_t key;  // the submitter's name for the log
    SyncPoint point;
    Status status;  // of fdatasync
  };
  // Starts the worker. `deliver` gets each round's outcomes (never empty), in round order.
  explicit LogSyncer(std::function<void(std::vector<Outcome>)> deliver);
  // Syncs what was submitted, delivers it, and joins the worker.
  ~LogSyncer();
  LogSyncer(const LogSyncer&) = delete;
  LogSyncer& operator=(const LogSyncer&) = delete;

  // Has `point` synced in the next round. A point not yet taken for the same key is
  // replaced (the newer one covers it: same file further on, or a file after a roll, which
  // synced the older one).
  void Submit(uint64_t key, SyncPoint point);

 private:
  void Run();

  std::function<void(std::vector<Outcome>)> deliver_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::map<uint64_t, SyncPoint> queued_;  // guarded by mu_
  bool stopping_ = false;                 // guarded by mu_
  std::thread worker_;                    // last: starts once the rest is set up
};

}  // namespace floe::kafka

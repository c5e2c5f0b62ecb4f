#include "floe/kafka/log_syncer.h"

#include <pthread.h>

#include <utility>

namespace floe::kafka {

LogSyncer::LogSyncer(std::function<void(std::vector<Outcome>)> deliver)
    : deliver_(std::move(deliver)), worker_([this] { Run(); }) {}

LogSyncer::~LogSyncer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

void LogSyncer::Submit(uint64_t key, SyncPoint point) {
  {
    std::lock_guard lock(mu_);
    queued_[key] = std::move(point);
  }
  wake_.notify_one();
}

void LogSyncer::Run() {
  pthread_setname_np(pthread_self(), "kafka-sync");
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping, and everything submitted is delivered
    std::map<uint64_t, SyncPoint> round;
    round.swap(queued_);
    lock.unlock();
    // Submissions during the round's syncs wait for the next round: that wait is what
    // gathers many batches under one fdatasync.
    std::vector<Outcome> outcomes;
    outcomes.reserve(round.size());
    for (auto& [key, point] : round) {
      Status status = point.file->Sync();
      outcomes.push_back({key, std::move(point), std::move(status)});
    }
    deliver_(std::move(outcomes));
    lock.lock();
  }
}

}  // namespace floe::kafka

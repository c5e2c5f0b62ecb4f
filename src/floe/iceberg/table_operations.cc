#include "floe/iceberg/table_operations.h"

#include <chrono>
#include <random>

#include <fmt/format.h>

namespace floe::iceberg {

namespace {

class SystemCommitEnvironment final : public CommitEnvironment {
 public:
  SystemCommitEnvironment() : rng_(Seed()) {}

  int64_t NowMillis() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  std::string NewUuid() override {
    uint64_t hi = rng_(), lo = rng_();
    hi = (hi & ~uint64_t{0xF000}) | uint64_t{0x4000};            // version 4
    lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // RFC 4122 variant
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                       hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
  }

 private:
  static uint64_t Seed() {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<CommitEnvironment> MakeSystemCommitEnvironment() {
  return std::make_unique<SystemCommitEnvironment>();
}

}  // namespace floe::iceberg

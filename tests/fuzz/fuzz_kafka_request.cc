// Fuzzes the Kafka request path: the input is one request frame (header and body, without
// the size prefix) handed to a Broker over a scratch data directory, then the same bytes as
// a record batch (validation and bounded decoding). Any crash, leak, or read outside the
// input (ASan) is a finding; errors are the expected outcome for most inputs.
//
// Seeds: tests/fuzz/corpus/fuzz_kafka_request/ (frames of ApiVersions, Metadata, Produce
// with a record batch, CreateTopics, JoinGroup; written by hand from kafka.md).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "floe/kafka/broker.h"
#include "floe/kafka/record_batch.h"

namespace {

// Inputs served by one broker before it is replaced by a fresh one: sharing it keeps runs
// fast (opening one per input would make every run a disk test) and lets inputs build on each
// other's topics and groups; replacing it bounds the state (and memory) a long run collects.
constexpr int kInputsPerBroker = 2000;

floe::kafka::Broker* TheBroker() {
  static std::unique_ptr<floe::kafka::Broker> broker;
  static int served = 0;
  if (broker == nullptr || ++served >= kInputsPerBroker) {
    broker.reset();
    served = 0;
    std::string dir =
        (std::filesystem::temp_directory_path() / ("floe_fuzz_kafka_" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    floe::kafka::BrokerOptions options;
    options.data_dir = dir;
    options.fsync_every_batch = false;
    options.now_ms = [] { return int64_t{1'700'000'000'000}; };
    options.random_seed = 1;
    auto b = floe::kafka::Broker::Open(options);
    if (!b.ok()) __builtin_trap();
    broker = std::move(*b);
  }
  return broker.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::kafka::Broker* broker = TheBroker();
  (void)broker->Handle({data, size}, "fuzz", [](std::optional<floe::Buffer>) {});
  broker->Tick();
  if (floe::kafka::ValidateBatch({data, size}).ok()) {
    floe::Buffer scratch;
    (void)floe::kafka::DecodeRecords({data, size}, 1 << 20, &scratch,
                                     [](const floe::kafka::Record&) { return floe::Status::OK(); });
  }
  return 0;
}

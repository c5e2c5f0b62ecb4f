// IngestService over a real broker (topics and records through Kafka frames) and a SQLite
// catalog: topics are rounds on a small executor, not threads (issue 25), and workers stop,
// restart and come back from a refused submission without losing a topic.
#include "floe/ingest/ingest_service.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "floe/base/testing.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/kafka/record_batch.h"
#include "floe/kafka/test_frames.h"

namespace floe::ingest {
namespace {

using std::chrono::milliseconds;

// Threads of this process now.
size_t ThreadCount() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++n;
  }
  return n;
}

class IngestServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_ingest_service_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    kafka::BrokerOptions options;
    options.data_dir = (dir_ / "kafka").string();
    options.now_ms = [this] { return now_ms_.load(); };
    options.random_seed = 1;
    options.validate_topic_configs = ValidateTableTopicConfigs;
    auto b = kafka::Broker::Open(options);
    ASSERT_TRUE(b.ok()) << b.error().ToString();
    broker_ = std::move(*b);
    registry_ = std::make_shared<catalog::CatalogRegistry>();
    registry_->Put(std::make_shared<catalog::CatalogPool>(
        "default", [this]() -> Result<std::unique_ptr<catalog::Catalog>> {
          {
            std::lock_guard lock(opened_mu_);
            opened_at_.push_back(std::chrono::steady_clock::now());
          }
          if (catalog_down_) return Status::Unavailable("catalog down");
          return OpenCatalog();
        }));
  }
  void TearDown() override {
    broker_.reset();
    std::filesystem::remove_all(dir_);
  }

  Result<std::unique_ptr<catalog::Catalog>> OpenCatalog() {
    catalog::CatalogOptions o;
    o.warehouse = (dir_ / "warehouse").string();
    FLOE_ASSIGN_OR_RETURN(auto c, catalog::SqlCatalog::Open(
                                      "sqlite:" + (dir_ / "catalog.db").string(), std::move(o)));
    return std::unique_ptr<catalog::Catalog>(std::move(c));
  }

  // The broker is not thread-safe: the server calls it on the Kafka listener's thread, the
  // test under one mutex.
  BrokerCall Call() {
    return [this](const std::function<void(kafka::Broker&)>& fn) {
      std::lock_guard lock(broker_mu_);
      fn(*broker_);
      return Status::OK();
    };
  }

  IngestServiceOptions Options(Executor* executor) {
    IngestServiceOptions o;
    o.catalog = "default";
    o.translator.now_ms = [this] { return now_ms_.load(); };
    o.poll_interval = milliseconds(5);
    o.retry_interval = milliseconds(5);
    o.max_retry_interval = milliseconds(40);
    o.executor = executor;
    return o;
  }

  template <typename Req>
  void Send(const Req& req, int16_t version) {
    Buffer frame = kafka::RequestFrame(req, version, ++correlation_);
    std::lock_guard lock(broker_mu_);
    Status s = broker_->Handle(frame.span(), "127.0.0.1", [](std::optional<Buffer>) {});
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  static std::map<std::string, std::string> JsonTopic() {
    return {{"floe.table.topic.enable", "true"},
            {"automq.table.topic.convert.value.type", "json"},
            {"floe.table.topic.transform.value.type", "flatten"},
            {"floe.table.topic.commit.interval.ms", "1000"}};
  }

  void CreateTopic(const std::string& name, const std::map<std::string, std::string>& configs) {
    kafka::CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = 1;
    for (const auto& [k, v] : configs) {
      auto& c = t.configs.emplace_back();
      c.name = k;
      c.value = v;
    }
    req.timeout_ms = 1000;
    Send(req, 5);
  }

  void SetConfig(const std::string& topic, const std::string& key, const std::string& value) {
    kafka::IncrementalAlterConfigsRequest req;
    auto& r = req.resources.emplace_back();
    r.resource_type = 2;  // topic
    r.resource_name = topic;
    auto& c = r.configs.emplace_back();
    c.name = key;
    c.config_operation = 0;  // set
    c.value = value;
    Send(req, 0);
  }

  void DeleteTopic(const std::string& topic) {
    kafka::DeleteTopicsRequest req;
    req.topic_names.push_back(topic);
    req.timeout_ms = 1000;
    Send(req, 1);
  }

  void Produce(const std::string& topic, const std::string& value) {
    kafka::BatchBuilder builder({});
    builder.Add(now_ms_.load(), std::string_view("k"), std::optional<std::string_view>(value), {});
    Buffer batch;
    ASSERT_TRUE(builder.Finish(&batch).ok());
    Send(kafka::ProduceOf(topic, batch.span(), -1, 1000), 9);
  }

  // Polls `done` until it holds or 60 s pass, moving the clock a second on each time so that
  // commit intervals elapse.
  bool WaitFor(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      now_ms_ += 1000;
      std::this_thread::sleep_for(milliseconds(2));
    }
    return done();
  }

  // Rows the running translator of `topic` committed; -1 when it has none.
  static int64_t RowsCommitted(IngestService& service, const std::string& topic) {
    auto t = service.Topic(topic);
    if (!t.ok() || !t->translation) return -1;
    return t->translation->rows_committed;
  }

  std::string CommittedOffsets(const std::string& table) {
    auto c = OpenCatalog();
    EXPECT_TRUE(c.ok());
    if (!c.ok()) return "";
    auto ops = (*c)->LoadTable({catalog::Namespace::FromString("kafka"), table});
    if (!ops.ok()) return "";
    auto metadata = (*ops)->Refresh();
    if (!metadata.ok()) return "";
    auto it = (*metadata)->properties.find("floe.ingest.offsets");
    return it == (*metadata)->properties.end() ? "" : it->second;
  }

  std::filesystem::path dir_;
  std::atomic<int64_t> now_ms_{1'700'000'000'000};
  int32_t correlation_ = 0;
  std::mutex broker_mu_;
  std::unique_ptr<kafka::Broker> broker_;
  std::shared_ptr<catalog::CatalogRegistry> registry_;
  std::mutex opened_mu_;
  std::vector<std::chrono::steady_clock::time_point> opened_at_;  // guarded by opened_mu_
  std::atomic<bool> catalog_down_{false};
};

TEST_F(IngestServiceTest, FiftyTopicsRunOnTwoExecutorThreads) {
  constexpr int kTopics = 50;
  for (int i = 0; i < kTopics; ++i) {
    CreateTopic("t" + std::to_string(i), JsonTopic());
    Produce("t" + std::to_string(i), R"({"id": 1})");
  }
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "ingest-test", .threads = 2}));
  const size_t threads_before = ThreadCount();
  FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                            IngestService::Start(registry_, Call(), Options(executor.get())));
  EXPECT_EQ(service->executor(), executor.get());
  ASSERT_TRUE(WaitFor([&] {
    for (int i = 0; i < kTopics; ++i) {
      if (RowsCommitted(*service, "t" + std::to_string(i)) != 1) return false;
    }
    return true;
  }));
  // The supervisor is the only thread the service adds; the topics' rounds ran on the two.
  EXPECT_LE(ThreadCount(), threads_before + 1);
  const ExecutorStats stats = executor->stats();
  EXPECT_GE(stats.completed, static_cast<uint64_t>(kTopics));
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_EQ(service->deferred_rounds(), 0u);
  // At most one round per topic waits on the executor (a running round may already have
  // queued its successor, so running ones are not counted; queued and delayed are read
  // under one lock).
  EXPECT_LE(stats.queued + stats.delayed, static_cast<uint64_t>(kTopics));
  service->Stop();
  EXPECT_EQ(ThreadCount(), threads_before);
  for (int i = 0; i < kTopics; ++i) EXPECT_EQ(CommittedOffsets("t" + std::to_string(i)), "0:1");
}

TEST_F(IngestServiceTest, ConfigChangeRestartsTheWorkerAndDeletionStopsIt) {
  CreateTopic("events", JsonTopic());
  Produce("events", R"({"id": 1})");
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "ingest-test", .threads = 1}));
  FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                            IngestService::Start(registry_, Call(), Options(executor.get())));
  ASSERT_TRUE(WaitFor([&] { return RowsCommitted(*service, "events") == 1; }));
  // A new translator (its stats start over) resumes from the committed offsets: the new
  // record only, once.
  SetConfig("events", "floe.table.topic.commit.interval.ms", "2000");
  ASSERT_TRUE(WaitFor([&] { return RowsCommitted(*service, "events") == 0; }));
  Produce("events", R"({"id": 2})");
  ASSERT_TRUE(WaitFor([&] { return RowsCommitted(*service, "events") == 1; }));
  EXPECT_EQ(CommittedOffsets("events"), "0:2");

  // Disabled: no translator, and no round left on the executor.
  SetConfig("events", "floe.table.topic.enable", "false");
  ASSERT_TRUE(WaitFor([&] {
    const ExecutorStats s = executor->stats();
    return RowsCommitted(*service, "events") == -1 && s.queued + s.delayed + s.running == 0;
  }));
  SetConfig("events", "floe.table.topic.enable", "true");
  ASSERT_TRUE(WaitFor([&] { return RowsCommitted(*service, "events") == 0; }));
  DeleteTopic("events");
  ASSERT_TRUE(WaitFor([&] {
    const ExecutorStats s = executor->stats();
    return !service->Topic("events").ok() && s.queued + s.delayed + s.running == 0;
  }));
}

TEST_F(IngestServiceTest, FailingRoundsBackOffAndLogOnce) {
  catalog_down_ = true;
  CreateTopic("events", JsonTopic());
  std::mutex mu;
  std::vector<std::string> logged;
  IngestServiceOptions options = Options(nullptr);  // the service's own executor
  options.threads = 1;
  options.error_log_interval = std::chrono::hours(1);
  options.log_error = [&](const std::string& topic, const Status& status) {
    std::lock_guard lock(mu);
    logged.push_back(topic + ": " + status.ToString());
  };
  FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                            IngestService::Start(registry_, Call(), std::move(options)));
  ASSERT_NE(service->executor(), nullptr);
  EXPECT_EQ(service->executor()->threads(), 1);
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(opened_mu_);
    return opened_at_.size() >= 6;
  }));
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_NE(logged[0].find("events: "), std::string::npos) << logged[0];
    EXPECT_NE(logged[0].find("catalog down"), std::string::npos) << logged[0];
  }
  {
    // Each attempt waits its backoff, 5 ms doubling to 40, not the 5 ms poll interval.
    std::lock_guard lock(opened_mu_);
    const int64_t backoff_ms[] = {5, 10, 20, 40, 40};
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_GE(opened_at_[i + 1] - opened_at_[i], milliseconds(backoff_ms[i])) << i;
    }
  }
  catalog_down_ = false;
  Produce("events", R"({"id": 1})");
  ASSERT_TRUE(WaitFor([&] { return RowsCommitted(*service, "events") == 1; }));
}

TEST_F(IngestServiceTest, RefusedRoundsAreSubmittedAgainBySupervisor) {
  constexpr int kTopics = 8;
  for (int i = 0; i < kTopics; ++i) {
    CreateTopic("t" + std::to_string(i), JsonTopic());
    Produce("t" + std::to_string(i), R"({"id": 1})");
  }
  // Room for one queued task: the supervisor's first pass submits eight.
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor,
                            Executor::Make({.name = "ingest-test", .threads = 1, .max_queued = 1}));
  FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                            IngestService::Start(registry_, Call(), Options(executor.get())));
  ASSERT_TRUE(WaitFor([&] {
    for (int i = 0; i < kTopics; ++i) {
      if (RowsCommitted(*service, "t" + std::to_string(i)) != 1) return false;
    }
    return true;
  }));
  EXPECT_GT(service->deferred_rounds(), 0u);
  EXPECT_GT(executor->stats().rejected, 0u);
}

// Services come and go on one shared executor while their rounds run; the rounds still
// queued or delayed after a service is gone touch nothing of it (ASan checks).
TEST_F(IngestServiceTest, StopAndRestartUnderLoadOnASharedExecutor) {
  constexpr int kTopics = 10;
  for (int i = 0; i < kTopics; ++i) {
    CreateTopic("t" + std::to_string(i), JsonTopic());
    Produce("t" + std::to_string(i), R"({"id": 1})");
  }
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "ingest-test", .threads = 2}));
  for (int round = 0; round < 10; ++round) {
    IngestServiceOptions options = Options(executor.get());
    options.poll_interval = milliseconds(1 + round % 3);
    FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                              IngestService::Start(registry_, Call(), std::move(options)));
    const uint64_t before = executor->stats().completed;
    ASSERT_TRUE(WaitFor([&] { return executor->stats().completed >= before + kTopics; }));
    if (round % 2 == 0) service->Stop();
    service.reset();
  }
  // Every round left behind runs (or is dropped) after its service is gone.
  ASSERT_TRUE(WaitFor([&] {
    const ExecutorStats s = executor->stats();
    return s.queued + s.delayed + s.running == 0;
  }));
  // Exactly once across the restarts: one row per topic.
  for (int i = 0; i < kTopics; ++i) EXPECT_EQ(CommittedOffsets("t" + std::to_string(i)), "0:1");
  // A service stopped while its executor stops first: its rounds are refused, Stop still
  // returns.
  FLOE_ASSERT_OK_AND_ASSIGN(auto service,
                            IngestService::Start(registry_, Call(), Options(executor.get())));
  executor->Stop();
  service->Stop();
}

}  // namespace
}  // namespace floe::ingest

// The listener over real loopback sockets: what a connection sees while a produce waits for
// its group-commit sync (kafka_server.h, Broker::StartGroupCommit).
#include "floe/kafka/kafka_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "floe/base/bytes.h"
#include "floe/base/testing.h"
#include "floe/io/durable_file.h"
#include "floe/kafka/test_frames.h"

namespace floe::kafka {
namespace {

class KafkaServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_kafka_server_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    FLOE_ASSERT_OK_AND_ASSIGN(auto broker, Broker::Open(Options()));
    KafkaServerOptions options;
    options.port = 0;
    options.advertise_bound_port = true;
    FLOE_ASSERT_OK_AND_ASSIGN(server_, KafkaServer::Start(options, std::move(broker)));
  }
  void TearDown() override {
    faults_.Clear();
    for (int fd : fds_) ::close(fd);
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  BrokerOptions Options() {
    BrokerOptions options;
    options.data_dir = dir_.string();
    options.random_seed = 1;
    options.file_faults = &faults_;
    return options;
  }

  int Connect() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(fd, 0);
    timeval timeout{10, 0};  // a read that never gets its answer fails the test
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server_->port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    fds_.push_back(fd);
    return fd;
  }

  template <typename Req>
  void Send(int fd, const Req& req, int16_t version, int32_t correlation) {
    Buffer frame;
    frame.Resize(4);  // the size prefix, written below
    AppendRequestFrame(req, version, correlation, &frame);
    StoreBE<uint32_t>(frame.data(), static_cast<uint32_t>(frame.size() - 4));
    ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(frame.size()));
  }

  // Reads one response frame; returns its correlation id (-1 on a failed read) and leaves
  // the rest in `*body`.
  int32_t Receive(int fd, Buffer* body) {
    uint8_t size[4];
    if (!ReadAll(fd, size, 4)) return -1;
    body->Resize(LoadBE<uint32_t>(size));
    if (!ReadAll(fd, body->data(), body->size())) return -1;
    return static_cast<int32_t>(LoadBE<uint32_t>(body->data()));
  }
  static bool ReadAll(int fd, uint8_t* out, size_t n) {
    for (size_t done = 0; done < n;) {
      ssize_t r = ::recv(fd, out + done, n - done, 0);
      if (r <= 0) return false;
      done += static_cast<size_t>(r);
    }
    return true;
  }

  static CreateTopicsRequest Create(const std::string& name) {
    CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = -1;
    return req;
  }
  static Buffer Batch(int records) {
    BatchBuilder b(BatchBuilderOptions{});
    for (int i = 0; i < records; ++i) b.Add(1000 + i, "k", "v");
    Buffer out;
    EXPECT_TRUE(b.Finish(&out).ok());
    return out;
  }
  static ProduceRequest Produce(const std::string& topic, const Buffer& batch) {
    return ProduceOf(topic, batch.span());
  }
  static int16_t ProduceError(const Buffer& body) {
    KafkaReader r(body.span().subspan(4), true);
    EXPECT_TRUE(r.SkipTags().ok());
    ProduceResponse resp;
    EXPECT_TRUE(resp.Read(r, 9).ok());
    return resp.responses.at(0).partition_responses.at(0).error_code;
  }

  // The broker's high watermark of `topic` partition 0 (-1: no such topic), read on the
  // io thread.
  int64_t HighWatermark(const std::string& topic) {
    int64_t hwm = -1;
    EXPECT_TRUE(server_
                    ->Call([&](Broker& b) {
                      for (const auto& t : b.ListTopics()) {
                        if (t.name == topic) hwm = t.partitions.at(0).log_end_offset;
                      }
                    })
                    .ok());
    return hwm;
  }
  template <typename Pred>
  static bool Eventually(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  std::filesystem::path dir_;
  io::FileFaults faults_;
  std::unique_ptr<KafkaServer> server_;
  std::vector<int> fds_;
};

// Invariant 3: a response ready before the produce ahead of it on the connection (waiting
// for its sync) goes out after it: Kafka clients match responses to requests by order.
TEST_F(KafkaServerTest, ResponsesStayInRequestOrderWhileAProduceWaitsForItsSync) {
  const int fd = Connect();
  Buffer body;
  Send(fd, Create("t"), 5, 1);
  ASSERT_EQ(Receive(fd, &body), 1);

  faults_.HoldSyncs(true);
  const Buffer batch = Batch(3);
  Send(fd, Produce("t", batch), 9, 2);
  ApiVersionsRequest versions;
  Send(fd, versions, 0, 3);  // answered by the broker at once
  ASSERT_TRUE(Eventually([&] { return faults_.held_syncs() == 1; }));
  EXPECT_EQ(HighWatermark("t"), 0);
  // The ApiVersions answer is ready within microseconds, yet nothing is sent: the
  // produce's answer comes first. (A window, not a wait: nothing may arrive in it.)
  pollfd readable{fd, POLLIN, 0};
  EXPECT_EQ(::poll(&readable, 1, 200), 0);

  faults_.HoldSyncs(false);
  ASSERT_EQ(Receive(fd, &body), 2);
  EXPECT_EQ(ProduceError(body), 0);
  ASSERT_EQ(Receive(fd, &body), 3);
  EXPECT_EQ(HighWatermark("t"), 3);
}

// Invariant 5: a connection that closes while its produce waits for the sync is gone when
// the answer comes (no use after free; run under ASan), the batch is still made durable and
// visible, and the listener goes on serving.
TEST_F(KafkaServerTest, AConnectionClosedWhileItsProduceWaitsIsForgotten) {
  const int admin = Connect();
  Buffer body;
  Send(admin, Create("t"), 5, 1);
  ASSERT_EQ(Receive(admin, &body), 1);

  faults_.HoldSyncs(true);
  const int fd = Connect();
  const Buffer batch = Batch(3);
  Send(fd, Produce("t", batch), 9, 7);
  ASSERT_TRUE(Eventually([&] { return faults_.held_syncs() == 1; }));
  ::shutdown(fd, SHUT_RDWR);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(HighWatermark("t"), 0);  // the io thread sees EOF
  faults_.HoldSyncs(false);
  ASSERT_TRUE(Eventually([&] { return HighWatermark("t") == 3; }));

  Send(admin, Produce("t", batch), 9, 2);
  ASSERT_EQ(Receive(admin, &body), 2);
  EXPECT_EQ(ProduceError(body), 0);
  EXPECT_EQ(HighWatermark("t"), 6);
}

// Invariant 5: stopping the server while a produce waits for its sync finishes that sync;
// the batch is in the log after a restart.
TEST_F(KafkaServerTest, StopFinishesTheSyncsUnderWay) {
  const int fd = Connect();
  Buffer body;
  Send(fd, Create("t"), 5, 1);
  ASSERT_EQ(Receive(fd, &body), 1);

  faults_.HoldSyncs(true);
  const Buffer batch = Batch(3);
  Send(fd, Produce("t", batch), 9, 2);
  ASSERT_TRUE(Eventually([&] { return faults_.held_syncs() == 1; }));
  std::thread stop([this] { server_->Stop(); });
  faults_.HoldSyncs(false);
  stop.join();
  // The connection was closed by the stop, unanswered or answered: either way no hang.
  (void)Receive(fd, &body);

  FLOE_ASSERT_OK_AND_ASSIGN(auto broker, Broker::Open(Options()));
  ASSERT_EQ(broker->ListTopics().size(), 1u);
  EXPECT_EQ(broker->ListTopics()[0].partitions.at(0).log_end_offset, 3);
}

}  // namespace
}  // namespace floe::kafka

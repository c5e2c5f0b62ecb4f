// The translator against a real broker (records produced through Produce frames) and a
// SQLite catalog; tables read back with TableScan. Expected rows are the produced JSON.
#include "floe/ingest/translator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "floe/base/testing.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/ingest/key_index.h"
#include "floe/ingest/schema_registry.h"
#include "floe/kafka/record_batch.h"
#include "floe/kafka/test_frames.h"

namespace floe::ingest {
namespace {

namespace col = floe::columnar;

class TranslatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_ingest_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    kafka::BrokerOptions options;
    options.data_dir = (dir_ / "kafka").string();
    options.now_ms = [this] { return now_ms_; };
    options.random_seed = 1;
    options.validate_topic_configs = ValidateTableTopicConfigs;
    auto b = kafka::Broker::Open(options);
    FLOE_ASSERT_OK(b);
    broker_ = std::move(*b);
    catalog_ = OpenCatalog();
    KeyIndexOptions k;
    k.dir = (dir_ / "key-index").string();
    k.memory_bytes = int64_t{16} << 20;
    auto index = KeyIndexStore::Open(k);
    FLOE_ASSERT_OK(index);
    key_index_ = std::move(*index);
  }
  void TearDown() override {
    broker_.reset();
    key_index_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<catalog::Catalog> OpenCatalog() {
    catalog::CatalogOptions o;
    o.warehouse = (dir_ / "warehouse").string();
    auto c = catalog::SqlCatalog::Open("sqlite:" + (dir_ / "catalog.db").string(), std::move(o));
    FLOE_EXPECT_OK(c);
    return std::move(*c);
  }

  BrokerCall Call() {
    return [this](const std::function<void(kafka::Broker&)>& fn) {
      fn(*broker_);
      return Status::OK();
    };
  }

  template <typename Req>
  Buffer Frame(const Req& req, int16_t version) {
    return kafka::RequestFrame(req, version, ++correlation_);
  }

  // Creates a topic through CreateTopics v5; returns the response's error code.
  int16_t CreateTopic(const std::string& name, int partitions,
                      std::map<std::string, std::string> configs) {
    kafka::CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = 1;
    for (const auto& [k, v] : configs) {
      auto& c = t.configs.emplace_back();
      c.name = k;
      c.value = v;
    }
    req.timeout_ms = 1000;
    Buffer frame = Frame(req, 5);
    int16_t code = -1;
    Status s = broker_->Handle(frame.span(), "127.0.0.1", [&](std::optional<Buffer> b) {
      kafka::KafkaReader r(b->span(), false);
      (void)r.Int32();
      kafka::KafkaReader body({r.position(), r.remaining()}, true);
      (void)body.SkipTags();
      kafka::CreateTopicsResponse resp;
      FLOE_EXPECT_OK(resp.Read(body, 5));
      code = resp.topics.at(0).error_code;
    });
    FLOE_EXPECT_OK(s);
    return code;
  }

  void Produce(const std::string& topic, int32_t partition,
               const std::vector<std::optional<std::string>>& values) {
    std::vector<std::pair<std::string, std::optional<std::string>>> records;
    for (const auto& v : values) records.emplace_back("k", v);
    ProduceKeyed(topic, partition, records);
  }

  using KeyedRecords = std::vector<std::pair<std::string, std::optional<std::string>>>;
  void ProduceKeyed(const std::string& topic, int32_t partition, const KeyedRecords& records) {
    kafka::BatchBuilder builder({});
    for (const auto& [k, v] : records) {
      builder.Add(++now_ms_, std::string_view(k),
                  v ? std::optional<std::string_view>(*v) : std::nullopt,
                  {{"h", std::string("hv")}});
    }
    Buffer batch;
    FLOE_ASSERT_OK(builder.Finish(&batch));
    Buffer frame = Frame(kafka::ProduceOf(topic, batch.span(), -1, 1000, partition), 9);
    Status s = broker_->Handle(frame.span(), "127.0.0.1", [](std::optional<Buffer>) {});
    FLOE_ASSERT_OK(s);
  }

  std::map<std::string, std::string> JsonTopic(std::string tolerance = "invalid_data") {
    return {{"floe.table.topic.enable", "true"},
            {"automq.table.topic.convert.value.type", "json"},
            {"floe.table.topic.transform.value.type", "flatten"},
            {"floe.table.topic.commit.interval.ms", "1000"},
            {"floe.table.topic.errors.tolerance", tolerance}};
  }

  std::unique_ptr<TopicTranslator> Translator(const std::string& topic, catalog::Catalog* c,
                                              int64_t commit_backlog_bytes = 0) {
    auto configs = JsonTopic();
    for (const auto& t : broker_->ListTopics()) {
      if (t.name == topic) configs = t.configs;
    }
    auto config = ParseTableTopicConfig(configs);
    FLOE_EXPECT_OK(config);
    IngestOptions o;
    o.now_ms = [this] { return now_ms_; };
    o.commit_backlog_bytes = commit_backlog_bytes;
    o.key_index = key_index_.get();
    return std::make_unique<TopicTranslator>(topic, *config, c, Call(), o);
  }

  // Every row of `table` as "column=value" text for the columns asked for, sorted.
  struct Loaded {
    std::unique_ptr<iceberg::TableOperations> ops;
    std::unique_ptr<iceberg::Table> table;
  };
  Loaded Load(const std::string& name) {
    Loaded l;
    auto ops = catalog_->LoadTable({catalog::Namespace::FromString("kafka"), name});
    FLOE_EXPECT_OK(ops);
    l.ops = std::move(*ops);
    l.table = std::move(*iceberg::Table::Load(*l.ops));
    return l;
  }
  std::vector<col::RecordBatch> Scan(const std::string& name) {
    Loaded l = Load(name);
    auto scan = iceberg::TableScan::Make(l.table->metadata(), l.table->io(), {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    auto reader = (*scan)->Open(std::move(*tasks));
    FLOE_EXPECT_OK(reader);
    std::vector<col::RecordBatch> out;
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !*b) break;
      out.push_back(std::move(**b));
    }
    return out;
  }
  // The _kafka.offset values of every row, sorted.
  std::vector<int64_t> Offsets(const std::string& name) {
    std::vector<int64_t> out;
    for (const auto& b : Scan(name)) {
      int idx = b.schema()->FieldIndex("_kafka");
      const col::Array& meta = b.column(static_cast<size_t>(idx));
      for (int64_t i = 0; i < b.num_rows(); ++i) out.push_back(meta.child(1).Value<int64_t>(i));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::filesystem::path dir_;
  int64_t now_ms_ = 1'700'000'000'000;
  int32_t correlation_ = 0;
  std::unique_ptr<kafka::Broker> broker_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<KeyIndexStore> key_index_;
};

TEST_F(TranslatorTest, BrokerValidatesTableTopicConfigs) {
  EXPECT_EQ(CreateTopic("ok", 1, JsonTopic()), 0);
  // INVALID_CONFIG (40): checked as a whole by the injected validator.
  EXPECT_EQ(CreateTopic("bad", 1, {{"floe.table.topic.errors.tolerance", "most"}}), 40);
  EXPECT_EQ(CreateTopic("bad2", 1, {{"automq.table.topic.convert.value.type", "protobuf"}}), 40);
}

TEST_F(TranslatorTest, JsonRowsEvolveAndResumeExactlyOnce) {
  ASSERT_EQ(CreateTopic("events", 2, JsonTopic()), 0);
  Produce("events", 0, {R"({"id": 1, "name": "a"})", R"({"id": 2, "name": "b", "score": 1.5})"});
  Produce("events", 1, {R"({"id": 3, "tags": ["x"]})"});
  {
    auto t = Translator("events", catalog_.get());
    FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
    FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
    EXPECT_EQ(t->stats().rows_committed, 3);
  }
  Loaded l = Load("events");
  const iceberg::Schema& schema = *l.table->metadata()->current_schema();
  ASSERT_NE(schema.FindFieldByName("score"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("score")->type->kind(), iceberg::TypeKind::kDouble);
  ASSERT_NE(schema.FindFieldByName("tags"), nullptr);
  EXPECT_EQ(l.table->metadata()->properties.at("floe.ingest.offsets"), "0:2,1:1");
  const iceberg::Snapshot* snap = l.table->metadata()->current_snapshot();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(*snap->SummaryValue("floe.ingest.topic"), "events");
  EXPECT_EQ(*snap->SummaryValue("floe.ingest.offsets"), "0:0-2,1:0-1");

  // Offsets per partition: 0,1 (partition 0) and 0 (partition 1).
  EXPECT_EQ(Offsets("events"), (std::vector<int64_t>{0, 0, 1}));

  // A new coordinator (a restart) resumes at the committed offsets.
  Produce("events", 0, {R"({"id": 4, "name": "d"})"});
  {
    auto t = Translator("events", catalog_.get());
    FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
    FLOE_ASSERT_OK(t->CommitNow());
  }
  EXPECT_EQ(Offsets("events"), (std::vector<int64_t>{0, 0, 1, 2}));
  Loaded again = Load("events");
  EXPECT_EQ(*again.table->metadata()->current_snapshot()->SummaryValue("floe.ingest.offsets"),
            "0:2-3,1:1-1");
  int64_t total = 0;
  for (const auto& b : Scan("events")) total += b.num_rows();
  EXPECT_EQ(total, 4);
}

TEST_F(TranslatorTest, StaleCoordinatorCannotCommitTwice) {
  ASSERT_EQ(CreateTopic("orders", 1, JsonTopic()), 0);
  Produce("orders", 0, {R"({"id": 1})"});
  auto first = Translator("orders", catalog_.get());
  FLOE_ASSERT_OK(first->CommitNow());  // creates nothing: nothing translated yet
  FLOE_ASSERT_OK(first->RunOnce());
  auto other_catalog = OpenCatalog();
  auto second = Translator("orders", other_catalog.get());
  FLOE_ASSERT_OK(second->RunOnce());
  FLOE_ASSERT_OK(second->CommitNow());
  // The first one translated the same record from the same start: its commit must fail.
  Status st = first->CommitNow();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_EQ(Offsets("orders"), (std::vector<int64_t>{0}));
}

TEST_F(TranslatorTest, BadRecordsGoToTheDeadLetterTable) {
  ASSERT_EQ(CreateTopic("clicks", 1, JsonTopic("invalid_data")), 0);
  Produce("clicks", 0, {R"({"n": 1})", "not json", R"([1])", R"({"n": 2})"});
  auto t = Translator("clicks", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(t->stats().dlq_records, 2);
  EXPECT_EQ(Offsets("clicks"), (std::vector<int64_t>{0, 3}));
  std::vector<std::string> reasons;
  std::vector<int64_t> offsets;
  for (const auto& b : Scan("clicks_dlq")) {
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      offsets.push_back(b.column(1).Value<int64_t>(i));
      reasons.emplace_back(b.column(5).BinaryValue(i));
      if (offsets.back() == 1) {
        EXPECT_EQ(b.column(4).BinaryValue(i), "not json");
      }
    }
  }
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0] + offsets[1], 3);
  for (const auto& r : reasons) EXPECT_NE(r.find("JSON"), std::string::npos) << r;
}

TEST_F(TranslatorTest, ToleranceNoneStops) {
  ASSERT_EQ(CreateTopic("strict", 1, JsonTopic("none")), 0);
  Produce("strict", 0, {R"({"n": 1})", "oops"});
  auto t = Translator("strict", catalog_.get());
  Status st = t->RunOnce();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("offset 1"), std::string::npos) << st.ToString();
  EXPECT_EQ(t->stats().state, "failed");
}

TEST_F(TranslatorTest, ConversionConflictNeedsAll) {
  ASSERT_EQ(CreateTopic("typed", 1, JsonTopic("all")), 0);
  Produce("typed", 0, {R"({"n": 1})", R"({"n": "text"})", R"({"n": 3})"});
  auto t = Translator("typed", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow());
  EXPECT_EQ(Offsets("typed"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(t->stats().dlq_records, 1);
}

TEST_F(TranslatorTest, RawAndValueStructModes) {
  ASSERT_EQ(CreateTopic("raw", 1, {{"floe.table.topic.enable", "true"}}), 0);
  Produce("raw", 0, {std::string("\xff\x00\x01", 3), std::nullopt});
  {
    auto t = Translator("raw", catalog_.get());
    FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
    FLOE_ASSERT_OK(t->CommitNow());
  }
  auto batches = Scan("raw");
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].num_rows(), 2);
  EXPECT_EQ(batches[0].column(1).BinaryValue(0), std::string_view("\xff\x00\x01", 3));
  EXPECT_TRUE(batches[0].column(1).IsNull(1));
  // _kafka.key is a string (convert.key.type defaults to string); headers a map.
  EXPECT_EQ(batches[0].column(0).child(3).BinaryValue(0), "k");

  ASSERT_EQ(CreateTopic("nested", 1,
                        {{"floe.table.topic.enable", "true"},
                         {"floe.table.topic.convert.value.type", "json"}}),
            0);
  Produce("nested", 0, {R"({"a": {"b": 1}})"});
  {
    auto t = Translator("nested", catalog_.get());
    FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
    FLOE_ASSERT_OK(t->CommitNow());
  }
  Loaded l = Load("nested");
  const iceberg::NestedField* value =
      l.table->metadata()->current_schema()->FindFieldByName("value");
  ASSERT_NE(value, nullptr);
  ASSERT_EQ(value->type->kind(), iceberg::TypeKind::kStruct);
  EXPECT_NE(value->type->FieldByName("a"), nullptr);
}

TEST_F(TranslatorTest, PartitionByAppliesWhenTheColumnAppears) {
  auto configs = JsonTopic();
  configs["floe.table.topic.partition.by"] = "[bucket(id, 4), region]";
  ASSERT_EQ(CreateTopic("parted", 1, configs), 0);
  Produce("parted", 0, {R"({"id": 1, "region": "eu"})", R"({"id": 2, "region": "us"})"});
  auto t = Translator("parted", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow());
  Loaded l = Load("parted");
  ASSERT_EQ(l.table->metadata()->default_spec()->fields().size(), 2u);
  EXPECT_EQ(Offsets("parted"), (std::vector<int64_t>{0, 1}));
}

TEST_F(TranslatorTest, RetentionKeepsUncommittedRecords) {
  ASSERT_EQ(CreateTopic("kept", 1, JsonTopic()), 0);
  Produce("kept", 0, {R"({"n": 1})"});
  EXPECT_EQ(broker_->ProtectedOffset("kept", 0), 0);
  auto t = Translator("kept", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce());
  EXPECT_EQ(broker_->ProtectedOffset("kept", 0), 0);  // translated, not committed
  FLOE_ASSERT_OK(t->CommitNow());
  EXPECT_EQ(broker_->ProtectedOffset("kept", 0), 1);
}

// The live rows of a keyed table as id -> the JSON-ish text of `v`, from floe's scan (which
// applies equality deletes, Iceberg spec "Row-level deletes").
std::map<int64_t, std::string> LiveRows(const std::vector<col::RecordBatch>& batches) {
  std::map<int64_t, std::string> out;
  for (const auto& b : batches) {
    int id = b.schema()->FieldIndex("id");
    int v = b.schema()->FieldIndex("v");
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      int64_t key = b.column(static_cast<size_t>(id)).Value<int64_t>(i);
      EXPECT_FALSE(out.contains(key)) << "id " << key << " is live twice";
      out[key] = v < 0 || b.column(static_cast<size_t>(v)).IsNull(i)
                     ? "null"
                     : std::string(b.column(static_cast<size_t>(v)).BinaryValue(i));
    }
  }
  return out;
}

TEST_F(TranslatorTest, UpsertsKeepTheLastRowPerKey) {
  auto configs = JsonTopic();
  configs["floe.table.topic.id.columns"] = "[id]";
  configs["floe.table.topic.upsert.enable"] = "true";
  ASSERT_EQ(CreateTopic("users", 1, configs), 0);
  Produce("users", 0,
          {R"({"id": 1, "v": "a"})", R"({"id": 2, "v": "b"})", R"({"id": 1, "v": "c"})"});
  auto t = Translator("users", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(LiveRows(Scan("users")), (std::map<int64_t, std::string>{{1, "c"}, {2, "b"}}));
  Loaded l = Load("users");
  const iceberg::Schema& schema = *l.table->metadata()->current_schema();
  ASSERT_EQ(schema.identifier_field_ids().size(), 1u);
  EXPECT_EQ(schema.identifier_field_ids()[0], schema.FindFieldByName("id")->id);
  EXPECT_TRUE(schema.FindFieldByName("id")->required);
  EXPECT_EQ(l.table->metadata()->format_version, 2);

  // Next commit: an update of 2 and a new column (a schema change mid-interval commits the
  // rows before it first); a record without the id goes to the dead-letter table.
  Produce("users", 0,
          {R"({"id": 2, "v": "d"})", R"({"id": 3, "v": "e", "w": true})", R"({"v": "no id"})"});
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(LiveRows(Scan("users")),
            (std::map<int64_t, std::string>{{1, "c"}, {2, "d"}, {3, "e"}}));
  EXPECT_EQ(t->stats().dlq_records, 1);
  EXPECT_EQ(Load("users").table->metadata()->properties.at("floe.ingest.offsets"), "0:6");
}

// delete.mode: position (the default) commits position deletes (v2) or one deletion vector
// per data file (v3) and never an equality delete; equality commits an equality delete of
// every key (Flink's upsert writer). Both read back the same rows.
TEST_F(TranslatorTest, DeleteModesChooseTheDeleteFiles) {
  struct Case {
    std::string topic, mode, version;
  };
  for (const Case& c : {Case{"pos2", "position", "2"}, Case{"pos3", "position", "3"},
                        Case{"eq2", "equality", "2"}}) {
    SCOPED_TRACE(c.topic);
    auto configs = JsonTopic();
    configs["floe.table.topic.id.columns"] = "[id]";
    configs["floe.table.topic.upsert.enable"] = "true";
    configs["floe.table.topic.delete.mode"] = c.mode;
    configs["floe.table.topic.format.version"] = c.version;
    ASSERT_EQ(CreateTopic(c.topic, 1, configs), 0);
    auto t = Translator(c.topic, catalog_.get());
    std::map<int64_t, std::string> model;
    for (int round = 0; round < 3; ++round) {
      std::vector<std::optional<std::string>> records;
      for (int64_t id = 0; id < 6; ++id) {
        if ((id + round) % 3 == 0 && round > 0) continue;
        const std::string v = "r" + std::to_string(round);
        records.push_back(fmt::format(R"({{"id": {}, "v": "{}"}})", id, v));
        model[id] = v;
      }
      Produce(c.topic, 0, records);
      FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
      FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
      EXPECT_EQ(LiveRows(Scan(c.topic)), model);
      Loaded l = Load(c.topic);
      EXPECT_EQ(std::to_string(l.table->metadata()->format_version), c.version);
      auto scan = iceberg::TableScan::Make(l.table->metadata(), l.table->io(), {});
      FLOE_ASSERT_OK(scan);
      auto tasks = (*scan)->PlanFiles();
      FLOE_ASSERT_OK(tasks);
      size_t equality = 0, positional = 0;
      for (const auto& task : *tasks) {
        equality += task.equality_deletes.size();
        positional += task.position_deletes.size();
        if (c.version == "3") {
          EXPECT_LE(task.position_deletes.size(), 1u);
          for (const auto& d : task.position_deletes) {
            EXPECT_EQ(d->file.file_format, iceberg::FileFormat::kPuffin);
          }
        }
      }
      if (c.mode == "position") {
        EXPECT_EQ(equality, 0u);
        if (round > 0) {
          EXPECT_GT(positional, 0u);
        }
      } else if (round > 0) {
        // (The first commit's equality deletes apply to no data file: same sequence number.)
        EXPECT_EQ(positional, 0u);
        EXPECT_GT(equality, 0u);
      }
    }
  }
}

TEST_F(TranslatorTest, DebeziumEnvelopesBecomeDeletesAndUpserts) {
  auto configs = JsonTopic();
  configs["floe.table.topic.transform.value.type"] = "flatten_debezium";
  configs["floe.table.topic.id.columns"] = "[id]";
  ASSERT_EQ(CreateTopic("cdc", 1, configs), 0);
  Produce(
      "cdc", 0,
      {R"({"before": null, "after": {"id": 1, "v": "a"}, "op": "c"})",
       R"({"before": null, "after": {"id": 2, "v": "b"}, "op": "r"})",
       R"({"payload": {"before": {"id": 1, "v": "a"}, "after": {"id": 1, "v": "a2"}, "op": "u"}})",
       R"({"before": {"id": 2, "v": "b"}, "after": null, "op": "d"})",
       R"({"before": null, "after": {"id": 4, "v": "x"}, "op": "c"})"});
  auto t = Translator("cdc", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(LiveRows(Scan("cdc")), (std::map<int64_t, std::string>{{1, "a2"}, {4, "x"}}));
  // Across commits: delete 1, re-create 2.
  Produce("cdc", 0,
          {R"({"before": {"id": 1, "v": "a2"}, "after": null, "op": "d"})",
           R"({"before": null, "after": {"id": 2, "v": "again"}, "op": "c"})"});
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(LiveRows(Scan("cdc")), (std::map<int64_t, std::string>{{2, "again"}, {4, "x"}}));
  Loaded l = Load("cdc");
  const iceberg::Snapshot* snap = l.table->metadata()->current_snapshot();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->operation, "overwrite");  // a row delta with deletes (Java's RowDelta)
}

TEST_F(TranslatorTest, CdcFieldOps) {
  auto configs = JsonTopic();
  configs["floe.table.topic.cdc.field"] = "meta.op";
  configs["floe.table.topic.id.columns"] = "[id]";
  ASSERT_EQ(CreateTopic("ops", 1, configs), 0);
  Produce(
      "ops", 0,
      {R"({"id": 1, "v": "a", "meta": {"op": "I"}})", R"({"id": 2, "v": "b", "meta": {"op": "i"}})",
       R"({"id": 1, "v": "c", "meta": {"op": "U"}})", R"({"id": 2, "meta": {"op": "D"}})",
       R"({"id": 3, "v": "z", "meta": {"op": "X"}})"});
  auto t = Translator("ops", catalog_.get());
  FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
  FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
  EXPECT_EQ(LiveRows(Scan("ops")), (std::map<int64_t, std::string>{{1, "c"}}));
  EXPECT_EQ(t->stats().dlq_records, 1);  // op X
}

TEST(OffsetsTest, RoundTrip) {
  EXPECT_EQ(FormatOffsets({3, 0, 7}), "0:3,1:0,2:7");
  auto parsed = ParseOffsets("0:3,1:0,2:7");
  FLOE_ASSERT_OK(parsed);
  EXPECT_EQ(*parsed, (std::vector<int64_t>{3, 0, 7}));
  EXPECT_FALSE(ParseOffsets("1:3").ok());
  EXPECT_FALSE(ParseOffsets("0:x").ok());
  EXPECT_TRUE(ParseOffsets("")->empty());
}

TEST_F(TranslatorTest, BacklogCommitsBeforeTheInterval) {
  ASSERT_EQ(CreateTopic("busy", 1, JsonTopic()), 0);
  ASSERT_EQ(CreateTopic("calm", 1, JsonTopic()), 0);
  Produce("busy", 0, {R"({"n": 1})", R"({"n": 2})", R"({"n": 3})"});
  Produce("calm", 0, {R"({"n": 1})", R"({"n": 2})", R"({"n": 3})"});
  // The interval (1 s) has not passed: only the translator with a backlog bound commits.
  auto busy = Translator("busy", catalog_.get(), /*commit_backlog_bytes=*/50);
  FLOE_ASSERT_OK(busy->RunOnce()) << busy->stats().last_error;
  EXPECT_EQ(Offsets("busy"), (std::vector<int64_t>{0, 1, 2}));
  auto calm = Translator("calm", catalog_.get());
  FLOE_ASSERT_OK(calm->RunOnce()) << calm->stats().last_error;
  EXPECT_EQ(calm->stats().commits, 0);
  ASSERT_EQ(calm->stats().partitions.size(), 1u);
  EXPECT_GT(calm->stats().partitions[0].untranslated_bytes, 50);
  // The lag in seconds counts from the oldest uncommitted record's timestamp (the first
  // produced: Produce stamps each record with the clock, then advances it by 1 ms).
  EXPECT_EQ(calm->stats().partitions[0].oldest_pending_ms, now_ms_ - 2);
  // After the commit nothing is pending and the broker's figure drops to zero.
  FLOE_ASSERT_OK(calm->CommitNow());
  FLOE_ASSERT_OK(calm->RunOnce());
  EXPECT_EQ(calm->stats().partitions[0].oldest_pending_ms, -1);
  EXPECT_EQ(calm->stats().partitions[0].untranslated_bytes, 0);
}

TEST_F(TranslatorTest, DeadLetterCountSurvivesARestart) {
  ASSERT_EQ(CreateTopic("noisy", 1, JsonTopic("invalid_data")), 0);
  Produce("noisy", 0, {R"({"n": 1})", "not json", "nor this", R"({"n": 2})"});
  {
    auto t = Translator("noisy", catalog_.get());
    FLOE_ASSERT_OK(t->RunOnce()) << t->stats().last_error;
    FLOE_ASSERT_OK(t->CommitNow()) << t->stats().last_error;
    EXPECT_EQ(t->stats().dlq_records, 2);
  }
  auto other_catalog = OpenCatalog();
  auto restarted = Translator("noisy", other_catalog.get());
  FLOE_ASSERT_OK(restarted->RunOnce()) << restarted->stats().last_error;
  EXPECT_EQ(restarted->stats().dlq_records, 2);
}

}  // namespace
}  // namespace floe::ingest

namespace floe::ingest {
namespace {

// A value in the Confluent wire format: magic 0, the schema id big-endian, the payload.
std::string Framed(int32_t id, std::string_view payload) {
  std::string out(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((id >> shift) & 0xff);
  out += payload;
  return out;
}

TEST_F(TranslatorTest, RegistryAvroRowsEvolveTheTableAndBadIdsGoToTheDlq) {
  auto registry = *SchemaRegistry::Open("");
  auto v1 = registry->Register("reg-value", SchemaType::kAvro,
                               R"({"type":"record","name":"R","fields":[
                                   {"name":"id","type":"long"},{"name":"name","type":"string"}]})",
                               {});
  auto v2 = registry->Register("reg-value", SchemaType::kAvro,
                               R"({"type":"record","name":"R","fields":[
                                   {"name":"id","type":"long"},{"name":"name","type":"string"},
                                   {"name":"score","type":["null","double"],"default":null}]})",
                               {});
  FLOE_ASSERT_OK(v1);
  FLOE_ASSERT_OK(v2);
  ASSERT_EQ(CreateTopic("reg", 1,
                        {{"floe.table.topic.enable", "true"},
                         {"floe.table.topic.convert.value.type", "by_schema_id"},
                         {"floe.table.topic.transform.value.type", "flatten"},
                         {"floe.table.topic.commit.interval.ms", "1000"}}),
            0);
  // Avro binary encoding (spec): long 3 = zig-zag 0x06; string "ab" = length 0x04 + bytes;
  // union branch 1 = 0x02, then double 1.5 little-endian.
  const std::string row1 = Framed(*v1, std::string("\x06\x04"
                                                   "ab",
                                                   4));
  const std::string row2 = Framed(*v2, std::string("\x08\x02"
                                                   "c"
                                                   "\x02\x00\x00\x00\x00\x00\x00\xf8\x3f",
                                                   12));
  Produce("reg", 0, {row1, row2, Framed(999, "\x02"), std::string("no header")});
  std::map<std::string, std::string> configs;
  for (const auto& topic : broker_->ListTopics()) {
    if (topic.name == "reg") configs = topic.configs;
  }
  auto config = ParseTableTopicConfig(configs);
  FLOE_ASSERT_OK(config);
  IngestOptions o;
  o.key_index = key_index_.get();
  o.now_ms = [this] { return now_ms_; };
  o.schema_registry = registry.get();
  TopicTranslator t("reg", *config, catalog_.get(), Call(), o);
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  EXPECT_EQ(t.stats().dlq_records, 2);
  EXPECT_GE(t.stats().schema_updates, 2);  // the v1 columns, then score
  EXPECT_EQ(Offsets("reg"), (std::vector<int64_t>{0, 1}));
  std::map<int64_t, std::string> rows;
  for (const auto& b : Scan("reg")) {
    const auto& id = b.column(static_cast<size_t>(b.schema()->FieldIndex("id")));
    const auto& name = b.column(static_cast<size_t>(b.schema()->FieldIndex("name")));
    const auto& score = b.column(static_cast<size_t>(b.schema()->FieldIndex("score")));
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      rows[id.Value<int64_t>(i)] =
          std::string(name.BinaryValue(i)) + "/" +
          (score.IsNull(i) ? "null" : std::to_string(score.Value<double>(i)));
    }
  }
  EXPECT_EQ(rows, (std::map<int64_t, std::string>{{3, "ab/null"}, {4, "c/1.500000"}}));
}

// Avro binary encoding (spec, "Binary Encoding"): zig-zag varint longs, strings as a long
// length and the bytes, a union as the branch index (a long) and the branch's value.
std::string AvroLong(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::string out;
  while (z >= 0x80) {
    out += static_cast<char>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  out += static_cast<char>(z);
  return out;
}
std::string AvroString(std::string_view s) {
  return AvroLong(static_cast<int64_t>(s.size())) + std::string(s);
}
// A union value: branch 0 (null) or branch 1 with `value`.
std::string AvroOptional(const std::optional<std::string>& value) {
  return value ? AvroLong(1) + *value : AvroLong(0);
}

// Debezium's envelope as the Avro converter writes it: before/after are ["null", Value].
constexpr std::string_view kDebeziumAvro = R"({"type":"record","name":"Envelope",
  "namespace":"dbserver1.inventory.users","fields":[
  {"name":"before","type":["null",{"type":"record","name":"Value","fields":[
      {"name":"id","type":"long"},{"name":"v","type":["null","string"],"default":null}]}],
   "default":null},
  {"name":"after","type":["null","Value"],"default":null},
  {"name":"source","type":{"type":"record","name":"Source","namespace":"io.debezium.connector",
      "fields":[{"name":"db","type":"string"}]}},
  {"name":"op","type":"string"},
  {"name":"ts_ms","type":["null","long"],"default":null}]})";

std::string UserValue(int64_t id, std::string_view v) {
  return AvroLong(id) + AvroOptional(AvroString(v));
}
std::string DebeziumDatum(const std::optional<std::string>& before,
                          const std::optional<std::string>& after, std::string_view op) {
  return AvroOptional(before) + AvroOptional(after) + AvroString("inventory") + AvroString(op) +
         AvroOptional(AvroLong(1700000000000));
}

TEST_F(TranslatorTest, RegistryAvroDebeziumEnvelopesBecomeDeletesAndUpserts) {
  auto registry = *SchemaRegistry::Open("");
  auto id = registry->Register("users-value", SchemaType::kAvro, kDebeziumAvro, {});
  FLOE_ASSERT_OK(id);
  ASSERT_EQ(CreateTopic("users", 1,
                        {{"floe.table.topic.enable", "true"},
                         {"floe.table.topic.convert.value.type", "by_schema_id"},
                         {"floe.table.topic.transform.value.type", "flatten_debezium"},
                         {"floe.table.topic.id.columns", "[id]"},
                         {"floe.table.topic.commit.interval.ms", "1000"}}),
            0);
  auto f = [&](const std::optional<std::string>& before, const std::optional<std::string>& after,
               std::string_view op) { return Framed(*id, DebeziumDatum(before, after, op)); };
  Produce("users", 0,
          {f(std::nullopt, UserValue(1, "a"), "c"), f(std::nullopt, UserValue(2, "b"), "r"),
           f(UserValue(1, "a"), UserValue(1, "a2"), "u"), f(UserValue(2, "b"), std::nullopt, "d"),
           std::nullopt,                             // the tombstone Debezium sends after a delete
           f(std::nullopt, UserValue(3, "x"), "t"),  // no such op: dead-letter table
           f(std::nullopt, std::nullopt, "d"),       // a delete without before: too
           f(std::nullopt, UserValue(4, "y"), "c")});
  std::map<std::string, std::string> configs;
  for (const auto& topic : broker_->ListTopics()) {
    if (topic.name == "users") configs = topic.configs;
  }
  auto config = ParseTableTopicConfig(configs);
  FLOE_ASSERT_OK(config);
  IngestOptions o;
  o.key_index = key_index_.get();
  o.now_ms = [this] { return now_ms_; };
  o.schema_registry = registry.get();
  TopicTranslator t("users", *config, catalog_.get(), Call(), o);
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  EXPECT_EQ(LiveRows(Scan("users")), (std::map<int64_t, std::string>{{1, "a2"}, {4, "y"}}));
  EXPECT_EQ(t.stats().dlq_records, 2);
  // The table holds the row's columns (not the envelope's), keyed by id.
  Loaded l = Load("users");
  const iceberg::Schema& schema = *l.table->metadata()->current_schema();
  EXPECT_EQ(schema.FindFieldByName("after"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("op"), nullptr);
  ASSERT_NE(schema.FindFieldByName("v"), nullptr);
  ASSERT_EQ(schema.identifier_field_ids().size(), 1u);
  EXPECT_EQ(schema.identifier_field_ids()[0], schema.FindFieldByName("id")->id);

  // Across commits: delete 1, re-create 2.
  Produce("users", 0,
          {f(UserValue(1, "a2"), std::nullopt, "d"), std::nullopt,
           f(std::nullopt, UserValue(2, "again"), "c")});
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  EXPECT_EQ(LiveRows(Scan("users")), (std::map<int64_t, std::string>{{2, "again"}, {4, "y"}}));
  EXPECT_EQ(Load("users").table->metadata()->properties.at("floe.ingest.offsets"), "0:11");
}

TEST_F(TranslatorTest, RegistryDebeziumDeleteWithoutBeforeTakesTheKey) {
  // A connector that sends deletes without `before`: the id comes from the Avro key.
  auto registry = *SchemaRegistry::Open("");
  auto id = registry->Register("users-value", SchemaType::kAvro, kDebeziumAvro, {});
  auto key_id = registry->Register(
      "users-key", SchemaType::kAvro,
      R"({"type":"record","name":"Key","fields":[{"name":"id","type":"long"}]})", {});
  FLOE_ASSERT_OK(id);
  FLOE_ASSERT_OK(key_id);
  ASSERT_EQ(CreateTopic("users", 1,
                        {{"floe.table.topic.enable", "true"},
                         {"floe.table.topic.convert.value.type", "by_schema_id"},
                         {"floe.table.topic.convert.key.type", "by_schema_id"},
                         {"floe.table.topic.transform.value.type", "flatten_debezium"},
                         {"floe.table.topic.id.columns", "[id]"},
                         {"floe.table.topic.commit.interval.ms", "1000"}}),
            0);
  auto key = [&](int64_t k) { return Framed(*key_id, AvroLong(k)); };
  auto f = [&](const std::optional<std::string>& before, const std::optional<std::string>& after,
               std::string_view op) { return Framed(*id, DebeziumDatum(before, after, op)); };
  ProduceKeyed("users", 0,
               {{key(1), f(std::nullopt, UserValue(1, "a"), "c")},
                {key(2), f(std::nullopt, UserValue(2, "b"), "c")},
                {key(3), f(std::nullopt, UserValue(3, "c"), "c")}});
  std::map<std::string, std::string> configs;
  for (const auto& topic : broker_->ListTopics()) {
    if (topic.name == "users") configs = topic.configs;
  }
  auto config = ParseTableTopicConfig(configs);
  FLOE_ASSERT_OK(config);
  IngestOptions o;
  o.key_index = key_index_.get();
  o.now_ms = [this] { return now_ms_; };
  o.schema_registry = registry.get();
  TopicTranslator t("users", *config, catalog_.get(), Call(), o);
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  // Deletes of 2 (in a later commit) and 3 (with an undecodable key: a dead letter).
  ProduceKeyed("users", 0,
               {{key(2), f(std::nullopt, std::nullopt, "d")},
                {"not a key", f(std::nullopt, std::nullopt, "d")},
                {key(4), f(std::nullopt, UserValue(4, "d"), "c")}});
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  EXPECT_EQ(LiveRows(Scan("users")),
            (std::map<int64_t, std::string>{{1, "a"}, {3, "c"}, {4, "d"}}));
  EXPECT_EQ(t.stats().dlq_records, 1);
}

TEST_F(TranslatorTest, RegistryAvroCdcFieldOps) {
  auto registry = *SchemaRegistry::Open("");
  auto id = registry->Register("ops-value", SchemaType::kAvro,
                               R"({"type":"record","name":"Row","fields":[
                                   {"name":"id","type":"long"},
                                   {"name":"v","type":["null","string"],"default":null},
                                   {"name":"meta","type":{"type":"record","name":"Meta",
                                     "fields":[{"name":"op","type":"string"}]}}]})",
                               {});
  FLOE_ASSERT_OK(id);
  ASSERT_EQ(CreateTopic("ops", 1,
                        {{"floe.table.topic.enable", "true"},
                         {"floe.table.topic.convert.value.type", "by_schema_id"},
                         {"floe.table.topic.transform.value.type", "flatten"},
                         {"floe.table.topic.cdc.field", "meta.op"},
                         {"floe.table.topic.id.columns", "[id]"},
                         {"floe.table.topic.commit.interval.ms", "1000"}}),
            0);
  auto row = [&](int64_t key, std::string_view v, std::string_view op) {
    return Framed(*id, UserValue(key, v) + AvroString(op));
  };
  Produce(
      "ops", 0,
      {row(1, "a", "I"), row(2, "b", "i"), row(1, "c", "U"), row(2, "", "D"), row(3, "z", "X")});
  std::map<std::string, std::string> configs;
  for (const auto& topic : broker_->ListTopics()) {
    if (topic.name == "ops") configs = topic.configs;
  }
  auto config = ParseTableTopicConfig(configs);
  FLOE_ASSERT_OK(config);
  IngestOptions o;
  o.key_index = key_index_.get();
  o.now_ms = [this] { return now_ms_; };
  o.schema_registry = registry.get();
  TopicTranslator t("ops", *config, catalog_.get(), Call(), o);
  FLOE_ASSERT_OK(t.RunOnce()) << t.stats().last_error;
  FLOE_ASSERT_OK(t.CommitNow()) << t.stats().last_error;
  EXPECT_EQ(LiveRows(Scan("ops")), (std::map<int64_t, std::string>{{1, "c"}}));
  EXPECT_EQ(t.stats().dlq_records, 1);  // op X
}

}  // namespace
}  // namespace floe::ingest

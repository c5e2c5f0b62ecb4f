// The Catalog contract on the three backends: the SQL catalog on SQLite and PostgreSQL and the
// filesystem (Hadoop layout) catalog. Expected behaviour is Iceberg Java's (JdbcCatalog,
// HadoopCatalog, CatalogHandlers.commit) and the spec's; where the backends differ on purpose
// (namespace properties, renames, custom locations) the test says which peer it follows.
// tests/interop/test_catalog.py checks the shared tables against pyiceberg and Java.
#include "floe/catalog/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "floe/base/testing.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/catalog/filesystem_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/test_util.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_writer.h"
#include "floe/io/local_file_io.h"

namespace floe::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::TestDatabase;
using ::testing::UnorderedElementsAre;

enum class Backend { kSqlite, kPostgres, kFileSystem };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::kSqlite: return "Sqlite";
    case Backend::kPostgres: return "Postgres";
    case Backend::kFileSystem: return "FileSystem";
  }
  return "?";
}

Namespace Ns(std::string_view dotted) { return Namespace::FromString(dotted); }
TableIdentifier Id(std::string_view dotted) { return *TableIdentifier::Parse(dotted); }

// LocalFileIO that runs a hook before creating a metadata file: a concurrent writer
// injected exactly between a commit's read of its base and its pointer swap.
class HookFileIO final : public io::FileIO {
 public:
  std::function<void(std::string_view)> before_metadata_write;

  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view location) override {
    return local_.OpenInput(location);
  }
  Result<std::unique_ptr<io::OutputStream>> CreateOutput(std::string_view location,
                                                         bool overwrite) override {
    if (before_metadata_write && location.ends_with(".metadata.json")) {
      auto hook = std::exchange(before_metadata_write, nullptr);  // once
      hook(location);
    }
    return local_.CreateOutput(location, overwrite);
  }
  Status Delete(std::string_view location) override { return local_.Delete(location); }
  Result<bool> Exists(std::string_view location) override { return local_.Exists(location); }
  Result<std::vector<io::FileInfo>> List(std::string_view prefix) override {
    return local_.List(prefix);
  }
  Status RenameNoReplace(std::string_view from, std::string_view to) override {
    return local_.RenameNoReplace(from, to);
  }

 private:
  io::LocalFileIO local_;
};

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) out.insert(it->path().string());
  }
  return out;
}

size_t CountMetadataJson(const std::string& dir) {
  size_t n = 0;
  for (const std::string& f : FilesUnder(dir)) n += f.ends_with(".metadata.json");
  return n;
}

class CatalogTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("floe_catalog_contract_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    warehouse_ = (dir_ / "warehouse").string();
    allowed_ = dir_ / "allowed";
    if (GetParam() == Backend::kFileSystem) {
      uri_ = "file:" + warehouse_;
    } else {
      ASSERT_NO_FATAL_FAILURE(
          db_.SetUp(GetParam() == Backend::kSqlite ? SqlDialect::kSqlite : SqlDialect::kPostgres));
      uri_ = db_.uri();
    }
    catalog_ = Open();
    ASSERT_NE(catalog_, nullptr);
  }
  void TearDown() override {
    catalog_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::unique_ptr<Catalog> Open(std::unique_ptr<io::FileIO> io = nullptr) {
    CatalogOptions options;
    options.name = "contract";
    options.warehouse = warehouse_;
    options.allowed_locations = {allowed_.string()};
    options.io = std::move(io);
    auto catalog = OpenCatalog(uri_, std::move(options));
    FLOE_EXPECT_OK(catalog);
    return catalog.ok() ? std::move(*catalog) : nullptr;
  }

  bool sql() const { return GetParam() != Backend::kFileSystem; }

  static CreateTableRequest Request() {
    CreateTableRequest request;
    request.schema = *iceberg::ParseSchemaText("id long not null, name string, ts timestamptz");
    request.spec = *iceberg::ParsePartitionText(request.schema, "bucket(4, id), day(ts)");
    request.sort_order = *iceberg::ParseSortText(request.schema, "id desc");
    request.properties = {{"owner", "floe"}};
    return request;
  }

  iceberg::TableMetadataPtr Create(std::string_view id, Properties properties = {}) {
    if (!catalog_->NamespaceExists(Id(id).ns).value_or(true)) {
      FLOE_EXPECT_OK(catalog_->CreateNamespace(Id(id).ns, {}));
    }
    CreateTableRequest request = Request();
    for (auto& [k, v] : properties) request.properties[k] = v;
    auto created = catalog_->CreateTable(Id(id), request);
    FLOE_EXPECT_OK(created);
    return created.ok() ? *created : nullptr;
  }

  std::unique_ptr<iceberg::TableOperations> Load(Catalog& catalog, std::string_view id) {
    auto ops = catalog.LoadTable(Id(id));
    FLOE_EXPECT_OK(ops);
    return ops.ok() ? std::move(*ops) : nullptr;
  }

  static std::vector<iceberg::TableUpdate> SetProps(Properties props) {
    return {iceberg::update::SetProperties{std::move(props)}};
  }

  fs::path dir_;
  std::string warehouse_;
  fs::path allowed_;  // the catalog's allowed-locations besides the warehouse
  std::string uri_;
  TestDatabase db_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_P(CatalogTest, Namespaces) {
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("a"), {}));
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("a.b"), {}));
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("c"), {}));
  FLOE_EXPECT_CODE(catalog_->CreateNamespace(Ns("a"), {}), kAlreadyExists);
  EXPECT_THAT(*catalog_->ListNamespaces({}), ElementsAre(Ns("a"), Ns("c")));
  EXPECT_THAT(*catalog_->ListNamespaces(Ns("a")), ElementsAre(Ns("a.b")));
  EXPECT_THAT(*catalog_->ListNamespaces(Ns("a.b")), IsEmpty());
  FLOE_EXPECT_CODE(catalog_->ListNamespaces(Ns("zz")), kNotFound);
  EXPECT_TRUE(*catalog_->NamespaceExists(Ns("a.b")));
  EXPECT_FALSE(*catalog_->NamespaceExists(Ns("a.x")));

  // Java: the default location is <warehouse>/<levels joined by '/'>, both catalogs.
  auto props = catalog_->LoadNamespaceProperties(Ns("a.b"));
  FLOE_ASSERT_OK(props);
  EXPECT_EQ(props->at("location"), warehouse_ + "/a/b");
  EXPECT_FALSE(props->contains("exists"));  // Java hides its marker
  FLOE_EXPECT_CODE(catalog_->LoadNamespaceProperties(Ns("zz")), kNotFound);

  if (sql()) {
    FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("p"), {{"k1", "v1"}, {"k2", "v2"}}));
    auto change = catalog_->UpdateNamespaceProperties(Ns("p"), {"k1", "nope"}, {{"k3", "v3"}});
    FLOE_ASSERT_OK(change);
    EXPECT_THAT(change->updated, ElementsAre("k3"));
    EXPECT_THAT(change->removed, ElementsAre("k1"));
    EXPECT_THAT(change->missing, ElementsAre("nope"));
    auto p = *catalog_->LoadNamespaceProperties(Ns("p"));
    EXPECT_EQ(p, (Properties{{"k2", "v2"}, {"k3", "v3"}, {"location", warehouse_ + "/p"}}));
  } else {
    // Java HadoopCatalog: UnsupportedOperationException.
    FLOE_EXPECT_CODE(catalog_->CreateNamespace(Ns("p"), {{"k1", "v1"}}), kUnimplemented);
    FLOE_EXPECT_CODE(catalog_->UpdateNamespaceProperties(Ns("a"), {}, {{"k", "v"}}),
                     kUnimplemented);
  }

  FLOE_EXPECT_CODE(catalog_->DropNamespace(Ns("a")), kFailedPrecondition);  // has a.b
  FLOE_ASSERT_OK(catalog_->DropNamespace(Ns("a.b")));
  FLOE_ASSERT_OK(catalog_->DropNamespace(Ns("a")));
  FLOE_EXPECT_CODE(catalog_->DropNamespace(Ns("a")), kNotFound);
  std::vector<Namespace> left = {Ns("c")};
  if (sql()) left.push_back(Ns("p"));
  EXPECT_EQ(*catalog_->ListNamespaces({}), left);
}

TEST_P(CatalogTest, CreateLoadListDropTables) {
  auto created = Create("db.sub.orders");
  ASSERT_NE(created, nullptr);
  // Java JdbcCatalog and HadoopCatalog: <warehouse>/db/sub/orders.
  EXPECT_EQ(created->location, warehouse_ + "/db/sub/orders");
  EXPECT_EQ(created->format_version, 2);
  EXPECT_EQ(created->properties.at("owner"), "floe");
  EXPECT_FALSE(created->properties.contains("format-version"));
  ASSERT_NE(created->default_spec(), nullptr);
  EXPECT_EQ(created->default_spec()->fields().size(), 2u);
  EXPECT_EQ(created->default_sort_order_id, 1);
  const std::string md = created->metadata_file_location;
  if (sql()) {
    // Java BaseMetastoreTableOperations: <location>/metadata/00000-<uuid>.metadata.json.
    EXPECT_TRUE(std::regex_match(md, std::regex(warehouse_ + "/db/sub/orders/metadata/00000-"
                                                             "[0-9a-f-]{36}\\.metadata\\.json")))
        << md;
  } else {
    EXPECT_EQ(md, warehouse_ + "/db/sub/orders/metadata/v1.metadata.json");
    auto hint =
        io::LocalFileIO().ReadFile(warehouse_ + "/db/sub/orders/metadata/version-hint.text");
    FLOE_ASSERT_OK(hint);
    EXPECT_EQ(hint->view(), "1");
  }
  FLOE_EXPECT_CODE(catalog_->CreateTable(Id("db.sub.orders"), Request()), kAlreadyExists);
  EXPECT_TRUE(*catalog_->TableExists(Id("db.sub.orders")));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.sub.other")));
  EXPECT_THAT(*catalog_->ListTables(Ns("db.sub")), ElementsAre(Id("db.sub.orders")));
  // A table is not a namespace.
  EXPECT_THAT(*catalog_->ListNamespaces(Ns("db.sub")), IsEmpty());

  auto ops = Load(*catalog_, "db.sub.orders");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->name(), "db.sub.orders");
  auto loaded = ops->Refresh();
  FLOE_ASSERT_OK(loaded);
  EXPECT_EQ((*loaded)->table_uuid, created->table_uuid);
  EXPECT_EQ((*loaded)->metadata_file_location, md);
  FLOE_EXPECT_CODE(catalog_->LoadTable(Id("db.sub.nope")), kNotFound);

  if (sql()) {
    // Java JdbcCatalog refuses tables in missing namespaces (pyiceberg too).
    FLOE_EXPECT_CODE(catalog_->CreateTable(Id("nope.t"), Request()), kNotFound);
    // A custom location is honoured inside the allowed locations, refused elsewhere.
    FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("x"), {}));
    CreateTableRequest r = Request();
    r.location = (dir_ / "outside" / "t").string();
    FLOE_EXPECT_CODE(catalog_->CreateTable(Id("x.t"), r), kPermissionDenied);
    EXPECT_FALSE(fs::exists(dir_ / "outside"));
    r.location = (allowed_ / "elsewhere" / "t").string() + "/";
    auto t = catalog_->CreateTable(Id("x.t"), r);
    FLOE_ASSERT_OK(t);
    EXPECT_EQ((*t)->location, (allowed_ / "elsewhere" / "t").string());
  } else {
    CreateTableRequest r = Request();
    r.location = (allowed_ / "elsewhere").string();
    FLOE_EXPECT_CODE(catalog_->CreateTable(Id("db.sub.t2"), r), kInvalidArgument);
  }

  FLOE_ASSERT_OK(catalog_->DropTable(Id("db.sub.orders"), /*purge=*/false));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.sub.orders")));
  FLOE_EXPECT_CODE(catalog_->DropTable(Id("db.sub.orders"), false), kNotFound);
  FLOE_EXPECT_CODE(catalog_->LoadTable(Id("db.sub.orders")), kNotFound);
}

TEST_P(CatalogTest, RenameAndRegister) {
  auto created = Create("db.t");
  ASSERT_NE(created, nullptr);
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("other"), {}));
  if (sql()) {
    FLOE_ASSERT_OK(catalog_->RenameTable(Id("db.t"), Id("other.t2")));
    EXPECT_FALSE(*catalog_->TableExists(Id("db.t")));
    auto ops = Load(*catalog_, "other.t2");
    ASSERT_NE(ops, nullptr);
    EXPECT_EQ((*ops->Refresh())->table_uuid, created->table_uuid);
    FLOE_EXPECT_CODE(catalog_->RenameTable(Id("db.t"), Id("other.t3")), kNotFound);
    FLOE_EXPECT_CODE(catalog_->RenameTable(Id("other.t2"), Id("nope.t")), kNotFound);
    ASSERT_NE(Create("db.t"), nullptr);
    FLOE_EXPECT_CODE(catalog_->RenameTable(Id("db.t"), Id("other.t2")), kAlreadyExists);
    FLOE_ASSERT_OK(catalog_->DropTable(Id("other.t2"), false));
  } else {
    FLOE_EXPECT_CODE(catalog_->RenameTable(Id("db.t"), Id("other.t2")), kUnimplemented);
    // Register needs the name free: move the table's metadata out of the way first.
    FLOE_ASSERT_OK(catalog_->DropTable(Id("db.t"), false));
    fs::create_directories(allowed_ / "saved");
    fs::create_directories(dir_ / "outside");
    FLOE_ASSERT_OK(WriteTableMetadata(catalog_->io(),
                                      (dir_ / "outside" / "m.metadata.json").string(), *created));
    FLOE_EXPECT_CODE(
        catalog_->RegisterTable(Id("other.r"), (dir_ / "outside" / "m.metadata.json").string()),
        kPermissionDenied);
    FLOE_ASSERT_OK(WriteTableMetadata(catalog_->io(),
                                      (allowed_ / "saved" / "m.metadata.json").string(), *created));
    created = std::make_shared<iceberg::TableMetadata>(*iceberg::ReadTableMetadata(
        catalog_->io(), (allowed_ / "saved" / "m.metadata.json").string()));
  }
  // Register the metadata file of a dropped (not purged) table under a new name.
  auto registered = catalog_->RegisterTable(Id("other.r"), created->metadata_file_location);
  FLOE_ASSERT_OK(registered);
  EXPECT_EQ((*registered)->table_uuid, created->table_uuid);
  auto ops = Load(*catalog_, "other.r");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ((*ops->Refresh())->table_uuid, created->table_uuid);
  FLOE_EXPECT_CODE(catalog_->RegisterTable(Id("other.r"), created->metadata_file_location),
                   kAlreadyExists);
}

TEST_P(CatalogTest, CommitChecksRequirements) {
  auto created = Create("db.t");
  ASSERT_NE(created, nullptr);
  auto ops = Load(*catalog_, "db.t");
  ASSERT_NE(ops, nullptr);

  // Stale table uuid (the table was replaced): nothing committed.
  FLOE_EXPECT_CODE(
      ops->Commit({iceberg::requirement::AssertTableUuid{"00000000-0000-4000-8000-000000000000"}},
                  SetProps({{"a", "1"}})),
      kConflict);
  // Stale ref: the client thinks main is at a snapshot, the table has none.
  FLOE_EXPECT_CODE(
      ops->Commit({iceberg::requirement::AssertRefSnapshotId{"main", 123}}, SetProps({{"a", "1"}})),
      kConflict);
  EXPECT_EQ(CountMetadataJson(created->location), 1u);

  auto committed = ops->Commit({iceberg::requirement::AssertTableUuid{*created->table_uuid},
                                iceberg::requirement::AssertRefSnapshotId{"main", std::nullopt},
                                iceberg::requirement::AssertCurrentSchemaId{0}},
                               SetProps({{"a", "1"}}));
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ((*committed)->properties.at("a"), "1");
  ASSERT_EQ((*committed)->metadata_log.size(), 1u);
  EXPECT_EQ((*committed)->metadata_log[0].metadata_file, created->metadata_file_location);
  if (sql()) {
    EXPECT_TRUE(std::regex_search((*committed)->metadata_file_location,
                                  std::regex("/metadata/00001-[0-9a-f-]{36}\\.metadata\\.json$")));
  } else {
    EXPECT_TRUE((*committed)->metadata_file_location.ends_with("/metadata/v2.metadata.json"));
  }
  // Another catalog (connection) sees it.
  auto other = Open();
  auto fresh = Load(*other, "db.t");
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ((*fresh->Refresh())->properties.at("a"), "1");

  // A commit without changes writes nothing. (Setting a property to its value is a change
  // for Java's TableMetadata.Builder, which records every SetProperties.)
  auto same = ops->Commit({iceberg::requirement::AssertCurrentSchemaId{0}}, {});
  FLOE_ASSERT_OK(same);
  EXPECT_EQ((*same)->metadata_file_location, (*committed)->metadata_file_location);
  EXPECT_EQ(CountMetadataJson(created->location), 2u);

  // Invalid updates are the client's error, not a conflict.
  FLOE_EXPECT_CODE(ops->Commit({}, {iceberg::update::SetCurrentSchema{42}}), kInvalidArgument);

  // Gzip metadata when the table asks for it (Java: .gz.metadata.json).
  auto gz = ops->Commit({}, SetProps({{"write.metadata.compression-codec", "gzip"}}));
  FLOE_ASSERT_OK(gz);
  EXPECT_TRUE((*gz)->metadata_file_location.ends_with(".gz.metadata.json"))
      << (*gz)->metadata_file_location;
  auto reread = Load(*other, "db.t");
  ASSERT_NE(reread, nullptr);
  EXPECT_EQ((*reread->Refresh())->properties.at("write.metadata.compression-codec"), "gzip");
}

TEST_P(CatalogTest, ServerSideRetryOnUnrelatedConcurrentCommit) {
  auto created = Create("db.t", {{"commit.retry.min-wait-ms", "1"}});
  ASSERT_NE(created, nullptr);
  auto hook_io = std::make_unique<HookFileIO>();
  HookFileIO* hook = hook_io.get();
  auto mine = Open(std::move(hook_io));
  auto ops = Load(*mine, "db.t");
  ASSERT_NE(ops, nullptr);

  // Between our read of the base and our swap, another writer changes a property.
  auto other = Open();
  hook->before_metadata_write = [&](std::string_view) {
    auto their_ops = Load(*other, "db.t");
    ASSERT_NE(their_ops, nullptr);
    FLOE_ASSERT_OK(their_ops->Commit({}, SetProps({{"theirs", "1"}})));
  };
  auto committed = ops->Commit({iceberg::requirement::AssertTableUuid{*created->table_uuid},
                                iceberg::requirement::AssertCurrentSchemaId{0}},
                               SetProps({{"mine", "1"}}));
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ((*committed)->properties.at("theirs"), "1");
  EXPECT_EQ((*committed)->properties.at("mine"), "1");
  ASSERT_EQ((*committed)->metadata_log.size(), 2u);
  EXPECT_EQ((*committed)->metadata_log[0].metadata_file, created->metadata_file_location);
  // The losing attempt's file is gone: create + theirs + mine.
  EXPECT_EQ(CountMetadataJson(created->location), 3u);
  EXPECT_EQ(FilesUnder(created->location + "/metadata").size(), sql() ? 3u : 4u);  // + hint
}

TEST_P(CatalogTest, ConflictWhenAConcurrentCommitBreaksARequirement) {
  auto created = Create("db.t", {{"commit.retry.min-wait-ms", "1"}});
  ASSERT_NE(created, nullptr);
  auto hook_io = std::make_unique<HookFileIO>();
  HookFileIO* hook = hook_io.get();
  auto mine = Open(std::move(hook_io));
  auto ops = Load(*mine, "db.t");
  ASSERT_NE(ops, nullptr);
  auto other = Open();
  hook->before_metadata_write = [&](std::string_view) {
    auto their_ops = Load(*other, "db.t");
    ASSERT_NE(their_ops, nullptr);
    auto schema = *iceberg::ParseSchemaText("id long not null, name string, ts timestamptz, x int");
    FLOE_ASSERT_OK(their_ops->Commit(
        {}, {iceberg::update::AddSchema{schema}, iceberg::update::SetCurrentSchema{}}));
  };
  FLOE_EXPECT_CODE(
      ops->Commit({iceberg::requirement::AssertCurrentSchemaId{0}}, SetProps({{"mine", "1"}})),
      kConflict);
  auto now = *Load(*other, "db.t")->Refresh();
  EXPECT_FALSE(now->properties.contains("mine"));
  EXPECT_EQ(now->current_schema_id, 1);
  EXPECT_EQ(CountMetadataJson(created->location), 2u);  // create + theirs; ours deleted
}

TEST_P(CatalogTest, MetadataLogAndPreviousVersionsMax) {
  auto created = Create("db.t", {{"write.metadata.previous-versions-max", "2"},
                                 {"write.metadata.delete-after-commit.enabled", "true"}});
  ASSERT_NE(created, nullptr);
  auto ops = Load(*catalog_, "db.t");
  ASSERT_NE(ops, nullptr);
  std::vector<std::string> files = {created->metadata_file_location};
  iceberg::TableMetadataPtr last;
  for (int i = 0; i < 5; ++i) {
    auto c = ops->Commit({}, SetProps({{"n", std::to_string(i)}}));
    FLOE_ASSERT_OK(c);
    last = *c;
    files.push_back(last->metadata_file_location);
  }
  // Java: the log keeps previous-versions-max entries; older tracked files are deleted.
  ASSERT_EQ(last->metadata_log.size(), 2u);
  EXPECT_EQ(last->metadata_log[0].metadata_file, files[3]);
  EXPECT_EQ(last->metadata_log[1].metadata_file, files[4]);
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(*catalog_->io().Exists(files[i]), i >= 3) << files[i];
  }
}

// Writes one snapshot with one manifest (two data files) and its manifest list, as a writer
// would, and commits it. Returns the files the snapshot reaches.
// `data_dir` (default: the table's data directory) is where the data files go.
std::vector<std::string> CommitSnapshot(iceberg::TableOperations& ops, int64_t snapshot_id,
                                        std::string data_dir = {}) {
  auto base = *ops.Refresh();
  if (data_dir.empty()) data_dir = base->location + "/data";
  const iceberg::Schema& schema = *base->current_schema();
  const iceberg::PartitionSpec& spec = *base->default_spec();
  std::string dir = base->location;
  std::vector<std::string> files;
  iceberg::ManifestWriterOptions mo;
  mo.format_version = base->format_version;
  mo.spec_id = spec.spec_id();
  mo.partition_type = *spec.PartitionType(schema);
  mo.schema_json = iceberg::SchemaToJson(schema);
  mo.snapshot_id = snapshot_id;
  std::string manifest_path = dir + "/metadata/m-" + std::to_string(snapshot_id) + ".avro";
  auto writer = *iceberg::ManifestWriter::Make(*ops.io().CreateOutput(manifest_path, false), mo);
  for (int i = 0; i < 2; ++i) {
    iceberg::DataFile f;
    f.file_path =
        data_dir + "/f-" + std::to_string(snapshot_id) + "-" + std::to_string(i) + ".parquet";
    FLOE_EXPECT_OK(ops.io().WriteFile(f.file_path, "not really parquet", false));
    f.partition = {iceberg::Literal::Int(i), iceberg::Literal::Date(19000)};
    f.record_count = 1;
    f.file_size_in_bytes = 18;
    Status added = writer->Add(f);
    FLOE_EXPECT_OK(added);
    files.push_back(f.file_path);
  }
  auto manifest = *writer->Close();
  files.push_back(manifest_path);
  iceberg::ManifestListWriterOptions lo;
  lo.format_version = base->format_version;
  lo.snapshot_id = snapshot_id;
  lo.parent_snapshot_id = base->current_snapshot_id;
  lo.sequence_number = base->last_sequence_number + 1;
  std::string list_path = dir + "/metadata/snap-" + std::to_string(snapshot_id) + ".avro";
  auto list = *iceberg::ManifestListWriter::Make(*ops.io().CreateOutput(list_path, false), lo);
  FLOE_EXPECT_OK(list->Add(manifest));
  FLOE_EXPECT_OK(list->Close());
  files.push_back(list_path);

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  snapshot.parent_snapshot_id = base->current_snapshot_id;
  snapshot.sequence_number = lo.sequence_number;
  snapshot.timestamp_ms = base->last_updated_ms + 1;
  snapshot.manifest_list = list_path;
  snapshot.operation = "append";
  snapshot.schema_id = schema.schema_id();
  auto committed = ops.Commit(
      {iceberg::requirement::AssertRefSnapshotId{"main", base->current_snapshot_id}},
      {iceberg::update::AddSnapshot{snapshot},
       iceberg::update::SetSnapshotRef{"main", iceberg::SnapshotRef::Branch(snapshot_id)}});
  FLOE_EXPECT_OK(committed);
  return files;
}

TEST_P(CatalogTest, PurgeDeletesExactlyTheReachableFiles) {
  auto created = Create("db.t");
  ASSERT_NE(created, nullptr);
  auto ops = Load(*catalog_, "db.t");
  ASSERT_NE(ops, nullptr);
  std::vector<std::string> reachable = CommitSnapshot(*ops, 1001);
  auto more = CommitSnapshot(*ops, 1002);
  reachable.insert(reachable.end(), more.begin(), more.end());
  auto last = *ops->Refresh();
  reachable.push_back(last->metadata_file_location);
  for (const auto& e : last->metadata_log) reachable.push_back(e.metadata_file);
  ASSERT_EQ(last->metadata_log.size(), 2u);
  for (const auto& f : reachable) EXPECT_TRUE(*catalog_->io().Exists(f)) << f;
  // Not reachable from the metadata: an orphan in the table's data directory.
  std::string orphan = created->location + "/data/orphan.parquet";
  FLOE_ASSERT_OK(catalog_->io().WriteFile(orphan, "x", false));
  ops.reset();

  FLOE_ASSERT_OK(catalog_->DropTable(Id("db.t"), /*purge=*/true));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.t")));
  std::set<std::string> left = FilesUnder(created->location);
  if (sql()) {
    EXPECT_THAT(left, ElementsAre(orphan));
  } else {
    // Java HadoopCatalog deletes the table directory as well.
    EXPECT_THAT(left, IsEmpty());
    EXPECT_FALSE(fs::exists(created->location));
  }
}

TEST_P(CatalogTest, PurgeStaysUnderTheTableLocation) {
  auto victim_table = Create("db.victim");
  auto created = Create("db.t");
  ASSERT_NE(created, nullptr);
  ASSERT_NE(victim_table, nullptr);
  auto ops = Load(*catalog_, "db.t");
  ASSERT_NE(ops, nullptr);
  // The table's metadata names files of another table and of an allowed folder outside it:
  // a writer may reference any file, but a purge deletes only what lies under the table.
  std::vector<std::string> own = CommitSnapshot(*ops, 1001);
  std::vector<std::string> foreign = CommitSnapshot(*ops, 1002, victim_table->location + "/data");
  std::vector<std::string> outside = CommitSnapshot(*ops, 1003, (allowed_ / "shared").string());
  ops.reset();
  FLOE_ASSERT_OK(catalog_->DropTable(Id("db.t"), /*purge=*/true));
  // Data files are the first two of each list (then the manifest and the manifest list,
  // which live in the purged table's metadata folder).
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(fs::exists(own[i])) << own[i];
    EXPECT_TRUE(fs::exists(foreign[i])) << foreign[i];
    EXPECT_TRUE(fs::exists(outside[i])) << outside[i];
  }
  auto victim = Load(*catalog_, "db.victim");
  ASSERT_NE(victim, nullptr);
  FLOE_EXPECT_OK(victim->Refresh());
}

TEST_P(CatalogTest, PurgeOfATableAtAnAllowedRootIsRefused) {
  if (!sql()) GTEST_SKIP() << "filesystem catalog tables live at their default location";
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  CreateTableRequest r = Request();
  r.location = allowed_.string();
  auto created = catalog_->CreateTable(Id("db.root"), r);
  FLOE_ASSERT_OK(created);
  FLOE_ASSERT_OK(catalog_->io().WriteFile((allowed_ / "other-file").string(), "x", false));
  EXPECT_THAT(catalog_->DropTable(Id("db.root"), /*purge=*/true),
              IsError(StatusCode::kPermissionDenied));
  // Refused before the pointer went: the table is still there, and so is the folder.
  EXPECT_TRUE(*catalog_->TableExists(Id("db.root")));
  EXPECT_TRUE(fs::exists(allowed_ / "other-file"));
}

TEST_P(CatalogTest, UnsafeNamesAndLocationsAreRefused) {
  FLOE_EXPECT_CODE(catalog_->CreateNamespace(Ns("a/b"), {}), kInvalidArgument);
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  for (const char* name : {"..", ".", "x/../../y", "a\\b"}) {
    FLOE_EXPECT_CODE(catalog_->CreateTable(TableIdentifier{Ns("db"), name}, Request()),
                     kInvalidArgument)
        << name;
  }
  EXPECT_FALSE(fs::exists(dir_ / "y"));
  if (!sql()) return;
  FLOE_EXPECT_CODE(catalog_->CreateNamespace(Ns("n1"), {{"location", (dir_ / "outside").string()}}),
                   kPermissionDenied);
  FLOE_EXPECT_CODE(catalog_->UpdateNamespaceProperties(Ns("db"), {}, {{"location", "/etc"}}),
                   kPermissionDenied);
  CreateTableRequest r = Request();
  r.properties["write.data.path"] = (dir_ / "outside").string();
  FLOE_EXPECT_CODE(catalog_->CreateTable(Id("db.t"), r), kPermissionDenied);
  ASSERT_NE(Create("db.t"), nullptr);
  auto ops = Load(*catalog_, "db.t");
  ASSERT_NE(ops, nullptr);
  for (const auto& update : std::vector<iceberg::TableUpdate>{
           iceberg::update::SetLocation{(dir_ / "outside").string()},
           iceberg::update::SetProperties{{{"write.metadata.path", "/tmp"}}},
           iceberg::update::SetProperties{{{"write.object-storage.path", "hdfs://nn/x"}}}}) {
    FLOE_EXPECT_CODE(ops->Commit({}, {update}), kPermissionDenied);
  }
  FLOE_EXPECT_CODE(catalog_->CommitTransaction(
                       {TableCommit{Id("db.t"), {}, {iceberg::update::SetLocation{"rel/x"}}}}),
                   kPermissionDenied);
  EXPECT_EQ((*ops->Refresh())->location, warehouse_ + "/db/t");
  EXPECT_FALSE(fs::exists(dir_ / "outside"));
}

TEST_P(CatalogTest, RegisterOverwriteIsAtomic) {
  auto created = Create("db.t");
  ASSERT_NE(created, nullptr);
  auto other = Create("db.o");
  ASSERT_NE(other, nullptr);
  const std::string before = *catalog_->LoadTableMetadataLocation(Id("db.t"));
  // Not metadata: refused as the client's mistake, the table untouched.
  const std::string junk = warehouse_ + "/db/junk.metadata.json";
  FLOE_ASSERT_OK(catalog_->io().WriteFile(junk, "{\"format-version\": 2}", false));
  FLOE_EXPECT_CODE(catalog_->RegisterTable(Id("db.t"), junk, /*overwrite=*/true), kInvalidArgument);
  FLOE_EXPECT_CODE(catalog_->RegisterTable(Id("db.t"), warehouse_ + "/db/none.metadata.json",
                                           /*overwrite=*/true),
                   kNotFound);
  FLOE_EXPECT_CODE(catalog_->RegisterTable(Id("db.t"), "/etc/passwd", /*overwrite=*/true),
                   kPermissionDenied);
  EXPECT_EQ(*catalog_->LoadTableMetadataLocation(Id("db.t")), before);
  FLOE_EXPECT_OK(Load(*catalog_, "db.t")->Refresh());
  // Without overwrite the name must be free.
  FLOE_EXPECT_CODE(catalog_->RegisterTable(Id("db.t"), other->metadata_file_location),
                   kAlreadyExists);
  auto replaced = catalog_->RegisterTable(Id("db.t"), other->metadata_file_location, true);
  FLOE_ASSERT_OK(replaced);
  EXPECT_EQ((*replaced)->table_uuid, other->table_uuid);
  EXPECT_EQ((*Load(*catalog_, "db.t")->Refresh())->table_uuid, other->table_uuid);
}

// Writers, each with its own catalog connection, commit property changes to one table; each
// retries its own kConflict (a lost race after the server-side retries) a few times. Every
// commit reported successful must be in the final metadata.
TEST_P(CatalogTest, ConcurrentWritersLoseNoUpdate) {
  constexpr int kWriters = 6;
  constexpr int kCommitsEach = 8;
  auto created = Create("db.t", {{"commit.retry.min-wait-ms", "1"},
                                 {"commit.retry.max-wait-ms", "50"},
                                 {"commit.retry.num-retries", "10"}});
  ASSERT_NE(created, nullptr);
  std::atomic<int> succeeded{0}, conflicts{0}, failed{0};
  std::vector<std::vector<std::string>> committed_keys(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto catalog = Open();
      if (!catalog) return;
      auto ops = catalog->LoadTable(Id("db.t"));
      if (!ops.ok()) return;
      for (int k = 0; k < kCommitsEach; ++k) {
        std::string key = "w" + std::to_string(w) + "-" + std::to_string(k);
        for (int attempt = 0; attempt < 5; ++attempt) {
          auto r = (*ops)->Commit({iceberg::requirement::AssertTableUuid{*created->table_uuid}},
                                  SetProps({{key, "1"}}));
          if (r.ok()) {
            committed_keys[w].push_back(key);
            ++succeeded;
            break;
          }
          if (r.status().code() == StatusCode::kConflict) {
            ++conflicts;
            continue;
          }
          ADD_FAILURE() << key << ": " << r.status().ToString();
          ++failed;
          break;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  auto final_md = *Load(*catalog_, "db.t")->Refresh();
  int found = 0;
  for (const auto& keys : committed_keys) {
    for (const auto& key : keys) {
      EXPECT_TRUE(final_md->properties.contains(key)) << "lost update " << key;
      found += final_md->properties.contains(key);
    }
  }
  std::printf(
      "[%s] %d writers x %d commits: %d succeeded, %d client-visible conflicts, "
      "%d failed, %d in the final metadata, %zu metadata files\n",
      BackendName({GetParam(), 0}).c_str(), kWriters, kCommitsEach, succeeded.load(),
      conflicts.load(), failed.load(), found, CountMetadataJson(created->location));
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(found, succeeded.load());
  EXPECT_GT(succeeded.load(), 0);
  // Every successful commit is one metadata file; lost attempts left none behind.
  EXPECT_EQ(CountMetadataJson(created->location), static_cast<size_t>(succeeded.load()) + 1);
}

// ---- Views (Java JdbcCatalog view support; ViewCatalogTests' expectations)

CreateViewRequest ViewRequest(std::vector<std::pair<std::string, std::string>> queries = {
                                  {"spark", "select * from db.t"}}) {
  CreateViewRequest request;
  request.schema = *iceberg::ParseSchemaText("id long not null, name string");
  for (auto& [dialect, sql] : queries) {
    request.representations.push_back(iceberg::ViewRepresentation{"sql", sql, dialect});
  }
  request.default_namespace = Ns("db");
  request.default_catalog = "contract";
  request.summary = {{"engine-name", "spark"}};
  request.properties = {{"comment", "a view"}};
  return request;
}

std::vector<iceberg::ViewUpdate> ReplaceQuery(std::string sql, std::string dialect = "spark") {
  iceberg::ViewVersion version;
  version.version_id = 0;  // the builder makes it the highest id + 1
  version.timestamp_ms = 5555;
  version.schema_id = 0;
  version.default_namespace = {"db"};
  version.representations.push_back(iceberg::ViewRepresentation{"sql", sql, dialect});
  return {iceberg::update::AddViewVersion{std::move(version)},
          iceberg::update::SetCurrentViewVersion{iceberg::update::kLastAdded}};
}

TEST_P(CatalogTest, CreateLoadListDropViews) {
  if (!sql()) {
    FLOE_EXPECT_CODE(catalog_->ListViews(Ns("db")), kUnimplemented);
    FLOE_EXPECT_CODE(catalog_->CreateView(Id("db.v"), ViewRequest()), kUnimplemented);
    FLOE_EXPECT_CODE(catalog_->LoadView(Id("db.v")), kUnimplemented);
    return;
  }
  FLOE_EXPECT_CODE(catalog_->CreateView(Id("db.v"), ViewRequest()), kNotFound);
  FLOE_EXPECT_CODE(catalog_->ListViews(Ns("db")), kNotFound);
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.v")));
  EXPECT_FALSE(*catalog_->ViewExists(Id("nope.v")));

  auto created = catalog_->CreateView(Id("db.v"), ViewRequest());
  FLOE_ASSERT_OK(created);
  const iceberg::ViewMetadata& md = *created->metadata;
  EXPECT_EQ(md.location, warehouse_ + "/db/v");
  EXPECT_EQ(md.properties, (Properties{{"comment", "a view"}}));
  EXPECT_EQ(md.current_version_id, 1);
  ASSERT_EQ(md.schemas.size(), 1u);
  EXPECT_EQ(md.schemas[0].schema_id(), 0);
  const iceberg::ViewVersion* version = md.current_version();
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version->operation(), "create");
  EXPECT_EQ(version->default_namespace, std::vector<std::string>{"db"});
  EXPECT_EQ(version->default_catalog, "contract");
  EXPECT_EQ(version->summary.at("engine-name"), "spark");
  ASSERT_EQ(md.version_log.size(), 1u);
  EXPECT_EQ(md.version_log[0].version_id, 1);
  EXPECT_EQ(md.version_log[0].timestamp_ms, version->timestamp_ms);
  // Java BaseViewOperations' file names: version 0, gzip by default.
  const std::string prefix = md.location + "/metadata/00000-";
  ASSERT_TRUE(created->metadata_location.starts_with(prefix)) << created->metadata_location;
  EXPECT_TRUE(std::regex_match(created->metadata_location.substr(prefix.size()),
                               std::regex("[0-9a-f-]{36}\\.gz\\.metadata\\.json")))
      << created->metadata_location;
  EXPECT_EQ(md.metadata_file_location, created->metadata_location);
  EXPECT_TRUE(fs::exists(created->metadata_location));

  // The row is Java's: iceberg_type 'VIEW'.
  auto& store = static_cast<SqlCatalog&>(*catalog_).store();
  auto rows = store.connection()->Execute(
      "SELECT iceberg_type, metadata_location FROM iceberg_tables WHERE table_name = 'v'");
  FLOE_ASSERT_OK(rows);
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(rows->rows[0][0], "VIEW");
  EXPECT_EQ(rows->rows[0][1], created->metadata_location);

  auto loaded = catalog_->LoadView(Id("db.v"));
  FLOE_ASSERT_OK(loaded);
  EXPECT_EQ(loaded->metadata_location, created->metadata_location);
  EXPECT_EQ(iceberg::ViewMetadataToJson(*loaded->metadata), iceberg::ViewMetadataToJson(md));
  EXPECT_TRUE(*catalog_->ViewExists(Id("db.v")));
  EXPECT_THAT(*catalog_->ListViews(Ns("db")), ElementsAre(Id("db.v")));
  EXPECT_THAT(*catalog_->ListTables(Ns("db")), IsEmpty());

  // One name space for tables and views.
  Status again = catalog_->CreateView(Id("db.v"), ViewRequest()).status();
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "View already exists: db.v");
  ASSERT_NE(Create("db.t"), nullptr);
  Status over_table = catalog_->CreateView(Id("db.t"), ViewRequest()).status();
  EXPECT_EQ(over_table.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(over_table.message(), "Table with same name already exists: db.t");
  Status table_over_view = catalog_->CreateTable(Id("db.v"), Request()).status();
  EXPECT_EQ(table_over_view.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(table_over_view.message(), "View with same name already exists: db.v");
  FLOE_EXPECT_CODE(catalog_->LoadTable(Id("db.v")), kNotFound);
  FLOE_EXPECT_CODE(catalog_->LoadView(Id("db.t")), kNotFound);
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.t")));
  EXPECT_THAT(*catalog_->ListViews(Ns("db")), ElementsAre(Id("db.v")));
  FLOE_ASSERT_OK(catalog_->DropTable(Id("db.t"), false));

  // A namespace holding a view is not empty.
  Status drop_ns = catalog_->DropNamespace(Ns("db"));
  EXPECT_EQ(drop_ns.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(drop_ns.message()), ::testing::HasSubstr("is not empty"));

  // Bad requests.
  FLOE_EXPECT_CODE(catalog_->CreateView(Id("db.w"), ViewRequest({})), kInvalidArgument);
  FLOE_EXPECT_CODE(catalog_->CreateView(Id("db.w"), ViewRequest({{"trino", "a"}, {"TRINO", "b"}})),
                   kInvalidArgument);
  CreateViewRequest other_type = ViewRequest();
  other_type.representations[0].type = "substrait";
  FLOE_EXPECT_CODE(catalog_->CreateView(Id("db.w"), other_type), kInvalidArgument);
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.w")));

  // Drop deletes the pointer and the current metadata file (Java dropViewMetadata).
  FLOE_ASSERT_OK(catalog_->DropView(Id("db.v")));
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.v")));
  EXPECT_FALSE(fs::exists(created->metadata_location));
  Status dropped = catalog_->DropView(Id("db.v"));
  EXPECT_EQ(dropped.code(), StatusCode::kNotFound);
  EXPECT_EQ(dropped.message(), "View does not exist: db.v");
  FLOE_EXPECT_CODE(catalog_->LoadView(Id("db.v")), kNotFound);
  FLOE_ASSERT_OK(catalog_->DropNamespace(Ns("db")));
}

TEST_P(CatalogTest, CreateViewWithLocationAndMetadataPath) {
  if (!sql()) GTEST_SKIP() << "the filesystem catalog has no views";
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  CreateViewRequest request = ViewRequest();
  request.location = (allowed_ / "elsewhere").string();
  request.properties["write.metadata.path"] = (allowed_ / "custom").string();
  request.properties["write.metadata.compression-codec"] = "none";
  auto created = catalog_->CreateView(Id("db.v"), request);
  FLOE_ASSERT_OK(created);
  EXPECT_EQ(created->metadata->location, (allowed_ / "elsewhere").string());
  EXPECT_TRUE(created->metadata_location.starts_with((allowed_ / "custom/00000-").string()));
  EXPECT_TRUE(created->metadata_location.ends_with(".metadata.json"));
  EXPECT_FALSE(created->metadata_location.ends_with(".gz.metadata.json"));
  EXPECT_TRUE(fs::exists(created->metadata_location));
}

TEST_P(CatalogTest, CommitViews) {
  if (!sql()) {
    FLOE_EXPECT_CODE(catalog_->CommitView(Id("db.v"), {}, {}), kUnimplemented);
    return;
  }
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  auto created = catalog_->CreateView(Id("db.v"), ViewRequest());
  FLOE_ASSERT_OK(created);
  const std::string uuid = created->metadata->view_uuid;

  // What Java's RESTViewBuilder.replace sends: a new schema and version, made current.
  iceberg::ViewVersion v2;
  v2.version_id = 2;
  v2.timestamp_ms = 7777;
  v2.schema_id = iceberg::update::kLastAdded;
  v2.default_namespace = {"db"};
  v2.representations.push_back(iceberg::ViewRepresentation{"sql", "select 2", "spark"});
  auto replaced = catalog_->CommitView(
      Id("db.v"), {iceberg::requirement::AssertViewUuid{uuid}},
      {iceberg::update::AddSchema{*iceberg::ParseSchemaText("id long, extra string")},
       iceberg::update::AddViewVersion{v2},
       iceberg::update::SetCurrentViewVersion{iceberg::update::kLastAdded}});
  FLOE_ASSERT_OK(replaced);
  const iceberg::ViewMetadata& md = *replaced->metadata;
  EXPECT_EQ(md.current_version_id, 2);
  EXPECT_EQ(md.current_version()->schema_id, 1);
  EXPECT_EQ(md.current_version()->operation(), "replace");
  EXPECT_EQ(md.schemas.size(), 2u);
  EXPECT_EQ(md.version_log.size(), 2u);
  EXPECT_NE(replaced->metadata_location.find("/metadata/00001-"), std::string::npos);
  EXPECT_TRUE(fs::exists(created->metadata_location));  // earlier versions stay
  EXPECT_EQ(catalog_->LoadView(Id("db.v"))->metadata_location, replaced->metadata_location);

  // Nothing to change: no new file.
  auto same = catalog_->CommitView(Id("db.v"), {}, {iceberg::update::SetProperties{{}}});
  FLOE_ASSERT_OK(same);
  EXPECT_EQ(same->metadata_location, replaced->metadata_location);

  // A failed requirement or invalid update commits nothing.
  FLOE_EXPECT_CODE(catalog_->CommitView(Id("db.v"), {iceberg::requirement::AssertViewUuid{"x"}},
                                        ReplaceQuery("select 3")),
                   kConflict);
  FLOE_EXPECT_CODE(
      catalog_->CommitView(Id("db.v"), {}, {iceberg::update::SetCurrentViewVersion{42}}),
      kInvalidArgument);
  // Dropping the spark dialect needs replace.drop-dialect.allowed.
  FLOE_EXPECT_CODE(catalog_->CommitView(Id("db.v"), {}, ReplaceQuery("select 3", "trino")),
                   kFailedPrecondition);
  EXPECT_EQ(catalog_->LoadView(Id("db.v"))->metadata_location, replaced->metadata_location);
  FLOE_EXPECT_CODE(catalog_->CommitView(Id("db.missing"), {}, ReplaceQuery("select 3")), kNotFound);

  // version.history.num-entries bounds the versions kept.
  FLOE_ASSERT_OK(catalog_->CommitView(
      Id("db.v"), {}, {iceberg::update::SetProperties{{{"version.history.num-entries", "2"}}}}));
  for (int i = 3; i <= 5; ++i) {
    FLOE_ASSERT_OK(
        catalog_->CommitView(Id("db.v"), {}, ReplaceQuery("select " + std::to_string(i))));
  }
  auto trimmed = catalog_->LoadView(Id("db.v"));
  FLOE_ASSERT_OK(trimmed);
  EXPECT_EQ(trimmed->metadata->current_version_id, 5);
  ASSERT_EQ(trimmed->metadata->versions.size(), 2u);
  EXPECT_EQ(trimmed->metadata->versions[1].version_id, 4);
  EXPECT_NE(trimmed->metadata_location.find("/metadata/00005-"), std::string::npos);
}

// Java CatalogHandlers.commit (ViewCatalogTests.concurrentReplaceViewVersion with server-side
// retry): a commit that loses the swap to an unrelated one is re-applied on the new base.
TEST_P(CatalogTest, ViewCommitRetriesOnConcurrentCommit) {
  if (!sql()) GTEST_SKIP() << "the filesystem catalog has no views";
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  auto created = catalog_->CreateView(Id("db.v"), [] {
    CreateViewRequest r = ViewRequest();
    r.properties["replace.drop-dialect.allowed"] = "true";
    return r;
  }());
  FLOE_ASSERT_OK(created);
  auto hook_io = std::make_unique<HookFileIO>();
  HookFileIO* hook = hook_io.get();
  auto mine = Open(std::move(hook_io));
  auto other = Open();
  hook->before_metadata_write = [&](std::string_view) {
    FLOE_ASSERT_OK(other->CommitView(Id("db.v"), {}, ReplaceQuery("select theirs", "trino")));
  };
  auto committed = mine->CommitView(
      Id("db.v"), {iceberg::requirement::AssertViewUuid{created->metadata->view_uuid}},
      ReplaceQuery("select mine"));
  FLOE_ASSERT_OK(committed);
  const iceberg::ViewMetadata& md = *committed->metadata;
  EXPECT_EQ(md.current_version_id, 3);
  EXPECT_EQ(md.versions.size(), 3u);
  EXPECT_EQ(md.version_by_id(2)->representations[0].sql, "select theirs");
  EXPECT_EQ(md.current_version()->representations[0].sql, "select mine");
  // create + theirs + mine: the losing attempt's file is gone.
  EXPECT_EQ(CountMetadataJson(md.location), 3u);
}

TEST_P(CatalogTest, RenameAndRegisterViews) {
  if (!sql()) {
    FLOE_EXPECT_CODE(catalog_->RenameView(Id("a.v"), Id("a.w")), kUnimplemented);
    FLOE_EXPECT_CODE(catalog_->RegisterView(Id("a.v"), "x"), kUnimplemented);
    return;
  }
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Ns("other"), {}));
  auto created = catalog_->CreateView(Id("db.v"), ViewRequest());
  FLOE_ASSERT_OK(created);
  FLOE_ASSERT_OK(catalog_->CreateView(Id("db.w"), ViewRequest()));
  ASSERT_NE(Create("db.t"), nullptr);

  FLOE_ASSERT_OK(catalog_->RenameView(Id("db.v"), Id("db.v")));  // no-op
  FLOE_ASSERT_OK(catalog_->RenameView(Id("db.v"), Id("other.v2")));
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.v")));
  auto moved = catalog_->LoadView(Id("other.v2"));
  FLOE_ASSERT_OK(moved);
  EXPECT_EQ(moved->metadata->view_uuid, created->metadata->view_uuid);

  Status missing_ns = catalog_->RenameView(Id("other.v2"), Id("non_existing.v"));
  EXPECT_EQ(missing_ns.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing_ns.message(), "Namespace does not exist: non_existing");
  Status missing = catalog_->RenameView(Id("db.v"), Id("db.x"));
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()), ::testing::HasSubstr("View does not exist"));
  Status onto_view = catalog_->RenameView(Id("other.v2"), Id("db.w"));
  EXPECT_EQ(onto_view.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(onto_view.message(), "Cannot rename other.v2 to db.w. View already exists");
  Status onto_table = catalog_->RenameView(Id("other.v2"), Id("db.t"));
  EXPECT_EQ(onto_table.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(onto_table.message(), "Cannot rename other.v2 to db.t. Table already exists");
  Status table_onto_view = catalog_->RenameTable(Id("db.t"), Id("db.w"));
  EXPECT_EQ(table_onto_view.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(table_onto_view.message(), "Cannot rename db.t to db.w. View already exists");
  FLOE_EXPECT_CODE(catalog_->RenameView(Id("db.t"), Id("db.x")), kNotFound);  // not a view

  // Register an existing metadata file under a new name, as is (no new file).
  auto registered = catalog_->RegisterView(Id("db.r"), created->metadata_location);
  FLOE_ASSERT_OK(registered);
  EXPECT_EQ(registered->metadata_location, created->metadata_location);
  EXPECT_EQ(registered->metadata->view_uuid, created->metadata->view_uuid);
  EXPECT_EQ(catalog_->LoadView(Id("db.r"))->metadata_location, created->metadata_location);
  Status twice = catalog_->RegisterView(Id("db.r"), created->metadata_location).status();
  EXPECT_EQ(twice.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(twice.message(), "View already exists: db.r");
  Status over_table = catalog_->RegisterView(Id("db.t"), created->metadata_location).status();
  EXPECT_EQ(over_table.message(), "Table with same name already exists: db.t");
  FLOE_EXPECT_CODE(catalog_->RegisterView(Id("nope.r"), created->metadata_location), kNotFound);
  FLOE_EXPECT_CODE(
      catalog_->RegisterView(Id("db.s"), (allowed_ / "missing.metadata.json").string()), kNotFound);
  EXPECT_FALSE(*catalog_->ViewExists(Id("db.s")));
}

// A pool's change version (what a server validates cached listings with): on SQLite it stays
// put while nothing commits and moves with every commit, whether made by the pool's own
// catalogs or by another connection to the database; the other backends offer none, so
// nothing of theirs is ever served from a cache.
TEST_P(CatalogTest, PoolChangeVersionFollowsEveryCommit) {
  CatalogPool pool("contract", [this]() -> Result<std::unique_ptr<Catalog>> {
    std::unique_ptr<Catalog> catalog = Open();
    if (catalog == nullptr) return Status::Internal("open failed");
    return catalog;
  });
  std::optional<uint64_t> first = pool.ChangeVersion();
  if (GetParam() != Backend::kSqlite) {
    EXPECT_FALSE(first.has_value());
    return;
  }
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(pool.ChangeVersion(), first);

  // Another connection (catalog_ is not from the pool).
  FLOE_ASSERT_OK(catalog_->CreateNamespace(Namespace{{"outside"}}, {}));
  std::optional<uint64_t> second = pool.ChangeVersion();
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(*second, *first);
  EXPECT_EQ(pool.ChangeVersion(), second);

  // The pool's own catalog.
  {
    auto lease = pool.Acquire();
    FLOE_ASSERT_OK(lease);
    FLOE_ASSERT_OK((*lease)->CreateTable(TableIdentifier{Namespace{{"outside"}}, "t"}, Request()));
  }
  std::optional<uint64_t> third = pool.ChangeVersion();
  ASSERT_TRUE(third.has_value());
  EXPECT_NE(*third, *second);

  // A read commits nothing.
  FLOE_ASSERT_OK(catalog_->ListTables(Namespace{{"outside"}}));
  EXPECT_EQ(pool.ChangeVersion(), third);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, CatalogTest, ::testing::Values(Backend::kSqlite), BackendName);
INSTANTIATE_TEST_SUITE_P(Postgres, CatalogTest, ::testing::Values(Backend::kPostgres), BackendName);
INSTANTIATE_TEST_SUITE_P(FileSystem, CatalogTest, ::testing::Values(Backend::kFileSystem),
                         BackendName);

TEST(TableIdentifierTest, Parse) {
  auto id = TableIdentifier::Parse("a.b.t");
  FLOE_ASSERT_OK(id);
  EXPECT_EQ(id->ns, Ns("a.b"));
  EXPECT_EQ(id->name, "t");
  EXPECT_EQ(id->ToString(), "a.b.t");
  FLOE_EXPECT_CODE(TableIdentifier::Parse("t"), kInvalidArgument);
  FLOE_EXPECT_CODE(TableIdentifier::Parse("a..t"), kInvalidArgument);
  FLOE_EXPECT_CODE(TableIdentifier::Parse("a."), kInvalidArgument);
  FLOE_EXPECT_CODE(TableIdentifier::Parse(".t"), kInvalidArgument);
}

TEST(OpenCatalogTest, Uris) {
  FLOE_EXPECT_CODE(OpenCatalog("mysql://x", {}), kInvalidArgument);
  auto dir = fs::temp_directory_path() / ("floe_open_catalog_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto fs_catalog = OpenCatalog("file://" + dir.string(), {});
  FLOE_ASSERT_OK(fs_catalog);
  EXPECT_EQ((*fs_catalog)->name(), "default");
  EXPECT_TRUE(fs::is_directory(dir));
  auto sqlite = OpenCatalog("sqlite://" + (dir / "c.db").string(), {});
  FLOE_ASSERT_OK(sqlite);
  EXPECT_TRUE(fs::exists(dir / "c.db"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace floe::catalog

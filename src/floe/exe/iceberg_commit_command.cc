// `floe iceberg commit-test`: a debugging command that runs a fixed sequence of commits
// through floe's table layer (iceberg/table.h) on a new table in a directory (local, or an
// s3:// prefix through file_io_flags.h), so
// other engines can read what floe committed. The table pointer lives only in the process
// (InMemoryTableOperations); the metadata files are written to DIR/metadata. Data and
// delete files are described, not written (readers of metadata and manifests only).
//
//   S1 append     a (category=x, 10 rows), b (category=y, 20 rows)
//   S2 row delta  equality delete eq1 (x) and a position delete of a (v2: file, v3: DV)
//   S3 row delta  equality delete eq2 (x), from another writer
//   S4 rewrite    a -> a2 and the position delete removed, validated from S2: a2 keeps S2's
//                 sequence number, so eq2 still applies to it
//   expire        S1 (explicitly)
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata_builder.h"

namespace floe::exe {

namespace {

using namespace floe::iceberg;  // NOLINT(google-build-using-namespace): a debugging command

struct CommitTestOptions {
  std::string dir;
  int format_version = 2;
  FileIOFlags io;
};

DataFile File(const std::string& dir, const std::string& name, FileContent content, int64_t rows,
              const std::string& category) {
  DataFile f;
  f.content = content;
  f.file_path = dir + "/data/" + name;
  f.record_count = rows;
  f.file_size_in_bytes = 100 + rows * 10;
  f.partition = {Literal::String(category)};
  // Column metrics as a writer reports them (pyiceberg 0.12's inspect.entries() needs
  // column_sizes to be present).
  f.column_sizes = {{1, rows * 8}};
  f.value_counts = {{1, rows}};
  f.null_value_counts = {{1, 0}};
  if (content == FileContent::kEqualityDeletes) f.equality_ids = std::vector<int32_t>{1};
  return f;
}

Status CommitTest(const CommitTestOptions& o, io::FileIO& io) {
  auto env = MakeSystemCommitEnvironment();
  FLOE_ASSIGN_OR_RETURN(Schema schema,
                        Schema::Make({NestedField::Required(1, "id", LongType()),
                                      NestedField::Optional(2, "data", StringType()),
                                      NestedField::Optional(3, "category", StringType())}));
  FLOE_ASSIGN_OR_RETURN(PartitionSpec spec,
                        PartitionSpecBuilder(schema).Identity("category").Build());
  FLOE_ASSIGN_OR_RETURN(
      TableMetadata md,
      TableMetadataBuilder::NewTable(schema, spec, SortOrder::Unsorted(), o.dir,
                                     {{"format-version", std::to_string(o.format_version)}},
                                     env->NewUuid(), env->NowMillis()));
  FLOE_ASSIGN_OR_RETURN(
      auto ops, testing::InMemoryTableOperations::Create("commit_test", io, *env, std::move(md)));
  FLOE_ASSIGN_OR_RETURN(auto table, Table::Load(*ops));
  nlohmann::ordered_json out;

  DataFile a = File(o.dir, "a.parquet", FileContent::kData, 10, "x");
  DataFile b = File(o.dir, "b.parquet", FileContent::kData, 20, "y");
  auto append = table->NewAppend();
  append->AppendFile(a).AppendFile(b);
  FLOE_RETURN_IF_ERROR(append->Commit());
  out["append"] = *append->snapshot_id();

  DataFile pos = File(o.dir, "pos1.parquet", FileContent::kPositionDeletes, 2, "x");
  pos.referenced_data_file = a.file_path;
  if (o.format_version >= 3) {
    pos.file_path = o.dir + "/data/dv1.puffin";
    pos.file_format = FileFormat::kPuffin;
    pos.content_offset = 4;
    pos.content_size_in_bytes = 40;
  }
  auto rd = table->NewRowDelta();
  rd->AddDeletes(File(o.dir, "eq1.parquet", FileContent::kEqualityDeletes, 2, "x"))
      .AddDeletes(pos)
      .ValidateFromSnapshot(*append->snapshot_id())
      .ValidateDataFilesExist({a.file_path});
  FLOE_RETURN_IF_ERROR(rd->Commit());
  out["row_delta"] = *rd->snapshot_id();

  FLOE_ASSIGN_OR_RETURN(auto writer, Table::Load(*ops));
  auto rd2 = writer->NewRowDelta();
  rd2->AddDeletes(File(o.dir, "eq2.parquet", FileContent::kEqualityDeletes, 1, "x"));
  FLOE_RETURN_IF_ERROR(rd2->Commit());
  out["row_delta_2"] = *rd2->snapshot_id();

  auto rewrite = table->NewRewrite();
  rewrite->DeleteFile(a)
      .DeleteDeleteFile(pos)
      .AddFile(File(o.dir, "a2.parquet", FileContent::kData, 8, "x"))
      .ValidateFromSnapshot(*rd->snapshot_id());
  FLOE_RETURN_IF_ERROR(rewrite->Commit());
  out["rewrite"] = *rewrite->snapshot_id();

  auto expire = table->NewExpireSnapshots();
  expire->ExpireSnapshotId(*append->snapshot_id());
  FLOE_RETURN_IF_ERROR(expire->Commit());
  out["expired"] = expire->result().expired_snapshot_ids;
  out["deleted_manifest_lists"] = expire->result().deleted_manifest_lists;
  out["deleted_manifests"] = expire->result().deleted_manifests;
  out["metadata_location"] = table->metadata()->metadata_file_location;
  std::string text = out.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

}  // namespace

void AddIcebergCommitTestCommand(CLI::App* ice, int* exit_code) {
  auto* cmd = ice->add_subcommand(
      "commit-test",
      "Create a table in DIR and commit append, row delta, rewrite and expire through floe's "
      "table layer (debugging; prints the snapshot ids and the metadata location)");
  auto o = std::make_shared<CommitTestOptions>();
  cmd->add_option("dir", o->dir, "Table location (a new, empty directory or s3:// prefix)")
      ->required();
  cmd->add_option("--format-version", o->format_version, "Table format version (2 or 3)");
  AddFileIOFlags(cmd, &o->io);
  SetCommand(cmd, exit_code, [o] {
    return RunWithFileIO(
        o->io, [&](io::FileIO& io) { return CommitTest(*o, io).WithContext("{}", o->dir); });
  });
}

}  // namespace floe::exe

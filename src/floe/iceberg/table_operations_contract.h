// Contract checks for TableOperations implementations (catalogs), written as GoogleTest
// assertions so a catalog's tests can run them on its own operations:
//
//   TEST(SqlCatalogTest, TableOperationsContract) {
//     auto ops = ...;  // a fresh table with no snapshots, format v2
//     floe::iceberg::testing::CheckTableOperationsContract(*ops);
//   }
//
// Checked: failed requirements are kConflict and commit nothing; a commit is visible to
// Refresh and its metadata file is readable through io(); a writer whose base is stale
// gets kConflict from Commit and the table layer's retry commits it on top of the other
// writer's snapshot; each commit advances the metadata file version.
#pragma once

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg::testing {

inline DataFile ContractDataFile(const std::string& path, const TableMetadata& md) {
  DataFile f;
  f.file_path = path;
  f.record_count = 1;
  f.file_size_in_bytes = 10;
  f.spec_id = md.default_spec_id;
  if (const PartitionSpec* spec = md.default_spec(); spec != nullptr) {
    Result<TypePtr> pt = spec->PartitionType(*md.current_schema());
    if (pt.ok()) {
      for (const NestedField& field : (*pt)->fields()) {
        f.partition.push_back(Literal::Null(field.type));
      }
    }
  }
  return f;
}

// REQUIRES: `ops` is a table without snapshots.
inline void CheckTableOperationsContract(TableOperations& ops) {
  auto base = ops.Refresh();
  FLOE_ASSERT_OK(base);
  const std::string base_location = (*base)->metadata_file_location;

  // A failed requirement is kConflict and commits nothing.
  auto bad = ops.Commit({requirement::AssertTableUuid{"00000000-0000-0000-0000-000000000000"}},
                        {update::SetProperties{{{"contract", "bad"}}}});
  EXPECT_EQ(bad.status().code(), StatusCode::kConflict) << bad.status().ToString();
  auto after_bad = ops.Refresh();
  FLOE_ASSERT_OK(after_bad);
  EXPECT_EQ((*after_bad)->metadata_file_location, base_location);
  EXPECT_EQ((*after_bad)->properties.count("contract"), 0u);

  // A commit is visible to Refresh, and its metadata file is readable.
  auto t1 = Table::Load(ops);
  FLOE_ASSERT_OK(t1);
  (*t1)->set_sleeper([](int64_t) {});
  auto append = (*t1)->NewAppend();
  append->AppendFile(ContractDataFile("contract/a.parquet", **base));
  Status st = append->Commit();
  FLOE_ASSERT_OK(st);
  auto md1 = ops.Refresh();
  FLOE_ASSERT_OK(md1);
  ASSERT_NE((*md1)->current_snapshot(), nullptr);
  EXPECT_EQ((*md1)->current_snapshot()->snapshot_id, *append->snapshot_id());
  EXPECT_EQ(NextMetadataVersion(base_location),
            ParseMetadataFileVersion((*md1)->metadata_file_location).value_or(-1));
  auto read = ReadTableMetadata(ops.io(), (*md1)->metadata_file_location);
  FLOE_ASSERT_OK(read);
  EXPECT_EQ(read->current_snapshot_id, (*md1)->current_snapshot_id);

  // A stale ref requirement is kConflict.
  auto stale = ops.Commit({requirement::AssertRefSnapshotId{"main", std::nullopt}},
                          {update::SetProperties{{{"contract", "stale"}}}});
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict) << stale.status().ToString();

  // Two writers from the same base: the second one retries on top of the first.
  auto w1 = Table::Load(ops);
  auto w2 = Table::Load(ops);
  FLOE_ASSERT_OK(w1);
  FLOE_ASSERT_OK(w2);
  (*w2)->set_sleeper([](int64_t) {});
  auto a1 = (*w1)->NewAppend();
  a1->AppendFile(ContractDataFile("contract/b.parquet", **md1));
  auto a2 = (*w2)->NewTransaction();
  FLOE_ASSERT_OK(
      a2->NewAppend().AppendFile(ContractDataFile("contract/c.parquet", **md1)).Commit());
  FLOE_ASSERT_OK(a1->Commit());
  st = a2->Commit();
  FLOE_ASSERT_OK(st);
  auto md2 = ops.Refresh();
  FLOE_ASSERT_OK(md2);
  const Snapshot* head = (*md2)->current_snapshot();
  ASSERT_NE(head, nullptr);
  ASSERT_TRUE(head->parent_snapshot_id.has_value());
  EXPECT_EQ(*head->parent_snapshot_id, *a1->snapshot_id());
  EXPECT_EQ((*md2)->snapshots.size(), 3u);
  EXPECT_EQ((*md2)->last_sequence_number, 3);
}

}  // namespace floe::iceberg::testing

// Writes table metadata files with Iceberg Java's own TableMetadata.Builder and
// TableMetadataParser, the golden files of floe's metadata tests (see gen_java_metadata.sh).
// In package org.apache.iceberg to reach BaseSnapshot's constructor, as Iceberg's tests do.
package org.apache.iceberg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;

public class GenFloeMetadata {
  static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "data", Types.StringType.get(), "payload"),
        Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
        Types.NestedField.optional(4, "tags", Types.ListType.ofOptional(5, Types.StringType.get())));
  }

  static String write(Path dir, String name, TableMetadata md) throws Exception {
    Path file = dir.resolve(name);
    // TableMetadataParser.write uses the pretty printer; reproduce it through an OutputFile.
    TableMetadataParser.overwrite(md, org.apache.iceberg.Files.localOutput(file.toFile()));
    return file.toString();
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long now = System.currentTimeMillis();
    for (int version = 1; version <= 3; version++) {
      Schema schema = schema();
      PartitionSpec spec = PartitionSpec.builderFor(schema).day("ts").bucket("id", 16).build();
      SortOrder order = SortOrder.builderFor(schema).asc("id").desc("data").build();
      TableMetadata md =
          TableMetadata.newTableMetadata(
              schema, spec, order, "s3://bucket/wh/t" + version,
              Map.of("format-version", String.valueOf(version), "owner", "floe"));
      md = TableMetadata.buildFrom(md).assignUUID("5b9c1e5a-0d54-4b8c-9a4c-1d2a3b4c5d6" + version)
          .withMetadataLocation(null).build();
      String f0 = write(dir, "v" + version + "-00000.metadata.json", md);
      md = TableMetadataParser.read((org.apache.iceberg.io.FileIO) null, org.apache.iceberg.Files.localInput(f0));

      long seq1 = version >= 2 ? 1 : 0;
      Snapshot s1 = new BaseSnapshot(seq1, 1001L, null, now + 1000L, DataOperations.APPEND,
          Map.of("added-data-files", "1", "added-records", "10"), 0,
          "s3://bucket/wh/t" + version + "/metadata/snap-1001.avro",
          version >= 3 ? 0L : null, version >= 3 ? 10L : null, null);
      TableMetadata md1 = TableMetadata.buildFrom(md).setBranchSnapshot(s1, "main").build();
      String f1 = write(dir, "v" + version + "-00001.metadata.json", md1);
      md1 = TableMetadataParser.read((org.apache.iceberg.io.FileIO) null, org.apache.iceberg.Files.localInput(f1));

      long seq2 = version >= 2 ? 2 : 0;
      Snapshot s2 = new BaseSnapshot(seq2, 1002L, 1001L, now + 2000L, DataOperations.OVERWRITE,
          Map.of("deleted-data-files", "1"), 0,
          "s3://bucket/wh/t" + version + "/metadata/snap-1002.avro",
          version >= 3 ? 10L : null, version >= 3 ? 7L : null, null);
      TableMetadata.Builder b = TableMetadata.buildFrom(md1)
          .setBranchSnapshot(s2, "main")
          .setRef("v1", SnapshotRef.tagBuilder(1001L).maxRefAgeMs(86400000L).build())
          .setRef("audit", SnapshotRef.branchBuilder(1001L).minSnapshotsToKeep(3).build())
          .setStatistics(new GenericStatisticsFile(1002L, "s3://bucket/stats/1002.puffin", 100L, 42L,
              List.of(new GenericBlobMetadata("apache-datasketches-theta-v1", 1002L, seq2,
                  List.of(1), Map.of("ndv", "10")))))
          .setPartitionStatistics(ImmutableGenericPartitionStatisticsFile.builder()
              .snapshotId(1002L).path("s3://bucket/stats/p1002.parquet").fileSizeInBytes(55L).build())
          .setProperties(Map.of("write.metadata.previous-versions-max", "5"));
      write(dir, "v" + version + "-00002.metadata.json", b.build());
    }
  }
}

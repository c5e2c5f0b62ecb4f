package floe.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * `cdc-loop`: a Flink-style upsert job in a loop, checking itself against a model while
 * another process (floe's optimizer) rewrites the table underneath.
 *
 * <p>The table has columns id long, part int, v string, seq long, partitioned by identity(part)
 * (or unpartitioned); the upsert key is (id, part), part = id % partitions (Flink requires the
 * partition source in the key). Each commit draws ops over the key space: an upsert (equality
 * delete of the key plus the new row) or a delete (the equality delete alone), and commits, per
 * touched partition, one key-only equality-delete file and one data file in one RowDelta without
 * validation, as Flink's IcebergFilesCommitter does. After every commit the current table is
 * read with IcebergGenerics and must equal the model (a deleted key that comes back, a lost or
 * stale row fails the run). Every snapshot the loop did not write (an optimizer's rewrite) is
 * read at that snapshot and must equal the model of its newest ancestor the loop wrote.
 */
final class CdcLoop {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String COMMIT_KEY = "floe-cdc.commit";

  /** The model's row of one key. */
  private static final class Row {
    final String v;
    final long seq;

    Row(String v, long seq) {
      this.v = v;
      this.seq = seq;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Row && ((Row) o).v.equals(v) && ((Row) o).seq == seq;
    }

    @Override
    public int hashCode() {
      return v.hashCode() * 31 + Long.hashCode(seq);
    }

    @Override
    public String toString() {
      return "(" + v + ", " + seq + ")";
    }
  }

  private final Table table;
  private final PrintStream out;
  // Model per snapshot the loop committed: the rows a reader of that snapshot must see.
  private final Map<Long, TreeMap<Long, Row>> models = new HashMap<>();
  private final Set<Long> checked = new HashSet<>();
  private final ArrayNode foreign = F.arrayNode();

  CdcLoop(Table table, PrintStream out) {
    this.table = table;
    this.out = out;
  }

  void run(Args args) throws IOException {
    int keys = (int) args.getLong("keys", 2000);
    int partitions = (int) args.getLong("partitions", 4);
    int commits = (int) args.getLong("commits", 40);
    int opsPerCommit = (int) args.getLong("ops-per-commit", 200);
    double deleteRatio = Double.parseDouble(
        args.get("delete-ratio") == null ? "0.2" : args.get("delete-ratio"));
    long pauseMs = args.getLong("pause-ms", 0);
    Random rnd = new Random(args.getLong("seed", 1));
    Path modelDir = args.get("model-dir") == null ? null : Path.of(args.get("model-dir"));
    if (keys < 1 || partitions < 1 || commits < 0 || opsPerCommit < 1) {
      throw new Args.UsageError("--keys, --partitions, --ops-per-commit must be positive");
    }
    Schema schema = table.schema();
    for (String c : new String[] {"id", "part", "v", "seq"}) {
      if (schema.findField(c) == null) {
        throw new IllegalArgumentException("cdc-loop needs columns id, part, v, seq; no " + c);
      }
    }
    int[] keyIds = {schema.findField("id").fieldId(), schema.findField("part").fieldId()};
    Schema deleteSchema = TypeUtil.select(schema, Set.of(keyIds[0], keyIds[1]));
    if (modelDir != null) {
      Files.createDirectories(modelDir);
    }

    // The table may already hold rows (a previous loop): start from what it reads.
    table.refresh();
    TreeMap<Long, Row> model = read(table.currentSnapshot());
    if (table.currentSnapshot() != null) {
      models.put(table.currentSnapshot().snapshotId(), new TreeMap<>(model));
    }
    // Earlier history is not this loop's to check.
    table.snapshots().forEach(s -> checked.add(s.snapshotId()));
    ArrayNode commitsOut = F.arrayNode();
    for (int c = 0; c < commits; c++) {
      // Last op per key wins inside a commit (Flink would write both and a position delete).
      Map<Long, String> ops = new LinkedHashMap<>();
      for (int i = 0; i < opsPerCommit; i++) {
        long id = rnd.nextInt(keys);
        ops.put(id, rnd.nextDouble() < deleteRatio ? null : "c" + c + "-" + i);
      }
      long snapshotId = commit(c, ops, partitions, keyIds, deleteSchema);
      for (Map.Entry<Long, String> op : ops.entrySet()) {
        if (op.getValue() == null) {
          model.remove(op.getKey());
        } else {
          model.put(op.getKey(), new Row(op.getValue(), c));
        }
      }
      models.put(snapshotId, new TreeMap<>(model));
      if (modelDir != null) {
        writeModel(modelDir.resolve(snapshotId + ".jsonl"), model, partitions);
      }
      // The writer's view right after its commit: whatever the optimizer committed meanwhile,
      // no deleted key may be back and every key has its latest value.
      table.refresh();
      Snapshot current = table.currentSnapshot();
      compare(read(current), expectedAt(current), "current snapshot "
          + current.snapshotId() + " after commit " + c);
      checkForeignSnapshots();
      ObjectNode o = F.objectNode();
      o.put("commit", c);
      o.put("snapshot_id", snapshotId);
      o.put("current_snapshot_id", current.snapshotId());
      o.put("rows", model.size());
      o.put("foreign_snapshots_seen", foreign.size());
      o.set("equality_deletes_per_partition", JSON.valueToTree(equalityDeletes(current)));
      commitsOut.add(o);
      if (pauseMs > 0) {
        try {
          Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }
    table.refresh();
    checkForeignSnapshots();
    if (modelDir != null) {
      writeModel(modelDir.resolve("final.jsonl"), model, partitions);
    }
    ObjectNode result = F.objectNode();
    result.set("commits", commitsOut);
    result.set("foreign_snapshots", foreign);
    result.put("rows", model.size());
    out.println(JSON.writeValueAsString(result));
  }

  private long commit(int c, Map<Long, String> ops, int partitions, int[] keyIds,
                      Schema deleteSchema) throws IOException {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    // Keys by partition, in first-seen order.
    Map<Integer, List<Long>> byPart = new TreeMap<>();
    ops.keySet().forEach(id -> byPart.computeIfAbsent((int) (id % partitions),
        p -> new ArrayList<>()).add(id));
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime() & 0xffffffL)
        .format(FileFormat.PARQUET).build();
    GenericAppenderFactory dataFactory = new GenericAppenderFactory(schema, spec);
    dataFactory.setAll(table.properties());
    GenericAppenderFactory deleteFactory = new GenericAppenderFactory(
        table, schema, spec, table.properties(), keyIds, deleteSchema, null);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    RowDelta delta = table.newRowDelta();
    for (Map.Entry<Integer, List<Long>> g : byPart.entrySet()) {
      int part = g.getKey();
      GenericRecord probe = GenericRecord.create(schema);
      probe.setField("id", 0L);
      probe.setField("part", part);
      PartitionKey key = new PartitionKey(spec, schema);
      key.partition(wrapper.wrap(probe));
      StructLike partition = spec.isPartitioned() ? key : null;
      EqualityDeleteWriter<Record> dw = deleteFactory.newEqDeleteWriter(
          files.newOutputFile(spec, partition), FileFormat.PARQUET, partition);
      try (dw) {
        for (long id : g.getValue()) {
          GenericRecord k = GenericRecord.create(deleteSchema);
          k.setField("id", id);
          k.setField("part", part);
          dw.write(k);
        }
      }
      delta.addDeletes(dw.toDeleteFile());
      List<Record> inserts = new ArrayList<>();
      for (long id : g.getValue()) {
        String v = ops.get(id);
        if (v != null) {
          GenericRecord r = GenericRecord.create(schema);
          r.setField("id", id);
          r.setField("part", part);
          r.setField("v", v);
          r.setField("seq", (long) c);
          inserts.add(r);
        }
      }
      if (!inserts.isEmpty()) {
        DataWriter<Record> w = dataFactory.newDataWriter(
            files.newOutputFile(spec, partition), FileFormat.PARQUET, partition);
        try (w) {
          inserts.forEach(w::write);
        }
        DataFile df = w.toDataFile();
        delta.addRows(df);
      }
    }
    delta.set(COMMIT_KEY, String.valueOf(c));
    // No validation, as Flink's committer: concurrent rewrites must keep these deletes applying.
    delta.commit();
    table.refresh();
    for (Snapshot s : table.snapshots()) {
      if (String.valueOf(c).equals(s.summary().get(COMMIT_KEY))) {
        return s.snapshotId();
      }
    }
    throw new IllegalStateException("commit " + c + " is not in the table's snapshots");
  }

  /** The model of `snapshot`: that of its newest ancestor (itself included) the loop wrote. */
  private TreeMap<Long, Row> expectedAt(Snapshot snapshot) {
    Snapshot s = snapshot;
    while (s != null) {
      TreeMap<Long, Row> m = models.get(s.snapshotId());
      if (m != null) {
        return m;
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    throw new IllegalStateException("snapshot " + snapshot.snapshotId()
        + " has no ancestor written by this loop (expired?)");
  }

  /** Reads and checks every snapshot not written by the loop (the optimizer's) not seen yet. */
  private void checkForeignSnapshots() throws IOException {
    for (Snapshot s : table.snapshots()) {
      if (models.containsKey(s.snapshotId()) || checked.contains(s.snapshotId())) {
        continue;
      }
      checked.add(s.snapshotId());
      compare(read(s), expectedAt(s), "snapshot " + s.snapshotId() + " ("
          + s.summary().getOrDefault("snapshot-producer", s.operation()) + ", process "
          + s.summary().get("floe.optimizing.process-id") + ")");
      ObjectNode o = F.objectNode();
      o.put("snapshot_id", s.snapshotId());
      o.put("parent_id", s.parentId());
      o.put("operation", s.operation());
      o.put("process_id", s.summary().get("floe.optimizing.process-id"));
      o.put("producer", s.summary().get("snapshot-producer"));
      o.set("equality_deletes_per_partition", JSON.valueToTree(equalityDeletes(s)));
      foreign.add(o);
    }
  }

  private TreeMap<Long, Row> read(Snapshot snapshot) throws IOException {
    TreeMap<Long, Row> rows = new TreeMap<>();
    if (snapshot == null) {
      return rows;
    }
    try (CloseableIterable<Record> it =
             IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
      for (Record r : it) {
        long id = (Long) r.getField("id");
        Row row = new Row((String) r.getField("v"), (Long) r.getField("seq"));
        Row before = rows.put(id, row);
        if (before != null) {
          throw new IllegalStateException("snapshot " + snapshot.snapshotId()
              + " reads key " + id + " twice: " + before + " and " + row);
        }
      }
    }
    return rows;
  }

  private static void compare(TreeMap<Long, Row> got, TreeMap<Long, Row> want, String what) {
    if (got.equals(want)) {
      return;
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<Long, Row> e : got.entrySet()) {
      Row w = want.get(e.getKey());
      if (w == null) {
        problems.add("key " + e.getKey() + " deleted but read as " + e.getValue());
      } else if (!w.equals(e.getValue())) {
        problems.add("key " + e.getKey() + " read " + e.getValue() + ", latest is " + w);
      }
    }
    for (Map.Entry<Long, Row> e : want.entrySet()) {
      if (!got.containsKey(e.getKey())) {
        problems.add("key " + e.getKey() + " missing (latest " + e.getValue() + ")");
      }
    }
    throw new IllegalStateException(what + " differs from the model (" + got.size() + " rows read, "
        + want.size() + " expected, " + problems.size() + " differences): "
        + String.join("; ", problems.subList(0, Math.min(8, problems.size()))));
  }

  /** Live equality-delete files of `snapshot` per partition (partition as canonical JSON). */
  private Map<String, Integer> equalityDeletes(Snapshot snapshot) throws IOException {
    Map<String, Integer> counts = new TreeMap<>();
    for (ManifestFile m : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> r =
               ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
        for (DeleteFile f : r) {
          if (f.content() != FileContent.EQUALITY_DELETES) {
            continue;
          }
          PartitionSpec spec = table.specs().get(f.specId());
          ObjectNode p = F.objectNode();
          List<Types.NestedField> fields = spec.partitionType().fields();
          for (int i = 0; i < fields.size(); i++) {
            p.set(fields.get(i).name(), CanonicalValues.internalToJson(
                fields.get(i).type(), f.partition().get(i, Object.class)));
          }
          counts.merge(JSON.writeValueAsString(p), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  private static void writeModel(Path path, TreeMap<Long, Row> model, int partitions)
      throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
      for (Map.Entry<Long, Row> e : model.entrySet()) {
        ObjectNode o = F.objectNode();
        o.put("id", e.getKey());
        o.put("part", (int) (e.getKey() % partitions));
        o.put("v", e.getValue().v);
        o.put("seq", e.getValue().seq);
        w.write(JSON.writeValueAsString(o));
        w.write('\n');
      }
    }
  }
}

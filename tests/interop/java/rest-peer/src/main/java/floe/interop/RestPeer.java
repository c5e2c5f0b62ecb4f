package floe.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * Iceberg Java 1.11's RESTCatalog as a peer of `floe server`. One run executes a JSON script
 * (`{"steps": [...]}`, the file named by the only argument) in one JVM and prints a JSON array
 * with one result per step: `{"ok": true, "value": ...}`, or `{"ok": false, "error":
 * "ExceptionSimpleName", "message": "..."}` when the step threw (the script goes on). README.md
 * beside pom.xml lists the steps.
 */
public final class RestPeer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final Map<String, RESTCatalog> catalogs = new HashMap<>();
  private final Configuration conf = new Configuration();

  private RestPeer() {
    // Raw local files: no ".crc" side files next to data files.
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
  }

  public static void main(String[] argv) throws IOException {
    if (argv.length != 1) {
      System.err.println("usage: RestPeer SCRIPT.json");
      System.exit(2);
    }
    JsonNode script = JSON.readTree(Files.readString(Path.of(argv[0]), StandardCharsets.UTF_8));
    RestPeer peer = new RestPeer();
    ArrayNode results = F.arrayNode();
    for (JsonNode step : script.get("steps")) {
      ObjectNode r = F.objectNode();
      try {
        r.put("ok", true);
        r.set("value", peer.run(step));
      } catch (Exception e) {
        r.put("ok", false);
        r.put("error", e.getClass().getSimpleName());
        r.put("message", String.valueOf(e.getMessage()));
      }
      results.add(r);
    }
    for (RESTCatalog c : peer.catalogs.values()) {
      c.close();
    }
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    out.println(JSON.writeValueAsString(results));
    out.flush();
    // RESTCatalog's token refresh executor threads must not keep the JVM alive.
    System.exit(0);
  }

  private RESTCatalog catalog(JsonNode step) {
    RESTCatalog c = catalogs.get(step.get("catalog").asText());
    if (c == null) {
      throw new IllegalArgumentException("no open catalog " + step.get("catalog"));
    }
    return c;
  }

  private static TableIdentifier table(JsonNode step) {
    return TableIdentifier.parse(step.get("table").asText());
  }

  private JsonNode run(JsonNode step) throws Exception {
    String op = step.get("op").asText();
    switch (op) {
      case "open": {
        // Authentication (client credentials, token) happens here, in initialize().
        Map<String, String> props = new HashMap<>();
        step.get("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        RESTCatalog c = new RESTCatalog();
        c.setConf(conf);
        c.initialize(step.get("catalog").asText(), props);
        catalogs.put(step.get("catalog").asText(), c);
        return F.nullNode();
      }
      case "sleep":
        Thread.sleep(step.get("ms").asLong());
        return F.nullNode();
      case "create-namespace":
        catalog(step).createNamespace(Namespace.of(step.get("namespace").asText().split("\\.")));
        return F.nullNode();
      case "list-namespaces": {
        ArrayNode a = F.arrayNode();
        catalog(step).listNamespaces().forEach(ns -> a.add(ns.toString()));
        return a;
      }
      case "list-tables": {
        ArrayNode a = F.arrayNode();
        catalog(step).listTables(Namespace.of(step.get("namespace").asText().split("\\.")))
            .forEach(t -> a.add(t.toString()));
        return a;
      }
      case "create-table": {
        Schema schema = SchemaParser.fromJson(step.get("schema"));
        PartitionSpec spec = step.has("spec")
            ? PartitionSpecParser.fromJson(schema, step.get("spec")) : PartitionSpec.unpartitioned();
        Map<String, String> props = new HashMap<>();
        if (step.has("properties")) {
          step.get("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        }
        catalog(step).createTable(table(step), schema, spec, props);
        return F.nullNode();
      }
      case "drop-table":
        return F.booleanNode(catalog(step).dropTable(table(step), false));
      case "append":
        return append(catalog(step).loadTable(table(step)), step.get("rows"));
      case "snapshots": {
        Table t = catalog(step).loadTable(table(step));
        ArrayNode a = F.arrayNode();
        for (Snapshot s : t.snapshots()) {
          ObjectNode o = F.objectNode();
          o.put("snapshot-id", s.snapshotId());
          o.put("timestamp-ms", s.timestampMillis());
          o.put("operation", s.operation());
          a.add(o);
        }
        return a;
      }
      case "create-tag": {
        Table t = catalog(step).loadTable(table(step));
        t.manageSnapshots().createTag(step.get("name").asText(), step.get("snapshot-id").asLong())
            .commit();
        return F.nullNode();
      }
      case "table-class":
        // RESTTable when the client plans on the server, BaseTable otherwise.
        return F.textNode(catalog(step).loadTable(table(step)).getClass().getSimpleName());
      case "plan":
        return plan(catalog(step).loadTable(table(step)), step);
      case "read":
        return read(catalog(step).loadTable(table(step)), step);
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  // ---- writes ---------------------------------------------------------------------------------

  /** One AppendFiles commit of `rows` (objects of long, int, string, boolean, double values),
   * one Parquet data file per partition; returns the new snapshot id. */
  private static JsonNode append(Table table, JsonNode rows) throws IOException {
    Schema schema = table.schema();
    Map<PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    PartitionKey key = new PartitionKey(table.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    for (JsonNode row : rows) {
      GenericRecord r = GenericRecord.create(schema);
      for (Types.NestedField f : schema.columns()) {
        JsonNode v = row.get(f.name());
        r.setField(f.name(), v == null || v.isNull() ? null : javaValue(f, v));
      }
      key.partition(wrapper.wrap(r));
      groups.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(r);
    }
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime() & 0xffffffL)
        .format(FileFormat.PARQUET).build();
    GenericAppenderFactory factory = new GenericAppenderFactory(schema, table.spec());
    var append = table.newAppend();
    for (Map.Entry<PartitionKey, List<Record>> g : groups.entrySet()) {
      StructLike partition = table.spec().isPartitioned() ? g.getKey() : null;
      DataWriter<Record> w = factory.newDataWriter(
          files.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
      try (w) {
        for (Record r : g.getValue()) {
          w.write(r);
        }
      }
      DataFile f = w.toDataFile();
      append.appendFile(f);
    }
    append.commit();
    table.refresh();
    return F.numberNode(table.currentSnapshot().snapshotId());
  }

  private static Object javaValue(Types.NestedField f, JsonNode v) {
    switch (f.type().typeId()) {
      case LONG: return v.asLong();
      case INTEGER: return v.asInt();
      case BOOLEAN: return v.asBoolean();
      case DOUBLE: return v.asDouble();
      case STRING: return v.asText();
      default: throw new IllegalArgumentException("unsupported column type " + f.type());
    }
  }

  // ---- scans ----------------------------------------------------------------------------------

  /** The scan a step describes: snapshot-id | ref | as-of-time | appends-between [from, to] |
   * appends-after, filter (Iceberg Expression JSON, as in the REST spec), select, case-sensitive. */
  private static TableScan scan(Table table, JsonNode step) {
    TableScan scan = table.newScan();
    if (step.has("snapshot-id")) {
      scan = scan.useSnapshot(step.get("snapshot-id").asLong());
    }
    if (step.has("ref")) {
      scan = scan.useRef(step.get("ref").asText());
    }
    if (step.has("as-of-time")) {
      scan = scan.asOfTime(step.get("as-of-time").asLong());
    }
    if (step.has("appends-between")) {
      scan = scan.appendsBetween(step.get("appends-between").get(0).asLong(),
          step.get("appends-between").get(1).asLong());
    }
    if (step.has("appends-after")) {
      scan = scan.appendsAfter(step.get("appends-after").asLong());
    }
    if (step.has("filter")) {
      scan = scan.filter(filter(step));
    }
    if (step.has("select")) {
      scan = scan.select(columns(step));
    }
    if (step.has("case-sensitive")) {
      scan = scan.caseSensitive(step.get("case-sensitive").asBoolean());
    }
    if (step.has("stats")) {
      List<String> cols = new ArrayList<>();
      step.get("stats").forEach(c -> cols.add(c.asText()));
      scan = scan.includeColumnStats(cols);
    }
    return scan;
  }

  private static Expression filter(JsonNode step) {
    return ExpressionParser.fromJson(step.get("filter"));
  }

  private static List<String> columns(JsonNode step) {
    List<String> cols = new ArrayList<>();
    step.get("select").forEach(c -> cols.add(c.asText()));
    return cols;
  }

  /** planFiles() of the scan, as tasks sorted by data file: the file's location, spec, partition
   * and counts, the task's start/length, its delete files and its residual (Expression JSON). */
  private static JsonNode plan(Table table, JsonNode step) throws IOException {
    ObjectNode out = F.objectNode();
    CloseableIterable<FileScanTask> planned;
    if (step.has("incremental-append")) {
      // Table.newIncrementalAppendScan(): the appends in (from, to], other snapshots skipped.
      IncrementalAppendScan scan = table.newIncrementalAppendScan()
          .fromSnapshotExclusive(step.get("incremental-append").get(0).asLong())
          .toSnapshot(step.get("incremental-append").get(1).asLong());
      if (step.has("filter")) {
        scan = scan.filter(filter(step));
      }
      out.put("scan-class", scan.getClass().getSimpleName());
      planned = scan.planFiles();
    } else {
      TableScan scan = scan(table, step);
      out.put("scan-class", scan.getClass().getSimpleName());
      planned = scan.planFiles();
    }
    TreeMap<String, ObjectNode> tasks = new TreeMap<>();
    try (planned) {
      for (FileScanTask t : planned) {
        ObjectNode o = F.objectNode();
        DataFile f = t.file();
        o.put("data-file", f.location());
        o.put("spec-id", f.specId());
        o.put("partition", String.valueOf(f.partition()));
        o.put("record-count", f.recordCount());
        o.put("file-size-in-bytes", f.fileSizeInBytes());
        // Sequence numbers are not part of the REST ContentFile: not compared.
        o.put("first-row-id", f.firstRowId());
        o.put("sort-order-id", f.sortOrderId());
        o.set("split-offsets", JSON.valueToTree(f.splitOffsets()));
        if (step.has("stats")) {
          // Column metrics kept for the requested columns (stats-fields on the server).
          o.set("value-counts", JSON.valueToTree(sorted(f.valueCounts())));
          o.set("null-value-counts", JSON.valueToTree(sorted(f.nullValueCounts())));
          o.set("nan-value-counts", JSON.valueToTree(sorted(f.nanValueCounts())));
          o.set("column-sizes", JSON.valueToTree(sorted(f.columnSizes())));
          o.set("lower-bounds", JSON.valueToTree(hex(f.lowerBounds())));
          o.set("upper-bounds", JSON.valueToTree(hex(f.upperBounds())));
        }
        o.put("start", t.start());
        o.put("length", t.length());
        List<DeleteFile> deletes = new ArrayList<>(t.deletes());
        deletes.sort(Comparator.comparing(DeleteFile::location));
        ArrayNode d = F.arrayNode();
        for (DeleteFile del : deletes) {
          ObjectNode x = F.objectNode();
          x.put("path", del.location());
          x.put("content", del.content().name().toLowerCase(java.util.Locale.ROOT));
          x.put("format", del.format().name().toLowerCase(java.util.Locale.ROOT));
          x.put("record-count", del.recordCount());
          x.put("referenced-data-file", del.referencedDataFile());
          x.put("content-offset", del.contentOffset());
          x.put("content-size-in-bytes", del.contentSizeInBytes());
          ArrayNode eq = F.arrayNode();
          if (del.equalityFieldIds() != null) {
            del.equalityFieldIds().forEach(eq::add);
          }
          x.set("equality-ids", eq);
          d.add(x);
        }
        o.set("deletes", d);
        o.set("residual", JSON.readTree(ExpressionParser.toJson(t.residual())));
        if (tasks.put(f.location(), o) != null) {
          throw new IllegalStateException("data file planned twice: " + f.location());
        }
      }
    }
    ArrayNode a = F.arrayNode();
    tasks.values().forEach(a::add);
    out.set("tasks", a);
    return out;
  }

  private static <V> Map<Integer, V> sorted(Map<Integer, V> m) {
    return m == null ? null : new TreeMap<>(m);
  }

  private static Map<Integer, String> hex(Map<Integer, java.nio.ByteBuffer> m) {
    if (m == null) {
      return null;
    }
    Map<Integer, String> out = new TreeMap<>();
    m.forEach((k, v) -> {
      StringBuilder b = new StringBuilder();
      java.nio.ByteBuffer d = v.duplicate();
      while (d.hasRemaining()) {
        b.append(String.format("%02x", d.get()));
      }
      out.put(k, b.toString());
    });
    return out;
  }

  /** Rows read with IcebergGenerics (which plans with table.newScan(), deletes applied), each
   * an object of the projected columns, sorted by their JSON text. */
  private static JsonNode read(Table table, JsonNode step) throws IOException {
    IcebergGenerics.ScanBuilder b = IcebergGenerics.read(table);
    if (step.has("snapshot-id")) {
      b = b.useSnapshot(step.get("snapshot-id").asLong());
    }
    if (step.has("ref")) {
      b = b.useSnapshot(table.snapshot(step.get("ref").asText()).snapshotId());
    }
    if (step.has("as-of-time")) {
      b = b.asOfTime(step.get("as-of-time").asLong());
    }
    if (step.has("appends-between")) {
      b = b.appendsBetween(step.get("appends-between").get(0).asLong(),
          step.get("appends-between").get(1).asLong());
    }
    if (step.has("appends-after")) {
      b = b.appendsAfter(step.get("appends-after").asLong());
    }
    if (step.has("filter")) {
      b = b.where(filter(step));
    }
    if (step.has("case-sensitive") && !step.get("case-sensitive").asBoolean()) {
      b = b.caseInsensitive();
    }
    List<String> names = new ArrayList<>();
    if (step.has("select")) {
      b = b.select(columns(step));
      names.addAll(columns(step));
    } else {
      table.schema().columns().forEach(c -> names.add(c.name()));
    }
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = b.build()) {
      for (Record r : records) {
        ObjectNode o = F.objectNode();
        for (String n : names) {
          Object v = r.getField(n);
          if (v == null) {
            o.putNull(n);
          } else if (v instanceof Long || v instanceof Integer) {
            o.put(n, ((Number) v).longValue());
          } else if (v instanceof Boolean) {
            o.put(n, (Boolean) v);
          } else {
            o.put(n, v.toString());
          }
        }
        rows.add(JSON.writeValueAsString(o));
      }
    }
    rows.sort(null);
    ArrayNode a = F.arrayNode();
    for (String s : rows) {
      a.add(JSON.readTree(s));
    }
    return a;
  }
}

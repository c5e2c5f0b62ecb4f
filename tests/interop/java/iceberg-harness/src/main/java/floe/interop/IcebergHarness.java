package floe.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The Iceberg Java peer of floe's interop tests: one subcommand per run over a JdbcCatalog
 * (SQLite or PostgreSQL), JSON on stdout, a one-line error on stderr and exit 1 on failure
 * (exit 2 for a usage error). README.md beside pom.xml documents every subcommand, its output
 * and the canonical text form of values.
 */
public final class IcebergHarness {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final Set<String> COMMON =
      Set.of("catalog-type", "catalog-uri", "catalog-name", "warehouse", "catalog-prop");
  private static final Map<String, Set<String>> OPTIONS = Map.ofEntries(
      Map.entry("create", Set.of("schema-json", "spec-json", "format-version", "property")),
      Map.entry("append", Set.of("rows-json")),
      Map.entry("upsert", Set.of("rows-json", "key", "commits")),
      Map.entry("delete-where", Set.of("column", "value", "granularity")),
      Map.entry("delete-positions", Set.of("file-path", "positions")),
      Map.entry("scan", Set.of("snapshot-id", "ref", "columns", "filter")),
      Map.entry("files", Set.of("snapshot-id")),
      Map.entry("snapshots", Set.of()),
      Map.entry("describe", Set.of()),
      Map.entry("bench-scan", Set.of("repeat", "sum-column")),
      Map.entry("expire", Set.of("older-than-ms", "retain-last")),
      Map.entry("cdc-loop", Set.of("keys", "partitions", "commits", "ops-per-commit",
          "delete-ratio", "pause-ms", "seed", "model-dir")));

  private final Catalog catalog;
  private final SupportsNamespaces namespaces;
  private final PrintStream out;

  private IcebergHarness(Catalog catalog, PrintStream out) {
    this.catalog = catalog;
    this.namespaces = (SupportsNamespaces) catalog;
    this.out = out;
  }

  public static void main(String[] argv) {
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    int rc;
    try {
      run(argv, out);
      rc = 0;
    } catch (Args.UsageError e) {
      System.err.println("usage error: " + e.getMessage());
      rc = 2;
    } catch (Throwable e) {
      Throwable cause = e;
      while (cause instanceof UncheckedIOException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      String msg = String.valueOf(cause.getMessage()).replace('\n', ' ');
      System.err.println("error: " + cause.getClass().getSimpleName() + ": " + msg);
      if (System.getenv("FLOE_HARNESS_TRACE") != null) {
        e.printStackTrace();
      }
      rc = 1;
    }
    out.flush();
    System.exit(rc);
  }

  private static void run(String[] argv, PrintStream out) throws IOException {
    if (argv.length == 2 && argv[0].equals("batch")) {
      // One JSON array of arguments per line, run in this JVM in order; stops at the first
      // failure. Used to train the class-data-sharing archive over every code path.
      for (String line : Files.readAllLines(Path.of(argv[1]), StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          run(JSON.readValue(line, String[].class), out);
        }
      }
      return;
    }
    if (argv.length == 0 || !OPTIONS.containsKey(argv[0])) {
      throw new Args.UsageError("first argument must be one of " + new TreeMap<>(OPTIONS).keySet());
    }
    String command = argv[0];
    Set<String> known = new HashSet<>(COMMON);
    known.addAll(OPTIONS.get(command));
    Args args = new Args(argv, 1, known);
    Catalog catalog = openCatalog(args);
    try {
      IcebergHarness h = new IcebergHarness(catalog, out);
      TableIdentifier id = TableIdentifier.parse(args.onePositional("table (NS.T)"));
      switch (command) {
        case "create": h.create(id, args); break;
        case "append": h.append(id, args); break;
        case "upsert": h.upsert(id, args); break;
        case "delete-where": h.deleteWhere(id, args); break;
        case "delete-positions": h.deletePositions(id, args); break;
        case "scan": h.scan(id, args); break;
        case "files": h.files(id, args); break;
        case "snapshots": h.snapshots(id); break;
        case "describe": h.print(h.describe(catalog.loadTable(id))); break;
        case "bench-scan": h.benchScan(id, args); break;
        case "expire": h.expire(id, args); break;
        case "cdc-loop": new CdcLoop(catalog.loadTable(id), out).run(args); break;
        default: throw new Args.UsageError("unknown command " + command);
      }
    } finally {
      ((Closeable) catalog).close();
    }
  }

  /**
   * A JdbcCatalog (the default, `--catalog-type jdbc`) or a RESTCatalog (`--catalog-type rest`,
   * `--catalog-uri http://host:port`, the warehouse then names the server's catalog).
   */
  private static Catalog openCatalog(Args args) {
    String type = args.get("catalog-type") == null ? "jdbc" : args.get("catalog-type");
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, args.require("catalog-uri"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, args.require("warehouse"));
    if (type.equals("jdbc")) {
      props.put("jdbc.schema-version", "V1");
    } else if (!type.equals("rest")) {
      throw new Args.UsageError("--catalog-type must be jdbc or rest, got " + type);
    }
    props.putAll(args.keyValues("catalog-prop"));
    Configuration conf = new Configuration();
    // Raw local files: no ".crc" side files next to metadata and data files.
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    if (type.equals("rest")) {
      RESTCatalog catalog = new RESTCatalog();
      catalog.setConf(conf);
      catalog.initialize(args.require("catalog-name"), props);
      return catalog;
    }
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(conf);
    catalog.initialize(args.require("catalog-name"), props);
    return catalog;
  }

  private void print(JsonNode node) throws IOException {
    out.println(JSON.writeValueAsString(node));
  }

  // ---- create ---------------------------------------------------------------------------------

  private void create(TableIdentifier id, Args args) throws IOException {
    Schema schema = SchemaParser.fromJson(jsonArg(args.require("schema-json")));
    PartitionSpec spec = PartitionSpec.unpartitioned();
    String specJson = args.get("spec-json");
    if (specJson != null) {
      JsonNode node = JSON.readTree(jsonArg(specJson));
      if (node.isObject() && !node.has("spec-id")) {
        ((ObjectNode) node).put("spec-id", 0);
      }
      spec = PartitionSpecParser.fromJson(schema, node);
    }
    Map<String, String> props = new LinkedHashMap<>(args.keyValues("property"));
    props.put(TableProperties.FORMAT_VERSION, String.valueOf(args.getLong("format-version", 2)));
    if (!namespaces.namespaceExists(id.namespace())) {
      // A mutable map: RESTCatalog 1.10 probes it with containsKey(null), which Map.of() refuses.
      namespaces.createNamespace(id.namespace(), new HashMap<>());
    }
    Table table = catalog.createTable(id, schema, spec, props);
    print(describe(table));
  }

  private static String jsonArg(String v) throws IOException {
    return v.startsWith("@") ? Files.readString(Path.of(v.substring(1))) : v;
  }

  private ObjectNode describe(Table table) {
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    ObjectNode o = F.objectNode();
    o.put("format_version", meta.formatVersion());
    o.put("location", table.location());
    o.put("metadata_location", meta.metadataFileLocation());
    o.put("table_uuid", meta.uuid());
    o.set("schema", parse(SchemaParser.toJson(table.schema())));
    o.set("spec", parse(PartitionSpecParser.toJson(table.spec())));
    o.set("properties", JSON.valueToTree(new TreeMap<>(table.properties())));
    Snapshot cur = table.currentSnapshot();
    o.set("current_snapshot_id", cur == null ? F.nullNode() : F.numberNode(cur.snapshotId()));
    return o;
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- writing --------------------------------------------------------------------------------

  private static List<Record> readRows(Schema schema, String path) throws IOException {
    List<Record> rows = new ArrayList<>();
    Types.StructType struct = schema.asStruct();
    try (BufferedReader r = Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8)) {
      String line;
      int n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        if (line.isBlank()) {
          continue;
        }
        try {
          rows.add((Record) CanonicalValues.fromJson(struct, JSON.readTree(line)));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(path + " line " + n + ": " + e.getMessage(), e);
        }
      }
    }
    return rows;
  }

  private OutputFileFactory fileFactory(Table table) {
    // Partition id and task id only make file names unique within one run; the factory adds a
    // random operation id.
    return OutputFileFactory.builderFor(table, 1, System.nanoTime() & 0xffffffL)
        .format(FileFormat.PARQUET).build();
  }

  /** Rows grouped by their partition under the table's current spec, in first-seen order. */
  private static Map<PartitionKey, List<Record>> byPartition(Table table, List<Record> rows) {
    Map<PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record row : rows) {
      key.partition(wrapper.wrap(row));
      groups.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(row);
    }
    return groups;
  }

  private List<DataFile> writeData(Table table, OutputFileFactory files,
                                   Map<PartitionKey, List<Record>> groups) throws IOException {
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
    factory.setAll(table.properties());
    List<DataFile> written = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> g : groups.entrySet()) {
      StructLike partition = table.spec().isPartitioned() ? g.getKey() : null;
      DataWriter<Record> w = factory.newDataWriter(
          files.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
      try (w) {
        for (Record r : g.getValue()) {
          w.write(r);
        }
      }
      written.add(w.toDataFile());
    }
    return written;
  }

  private void append(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    List<Record> rows = readRows(table.schema(), args.require("rows-json"));
    List<DataFile> files = writeData(table, fileFactory(table), byPartition(table, rows));
    var append = table.newAppend();
    files.forEach(append::appendFile);
    append.commit();
    table.refresh();
    print(snapshotJson(table, table.currentSnapshot()));
  }

  /**
   * Commits what Flink's upsert writer commits per checkpoint: for every row an equality delete
   * of its key (key columns only, equality_ids = key field ids) and an insert, as one equality
   * delete file and one data file per partition, in one RowDelta. Rows of one commit with the
   * same key keep only the last (Flink would write the earlier insert and a position delete for
   * it; the table state is the same).
   */
  private void upsert(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    Schema schema = table.schema();
    List<String> keyNames = Arrays.asList(args.require("key").split(","));
    int[] keyIds = new int[keyNames.size()];
    for (int i = 0; i < keyIds.length; i++) {
      Types.NestedField f = schema.findField(keyNames.get(i));
      if (f == null || schema.asStruct().field(f.fieldId()) == null || !f.type().isPrimitiveType()) {
        throw new IllegalArgumentException("key column must be a top-level primitive column: "
            + keyNames.get(i));
      }
      keyIds[i] = f.fieldId();
    }
    Set<Integer> keySet = new HashSet<>();
    Arrays.stream(keyIds).forEach(keySet::add);
    for (PartitionField pf : table.spec().fields()) {
      if (!keySet.contains(pf.sourceId())) {
        throw new IllegalArgumentException("partition source column "
            + schema.findColumnName(pf.sourceId()) + " must be part of the key (as Flink requires)");
      }
    }
    Schema deleteSchema = TypeUtil.select(schema, keySet);
    List<Record> rows = readRows(schema, args.require("rows-json"));
    int commits = (int) args.getLong("commits", 1);
    if (commits < 1) {
      throw new Args.UsageError("--commits must be at least 1");
    }
    ArrayNode snapshots = F.arrayNode();
    int per = (rows.size() + commits - 1) / Math.max(commits, 1);
    for (int c = 0; c < commits; c++) {
      List<Record> chunk = rows.subList(Math.min(rows.size(), c * per),
          Math.min(rows.size(), (c + 1) * per));
      Map<List<Object>, Record> lastByKey = new LinkedHashMap<>();
      for (Record r : chunk) {
        List<Object> key = new ArrayList<>();
        for (String k : keyNames) {
          key.add(CanonicalValues.toJson(schema.findType(k), r.getField(k)));
        }
        lastByKey.put(key, r);
      }
      Map<PartitionKey, List<Record>> groups = byPartition(table, new ArrayList<>(lastByKey.values()));
      OutputFileFactory files = fileFactory(table);
      List<DataFile> dataFiles = writeData(table, files, groups);
      GenericAppenderFactory deletes = new GenericAppenderFactory(
          table, schema, table.spec(), table.properties(), keyIds, deleteSchema, null);
      RowDelta delta = table.newRowDelta();
      for (Map.Entry<PartitionKey, List<Record>> g : groups.entrySet()) {
        StructLike partition = table.spec().isPartitioned() ? g.getKey() : null;
        EqualityDeleteWriter<Record> w = deletes.newEqDeleteWriter(
            files.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
        try (w) {
          for (Record r : g.getValue()) {
            GenericRecord key = GenericRecord.create(deleteSchema);
            for (String k : keyNames) {
              key.setField(k, r.getField(k));
            }
            w.write(key);
          }
        }
        delta.addDeletes(w.toDeleteFile());
      }
      dataFiles.forEach(delta::addRows);
      delta.commit();
      table.refresh();
      snapshots.add(snapshotJson(table, table.currentSnapshot()));
    }
    ObjectNode o = F.objectNode();
    o.set("snapshots", snapshots);
    print(o);
  }

  /** A data file of the current snapshot with the deletes that apply to it. */
  private static List<FileScanTask> planFiles(Table table) throws IOException {
    List<FileScanTask> tasks = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return tasks;
    }
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    return tasks;
  }

  /** Deletes, as position deletes (v2) or deletion vectors (v3), the live rows where column = value. */
  private void deleteWhere(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    String column = args.require("column");
    Types.NestedField field = table.schema().findField(column);
    if (field == null) {
      throw new IllegalArgumentException("no column " + column);
    }
    String raw = args.require("value");
    JsonNode valueNode;
    try {
      valueNode = JSON.readTree(raw);
    } catch (IOException e) {
      valueNode = F.textNode(raw);
    }
    JsonNode want = CanonicalValues.toJson(field.type(),
        CanonicalValues.fromJson(field.type(), valueNode));
    FileIO io = table.io();
    Schema requested = TypeUtil.join(table.schema(), new Schema(MetadataColumns.ROW_POSITION));
    Map<FileScanTask, List<Long>> hits = new LinkedHashMap<>();
    for (FileScanTask task : planFiles(table)) {
      GenericDeleteFilter filter = new GenericDeleteFilter(io, task, table.schema(), requested);
      Schema readSchema = filter.requiredSchema();
      Map<Integer, ?> constants =
          PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      List<Long> positions = new ArrayList<>();
      try (CloseableIterable<Record> records = Parquet.read(io.newInputFile(task.file().location()))
          .project(readSchema)
          .createReaderFunc(fs -> GenericParquetReaders.buildReader(readSchema, fs, constants))
          .build();
          CloseableIterable<Record> live = filter.filter(records)) {
        for (Record r : live) {
          Object v = r.getField(column);
          if (want.equals(CanonicalValues.toJson(field.type(), v))) {
            positions.add((Long) r.getField(MetadataColumns.ROW_POSITION.name()));
          }
        }
      }
      if (!positions.isEmpty()) {
        hits.put(task, positions);
      }
    }
    commitPositionDeletes(table, hits, args.get("granularity"));
  }

  private void deletePositions(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    String path = args.require("file-path");
    List<Long> positions = new ArrayList<>();
    for (String p : args.require("positions").split(",")) {
      positions.add(Long.parseLong(p.trim()));
    }
    Map<FileScanTask, List<Long>> hits = new LinkedHashMap<>();
    for (FileScanTask task : planFiles(table)) {
      if (task.file().location().equals(path)) {
        hits.put(task, positions);
      }
    }
    if (hits.isEmpty()) {
      throw new IllegalArgumentException("no live data file " + path + " in the current snapshot");
    }
    commitPositionDeletes(table, hits, null);
  }

  /**
   * Commits position deletes for the given data files in one RowDelta: on v3 tables one Puffin
   * file of deletion vectors written by core's BaseDVFileWriter, merged with each file's earlier
   * DV or file-scoped position deletes (which the commit removes), as Spark's merge-on-read
   * does; on v2 position-delete Parquet files, one per data file (granularity "file", the
   * default) or one per partition ("partition").
   */
  private void commitPositionDeletes(Table table, Map<FileScanTask, List<Long>> hits,
                                     String granularity) throws IOException {
    int formatVersion = ((HasTableOperations) table).operations().current().formatVersion();
    Snapshot base = table.currentSnapshot();
    RowDelta delta = table.newRowDelta();
    if (base != null) {
      delta.validateFromSnapshot(base.snapshotId());
    }
    List<String> referenced = new ArrayList<>();
    hits.keySet().forEach(t -> referenced.add(t.file().location()));
    delta.validateDataFilesExist(referenced);
    OutputFileFactory files = fileFactory(table);
    long deleted = 0;
    if (formatVersion >= 3) {
      Map<String, List<DeleteFile>> previous = new HashMap<>();
      hits.keySet().forEach(t -> previous.put(t.file().location(), t.deletes()));
      BaseDeleteLoader loader =
          new BaseDeleteLoader(df -> table.io().newInputFile(df.location(), df.fileSizeInBytes()));
      BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> {
        List<DeleteFile> prev = new ArrayList<>();
        for (DeleteFile df : previous.getOrDefault(path, List.of())) {
          if (df.content() == FileContent.POSITION_DELETES) {
            prev.add(df);
          }
        }
        return prev.isEmpty() ? null : loader.loadPositionDeletes(prev, path);
      });
      try (writer) {
        for (Map.Entry<FileScanTask, List<Long>> e : hits.entrySet()) {
          DataFile df = e.getKey().file();
          for (long pos : e.getValue()) {
            writer.delete(df.location(), pos, table.specs().get(df.specId()), df.partition());
            deleted++;
          }
        }
      }
      DeleteWriteResult result = writer.result();
      result.deleteFiles().forEach(delta::addDeletes);
      result.rewrittenDeleteFiles().forEach(delta::removeDeletes);
    } else {
      boolean perPartition = "partition".equals(granularity);
      if (granularity != null && !perPartition && !"file".equals(granularity)) {
        throw new Args.UsageError("--granularity must be file or partition");
      }
      Map<List<Object>, List<Map.Entry<FileScanTask, List<Long>>>> groups = new LinkedHashMap<>();
      for (Map.Entry<FileScanTask, List<Long>> e : hits.entrySet()) {
        DataFile df = e.getKey().file();
        List<Object> key = perPartition
            ? List.of(df.specId(), partitionJson(table.specs().get(df.specId()), df.partition()))
            : List.of(df.location());
        groups.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
      }
      for (List<Map.Entry<FileScanTask, List<Long>>> group : groups.values()) {
        DataFile first = group.get(0).getKey().file();
        PartitionSpec spec = table.specs().get(first.specId());
        StructLike partition = spec.isPartitioned() ? first.partition() : null;
        GenericAppenderFactory factory = new GenericAppenderFactory(
            table, table.schema(), spec, table.properties(), null, null, null);
        // Rows sorted by file_path, then pos (Iceberg spec, Position Delete Files).
        TreeMap<String, List<Long>> sorted = new TreeMap<>();
        for (Map.Entry<FileScanTask, List<Long>> e : group) {
          sorted.computeIfAbsent(e.getKey().file().location(), k -> new ArrayList<>())
              .addAll(e.getValue());
        }
        PositionDeleteWriter<Record> w = factory.newPosDeleteWriter(
            files.newOutputFile(spec, partition), FileFormat.PARQUET, partition);
        try (w) {
          PositionDelete<Record> pd = PositionDelete.create();
          for (Map.Entry<String, List<Long>> e : sorted.entrySet()) {
            List<Long> positions = new ArrayList<>(new java.util.TreeSet<>(e.getValue()));
            for (long pos : positions) {
              w.write(pd.set(e.getKey(), pos, null));
              deleted++;
            }
          }
        }
        delta.addDeletes(w.toDeleteFile());
      }
    }
    delta.commit();
    table.refresh();
    ObjectNode o = snapshotJson(table, table.currentSnapshot());
    o.put("deleted_positions", deleted);
    print(o);
  }

  // ---- reading --------------------------------------------------------------------------------

  private void scan(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    IcebergGenerics.ScanBuilder builder = IcebergGenerics.read(table);
    Schema schema = table.schema();
    String snapshotId = args.get("snapshot-id");
    String ref = args.get("ref");
    if (snapshotId != null && ref != null) {
      throw new Args.UsageError("--snapshot-id and --ref are exclusive");
    }
    if (snapshotId != null) {
      long sid = Long.parseLong(snapshotId);
      builder.useSnapshot(sid);
      Integer schemaId = table.snapshot(sid) == null ? null : table.snapshot(sid).schemaId();
      if (schemaId != null) {
        schema = table.schemas().get(schemaId);
      }
    } else if (ref != null) {
      Snapshot s = table.snapshot(ref);
      if (s == null) {
        throw new IllegalArgumentException("no ref " + ref);
      }
      builder.useSnapshot(s.snapshotId());
    }
    Schema projection = schema;
    if (args.get("columns") != null) {
      List<String> columns = Arrays.asList(args.get("columns").split(","));
      builder.select(columns);
      projection = schema.select(columns);
    }
    if (args.get("filter") != null) {
      builder.where(parseFilter(schema, args.get("filter")));
    }
    // Rows are written in the projected schema's field order. Records may carry extra columns
    // the delete filter needed (_pos, equality columns); only the projection is written.
    BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
    List<Types.NestedField> fields = projection.columns();
    try (CloseableIterable<Record> rows = builder.build()) {
      for (Record r : rows) {
        ObjectNode row = F.objectNode();
        for (Types.NestedField f : fields) {
          row.set(f.name(), CanonicalValues.toJson(f.type(), r.getField(f.name())));
        }
        w.write(JSON.writeValueAsString(row));
        w.write('\n');
      }
    }
    w.flush();
  }

  /** `col OP value` with OP one of = != < <= > >=, or `col is null` / `col not null`. */
  private static Expression parseFilter(Schema schema, String filter) {
    String f = filter.trim();
    String[] words = f.split("\\s+");
    if (words.length == 3 && words[1].equals("is") && words[2].equals("null")) {
      return Expressions.isNull(words[0]);
    }
    if (words.length == 3 && words[1].equals("not") && words[2].equals("null")) {
      return Expressions.notNull(words[0]);
    }
    for (String op : new String[] {"!=", "<=", ">=", "=", "<", ">"}) {
      int at = f.indexOf(op);
      if (at > 0) {
        String col = f.substring(0, at).trim();
        String raw = f.substring(at + op.length()).trim();
        Types.NestedField field = schema.findField(col);
        if (field == null) {
          throw new IllegalArgumentException("no column " + col);
        }
        Object v = literalValue(field.type(), raw);
        switch (op) {
          case "=": return Expressions.equal(col, v);
          case "!=": return Expressions.notEqual(col, v);
          case "<": return Expressions.lessThan(col, v);
          case "<=": return Expressions.lessThanOrEqual(col, v);
          case ">": return Expressions.greaterThan(col, v);
          default: return Expressions.greaterThanOrEqual(col, v);
        }
      }
    }
    throw new Args.UsageError("cannot parse filter: " + filter);
  }

  /** A literal for Expressions from canonical text: date/time types stay strings (Iceberg parses ISO). */
  private static Object literalValue(Type type, String raw) {
    switch (type.typeId()) {
      case INTEGER: return Integer.parseInt(raw);
      case LONG: return Long.parseLong(raw);
      case FLOAT: return Float.parseFloat(raw);
      case DOUBLE: return Double.parseDouble(raw);
      case DECIMAL: return new BigDecimal(raw);
      case BOOLEAN: return Boolean.parseBoolean(raw);
      case UUID: return java.util.UUID.fromString(raw);
      default: return raw;
    }
  }

  private void benchScan(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    int repeat = (int) args.getLong("repeat", 3);
    String sumColumn = args.get("sum-column");
    int sumIndex = -1;
    List<Types.NestedField> fields = table.schema().columns();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField f = fields.get(i);
      boolean numeric = f.type().typeId() == Type.TypeID.INTEGER
          || f.type().typeId() == Type.TypeID.LONG;
      if (sumColumn == null ? numeric && sumIndex < 0 : f.name().equals(sumColumn)) {
        if (!numeric) {
          throw new IllegalArgumentException("--sum-column must be an int or long column");
        }
        sumIndex = i;
      }
    }
    ArrayNode seconds = F.arrayNode();
    long rows = 0;
    long sum = 0;
    for (int i = 0; i < repeat; i++) {
      long t0 = System.nanoTime();
      rows = 0;
      sum = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record r : records) {
          rows++;
          if (sumIndex >= 0) {
            Object v = r.get(sumIndex);
            if (v != null) {
              sum += ((Number) v).longValue();
            }
          }
        }
      }
      seconds.add((System.nanoTime() - t0) / 1e9);
    }
    ObjectNode o = F.objectNode();
    o.put("rows", rows);
    o.put("sum_column", sumIndex < 0 ? null : fields.get(sumIndex).name());
    o.put("sum", sum);
    o.set("seconds", seconds);
    print(o);
  }

  // ---- metadata -------------------------------------------------------------------------------

  private void files(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    String sid = args.get("snapshot-id");
    Snapshot snap = sid == null ? table.currentSnapshot() : table.snapshot(Long.parseLong(sid));
    ArrayNode arr = F.arrayNode();
    if (snap != null) {
      FileIO io = table.io();
      for (ManifestFile m : snap.dataManifests(io)) {
        try (ManifestReader<DataFile> r = ManifestFiles.read(m, io, table.specs())) {
          for (DataFile f : r) {
            arr.add(fileJson(table, f));
          }
        }
      }
      for (ManifestFile m : snap.deleteManifests(io)) {
        try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(m, io, table.specs())) {
          for (DeleteFile f : r) {
            arr.add(fileJson(table, f));
          }
        }
      }
    }
    print(arr);
  }

  private static ObjectNode fileJson(Table table, ContentFile<?> f) {
    ObjectNode o = F.objectNode();
    o.put("content", f.content() == FileContent.DATA ? "data"
        : f.content() == FileContent.POSITION_DELETES ? "position_deletes" : "equality_deletes");
    o.put("path", f.location());
    o.put("format", f.format().name().toLowerCase(java.util.Locale.ROOT));
    o.put("record_count", f.recordCount());
    o.put("file_size_in_bytes", f.fileSizeInBytes());
    o.put("spec_id", f.specId());
    o.set("partition", partitionJson(table.specs().get(f.specId()), f.partition()));
    o.put("data_sequence_number", f.dataSequenceNumber());
    o.put("file_sequence_number", f.fileSequenceNumber());
    ArrayNode eq = F.arrayNode();
    if (f.equalityFieldIds() != null) {
      f.equalityFieldIds().forEach(eq::add);
    }
    o.set("equality_ids", f.content() == FileContent.EQUALITY_DELETES ? eq : F.nullNode());
    if (f instanceof DeleteFile) {
      DeleteFile d = (DeleteFile) f;
      o.put("referenced_data_file", d.referencedDataFile());
      // Iceberg 1.10 leaves referenced_data_file null on v2 position-delete files; readers
      // take a file-scoped file's target from equal file_path lower/upper bounds.
      o.put("file_scoped_to", ContentFileUtil.referencedDataFileLocation(d));
      o.put("content_offset", d.contentOffset());
      o.put("content_size_in_bytes", d.contentSizeInBytes());
    } else {
      o.put("first_row_id", f.firstRowId());
    }
    return o;
  }

  /** A partition tuple as an object keyed by partition field name (canonical values). */
  private static ObjectNode partitionJson(PartitionSpec spec, StructLike partition) {
    ObjectNode o = F.objectNode();
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < fields.size(); i++) {
      Object v = partition.get(i, Object.class);
      o.set(fields.get(i).name(), CanonicalValues.internalToJson(fields.get(i).type(), v));
    }
    return o;
  }

  private static ObjectNode snapshotJson(Table table, Snapshot s) {
    ObjectNode o = F.objectNode();
    o.put("snapshot_id", s.snapshotId());
    o.put("parent_id", s.parentId());
    o.put("sequence_number", s.sequenceNumber());
    o.put("timestamp_ms", s.timestampMillis());
    o.put("operation", s.operation());
    o.put("schema_id", s.schemaId());
    o.put("manifest_list", s.manifestListLocation());
    o.put("first_row_id", s.firstRowId());
    o.put("added_rows", s.addedRows());
    o.set("summary", JSON.valueToTree(new TreeMap<>(s.summary())));
    return o;
  }

  private void snapshots(TableIdentifier id) throws IOException {
    Table table = catalog.loadTable(id);
    ObjectNode o = F.objectNode();
    Snapshot cur = table.currentSnapshot();
    o.set("current_snapshot_id", cur == null ? F.nullNode() : F.numberNode(cur.snapshotId()));
    ArrayNode arr = F.arrayNode();
    for (Snapshot s : table.snapshots()) {
      arr.add(snapshotJson(table, s));
    }
    o.set("snapshots", arr);
    ObjectNode refs = F.objectNode();
    for (Map.Entry<String, SnapshotRef> e : new TreeMap<>(table.refs()).entrySet()) {
      ObjectNode r = F.objectNode();
      r.put("snapshot_id", e.getValue().snapshotId());
      r.put("type", e.getValue().isBranch() ? "branch" : "tag");
      refs.set(e.getKey(), r);
    }
    o.set("refs", refs);
    print(o);
  }

  private void expire(TableIdentifier id, Args args) throws IOException {
    Table table = catalog.loadTable(id);
    var expire = table.expireSnapshots();
    String olderThan = args.get("older-than-ms");
    if (olderThan != null) {
      expire.expireOlderThan(Long.parseLong(olderThan));
    }
    if (args.get("retain-last") != null) {
      expire.retainLast((int) args.getLong("retain-last", 1));
    }
    List<String> deleted = new ArrayList<>();
    FileIO io = table.io();
    expire.deleteWith(path -> {
      synchronized (deleted) {
        deleted.add(path);
      }
      io.deleteFile(path);
    });
    expire.commit();
    table.refresh();
    ObjectNode o = F.objectNode();
    ArrayNode remaining = F.arrayNode();
    table.snapshots().forEach(s -> remaining.add(s.snapshotId()));
    o.set("snapshot_ids", remaining);
    ArrayNode files = F.arrayNode();
    deleted.stream().sorted().forEach(files::add);
    o.set("deleted_files", files);
    print(o);
  }
}

package floe.interop;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Writes the parquet-mr (parquet-java) inputs of tests/interop_heavy/test_parquet_mr.py into the
 * directory given as the only argument. Values come from fixed seeds, so every run writes the
 * same files. The Group (example) writer covers every Iceberg type, field ids, legacy two-level
 * lists, and each writer version, codec (including Hadoop-framed LZ4) and dictionary setting;
 * parquet-avro adds BYTE_ARRAY decimals, enums and its default two-level lists.
 */
public final class WriteFiles {
  private static final int ROWS = 1500;

  static final String SCHEMA =
      "message floe_mr {\n"
          + "  required int64 id = 1;\n"
          + "  optional boolean b = 2;\n"
          + "  optional int32 i8 (INTEGER(8,true)) = 3;\n"
          + "  optional int32 u16 (INTEGER(16,false)) = 4;\n"
          + "  optional int32 i32 = 5;\n"
          + "  optional int64 i64 = 6;\n"
          + "  optional float f32 = 7;\n"
          + "  optional double f64 = 8;\n"
          + "  optional int32 dec_i32 (DECIMAL(9,2)) = 9;\n"
          + "  optional int64 dec_i64 (DECIMAL(18,4)) = 10;\n"
          + "  optional fixed_len_byte_array(16) dec_fixed (DECIMAL(38,10)) = 11;\n"
          + "  optional binary dec_binary (DECIMAL(20,3)) = 12;\n"
          + "  optional int32 d (DATE) = 13;\n"
          + "  optional int32 t_ms (TIME(MILLIS,true)) = 14;\n"
          + "  optional int64 t_us (TIME(MICROS,false)) = 15;\n"
          + "  optional int64 ts_ms (TIMESTAMP(MILLIS,true)) = 16;\n"
          + "  optional int64 ts_us (TIMESTAMP(MICROS,false)) = 17;\n"
          + "  optional int64 ts_us_utc (TIMESTAMP(MICROS,true)) = 18;\n"
          + "  optional int64 ts_ns (TIMESTAMP(NANOS,false)) = 19;\n"
          + "  optional binary s (STRING) = 20;\n"
          + "  optional binary bin = 21;\n"
          + "  optional fixed_len_byte_array(16) u (UUID) = 22;\n"
          + "  optional fixed_len_byte_array(5) fx = 23;\n"
          + "  optional group l (LIST) = 24 {\n"
          + "    repeated group list { optional int32 element = 25; }\n"
          + "  }\n"
          + "  optional group legacy_l (LIST) = 26 {\n"
          + "    repeated binary array (STRING);\n"
          + "  }\n"
          + "  optional group m (MAP) = 27 {\n"
          + "    repeated group key_value { required binary key (STRING) = 28; optional int64 value = 29; }\n"
          + "  }\n"
          + "  optional group st = 30 {\n"
          + "    optional int32 a = 31;\n"
          + "    optional group inner_l (LIST) = 32 {\n"
          + "      repeated group list { optional binary element (STRING) = 33; }\n"
          + "    }\n"
          + "  }\n"
          + "  optional group ls (LIST) = 34 {\n"
          + "    repeated group list {\n"
          + "      optional group element = 35 { required double x = 36; optional binary y (STRING) = 37; }\n"
          + "    }\n"
          + "  }\n"
          + "}\n";

  static final String INT96_SCHEMA =
      "message floe_mr_int96 { required int32 id = 1; optional int96 legacy_ts = 2; }";

  private WriteFiles() {}

  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args[0]);
    Files.createDirectories(dir);
    MessageType schema = MessageTypeParser.parseMessageType(SCHEMA);
    group(dir, "mr_v1_snappy", schema, CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, true, false);
    group(dir, "mr_v2_zstd", schema, CompressionCodecName.ZSTD, WriterVersion.PARQUET_2_0, true, false);
    group(dir, "mr_v1_gzip_plain", schema, CompressionCodecName.GZIP, WriterVersion.PARQUET_1_0, false, false);
    group(dir, "mr_v1_lz4_hadoop", schema, CompressionCodecName.LZ4, WriterVersion.PARQUET_1_0, true, false);
    group(dir, "mr_v2_lz4_hadoop_plain", schema, CompressionCodecName.LZ4, WriterVersion.PARQUET_2_0, false, false);
    group(dir, "mr_v2_lz4_raw", schema, CompressionCodecName.LZ4_RAW, WriterVersion.PARQUET_2_0, true, false);
    group(dir, "mr_v1_uncompressed_bloom", schema, CompressionCodecName.UNCOMPRESSED, WriterVersion.PARQUET_1_0, true, true);
    int96(dir);
    avro(dir, "mr_avro_snappy", CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0, true);
    avro(dir, "mr_avro_v2_gzip_3level", CompressionCodecName.GZIP, WriterVersion.PARQUET_2_0, false);
  }

  private static ExampleParquetWriter.Builder builder(Path file, MessageType schema) throws IOException {
    Files.deleteIfExists(file);
    return ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(schema)
        .withConf(new Configuration())
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .withExtraMetaData(Map.of("floe.writer", "parquet-mr example Group writer"));
  }

  private static void group(Path dir, String name, MessageType schema, CompressionCodecName codec,
      WriterVersion version, boolean dictionary, boolean bloom) throws IOException {
    ExampleParquetWriter.Builder b = builder(dir.resolve(name + ".parquet"), schema)
        .withCompressionCodec(codec)
        .withWriterVersion(version)
        .withDictionaryEncoding(dictionary)
        .withPageSize(4096)
        .withRowGroupSize(96 * 1024L)
        .withPageWriteChecksumEnabled(true);
    if (bloom) {
      b = b.withBloomFilterEnabled("id", true).withBloomFilterEnabled("s", true);
    }
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    Random r = new Random(name.hashCode());
    try (ParquetWriter<Group> w = b.build()) {
      for (int i = 0; i < ROWS; i++) {
        w.write(row(f, r, i));
      }
    }
  }

  private static boolean some(Random r) {
    return r.nextInt(10) != 0;
  }

  private static Binary decimalBytes(BigInteger unscaled, int width) {
    byte[] raw = unscaled.toByteArray();
    if (width < 0) {
      return Binary.fromConstantByteArray(raw);
    }
    byte[] out = new byte[width];
    byte pad = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
    for (int i = 0; i < width - raw.length; i++) {
      out[i] = pad;
    }
    System.arraycopy(raw, 0, out, width - raw.length, raw.length);
    return Binary.fromConstantByteArray(out);
  }

  private static BigInteger randomUnscaled(Random r, int digits) {
    BigInteger limit = BigInteger.TEN.pow(digits);
    BigInteger v = new BigInteger(limit.bitLength() + 8, r).mod(limit);
    return r.nextBoolean() ? v.negate() : v;
  }

  private static final String[] WORDS = {"alpha", "beta", "", "gamma", "δέλτα", "epsilon", "日本"};

  private static Group row(SimpleGroupFactory f, Random r, int i) {
    Group g = f.newGroup();
    g.add("id", (long) i * 1_000_003L - 500_000_000L);
    if (some(r)) g.add("b", r.nextBoolean());
    if (some(r)) g.add("i8", r.nextInt(256) - 128);
    if (some(r)) g.add("u16", r.nextInt(65536));
    if (some(r)) g.add("i32", i == 0 ? Integer.MIN_VALUE : i == 1 ? Integer.MAX_VALUE : r.nextInt());
    if (some(r)) g.add("i64", i == 0 ? Long.MIN_VALUE : i == 1 ? Long.MAX_VALUE : r.nextLong());
    if (some(r)) g.add("f32", i == 2 ? Float.NaN : i == 3 ? Float.NEGATIVE_INFINITY : i == 4 ? -0.0f : r.nextFloat() * 2000 - 1000);
    if (some(r)) g.add("f64", i == 2 ? Double.NaN : i == 3 ? Double.POSITIVE_INFINITY : r.nextGaussian() * 1e9);
    if (some(r)) g.add("dec_i32", randomUnscaled(r, 9).intValue());
    if (some(r)) g.add("dec_i64", randomUnscaled(r, 18).longValue());
    if (some(r)) g.add("dec_fixed", decimalBytes(randomUnscaled(r, 38), 16));
    if (some(r)) g.add("dec_binary", decimalBytes(randomUnscaled(r, 20), -1));
    if (some(r)) g.add("d", r.nextInt(3_000_000) - 719_162);
    if (some(r)) g.add("t_ms", r.nextInt(86_400_000));
    if (some(r)) g.add("t_us", (long) (r.nextDouble() * 86_400_000_000L));
    if (some(r)) g.add("ts_ms", (long) (r.nextDouble() * 4e12) - 1_000_000_000_000L);
    if (some(r)) g.add("ts_us", (long) (r.nextDouble() * 4e15) - 1_000_000_000_000_000L);
    if (some(r)) g.add("ts_us_utc", (long) (r.nextDouble() * 4e15));
    if (some(r)) g.add("ts_ns", r.nextLong());
    if (some(r)) g.add("s", WORDS[r.nextInt(WORDS.length)] + (r.nextInt(4) == 0 ? "" : Integer.toString(i % 37)));
    if (some(r)) {
      byte[] bin = new byte[r.nextInt(12)];
      r.nextBytes(bin);
      g.add("bin", Binary.fromConstantByteArray(bin));
    }
    if (some(r)) {
      UUID u = new UUID(r.nextLong(), r.nextLong());
      ByteBuffer bb = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN);
      bb.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
      g.add("u", Binary.fromConstantByteArray(bb.array()));
    }
    if (some(r)) {
      byte[] fx = new byte[5];
      r.nextBytes(fx);
      g.add("fx", Binary.fromConstantByteArray(fx));
    }
    if (some(r)) {
      Group l = g.addGroup("l");
      for (int k = r.nextInt(4); k > 0; k--) {
        Group e = l.addGroup("list");
        if (some(r)) e.add("element", r.nextInt(1000) - 500);
      }
    }
    if (some(r)) {
      Group l = g.addGroup("legacy_l");
      for (int k = r.nextInt(3); k > 0; k--) l.add("array", WORDS[r.nextInt(WORDS.length)]);
    }
    if (some(r)) {
      Group m = g.addGroup("m");
      int n = r.nextInt(3);
      for (int k = 0; k < n; k++) {
        Group kv = m.addGroup("key_value");
        kv.add("key", "k" + k);
        if (some(r)) kv.add("value", r.nextLong());
      }
    }
    if (some(r)) {
      Group st = g.addGroup("st");
      if (some(r)) st.add("a", r.nextInt());
      if (some(r)) {
        Group l = st.addGroup("inner_l");
        for (int k = r.nextInt(3); k > 0; k--) {
          Group e = l.addGroup("list");
          if (some(r)) e.add("element", WORDS[r.nextInt(WORDS.length)]);
        }
      }
    }
    if (some(r)) {
      Group ls = g.addGroup("ls");
      for (int k = r.nextInt(3); k > 0; k--) {
        Group e = ls.addGroup("list");
        if (some(r)) {
          Group el = e.addGroup("element");
          el.add("x", r.nextDouble());
          if (some(r)) el.add("y", WORDS[r.nextInt(WORDS.length)]);
        }
      }
    }
    return g;
  }

  private static void int96(Path dir) throws IOException {
    MessageType schema = MessageTypeParser.parseMessageType(INT96_SCHEMA);
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    Random r = new Random(96);
    try (ParquetWriter<Group> w = builder(dir.resolve("mr_int96.parquet"), schema)
        .withCompressionCodec(CompressionCodecName.SNAPPY).build()) {
      for (int i = 0; i < 200; i++) {
        Group g = f.newGroup();
        g.add("id", i);
        if (some(r)) {
          // Impala/Hive/Spark INT96: nanoseconds of the day (LE int64), then the Julian day (LE int32).
          long nanos = (long) (r.nextDouble() * 86_400_000_000_000L);
          int julianDay = 2_440_588 + r.nextInt(40_000) - 20_000;
          ByteBuffer bb = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
          bb.putLong(nanos).putInt(julianDay);
          g.add("legacy_ts", Binary.fromConstantByteArray(bb.array()));
        }
        w.write(g);
      }
    }
  }

  static final String AVRO_SCHEMA =
      "{\"type\":\"record\",\"name\":\"AvroRow\",\"namespace\":\"floe.interop\",\"fields\":["
          + "{\"name\":\"id\",\"type\":\"long\"},"
          + "{\"name\":\"name\",\"type\":[\"null\",\"string\"]},"
          + "{\"name\":\"amount\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":12,\"scale\":2}]},"
          + "{\"name\":\"big\",\"type\":{\"type\":\"fixed\",\"name\":\"Big\",\"size\":9,\"logicalType\":\"decimal\",\"precision\":20,\"scale\":4}},"
          + "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"RED\",\"GREEN\",\"BLUE\"]}},"
          + "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
          + "{\"name\":\"at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}]},"
          + "{\"name\":\"at_ms\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
          + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
          + "{\"name\":\"scores\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"double\"}]},"
          + "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"int\"]}},"
          + "{\"name\":\"raw\",\"type\":\"bytes\"},"
          + "{\"name\":\"inner\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
          + "{\"name\":\"x\",\"type\":\"float\"},{\"name\":\"ys\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}]}]}"
          + "]}";

  /** parquet-avro; oldLists keeps its default two-level lists (array elements named "array"). */
  private static void avro(Path dir, String name, CompressionCodecName codec, WriterVersion version,
      boolean oldLists) throws IOException {
    Configuration conf = new Configuration();
    conf.setBoolean("parquet.avro.write-old-list-structure", oldLists);
    Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
    GenericData model = new GenericData();
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    Path file = dir.resolve(name + ".parquet");
    Files.deleteIfExists(file);
    Random r = new Random(name.hashCode());
    Schema amountSchema = schema.getField("amount").schema().getTypes().get(1);
    Schema bigSchema = schema.getField("big").schema();
    Schema innerSchema = schema.getField("inner").schema().getTypes().get(1);
    Conversions.DecimalConversion dc = new Conversions.DecimalConversion();
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(schema)
        .withDataModel(model)
        .withConf(conf)
        .withCompressionCodec(codec)
        .withWriterVersion(version)
        .withPageSize(4096)
        .build()) {
      for (int i = 0; i < ROWS; i++) {
        GenericRecord rec = new GenericData.Record(schema);
        rec.put("id", (long) i);
        rec.put("name", some(r) ? WORDS[r.nextInt(WORDS.length)] + i : null);
        rec.put("amount", some(r) ? dc.toBytes(new BigDecimal(randomUnscaled(r, 12), 2), amountSchema,
            LogicalTypes.decimal(12, 2)) : null);
        rec.put("big", dc.toFixed(new BigDecimal(randomUnscaled(r, 20), 4), bigSchema, LogicalTypes.decimal(20, 4)));
        rec.put("kind", new GenericData.EnumSymbol(schema.getField("kind").schema(),
            new String[] {"RED", "GREEN", "BLUE"}[r.nextInt(3)]));
        rec.put("day", r.nextInt(40_000) - 10_000);
        rec.put("at", some(r) ? (long) (r.nextDouble() * 4e15) - 1_000_000_000_000_000L : null);
        rec.put("at_ms", (long) (r.nextDouble() * 4e12));
        List<CharSequence> tags = new ArrayList<>();
        for (int k = r.nextInt(3); k > 0; k--) tags.add(WORDS[r.nextInt(WORDS.length)]);
        rec.put("tags", tags);
        if (some(r)) {
          List<Double> scores = new ArrayList<>();
          for (int k = r.nextInt(3); k > 0; k--) scores.add(r.nextDouble());
          rec.put("scores", scores);
        }
        Map<CharSequence, Integer> attrs = new HashMap<>();
        for (int k = r.nextInt(3); k > 0; k--) attrs.put("a" + k, some(r) ? r.nextInt(100) : null);
        rec.put("attrs", attrs);
        byte[] raw = new byte[r.nextInt(8)];
        r.nextBytes(raw);
        rec.put("raw", ByteBuffer.wrap(raw));
        if (some(r)) {
          GenericRecord inner = new GenericData.Record(innerSchema);
          inner.put("x", r.nextFloat());
          List<Long> ys = new ArrayList<>();
          for (int k = r.nextInt(3); k > 0; k--) ys.add(r.nextLong());
          inner.put("ys", ys);
          rec.put("inner", inner);
        }
        w.write(rec);
      }
    }
  }
}

package floe.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The canonical text form shared by the harness, floe and the Python helper
 * (tests/interop/iceberg_java.py); README.md defines it. {@link #toJson} turns an Iceberg
 * generic value (as IcebergGenerics reads it) into that form, {@link #fromJson} turns the form
 * back into a generic value of a given Iceberg type, and {@link #internalToJson} does the same as
 * toJson for Iceberg's internal representation (partition tuples: days, micros, ByteBuffers).
 */
final class CanonicalValues {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final HexFormat HEX = HexFormat.of();
  private static final DateTimeFormatter TIME_US = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TS_US =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TS_NS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS");
  private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

  private CanonicalValues() {}

  static ObjectNode recordToJson(Types.StructType struct, Record record) {
    ObjectNode out = F.objectNode();
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField f = fields.get(i);
      out.set(f.name(), toJson(f.type(), record.get(i)));
    }
    return out;
  }

  static JsonNode toJson(Type type, Object v) {
    if (v == null) {
      return F.nullNode();
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return F.booleanNode((Boolean) v);
      case INTEGER:
        return F.numberNode((Integer) v);
      case LONG:
        return F.numberNode((Long) v);
      case FLOAT:
        return F.textNode(reprDouble((Float) v));
      case DOUBLE:
        return F.textNode(reprDouble((Double) v));
      case DECIMAL:
        return F.textNode(
            ((BigDecimal) v).setScale(((Types.DecimalType) type).scale()).toPlainString());
      case DATE:
        return F.textNode(((LocalDate) v).toString());
      case TIME:
        return F.textNode(TIME_US.format((LocalTime) v));
      case TIMESTAMP:
        return F.textNode(formatTimestamp(v, ((Types.TimestampType) type).shouldAdjustToUTC(), TS_US));
      case TIMESTAMP_NANO:
        return F.textNode(
            formatTimestamp(v, ((Types.TimestampNanoType) type).shouldAdjustToUTC(), TS_NS));
      case STRING:
        return F.textNode(v.toString());
      case UUID:
        return F.textNode(((UUID) v).toString());
      case FIXED:
        return F.textNode(HEX.formatHex((byte[]) v));
      case BINARY:
        return F.textNode(hex((ByteBuffer) v));
      case STRUCT:
        return recordToJson(type.asStructType(), (Record) v);
      case LIST: {
        Type element = type.asListType().elementType();
        ArrayNode out = F.arrayNode();
        for (Object e : (List<?>) v) {
          out.add(toJson(element, e));
        }
        return out;
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        ArrayNode out = F.arrayNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          ArrayNode pair = F.arrayNode();
          pair.add(toJson(map.keyType(), e.getKey()));
          pair.add(toJson(map.valueType(), e.getValue()));
          out.add(pair);
        }
        return out;
      }
      case UNKNOWN:
        return F.nullNode();
      default:
        throw new IllegalArgumentException("no canonical text form for type " + type);
    }
  }

  /** Like toJson, for Iceberg's internal representation of primitives (partition values). */
  static JsonNode internalToJson(Type type, Object v) {
    if (v == null) {
      return F.nullNode();
    }
    switch (type.typeId()) {
      case DATE:
        return toJson(type, LocalDate.ofEpochDay((Integer) v));
      case TIME:
        return toJson(type, LocalTime.ofNanoOfDay((Long) v * 1000));
      case TIMESTAMP: {
        LocalDateTime t = EPOCH.plus((Long) v, ChronoUnit.MICROS);
        return toJson(type, ((Types.TimestampType) type).shouldAdjustToUTC()
            ? t.atOffset(ZoneOffset.UTC) : t);
      }
      case TIMESTAMP_NANO: {
        LocalDateTime t = EPOCH.plus((Long) v, ChronoUnit.NANOS);
        return toJson(type, ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? t.atOffset(ZoneOffset.UTC) : t);
      }
      case FIXED:
        return F.textNode(v instanceof byte[] ? HEX.formatHex((byte[]) v) : hex((ByteBuffer) v));
      default:
        return toJson(type, v);
    }
  }

  private static String formatTimestamp(Object v, boolean utc, DateTimeFormatter fmt) {
    if (utc) {
      OffsetDateTime t = ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC);
      return fmt.format(t.toLocalDateTime()) + "+00:00";
    }
    return fmt.format((LocalDateTime) v);
  }

  private static String hex(ByteBuffer b) {
    ByteBuffer d = b.duplicate();
    byte[] bytes = new byte[d.remaining()];
    d.get(bytes);
    return HEX.formatHex(bytes);
  }

  /**
   * Python's repr() of a double (float32 values are widened first): the shortest decimal that
   * reads back as the same double, in fixed notation when the decimal exponent is in [-4, 16)
   * and as d.ddde+XX otherwise; "NaN", "Infinity", "-Infinity" for the specials.
   */
  static String reprDouble(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(d);
    BigDecimal shortest = exact;
    for (int p = 1; p <= 17; p++) {
      BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
      if (r.doubleValue() == d) {
        shortest = r;
        break;
      }
    }
    shortest = shortest.stripTrailingZeros();
    String digits = shortest.unscaledValue().abs().toString();
    int n = digits.length();
    int decpt = n - shortest.scale(); // value = 0.<digits> * 10^decpt
    StringBuilder out = new StringBuilder(d < 0 ? "-" : "");
    if (decpt > -4 && decpt <= 16) {
      if (decpt <= 0) {
        out.append("0.").append("0".repeat(-decpt)).append(digits);
      } else if (decpt < n) {
        out.append(digits, 0, decpt).append('.').append(digits, decpt, n);
      } else {
        out.append(digits).append("0".repeat(decpt - n)).append(".0");
      }
    } else {
      out.append(digits.charAt(0));
      if (n > 1) {
        out.append('.').append(digits, 1, n);
      }
      int exp = decpt - 1;
      out.append('e').append(exp < 0 ? '-' : '+');
      int abs = Math.abs(exp);
      out.append(abs < 10 ? "0" : "").append(abs);
    }
    return out.toString();
  }

  /** The generic (IcebergGenerics) value of `type` written in canonical form as `node`. */
  static Object fromJson(Type type, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        if (!node.isBoolean()) {
          throw bad(type, node);
        }
        return node.booleanValue();
      case INTEGER: {
        long v = integral(type, node);
        if (v != (int) v) {
          throw bad(type, node);
        }
        return (int) v;
      }
      case LONG:
        return integral(type, node);
      case FLOAT:
        return (float) parseDouble(type, node);
      case DOUBLE:
        return parseDouble(type, node);
      case DECIMAL:
        try {
          return new BigDecimal(node.asText()).setScale(((Types.DecimalType) type).scale());
        } catch (ArithmeticException | NumberFormatException e) {
          throw bad(type, node);
        }
      case DATE:
        return LocalDate.parse(text(type, node));
      case TIME:
        return LocalTime.parse(text(type, node));
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? OffsetDateTime.parse(text(type, node)).withOffsetSameInstant(ZoneOffset.UTC)
            : LocalDateTime.parse(text(type, node));
      case TIMESTAMP_NANO:
        return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? OffsetDateTime.parse(text(type, node)).withOffsetSameInstant(ZoneOffset.UTC)
            : LocalDateTime.parse(text(type, node));
      case STRING:
        if (!node.isValueNode()) {
          throw bad(type, node);
        }
        return node.asText();
      case UUID:
        return UUID.fromString(text(type, node));
      case FIXED: {
        byte[] bytes = HEX.parseHex(text(type, node));
        if (bytes.length != ((Types.FixedType) type).length()) {
          throw bad(type, node);
        }
        return bytes;
      }
      case BINARY:
        return ByteBuffer.wrap(HEX.parseHex(text(type, node)));
      case STRUCT: {
        if (!node.isObject()) {
          throw bad(type, node);
        }
        Types.StructType struct = type.asStructType();
        GenericRecord rec = GenericRecord.create(struct);
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
          String name = names.next();
          Types.NestedField f = struct.field(name);
          if (f == null) {
            throw new IllegalArgumentException("no field " + name + " in " + struct);
          }
          rec.setField(name, fromJson(f.type(), node.get(name)));
        }
        return rec;
      }
      case LIST: {
        if (!node.isArray()) {
          throw bad(type, node);
        }
        List<Object> out = new ArrayList<>(node.size());
        for (JsonNode e : node) {
          out.add(fromJson(type.asListType().elementType(), e));
        }
        return out;
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        Map<Object, Object> out = new LinkedHashMap<>();
        if (node.isObject()) {
          node.fields().forEachRemaining(
              e -> out.put(fromJson(map.keyType(), F.textNode(e.getKey())),
                  fromJson(map.valueType(), e.getValue())));
          return out;
        }
        if (!node.isArray()) {
          throw bad(type, node);
        }
        for (JsonNode pair : node) {
          if (!pair.isArray() || pair.size() != 2) {
            throw bad(type, node);
          }
          out.put(fromJson(map.keyType(), pair.get(0)), fromJson(map.valueType(), pair.get(1)));
        }
        return out;
      }
      case UNKNOWN:
        return null;
      default:
        throw new IllegalArgumentException("no canonical text form for type " + type);
    }
  }

  private static long integral(Type type, JsonNode node) {
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return node.longValue();
    }
    if (node.isTextual()) {
      try {
        return Long.parseLong(node.textValue());
      } catch (NumberFormatException e) {
        throw bad(type, node);
      }
    }
    throw bad(type, node);
  }

  private static double parseDouble(Type type, JsonNode node) {
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (!node.isTextual()) {
      throw bad(type, node);
    }
    String s = node.textValue();
    switch (s) {
      case "NaN":
        return Double.NaN;
      case "Infinity":
        return Double.POSITIVE_INFINITY;
      case "-Infinity":
        return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw bad(type, node);
        }
    }
  }

  private static String text(Type type, JsonNode node) {
    if (!node.isTextual()) {
      throw bad(type, node);
    }
    return node.textValue();
  }

  private static IllegalArgumentException bad(Type type, JsonNode node) {
    String s = node.toString();
    return new IllegalArgumentException(
        "not a canonical " + type + " value: " + (s.length() > 100 ? s.substring(0, 100) : s));
  }
}

#include "floe/columnar/json.h"

#include "floe/columnar/value_format.h"

namespace floe::columnar {

void WriteJsonValue(const Array& a, int64_t i, JsonWriter& w) {
  const auto& type = *a.type();
  if (type.id() == TypeId::kUnion) {
    int8_t m = a.union_type_ids()[i];
    WriteJsonValue(a.child(m), a.union_offsets()[i], w);
    return;
  }
  if (a.IsNull(i)) {
    w.Null();
    return;
  }
  switch (type.id()) {
    case TypeId::kNull: w.Null(); return;
    case TypeId::kBool: w.Bool(a.BoolValue(i)); return;
    case TypeId::kInt8: w.Int(a.Value<int8_t>(i)); return;
    case TypeId::kInt16: w.Int(a.Value<int16_t>(i)); return;
    case TypeId::kInt32: w.Int(a.Value<int32_t>(i)); return;
    case TypeId::kInt64: w.Int(a.Value<int64_t>(i)); return;
    case TypeId::kUInt8: w.UInt(a.Value<uint8_t>(i)); return;
    case TypeId::kUInt16: w.UInt(a.Value<uint16_t>(i)); return;
    case TypeId::kUInt32: w.UInt(a.Value<uint32_t>(i)); return;
    case TypeId::kUInt64: w.UInt(a.Value<uint64_t>(i)); return;
    case TypeId::kFloat16: w.Float(HalfToFloat(a.Value<uint16_t>(i))); return;
    case TypeId::kFloat32: w.Float(a.Value<float>(i)); return;
    case TypeId::kFloat64: w.Double(a.Value<double>(i)); return;
    case TypeId::kDecimal128: w.String(FormatDecimal(a.Value<__int128>(i), type.scale())); return;
    case TypeId::kDate32: w.String(FormatDate(a.Value<int32_t>(i))); return;
    case TypeId::kTime32: w.String(FormatTime(a.Value<int32_t>(i), type.unit())); return;
    case TypeId::kTime64: w.String(FormatTime(a.Value<int64_t>(i), type.unit())); return;
    case TypeId::kTimestamp:
      w.String(FormatTimestamp(a.Value<int64_t>(i), type.unit(), type.utc_adjusted()));
      return;
    case TypeId::kString: w.String(a.BinaryValue(i)); return;
    case TypeId::kBinary: w.String(HexEncode(a.BinaryValue(i))); return;
    case TypeId::kFixedBinary: w.String(HexEncode(a.FixedValue(i))); return;
    case TypeId::kUuid: w.String(FormatUuid(a.FixedValue(i))); return;
    case TypeId::kStruct:
      w.BeginObject();
      for (size_t c = 0; c < type.children().size(); ++c) {
        w.Key(type.child(c).name);
        WriteJsonValue(a.child(c), i, w);
      }
      w.EndObject();
      return;
    case TypeId::kList: {
      w.BeginArray();
      for (int32_t k = a.list_offsets()[i]; k < a.list_offsets()[i + 1]; ++k) {
        WriteJsonValue(a.child(0), k, w);
      }
      w.EndArray();
      return;
    }
    case TypeId::kMap: {
      const Array& entries = a.child(0);
      const Array& keys = entries.child(0);
      const Array& values = entries.child(1);
      bool string_keys = keys.type_id() == TypeId::kString;
      if (string_keys) {
        w.BeginObject();
      } else {
        w.BeginArray();
      }
      for (int32_t k = a.list_offsets()[i]; k < a.list_offsets()[i + 1]; ++k) {
        if (string_keys) {
          w.Key(keys.BinaryValue(k));
        } else {
          w.BeginArray();
          WriteJsonValue(keys, k, w);
        }
        WriteJsonValue(values, k, w);
        if (!string_keys) w.EndArray();
      }
      if (string_keys) {
        w.EndObject();
      } else {
        w.EndArray();
      }
      return;
    }
    case TypeId::kUnion: return;  // handled above
  }
}

void AppendJsonLine(const RecordBatch& batch, int64_t row, std::string* out) {
  JsonWriter w(out);
  w.BeginObject();
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    w.Key(batch.schema()->field(c).name);
    WriteJsonValue(batch.column(c), row, w);
  }
  w.EndObject();
  out->push_back('\n');
}

}  // namespace floe::columnar

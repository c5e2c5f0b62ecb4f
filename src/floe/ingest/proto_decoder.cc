#include "floe/ingest/proto_decoder.h"

#include <bit>
#include <cstring>

#include "floe/base/macros.h"
#include "floe/format/text/scalar.h"
#include "floe/iceberg/schema.h"
#include "floe/ingest/registry_codec.h"

namespace floe::ingest {

namespace col = floe::columnar;
using proto::Field;
using proto::FieldType;

struct ProtoDecoder::Plan {
  const proto::Message* message = nullptr;
  std::vector<int> column;             // per field: its column (child) index, -1 when omitted
  std::vector<const Plan*> sub;        // per field: a message field's plan (not Timestamp)
  std::vector<std::string> zero_enum;  // per enum field: the symbol of number 0
  int num_columns = 0;
};

namespace {

// Messages in a record nest at most as deep as the schema's columns (ProtoColumns), but a
// map level costs two (its entry, then the value message): 64 was reachable by a schema
// ProtoColumns accepts.
constexpr int kMaxDepth = proto::kMaxMessageDepth;

inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = *p++;
    v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

Status Corrupt(std::string_view what) { return Status::Corrupt("protobuf: {}", what); }

// Skips a value of wire type `wt` at p.
inline bool SkipValue(int wt, const uint8_t*& p, const uint8_t* end) {
  uint64_t v;
  switch (wt) {
    case 0: return ReadVarint(p, end, &v);
    case 1:
      if (end - p < 8) return false;
      p += 8;
      return true;
    case 5:
      if (end - p < 4) return false;
      p += 4;
      return true;
    case 2:
      if (!ReadVarint(p, end, &v) || v > static_cast<uint64_t>(end - p)) return false;
      p += v;
      return true;
    default: return false;  // groups (3, 4) and invalid wire types
  }
}

inline int64_t ZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace

ProtoDecoder::~ProtoDecoder() = default;

const ProtoDecoder::Plan* ProtoDecoder::PlanFor(const proto::Message& m) {
  if (auto it = plans_.find(&m); it != plans_.end()) return it->second.get();
  auto owned = std::make_unique<Plan>();
  Plan* plan = owned.get();
  plans_[&m] = std::move(owned);
  plan->message = &m;
  // Columns are the fields ProtoColumns keeps, in order: all but those whose message (or
  // map value message) has no columns itself. Sub-plans first decide that, once per message
  // (Make has already refused recursive messages).
  plan->column.assign(m.fields.size(), -1);
  plan->sub.assign(m.fields.size(), nullptr);
  plan->zero_enum.assign(m.fields.size(), {});
  int next_column = 0;
  for (size_t i = 0; i < m.fields.size(); ++i) {
    const Field& f = m.fields[i];
    bool omitted = false;
    if (f.type == FieldType::kMessage && !proto::IsTimestamp(*f.message)) {
      plan->sub[i] = PlanFor(*f.message);
      if (f.is_map) {
        const Field& value = f.message->fields[1];
        omitted = value.type == FieldType::kMessage && !proto::IsTimestamp(*value.message) &&
                  PlanFor(*value.message)->num_columns == 0;
      } else {
        omitted = plan->sub[i]->num_columns == 0;
      }
    }
    if (f.type == FieldType::kEnum) {
      const std::string* zero = f.enumeration->NameOf(0);
      plan->zero_enum[i] = zero != nullptr ? *zero : "0";
    }
    // Map entries too: an entry whose value message has no columns is never decoded inside
    // its map (the map is omitted), but a record's message indexes may name the entry itself
    // (it is a nested type), and then its columns are ProtoColumns' [key] alone.
    if (!omitted) plan->column[i] = next_column++;
  }
  plan->num_columns = next_column;
  return plan;
}

Result<std::unique_ptr<ProtoDecoder>> ProtoDecoder::Make(const proto::Message& message) {
  std::unique_ptr<ProtoDecoder> d(new ProtoDecoder());
  d->root_ = &message;
  FLOE_ASSIGN_OR_RETURN(d->columns_, ProtoColumns(message));
  for (const auto& c : d->columns_) {
    d->builders_.push_back(col::MakeBuilder(iceberg::ColumnarTypeOf(*c.type)));
  }
  if (proto::IsTimestamp(message)) {
    return Status::Unimplemented("a bare google.protobuf.Timestamp record is not supported");
  }
  d->PlanFor(message);
  d->scratch_.resize(kMaxDepth + 1);
  return d;
}

std::vector<col::Array> ProtoDecoder::Finish() {
  std::vector<col::Array> out;
  for (auto& b : builders_) out.push_back(b->Finish());
  num_rows_ = 0;
  return out;
}

Status ProtoDecoder::Read(std::span<const uint8_t> bytes) {
  FLOE_RETURN_IF_ERROR(DecodeMessage(*plans_.at(root_), bytes, nullptr, 0));
  ++num_rows_;
  return Status::OK();
}

Status ProtoDecoder::AppendMessage(const Field& f, std::span<const uint8_t> bytes,
                                   col::ArrayBuilder* b, const Plan* sub, int depth) {
  if (sub == nullptr) {
    // google.protobuf.Timestamp {int64 seconds = 1; int32 nanos = 2;} -> microseconds.
    int64_t seconds = 0;
    int64_t nanos = 0;
    const uint8_t* p = bytes.data();
    const uint8_t* end = p + bytes.size();
    while (p < end) {
      uint64_t tag;
      if (!ReadVarint(p, end, &tag)) return Corrupt("bad tag in a Timestamp");
      const int wt = static_cast<int>(tag & 7);
      const uint64_t number = tag >> 3;
      if ((number == 1 || number == 2) && wt == 0) {
        uint64_t v;
        if (!ReadVarint(p, end, &v)) return Corrupt("bad varint in a Timestamp");
        (number == 1 ? seconds : nanos) =
            number == 1 ? static_cast<int64_t>(v) : static_cast<int32_t>(v);
      } else if (!SkipValue(wt, p, end)) {
        return Corrupt("bad field in a Timestamp");
      }
    }
    static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(seconds * 1000000 + nanos / 1000);
    return Status::OK();
  }
  (void)f;
  auto* s = static_cast<col::StructBuilder*>(b);
  s->Append();
  return DecodeMessage(*sub, bytes, s, depth + 1);
}

Status ProtoDecoder::AppendSlot(const Field& f, const Slot& s, col::ArrayBuilder* b,
                                const Plan* sub, int depth) {
  switch (f.type) {
    case FieldType::kInt32:
      static_cast<col::FixedWidthBuilder<int32_t>*>(b)->Append(static_cast<int32_t>(s.raw));
      break;
    case FieldType::kSInt32:
      static_cast<col::FixedWidthBuilder<int32_t>*>(b)->Append(
          static_cast<int32_t>(ZigZag(static_cast<uint32_t>(s.raw))));
      break;
    case FieldType::kSFixed32:
      static_cast<col::FixedWidthBuilder<int32_t>*>(b)->Append(
          static_cast<int32_t>(static_cast<uint32_t>(s.raw)));
      break;
    case FieldType::kInt64:
    case FieldType::kUInt64:
    case FieldType::kFixed64:
    case FieldType::kSFixed64:
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(static_cast<int64_t>(s.raw));
      break;
    case FieldType::kSInt64:
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(ZigZag(s.raw));
      break;
    case FieldType::kUInt32:
    case FieldType::kFixed32:
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(
          static_cast<int64_t>(static_cast<uint32_t>(s.raw)));
      break;
    case FieldType::kBool: static_cast<col::BoolBuilder*>(b)->Append(s.raw != 0); break;
    case FieldType::kFloat:
      static_cast<col::FixedWidthBuilder<float>*>(b)->Append(
          std::bit_cast<float>(static_cast<uint32_t>(s.raw)));
      break;
    case FieldType::kDouble:
      static_cast<col::FixedWidthBuilder<double>*>(b)->Append(std::bit_cast<double>(s.raw));
      break;
    case FieldType::kEnum: {
      const std::string* name = f.enumeration->NameOf(static_cast<int32_t>(s.raw));
      static_cast<col::BinaryBuilder*>(b)->Append(
          name != nullptr ? std::string_view(*name)
                          : std::string_view(std::to_string(static_cast<int32_t>(s.raw))));
      break;
    }
    case FieldType::kString: {
      std::string_view text(reinterpret_cast<const char*>(s.data), s.size);
      if (!format::text::ValidUtf8(text)) {
        return Corrupt(fmt::format("field {} is not valid UTF-8", f.name));
      }
      static_cast<col::BinaryBuilder*>(b)->Append(text);
      break;
    }
    case FieldType::kBytes:
      static_cast<col::BinaryBuilder*>(b)->Append(
          std::string_view(reinterpret_cast<const char*>(s.data), s.size));
      break;
    case FieldType::kMessage: return AppendMessage(f, {s.data, s.size}, b, sub, depth);
  }
  return Status::OK();
}

Status ProtoDecoder::DecodeMessage(const Plan& plan, std::span<const uint8_t> bytes,
                                   col::StructBuilder* parent, int depth) {
  if (depth >= kMaxDepth) {
    return Corrupt(fmt::format("messages nest deeper than {} levels", kMaxDepth));
  }
  const proto::Message& m = *plan.message;
  std::vector<Slot>& slots = scratch_[static_cast<size_t>(depth)];
  slots.assign(m.fields.size(), Slot{});
  for (size_t i = 0; i < m.fields.size(); ++i) {
    if (m.fields[i].repeated && plan.column[i] >= 0) {
      static_cast<col::ListBuilder*>(Child(parent, plan.column[i]))->Append();
    }
  }
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    uint64_t tag;
    if (!ReadVarint(p, end, &tag)) return Corrupt("bad field tag");
    const int wt = static_cast<int>(tag & 7);
    const uint64_t number = tag >> 3;
    if (number == 0 || number > 536870911) return Corrupt("bad field number");
    const int index = m.FieldIndex(static_cast<int32_t>(number));
    if (index < 0 || plan.column[static_cast<size_t>(index)] < 0) {
      if (!SkipValue(wt, p, end)) return Corrupt("bad unknown field");
      continue;
    }
    const size_t i = static_cast<size_t>(index);
    const Field& f = m.fields[i];
    const int expected = proto::WireTypeOf(f.type);
    Slot s;
    s.seen = true;
    auto read_one = [&](int wire, const uint8_t*& q, const uint8_t* e) -> bool {
      switch (wire) {
        case 0: return ReadVarint(q, e, &s.raw);
        case 1:
          if (e - q < 8) return false;
          std::memcpy(&s.raw, q, 8);  // little-endian hosts only (as the rest of floe)
          q += 8;
          return true;
        case 5: {
          if (e - q < 4) return false;
          uint32_t v;
          std::memcpy(&v, q, 4);
          s.raw = v;
          q += 4;
          return true;
        }
        case 2: {
          uint64_t len;
          if (!ReadVarint(q, e, &len) || len > static_cast<uint64_t>(e - q)) return false;
          s.data = q;
          s.size = static_cast<uint32_t>(len);
          q += len;
          return true;
        }
        default: return false;
      }
    };
    if (f.repeated) {
      auto* list = static_cast<col::ListBuilder*>(Child(parent, plan.column[i]));
      if (wt == 2 && expected != 2) {
        // Packed: a length-delimited run of values of the element's wire type.
        uint64_t len;
        if (!ReadVarint(p, end, &len) || len > static_cast<uint64_t>(end - p)) {
          return Corrupt(fmt::format("bad packed field {}", f.name));
        }
        const uint8_t* q = p;
        const uint8_t* run_end = p + len;
        p = run_end;
        while (q < run_end) {
          if (!read_one(expected, q, run_end))
            return Corrupt(fmt::format("bad packed field {}", f.name));
          FLOE_RETURN_IF_ERROR(AppendSlot(f, s, list->child(), plan.sub[i], depth));
        }
        continue;
      }
      if (wt != expected || !read_one(wt, p, end)) {
        return Corrupt(fmt::format("field {}: bad value (wire type {})", f.name, wt));
      }
      if (f.is_map) {
        auto* entries = static_cast<col::StructBuilder*>(list->child());
        entries->Append();
        FLOE_RETURN_IF_ERROR(DecodeMessage(*plan.sub[i], {s.data, s.size}, entries, depth + 1));
      } else {
        FLOE_RETURN_IF_ERROR(AppendSlot(f, s, list->child(), plan.sub[i], depth));
      }
      continue;
    }
    if (wt != expected || !read_one(wt, p, end)) {
      return Corrupt(fmt::format("field {}: bad value (wire type {})", f.name, wt));
    }
    if (f.oneof_index >= 0) {
      // Only one member of a oneof is set: a later member clears the earlier ones.
      for (size_t j = 0; j < m.fields.size(); ++j) {
        if (m.fields[j].oneof_index == f.oneof_index) slots[j].seen = false;
      }
    }
    slots[i] = s;
  }
  for (size_t i = 0; i < m.fields.size(); ++i) {
    const int c = plan.column[i];
    if (c < 0) continue;
    const Field& f = m.fields[i];
    col::ArrayBuilder* b = Child(parent, c);
    if (f.repeated) {
      static_cast<col::ListBuilder*>(b)->Close();
      continue;
    }
    // The slot vector of this depth may have been reused by nested messages decoded above
    // only at depth + 1, so slots[i] is still this message's.
    const Slot s = slots[i];
    if (s.seen) {
      FLOE_RETURN_IF_ERROR(AppendSlot(f, s, b, plan.sub[i], depth));
    } else if (f.has_presence) {
      b->AppendNull();
    } else if (f.type == FieldType::kEnum) {
      static_cast<col::BinaryBuilder*>(b)->Append(plan.zero_enum[i]);
    } else {
      FLOE_RETURN_IF_ERROR(AppendSlot(f, Slot{}, b, plan.sub[i], depth));
    }
  }
  return Status::OK();
}

}  // namespace floe::ingest

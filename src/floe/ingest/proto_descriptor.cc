#include "floe/ingest/proto_descriptor.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/ingest/proto_schema.h"

namespace floe::ingest::proto {

namespace {

Result<std::string> DecodeBase64(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    int v = value(c);
    if (v < 0) return Status::InvalidArgument("Invalid schema: not base64 and not .proto text");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

// One field of a wire-format message: its number, and its varint value or bytes.
struct WireField {
  uint32_t number;
  uint64_t varint;
  std::string_view bytes;
};

// Iterates the fields of `msg`; kInvalidArgument for malformed bytes.
Status ForEachField(std::string_view msg, const std::function<Status(const WireField&)>& fn) {
  const auto* p = reinterpret_cast<const uint8_t*>(msg.data());
  const auto* end = p + msg.size();
  auto varint = [&](uint64_t* out) {
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
  };
  auto bad = [] {
    return Status::InvalidArgument("Invalid schema: malformed FileDescriptorProto");
  };
  while (p < end) {
    uint64_t tag;
    if (!varint(&tag)) return bad();
    WireField f{static_cast<uint32_t>(tag >> 3), 0, {}};
    switch (tag & 7) {
      case 0:
        if (!varint(&f.varint)) return bad();
        break;
      case 1:
        if (end - p < 8) return bad();
        p += 8;
        continue;
      case 5:
        if (end - p < 4) return bad();
        p += 4;
        continue;
      case 2: {
        uint64_t len;
        if (!varint(&len) || len > static_cast<uint64_t>(end - p)) return bad();
        f.bytes = std::string_view(reinterpret_cast<const char*>(p), len);
        p += len;
        break;
      }
      default: return bad();
    }
    FLOE_RETURN_IF_ERROR(fn(f));
  }
  return Status::OK();
}

struct FieldDesc {
  std::string name;
  int64_t number = 0;
  int label = 1;  // 1 optional, 2 required, 3 repeated
  int type = 0;
  std::string type_name;
  int64_t oneof_index = -1;
  bool proto3_optional = false;
  bool packed_set = false;
  bool packed = false;
};

struct EnumDesc {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> values;
};

struct MessageDesc {
  std::string name;
  std::vector<FieldDesc> fields;
  std::vector<MessageDesc> nested;
  std::vector<EnumDesc> enums;
  std::vector<std::string> oneofs;
  bool map_entry = false;
};

Status ParseEnum(std::string_view bytes, EnumDesc* e) {
  return ForEachField(bytes, [&](const WireField& f) -> Status {
    if (f.number == 1) e->name = std::string(f.bytes);
    if (f.number == 2) {
      std::pair<std::string, int64_t> v;
      FLOE_RETURN_IF_ERROR(ForEachField(f.bytes, [&](const WireField& g) {
        if (g.number == 1) v.first = std::string(g.bytes);
        if (g.number == 2) v.second = static_cast<int32_t>(g.varint);
        return Status::OK();
      }));
      e->values.push_back(std::move(v));
    }
    return Status::OK();
  });
}

Status ParseMessage(std::string_view bytes, MessageDesc* m, int depth) {
  if (depth >= kMaxMessageDepth) {
    return Status::InvalidArgument("Invalid schema: messages nest deeper than {} levels",
                                   kMaxMessageDepth);
  }
  return ForEachField(bytes, [&](const WireField& f) -> Status {
    switch (f.number) {
      case 1: m->name = std::string(f.bytes); break;
      case 2: {
        FieldDesc d;
        FLOE_RETURN_IF_ERROR(ForEachField(f.bytes, [&](const WireField& g) -> Status {
          switch (g.number) {
            case 1: d.name = std::string(g.bytes); break;
            case 3: d.number = static_cast<int32_t>(g.varint); break;
            case 4: d.label = static_cast<int>(g.varint); break;
            case 5: d.type = static_cast<int>(g.varint); break;
            case 6: d.type_name = std::string(g.bytes); break;
            case 9: d.oneof_index = static_cast<int32_t>(g.varint); break;
            case 17: d.proto3_optional = g.varint != 0; break;
            case 8:
              FLOE_RETURN_IF_ERROR(ForEachField(g.bytes, [&](const WireField& o) {
                if (o.number == 2) {
                  d.packed_set = true;
                  d.packed = o.varint != 0;
                }
                return Status::OK();
              }));
              break;
            default: break;
          }
          return Status::OK();
        }));
        m->fields.push_back(std::move(d));
        break;
      }
      case 3: {
        MessageDesc n;
        FLOE_RETURN_IF_ERROR(ParseMessage(f.bytes, &n, depth + 1));
        m->nested.push_back(std::move(n));
        break;
      }
      case 4: {
        EnumDesc e;
        FLOE_RETURN_IF_ERROR(ParseEnum(f.bytes, &e));
        m->enums.push_back(std::move(e));
        break;
      }
      case 7:
        FLOE_RETURN_IF_ERROR(ForEachField(f.bytes, [&](const WireField& o) {
          if (o.number == 7) m->map_entry = o.varint != 0;
          return Status::OK();
        }));
        break;
      case 8: {
        std::string name;
        FLOE_RETURN_IF_ERROR(ForEachField(f.bytes, [&](const WireField& o) {
          if (o.number == 1) name = std::string(o.bytes);
          return Status::OK();
        }));
        m->oneofs.push_back(std::move(name));
        break;
      }
      default: break;
    }
    return Status::OK();
  });
}

Result<std::string_view> ScalarName(int type) {
  static constexpr std::string_view kNames[] = {
      "",        "double",   "float",    "int64",  "uint64", "int32", "fixed64",
      "fixed32", "bool",     "string",   "",       "",       "bytes", "uint32",
      "",        "sfixed32", "sfixed64", "sint32", "sint64"};
  if (type == 10) return Status::Unimplemented("groups are not supported");
  if (type < 1 || type > 18 || kNames[type].empty()) {
    return Status::InvalidArgument("Invalid schema: field type {}", type);
  }
  return kNames[type];
}

class Renderer {
 public:
  explicit Renderer(bool proto3) : proto3_(proto3) {}

  Result<std::string> TypeOf(const FieldDesc& f) {
    if (f.type == 11 || f.type == 14) {
      if (f.type_name.empty()) return Status::InvalidArgument("Invalid schema: no type name");
      return f.type_name;
    }
    FLOE_ASSIGN_OR_RETURN(std::string_view s, ScalarName(f.type));
    return std::string(s);
  }

  Status Enum(const EnumDesc& e, int indent, std::string* out) {
    const std::string pad(static_cast<size_t>(indent) * 2, ' ');
    *out += fmt::format("{}enum {} {{\n", pad, e.name);
    for (const auto& [name, number] : e.values) {
      *out += fmt::format("{}  {} = {};\n", pad, name, number);
    }
    *out += pad + "}\n";
    return Status::OK();
  }

  Status Field(const MessageDesc& m, const FieldDesc& f, const std::string& pad, std::string* out) {
    // A map field: a repeated field of a nested map-entry message.
    if (f.label == 3 && f.type == 11) {
      for (const MessageDesc& n : m.nested) {
        if (!n.map_entry || !f.type_name.ends_with("." + n.name) || n.fields.size() != 2) continue;
        FLOE_ASSIGN_OR_RETURN(std::string k, TypeOf(n.fields[0]));
        FLOE_ASSIGN_OR_RETURN(std::string v, TypeOf(n.fields[1]));
        *out += fmt::format("{}map<{}, {}> {} = {};\n", pad, k, v, f.name, f.number);
        return Status::OK();
      }
    }
    FLOE_ASSIGN_OR_RETURN(std::string type, TypeOf(f));
    std::string label;
    if (f.label == 3) {
      label = "repeated ";
    } else if (f.label == 2) {
      label = "required ";
    } else if (!proto3_ || f.proto3_optional) {
      label = "optional ";
    }
    std::string options;
    if (f.packed_set) options = fmt::format(" [packed = {}]", f.packed ? "true" : "false");
    *out += fmt::format("{}{}{} {} = {}{};\n", pad, label, type, f.name, f.number, options);
    return Status::OK();
  }

  Status Message(const MessageDesc& m, int indent, std::string* out) {
    const std::string pad(static_cast<size_t>(indent) * 2, ' ');
    *out += fmt::format("{}message {} {{\n", pad, m.name);
    const std::string inner = pad + "  ";
    // Fields in declaration order; a oneof's block where its first member was declared.
    std::vector<bool> oneof_done(m.oneofs.size(), false);
    for (const FieldDesc& f : m.fields) {
      if (f.oneof_index < 0 || f.proto3_optional) {
        FLOE_RETURN_IF_ERROR(Field(m, f, inner, out));
        continue;
      }
      const auto o = static_cast<size_t>(f.oneof_index);
      if (o >= m.oneofs.size()) return Status::InvalidArgument("Invalid schema: bad oneof index");
      if (oneof_done[o]) continue;
      oneof_done[o] = true;
      *out += fmt::format("{}oneof {} {{\n", inner, m.oneofs[o]);
      for (const FieldDesc& member : m.fields) {
        if (member.oneof_index != f.oneof_index || member.proto3_optional) continue;
        FieldDesc plain = member;
        plain.label = 1;
        const bool saved = proto3_;
        proto3_ = true;  // no label inside a oneof
        FLOE_RETURN_IF_ERROR(Field(m, plain, inner + "  ", out));
        proto3_ = saved;
      }
      *out += inner + "}\n";
    }
    for (const MessageDesc& n : m.nested) {
      if (n.map_entry) continue;
      FLOE_RETURN_IF_ERROR(Message(n, indent + 1, out));
    }
    for (const EnumDesc& e : m.enums) FLOE_RETURN_IF_ERROR(Enum(e, indent + 1, out));
    *out += pad + "}\n";
    return Status::OK();
  }

 private:
  bool proto3_;
};

}  // namespace

bool LooksLikeBase64Descriptor(std::string_view schema) {
  if (schema.empty()) return false;
  for (char c : schema) {
    if (c == ' ' || c == '{' || c == ';' || c == '\n' || c == '\t') return false;
  }
  return true;
}

Result<std::string> ProtoTextFromBase64Descriptor(std::string_view base64) {
  FLOE_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(base64));
  std::string package;
  std::string syntax;
  std::vector<std::string> dependencies;
  std::vector<MessageDesc> messages;
  std::vector<EnumDesc> enums;
  FLOE_RETURN_IF_ERROR(ForEachField(bytes, [&](const WireField& f) -> Status {
    switch (f.number) {
      case 2: package = std::string(f.bytes); break;
      case 3: dependencies.emplace_back(f.bytes); break;
      case 4: {
        MessageDesc m;
        FLOE_RETURN_IF_ERROR(ParseMessage(f.bytes, &m, 0));
        messages.push_back(std::move(m));
        break;
      }
      case 5: {
        EnumDesc e;
        FLOE_RETURN_IF_ERROR(ParseEnum(f.bytes, &e));
        enums.push_back(std::move(e));
        break;
      }
      case 12: syntax = std::string(f.bytes); break;
      default: break;
    }
    return Status::OK();
  }));
  // descriptor.proto: an empty syntax means proto2.
  const bool proto3 = syntax == "proto3";
  std::string out = fmt::format("syntax = \"{}\";\n", proto3 ? "proto3" : "proto2");
  if (!package.empty()) out += fmt::format("package {};\n", package);
  for (const std::string& d : dependencies) out += fmt::format("import \"{}\";\n", d);
  Renderer r(proto3);
  for (const MessageDesc& m : messages) FLOE_RETURN_IF_ERROR(r.Message(m, 0, &out));
  for (const EnumDesc& e : enums) FLOE_RETURN_IF_ERROR(r.Enum(e, 0, &out));
  return out;
}

}  // namespace floe::ingest::proto

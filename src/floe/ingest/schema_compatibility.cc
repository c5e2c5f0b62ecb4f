#include "floe/ingest/schema_compatibility.h"

#include <set>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/format/avro/schema.h"
#include "floe/ingest/avro_references.h"
#include "floe/ingest/proto_schema.h"

namespace floe::ingest {

namespace avro = floe::format::avro;

namespace {

// ---- Avro (spec, "Schema Resolution")

bool AvroPromotable(avro::AvroType writer, avro::AvroType reader) {
  using T = avro::AvroType;
  if (writer == reader) return true;
  switch (writer) {
    case T::kInt: return reader == T::kLong || reader == T::kFloat || reader == T::kDouble;
    case T::kLong: return reader == T::kFloat || reader == T::kDouble;
    case T::kFloat: return reader == T::kDouble;
    case T::kString: return reader == T::kBytes;
    case T::kBytes: return reader == T::kString;
    default: return false;
  }
}

struct AvroChecker {
  std::vector<std::string>* messages;
  // Pairs already being checked (recursive named types).
  std::set<std::pair<const avro::Node*, const avro::Node*>> active;

  bool Fail(const std::string& path, std::string what) {
    messages->push_back(fmt::format("{}: {}", path.empty() ? "/" : path, what));
    return false;
  }

  bool Check(const avro::Node& reader, const avro::Node& writer, const std::string& path,
             int depth) {
    using T = avro::AvroType;
    if (depth > 64) return Fail(path, "schemas nest too deeply");
    if (!active.insert({&reader, &writer}).second) return true;
    if (writer.type() == T::kUnion) {
      bool ok = true;
      for (size_t i = 0; i < writer.num_branches(); ++i) {
        ok &= Check(reader, writer.branch(i), path, depth + 1);
      }
      return ok;
    }
    if (reader.type() == T::kUnion) {
      for (size_t i = 0; i < reader.num_branches(); ++i) {
        std::vector<std::string> scratch;
        AvroChecker sub{&scratch, active};
        if (sub.Check(reader.branch(i), writer, path, depth + 1)) return true;
      }
      return Fail(path, fmt::format("reader union lacks a branch for writer type {}",
                                    writer.branch_label()));
    }
    if (!AvroPromotable(writer.type(), reader.type())) {
      return Fail(
          path, fmt::format("writer type {} cannot be read as {}",
                            avro::AvroTypeName(writer.type()), avro::AvroTypeName(reader.type())));
    }
    if (reader.is_named() && reader.name() != writer.name()) {
      bool alias = false;
      for (const std::string& a : reader.aliases()) {
        alias |= a == writer.full_name() || a.ends_with("." + writer.name()) || a == writer.name();
      }
      if (!alias) {
        return Fail(path,
                    fmt::format("name {} differs from writer's {}", reader.name(), writer.name()));
      }
    }
    switch (reader.type()) {
      case T::kRecord: {
        bool ok = true;
        for (const avro::RecordField& rf : reader.fields()) {
          const avro::RecordField* wf = nullptr;
          for (const avro::RecordField& f : writer.fields()) {
            if (f.name() == rf.name()) wf = &f;
          }
          for (const std::string& alias : rf.aliases()) {
            for (const avro::RecordField& f : writer.fields()) {
              if (wf == nullptr && f.name() == alias) wf = &f;
            }
          }
          const std::string child = path + "/" + rf.name();
          if (wf == nullptr) {
            if (!rf.default_json()) {
              ok = Fail(child, "reader field has no default and the writer lacks it");
            }
            continue;
          }
          ok &= Check(rf.type(), wf->type(), child, depth + 1);
        }
        return ok;
      }
      case T::kEnum: {
        if (reader.enum_default()) return true;
        std::set<std::string> symbols(reader.symbols().begin(), reader.symbols().end());
        for (const std::string& s : writer.symbols()) {
          if (!symbols.contains(s))
            return Fail(path, fmt::format("reader enum lacks symbol {}", s));
        }
        return true;
      }
      case T::kFixed:
        if (reader.fixed_size() != writer.fixed_size()) {
          return Fail(path, fmt::format("fixed size {} differs from writer's {}",
                                        reader.fixed_size(), writer.fixed_size()));
        }
        return true;
      case T::kArray: return Check(reader.items(), writer.items(), path + "/items", depth + 1);
      case T::kMap: return Check(reader.values(), writer.values(), path + "/values", depth + 1);
      default: return true;
    }
  }
};

// ---- JSON Schema (a subset: see the header)

std::set<std::string> JsonTypes(const nlohmann::json& schema) {
  std::set<std::string> out;
  if (!schema.is_object() || !schema.contains("type")) return out;
  const auto& t = schema["type"];
  if (t.is_string()) out.insert(t.get<std::string>());
  if (t.is_array()) {
    for (const auto& x : t) {
      if (x.is_string()) out.insert(x.get<std::string>());
    }
  }
  return out;
}

bool JsonCanRead(const nlohmann::json& reader, const nlohmann::json& writer,
                 const std::string& path, int depth, std::vector<std::string>* messages) {
  if (depth > 64) {
    // Not "compatible": a difference this deep would otherwise go unchecked.
    messages->push_back(fmt::format("{}: schemas nest too deeply", path.empty() ? "/" : path));
    return false;
  }
  if (!reader.is_object() || !writer.is_object()) return true;
  auto rt = JsonTypes(reader);
  auto wt = JsonTypes(writer);
  bool ok = true;
  if (!rt.empty() && !wt.empty()) {
    for (const std::string& t : wt) {
      if (!rt.contains(t) && !(t == "integer" && rt.contains("number"))) {
        messages->push_back(fmt::format("{}: writer type {} is not accepted by the reader",
                                        path.empty() ? "/" : path, t));
        ok = false;
      }
    }
  }
  const nlohmann::json empty = nlohmann::json::object();
  const auto& rp = reader.contains("properties") ? reader["properties"] : empty;
  const auto& wp = writer.contains("properties") ? writer["properties"] : empty;
  if (rp.is_object() && wp.is_object()) {
    for (auto it = rp.begin(); it != rp.end(); ++it) {
      if (wp.contains(it.key())) {
        ok &= JsonCanRead(it.value(), wp[it.key()], path + "/" + it.key(), depth + 1, messages);
      }
    }
    if (reader.contains("additionalProperties") && reader["additionalProperties"] == false) {
      for (auto it = wp.begin(); it != wp.end(); ++it) {
        if (!rp.contains(it.key())) {
          messages->push_back(
              fmt::format("{}/{}: the closed reader lacks the writer's property", path, it.key()));
          ok = false;
        }
      }
    }
  }
  std::set<std::string> writer_required;
  if (writer.contains("required") && writer["required"].is_array()) {
    for (const auto& r : writer["required"]) {
      if (r.is_string()) writer_required.insert(r.get<std::string>());
    }
  }
  if (reader.contains("required") && reader["required"].is_array()) {
    for (const auto& r : reader["required"]) {
      if (!r.is_string()) continue;
      const std::string name = r.get<std::string>();
      const bool has_default = rp.is_object() && rp.contains(name) && rp[name].is_object() &&
                               rp[name].contains("default");
      if (!writer_required.contains(name) && !has_default) {
        messages->push_back(
            fmt::format("{}/{}: required by the reader, not by the writer", path, name));
        ok = false;
      }
    }
  }
  if (reader.contains("items") && writer.contains("items")) {
    ok &= JsonCanRead(reader["items"], writer["items"], path + "/items", depth + 1, messages);
  }
  return ok;
}

// ---- Protobuf (a subset: see the header)

int WireGroup(proto::FieldType t) {
  using F = proto::FieldType;
  switch (t) {
    case F::kInt32:
    case F::kUInt32:
    case F::kInt64:
    case F::kUInt64:
    case F::kBool:
    case F::kEnum: return 0;
    case F::kSInt32:
    case F::kSInt64: return 1;
    case F::kFixed32:
    case F::kSFixed32: return 2;
    case F::kFixed64:
    case F::kSFixed64: return 3;
    case F::kString:
    case F::kBytes:
    case F::kMessage: return 4;
    case F::kFloat: return 5;
    case F::kDouble: return 6;
  }
  return 7;
}

bool ProtoCanRead(const proto::ProtoSchema& reader, const proto::ProtoSchema& writer,
                  std::vector<std::string>* messages) {
  bool ok = true;
  for (const auto& wm : writer.messages()) {
    const proto::Message* rm = reader.FindMessage(wm->full_name);
    if (rm == nullptr) continue;  // a message the reader does not know is skipped
    for (const proto::Field& wf : wm->fields) {
      int i = rm->FieldIndex(wf.number);
      if (i < 0) continue;
      const proto::Field& rf = rm->fields[static_cast<size_t>(i)];
      if (WireGroup(rf.type) != WireGroup(wf.type) || rf.repeated != wf.repeated) {
        messages->push_back(
            fmt::format("{}: field {} changed from {}{} to {}{}", wm->full_name, wf.number,
                        wf.repeated ? "repeated " : "", proto::FieldTypeName(wf.type),
                        rf.repeated ? "repeated " : "", proto::FieldTypeName(rf.type)));
        ok = false;
      } else if (rf.type == proto::FieldType::kMessage && wf.type == proto::FieldType::kMessage &&
                 rf.message->map_entry != wf.message->map_entry) {
        messages->push_back(
            fmt::format("{}: field {} changed between map and message", wm->full_name, wf.number));
        ok = false;
      }
    }
  }
  // The record's message (the first one) must still exist.
  if (!writer.top_level().empty() &&
      reader.FindMessage(writer.top_level()[0]->full_name) == nullptr) {
    messages->push_back(fmt::format("message {} was removed", writer.top_level()[0]->full_name));
    ok = false;
  }
  return ok;
}

std::string CollapseProto(std::string_view text) {
  // Comments dropped, whitespace runs collapsed: the same schema registered from two
  // generators' outputs gets one id when only layout differs.
  std::string out;
  bool space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      const char q = c;
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
      for (++i; i < text.size(); ++i) {
        out += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) {
          out += text[++i];
        } else if (text[i] == q) {
          break;
        }
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/')) ++i;
      ++i;
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

Result<std::string> NormalizeSchema(SchemaType type, std::string_view text,
                                    const std::map<std::string, std::string>& imports) {
  switch (type) {
    case SchemaType::kAvro: {
      auto expanded = ExpandAvroReferences(text, imports);
      if (!expanded.ok()) {
        return Status::InvalidArgument("Invalid schema: {}", expanded.status().message());
      }
      // What Confluent refuses at registration: defaults of the wrong type, records that
      // never end. Schemas read back later parse leniently (registry_values.cc).
      avro::ParseOptions options;
      options.validate_defaults = true;
      options.reject_unterminated_records = true;
      auto parsed = avro::Schema::Parse(*expanded, options);
      if (!parsed.ok())
        return Status::InvalidArgument("Invalid schema: {}", parsed.status().message());
      if (imports.empty()) return (*parsed)->ToJson();
      // A schema with references is kept as written (compact): clients parse it together
      // with the referenced schemas, which would define its written-in types twice.
      FLOE_ASSIGN_OR_RETURN(nlohmann::ordered_json written, ParseOrderedJson(text));
      return written.dump();
    }
    case SchemaType::kJson: {
      Result<nlohmann::json> j = ParseJson(text);
      if (!j.ok()) return j.status().WithContext("Invalid schema");
      if (!(j->is_object() || j->is_boolean())) {
        return Status::InvalidArgument("Invalid schema: not a JSON Schema document");
      }
      return j->dump();
    }
    case SchemaType::kProtobuf: {
      auto parsed = proto::ProtoSchema::Parse(text, imports);
      if (!parsed.ok())
        return Status::InvalidArgument("Invalid schema: {}", parsed.status().message());
      return CollapseProto(text);
    }
  }
  return Status::InvalidArgument("unknown schema type");
}

Result<bool> CanRead(SchemaType type, std::string_view reader, std::string_view writer,
                     const std::map<std::string, std::string>& imports,
                     std::vector<std::string>* messages) {
  switch (type) {
    case SchemaType::kAvro: {
      FLOE_ASSIGN_OR_RETURN(std::string reader_text, ExpandAvroReferences(reader, imports));
      FLOE_ASSIGN_OR_RETURN(std::string writer_text, ExpandAvroReferences(writer, imports));
      FLOE_ASSIGN_OR_RETURN(auto r, avro::Schema::Parse(reader_text));
      FLOE_ASSIGN_OR_RETURN(auto w, avro::Schema::Parse(writer_text));
      AvroChecker checker{messages, {}};
      return checker.Check(r->root(), w->root(), "", 0);
    }
    case SchemaType::kJson: {
      Result<nlohmann::json> r = ParseJson(reader);
      if (!r.ok()) return r.status().WithContext("Invalid schema");
      Result<nlohmann::json> w = ParseJson(writer);
      if (!w.ok()) return w.status().WithContext("Invalid schema");
      return JsonCanRead(*r, *w, "", 0, messages);
    }
    case SchemaType::kProtobuf: {
      FLOE_ASSIGN_OR_RETURN(auto r, proto::ProtoSchema::Parse(reader, imports));
      FLOE_ASSIGN_OR_RETURN(auto w, proto::ProtoSchema::Parse(writer, imports));
      return ProtoCanRead(*r, *w, messages);
    }
  }
  return false;
}

}  // namespace floe::ingest

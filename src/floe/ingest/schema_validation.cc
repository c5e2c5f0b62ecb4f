#include "floe/ingest/schema_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/format/avro/datum_reader.h"
#include "floe/format/text/scalar.h"
#include "floe/ingest/registry_codec.h"
#include "floe/ingest/registry_values.h"
#include "floe/ingest/topic_config.h"

namespace floe::ingest {

namespace {

constexpr std::string_view kConfluentStrategyPrefix = "io.confluent.kafka.serializers.subject.";

Result<ValidationMode> ParseMode(const std::string& key, const std::string& value) {
  if (value == "none") return ValidationMode::kNone;
  if (value == "schema_id") return ValidationMode::kSchemaId;
  if (value == "payload") return ValidationMode::kPayload;
  return Status::InvalidArgument("{}: '{}' is not none, schema_id or payload", key, value);
}

Result<SubjectNameStrategy> ParseStrategy(const std::string& key, std::string_view value) {
  std::string_view name = value;
  if (name.starts_with(kConfluentStrategyPrefix))
    name.remove_prefix(kConfluentStrategyPrefix.size());
  if (name == "TopicNameStrategy") return SubjectNameStrategy::kTopicName;
  if (name == "RecordNameStrategy") return SubjectNameStrategy::kRecordName;
  if (name == "TopicRecordNameStrategy") return SubjectNameStrategy::kTopicRecordName;
  return Status::InvalidArgument(
      "{}: '{}' is not TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy", key,
      value);
}

const std::string* Find(const std::map<std::string, std::string>& configs, const std::string& k) {
  auto it = configs.find(k);
  return it == configs.end() ? nullptr : &it->second;
}

Result<SchemaValidationSide> ParseSide(const std::map<std::string, std::string>& configs,
                                       const std::string& side) {
  SchemaValidationSide out;
  // The mode: floe's own key, and the boolean aliases; whichever are set must agree.
  const std::string floe_key = "floe.table.topic." + side + ".validation";
  std::optional<ValidationMode> floe_mode;
  if (const std::string* v = Find(configs, floe_key)) {
    FLOE_ASSIGN_OR_RETURN(floe_mode, ParseMode(floe_key, *v));
  }
  std::optional<bool> alias_on;
  std::string alias_key;
  for (const std::string& k :
       {"confluent." + side + ".schema.validation", "redpanda." + side + ".schema.id.validation"}) {
    const std::string* v = Find(configs, k);
    if (v == nullptr) continue;
    if (*v != "true" && *v != "false") {
      return Status::InvalidArgument("{}: '{}' is not a boolean", k, *v);
    }
    const bool on = *v == "true";
    if (alias_on.has_value() && *alias_on != on) {
      return Status::InvalidArgument("{} and {} contradict each other", alias_key, k);
    }
    alias_on = on;
    alias_key = k;
  }
  if (floe_mode.has_value() && alias_on.has_value() &&
      (*floe_mode != ValidationMode::kNone) != *alias_on) {
    return Status::InvalidArgument("{} and {} contradict each other", floe_key, alias_key);
  }
  if (floe_mode.has_value()) {
    out.mode = *floe_mode;
  } else if (alias_on.value_or(false)) {
    out.mode = ValidationMode::kSchemaId;
  }
  // The strategy: likewise.
  std::optional<SubjectNameStrategy> strategy;
  std::string strategy_key;
  for (const std::string& k : {"floe.table.topic." + side + ".subject.name.strategy",
                               "confluent." + side + ".subject.name.strategy",
                               "redpanda." + side + ".subject.name.strategy"}) {
    const std::string* v = Find(configs, k);
    if (v == nullptr) continue;
    FLOE_ASSIGN_OR_RETURN(SubjectNameStrategy s, ParseStrategy(k, *v));
    if (strategy.has_value() && *strategy != s) {
      return Status::InvalidArgument("{} and {} contradict each other", strategy_key, k);
    }
    strategy = s;
    strategy_key = k;
  }
  out.strategy = strategy.value_or(SubjectNameStrategy::kTopicName);
  const std::string* convert = Find(configs, "floe.table.topic.convert." + side + ".type");
  out.latest_schema = convert != nullptr && *convert == "by_latest_schema";
  if (out.latest_schema && out.mode != ValidationMode::kNone &&
      out.strategy != SubjectNameStrategy::kTopicName) {
    return Status::InvalidArgument(
        "{}: a by_latest_schema {} has no schema id to name a record; only TopicNameStrategy "
        "applies",
        strategy_key, side);
  }
  return out;
}

}  // namespace

Result<SchemaValidationConfig> ParseSchemaValidationConfig(
    const std::map<std::string, std::string>& configs) {
  SchemaValidationConfig out;
  FLOE_ASSIGN_OR_RETURN(out.key, ParseSide(configs, "key"));
  FLOE_ASSIGN_OR_RETURN(out.value, ParseSide(configs, "value"));
  return out;
}

std::optional<std::string> ValidateSchemaValidationConfigs(
    const std::map<std::string, std::string>& configs) {
  Result<SchemaValidationConfig> parsed = ParseSchemaValidationConfig(configs);
  if (!parsed.ok()) return std::string(parsed.error().message());
  return std::nullopt;
}

std::string SubjectName(SubjectNameStrategy strategy, std::string_view topic, bool key,
                        std::string_view record_name) {
  switch (strategy) {
    case SubjectNameStrategy::kTopicName: return fmt::format("{}-{}", topic, key ? "key" : "value");
    case SubjectNameStrategy::kRecordName: return std::string(record_name);
    case SubjectNameStrategy::kTopicRecordName: return fmt::format("{}-{}", topic, record_name);
  }
  return {};
}

// ---- JSON Schema values

namespace {

constexpr int kMaxJsonSchemaDepth = 64;

std::string FieldName(const std::string& path) {
  return path.empty() ? std::string("the value") : fmt::format("field '{}'", path);
}

std::string JsonKind(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool HasType(const nlohmann::json& v, std::string_view type) {
  if (type == "null") return v.is_null();
  if (type == "boolean") return v.is_boolean();
  if (type == "string") return v.is_string();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer() || v.is_number_unsigned()) return true;
    // JSON Schema: 1.0 is an integer (a number with a zero fractional part).
    if (v.is_number_float()) {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
  }
  return false;  // an unknown type name matches nothing
}

// The target of a local "$ref" ("#", "#/definitions/x", "#/$defs/x", any JSON pointer into
// the document), or null.
const nlohmann::json* ResolveRef(const nlohmann::json& root, std::string_view ref) {
  if (!ref.starts_with("#")) return nullptr;
  ref.remove_prefix(1);
  const nlohmann::json* at = &root;
  while (!ref.empty()) {
    if (ref.front() != '/') return nullptr;
    ref.remove_prefix(1);
    const size_t end = std::min(ref.find('/'), ref.size());
    std::string token;
    for (size_t i = 0; i < end; ++i) {
      if (ref[i] == '~' && i + 1 < end && (ref[i + 1] == '0' || ref[i + 1] == '1')) {
        token += ref[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += ref[i];
      }
    }
    ref.remove_prefix(end);
    if (at->is_object()) {
      auto it = at->find(token);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      size_t index = 0;
      for (char c : token) {
        if (c < '0' || c > '9' || index > at->size()) return nullptr;
        index = index * 10 + static_cast<size_t>(c - '0');
      }
      if (token.empty() || index >= at->size()) return nullptr;
      at = &(*at)[index];
    } else {
      return nullptr;
    }
  }
  return at;
}

Status CheckFormat(const nlohmann::json& v, const std::string& format, const std::string& path) {
  if (!v.is_string()) return Status::OK();
  const std::string& s = v.get_ref<const std::string&>();
  const char* error = nullptr;
  if (format == "date") {
    int32_t days;
    error = format::text::ParseDate(s, &days);
  } else if (format == "date-time") {
    int64_t micros;
    error = format::text::ParseTimestamp(s, columnar::TimeUnit::kMicro, true, &micros);
  } else {
    return Status::OK();  // formats floe does not map to a type are not checked
  }
  if (error == nullptr) return Status::OK();
  return Status::InvalidArgument("{}: '{}' is not a {} ({})", FieldName(path), s, format, error);
}

// One walk of a value against a schema: the document $refs resolve in, and the steps left.
struct Walk {
  const nlohmann::json& root;
  int64_t budget;
};

Status Check(const nlohmann::json& v, const nlohmann::json& s, Walk& w, const std::string& path,
             int depth) {
  // The schema is a client's too: $refs and anyOf / oneOf could make the walk exponential.
  if (--w.budget < 0) {
    return Status::InvalidArgument("{}: the value is too costly to check against its schema",
                                   FieldName(path));
  }
  if (depth > kMaxJsonSchemaDepth) {
    return Status::InvalidArgument("{}: the schema or value nests too deeply", FieldName(path));
  }
  if (s.is_boolean()) {
    if (s.get<bool>()) return Status::OK();
    return Status::InvalidArgument("{}: the schema allows no value here", FieldName(path));
  }
  if (!s.is_object()) return Status::OK();
  if (auto ref = s.find("$ref"); ref != s.end() && ref->is_string()) {
    const nlohmann::json* target = ResolveRef(w.root, ref->get_ref<const std::string&>());
    if (target == nullptr) {
      return Status::InvalidArgument("{}: the schema's $ref '{}' resolves to nothing",
                                     FieldName(path), ref->get_ref<const std::string&>());
    }
    FLOE_RETURN_IF_ERROR(Check(v, *target, w, path, depth + 1));
  }
  if (auto type = s.find("type"); type != s.end()) {
    bool ok = false;
    std::string wanted;
    if (type->is_string()) {
      ok = HasType(v, type->get_ref<const std::string&>());
      wanted = type->get<std::string>();
    } else if (type->is_array()) {
      for (const auto& t : *type) {
        if (!t.is_string()) continue;
        ok = ok || HasType(v, t.get_ref<const std::string&>());
        wanted += (wanted.empty() ? "" : " or ") + t.get<std::string>();
      }
    } else {
      ok = true;
    }
    if (!ok) {
      return Status::InvalidArgument("{}: expected {}, got {}", FieldName(path), wanted,
                                     JsonKind(v));
    }
  }
  if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
    if (std::find(e->begin(), e->end(), v) == e->end()) {
      return Status::InvalidArgument("{}: {} is not one of the enum's values {}", FieldName(path),
                                     v.dump(), e->dump());
    }
  }
  if (auto c = s.find("const"); c != s.end() && *c != v) {
    return Status::InvalidArgument("{}: {} is not the constant {}", FieldName(path), v.dump(),
                                   c->dump());
  }
  if (auto f = s.find("format"); f != s.end() && f->is_string()) {
    FLOE_RETURN_IF_ERROR(CheckFormat(v, f->get<std::string>(), path));
  }
  auto child = [&](const std::string& name) { return path.empty() ? name : path + "." + name; };
  if (v.is_object()) {
    if (auto req = s.find("required"); req != s.end() && req->is_array()) {
      for (const auto& name : *req) {
        if (name.is_string() && !v.contains(name.get_ref<const std::string&>())) {
          return Status::InvalidArgument("{}: required, missing",
                                         FieldName(child(name.get<std::string>())));
        }
      }
    }
    const auto props = s.find("properties");
    const bool has_props = props != s.end() && props->is_object();
    const auto additional = s.find("additionalProperties");
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (has_props) {
        if (auto p = props->find(it.key()); p != props->end()) {
          FLOE_RETURN_IF_ERROR(Check(it.value(), *p, w, child(it.key()), depth + 1));
          continue;
        }
      }
      if (additional != s.end()) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          return Status::InvalidArgument("{}: not a property of the schema, which allows no others",
                                         FieldName(child(it.key())));
        }
        FLOE_RETURN_IF_ERROR(Check(it.value(), *additional, w, child(it.key()), depth + 1));
      }
    }
  }
  if (v.is_array()) {
    if (auto items = s.find("items"); items != s.end() && items->is_object()) {
      for (size_t i = 0; i < v.size(); ++i) {
        FLOE_RETURN_IF_ERROR(Check(
            v[i], *items, w, fmt::format("{}[{}]", path.empty() ? "value" : path, i), depth + 1));
      }
    }
  }
  if (auto all = s.find("allOf"); all != s.end() && all->is_array()) {
    for (const auto& sub : *all) FLOE_RETURN_IF_ERROR(Check(v, sub, w, path, depth + 1));
  }
  for (const char* keyword : {"anyOf", "oneOf"}) {
    auto any = s.find(keyword);
    if (any == s.end() || !any->is_array() || any->empty()) continue;
    int matched = 0;
    Status first;
    for (const auto& sub : *any) {
      Status st = Check(v, sub, w, path, depth + 1);
      if (st.ok()) {
        ++matched;
      } else if (first.ok()) {
        first = std::move(st);
      }
    }
    if (matched == 0) {
      return Status::InvalidArgument("{}: matches none of {} ({})", FieldName(path), keyword,
                                     first.message());
    }
    if (matched > 1 && std::string_view(keyword) == "oneOf") {
      return Status::InvalidArgument("{}: matches {} schemas of oneOf, not one", FieldName(path),
                                     matched);
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckJsonSchemaValue(const nlohmann::json& value, const nlohmann::json& schema,
                            const nlohmann::json& root, int64_t budget) {
  Walk w{root, budget};
  return Check(value, schema, w, "", 0);
}

// ---- the validator

namespace {

// A record's refusal before it becomes a kafka::RecordError.
struct Refusal {
  const char* reason;
  std::string message;
};

// Distinct (schema id, Protobuf message-index path) codecs one side keeps before it starts
// afresh: the index path is the client's bytes, so without a bound a producer could make
// the cache grow without end.
constexpr size_t kMaxCodecs = 256;
// Decoded rows kept in a decoder's builders before they are dropped (payload mode decodes
// only to check; the rows are never used). Small, so that the builders' buffers stay small
// enough for malloc to hand the same memory back each time (no fresh pages to fault in).
constexpr int64_t kMaxPendingRows = 64;
// Avro items that take no bytes (nulls, empty records in arrays) cannot be bounded by the
// bytes left: a batch may decode at most this many (format/avro/datum_reader.h).
constexpr int64_t kZeroSizeItemsPerBatch = int64_t{1} << 22;
// Messages name client bytes at times (a JSON value, a date string): bounded, and valid
// UTF-8, before they go into responses, the topic stats and the log.
constexpr size_t kMaxMessageBytes = 400;

std::string Printable(std::string m) {
  if (!format::text::ValidUtf8(m)) {
    for (char& c : m) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
  }
  if (m.size() > kMaxMessageBytes) {
    size_t cut = kMaxMessageBytes;
    while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;
    m.resize(cut);
    m += "...";
  }
  return m;
}

}  // namespace

struct SchemaValidator::Side {
  const SchemaRegistry* registry = nullptr;
  bool key = false;
  SchemaValidationSide config;
  std::string topic;
  std::string topic_subject;  // <topic>-key / <topic>-value
  TableTopicConfig codec_config;
  // Record names (other strategies) and payload decoding: the translator's codecs.
  std::unique_ptr<RegistryValues> values;
  std::set<std::string> codec_keys;                   // what `values` holds, to bound it
  int64_t zero_size_budget = kZeroSizeItemsPerBatch;  // left for this batch

  // What the registry said, until it changes (generation): registered ids only, so the
  // client's unknown ids add nothing.
  struct IdInfo {
    SchemaType type = SchemaType::kAvro;
    std::vector<std::string> subjects;  // live subjects holding the id
    std::string json_title;             // JSON Schema: its "title" (the record name)
    std::shared_ptr<const nlohmann::json> json_schema;  // JSON Schema, parsed; null if not
    bool under_topic_subject = false;                   // TopicNameStrategy's subject holds it
  };
  std::unordered_map<int32_t, IdInfo> ids;
  uint64_t generation = ~uint64_t{0};
  int32_t latest_id = 0;  // latest_schema: the subject's latest version's id (0: none)

  const char* name() const { return key ? "key" : "value"; }

  void ResetValues() {
    values =
        std::make_unique<RegistryValues>(registry, codec_config, topic, key ? "-key" : "-value");
    values->RefreshLatest();
    codec_keys.clear();
  }

  void Refresh() {
    const uint64_t now = registry->generation();
    if (now == generation) return;
    // A soft delete takes an id off a subject: everything learnt before may be stale.
    ids.clear();
    if (config.latest_schema) {
      auto v = registry->GetVersion(topic_subject, -1, false);
      latest_id = v.ok() ? v->id : 0;
    }
    if (config.mode == ValidationMode::kPayload ||
        config.strategy != SubjectNameStrategy::kTopicName) {
      ResetValues();
    }
    generation = now;
  }

  const IdInfo* Lookup(int32_t id) {
    if (auto it = ids.find(id); it != ids.end()) return &it->second;
    // Only registered ids are kept, so the client's unknown ones cost a lookup each.
    Result<StoredSchema> stored = registry->GetById(id);
    if (!stored.ok()) return nullptr;
    IdInfo info;
    info.type = stored->type;
    for (const SubjectVersion& sv : registry->VersionsOfId(id)) {
      if (!sv.deleted) info.subjects.push_back(sv.subject);
    }
    info.under_topic_subject =
        std::find(info.subjects.begin(), info.subjects.end(), topic_subject) != info.subjects.end();
    if (stored->type == SchemaType::kJson) {
      Result<nlohmann::json> j = ParseJson(stored->schema);
      if (j.ok()) {
        if (auto t = j->find("title"); t != j->end() && t->is_string()) {
          info.json_title = t->get<std::string>();
        }
        info.json_schema = std::make_shared<const nlohmann::json>(std::move(*j));
      }
    }
    return &ids.emplace(id, std::move(info)).first->second;
  }

  // The codec of a record (RegistryValues::Resolve), keeping the codec cache bounded.
  Result<RegistryCodec*> Resolve(int32_t id, const IdInfo& info, std::span<const uint8_t> bytes,
                                 std::span<const uint8_t>* payload) {
    if (info.type == SchemaType::kProtobuf && !config.latest_schema) {
      std::span<const uint8_t> rest = bytes.subspan(5);
      const size_t before = rest.size();
      if (ReadMessageIndexes(&rest).ok()) {
        std::string k = fmt::format("{}:", id);
        k.append(reinterpret_cast<const char*>(bytes.data() + 5), before - rest.size());
        if (codec_keys.insert(std::move(k)).second && codec_keys.size() > kMaxCodecs) {
          ResetValues();
        }
      }
    }
    return values->Resolve(bytes, payload);
  }

  std::optional<Refusal> Check(std::span<const uint8_t> bytes) {
    int32_t id = 0;
    if (config.latest_schema) {
      if (latest_id == 0) {
        return Refusal{"no_schema",
                       fmt::format("subject '{}' has no schema to check the {} against",
                                   topic_subject, name())};
      }
      id = latest_id;
    } else {
      if (bytes.size() < 5 || bytes[0] != 0) {
        return Refusal{
            "no_schema_id",
            bytes.size() < 5
                ? fmt::format("the {} has no schema registry header (magic byte 0 and a 4-byte "
                              "schema id): it is only {} bytes long",
                              name(), bytes.size())
                : fmt::format("the {} has no schema registry header (magic byte 0 and a 4-byte "
                              "schema id): it starts with byte 0x{:02x}",
                              name(), bytes[0])};
      }
      id = static_cast<int32_t>((uint32_t{bytes[1]} << 24) | (uint32_t{bytes[2]} << 16) |
                                (uint32_t{bytes[3]} << 8) | uint32_t{bytes[4]});
    }
    const IdInfo* info = Lookup(id);
    if (info == nullptr) {
      return Refusal{"unknown_schema_id", fmt::format("the {}'s schema id {} is not registered",
                                                      name(), static_cast<uint32_t>(id))};
    }
    RegistryCodec* codec = nullptr;
    std::span<const uint8_t> payload;
    auto resolve = [&]() -> std::optional<Refusal> {
      if (codec != nullptr) return std::nullopt;
      Result<RegistryCodec*> c = Resolve(id, *info, bytes, &payload);
      if (!c.ok()) {
        return Refusal{"invalid_payload",
                       fmt::format("the {} does not decode with schema id {}: {}", name(), id,
                                   c.error().message())};
      }
      codec = *c;
      return std::nullopt;
    };
    if (!config.latest_schema) {
      std::string record_name;
      if (config.strategy != SubjectNameStrategy::kTopicName) {
        if (auto r = resolve()) return r;
        if (codec->type == SchemaType::kAvro && codec->avro_schema != nullptr &&
            codec->avro_schema->root().is_named()) {
          record_name = codec->avro_schema->root().full_name();
        } else if (codec->type == SchemaType::kProtobuf && codec->proto_message != nullptr) {
          record_name = codec->proto_message->full_name;
        } else if (codec->type == SchemaType::kJson) {
          record_name = info->json_title;
        }
        if (record_name.empty()) {
          return Refusal{"subject_mismatch",
                         fmt::format("the {}'s schema id {} has no record name for the subject "
                                     "name strategy",
                                     name(), id)};
        }
      }
      // TopicNameStrategy's answer is known per id: no subject string per record.
      const bool registered = config.strategy == SubjectNameStrategy::kTopicName
                                  ? info->under_topic_subject
                                  : std::find(info->subjects.begin(), info->subjects.end(),
                                              SubjectName(config.strategy, topic, key,
                                                          record_name)) != info->subjects.end();
      if (!registered) {
        const std::string subject = SubjectName(config.strategy, topic, key, record_name);
        std::string where = "no live subject";
        if (!info->subjects.empty()) where = fmt::format("'{}'", fmt::join(info->subjects, "', '"));
        return Refusal{"subject_mismatch",
                       fmt::format("the {}'s schema id {} is not registered under subject '{}' "
                                   "(it is under {})",
                                   name(), id, subject, where)};
      }
    }
    if (config.mode != ValidationMode::kPayload) return std::nullopt;
    if (auto r = resolve()) return r;
    if (codec->type == SchemaType::kJson) {
      if (info->json_schema == nullptr) return std::nullopt;  // a schema floe cannot read
      Result<nlohmann::json> v = ParseJson(
          std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()));
      if (!v.ok()) {
        return Refusal{"invalid_payload",
                       fmt::format("the {} is not JSON: {}", name(), v.error().message())};
      }
      // Steps enough for any value of this size against a schema without blow-up.
      const int64_t budget = 100'000 + 32 * static_cast<int64_t>(payload.size());
      Status st = CheckJsonSchemaValue(*v, *info->json_schema, *info->json_schema, budget);
      if (st.ok()) return std::nullopt;
      return Refusal{"invalid_payload", fmt::format("the {} does not match JSON Schema id {}: {}",
                                                    name(), id, st.message())};
    }
    if (codec->type == SchemaType::kProtobuf && codec->proto_schema != nullptr &&
        codec->proto_message == nullptr) {
      // The message indexes name no message of the schema.
      return Refusal{"invalid_payload", fmt::format("the {}: {}", name(), codec->error)};
    }
    // A schema floe cannot decode (docs/table-topics.md, "Unsupported") is checked by id.
    if (!codec->error.empty()) return std::nullopt;
    if (codec->type == SchemaType::kAvro && !codec->avro && codec->avro_schema) {
      // Made here rather than by Decode, so that its first datum counts against the batch.
      Result<std::unique_ptr<format::avro::DatumReader>> reader =
          format::avro::DatumReader::Make(*codec->avro_schema);
      if (!reader.ok()) return std::nullopt;  // a schema floe cannot decode: checked by id
      codec->avro = std::move(*reader);
    }
    if (codec->avro) codec->avro->set_zero_size_budget(zero_size_budget);
    Status decoded = values->Decode(codec, payload);
    // What a refused datum used does not count (it may have overdrawn the budget).
    if (decoded.ok() && codec->avro) zero_size_budget = codec->avro->zero_size_budget();
    if (!decoded.ok()) {
      values->Reset();
      return Refusal{"invalid_payload",
                     fmt::format("the {} does not decode with {} schema id {}: {}", name(),
                                 SchemaTypeName(codec->type), id, decoded.message())};
    }
    if (codec->avro && codec->avro->num_rows() >= kMaxPendingRows) (void)codec->avro->Finish();
    if (codec->proto && codec->proto->num_rows() >= kMaxPendingRows) (void)codec->proto->Finish();
    return std::nullopt;
  }
};

std::unique_ptr<kafka::RecordValidator> SchemaValidator::Make(
    const SchemaRegistry* registry, std::string topic, const SchemaValidationConfig& config) {
  if (!config.enabled()) return nullptr;
  std::unique_ptr<SchemaValidator> v(new SchemaValidator());
  v->registry_ = registry;
  auto side = [&](bool key, const SchemaValidationSide& c) -> std::unique_ptr<Side> {
    if (c.mode == ValidationMode::kNone) return nullptr;
    auto s = std::make_unique<Side>();
    s->registry = registry;
    s->key = key;
    s->config = c;
    s->topic = topic;
    s->topic_subject = SubjectName(SubjectNameStrategy::kTopicName, topic, key, "");
    s->codec_config.value_type =
        c.latest_schema ? ConvertType::kByLatestSchema : ConvertType::kBySchemaId;
    s->codec_config.transform = TransformType::kFlatten;
    return s;
  };
  v->key_ = side(true, config.key);
  v->value_ = side(false, config.value);
  return v;
}

SchemaValidator::~SchemaValidator() = default;

void SchemaValidator::Validate(std::span<const kafka::RecordView> records,
                               std::vector<kafka::RecordError>* errors) {
  if (registry_ == nullptr) {
    for (size_t i = 0; i < records.size(); ++i) {
      const bool checked = (key_ && records[i].key) || (value_ && records[i].value);
      if (checked) {
        errors->push_back({static_cast<int32_t>(i), "no_schema",
                           "schema validation is on, but this server has no schema registry"});
      }
    }
    return;
  }
  for (Side* side : {key_.get(), value_.get()}) {
    if (side == nullptr) continue;
    side->Refresh();
    side->zero_size_budget = kZeroSizeItemsPerBatch;
  }
  for (size_t i = 0; i < records.size(); ++i) {
    std::optional<Refusal> refused;
    // Null keys and values pass (tombstones), as Confluent and Redpanda let them.
    if (key_ && records[i].key) refused = key_->Check(*records[i].key);
    if (!refused && value_ && records[i].value) refused = value_->Check(*records[i].value);
    if (refused) {
      errors->push_back(
          {static_cast<int32_t>(i), refused->reason, Printable(std::move(refused->message))});
    }
  }
}

kafka::RecordValidatorFactory MakeSchemaValidatorFactory(const SchemaRegistry* registry) {
  return [registry](const std::string& topic, const std::map<std::string, std::string>& configs)
             -> std::unique_ptr<kafka::RecordValidator> {
    Result<SchemaValidationConfig> config = ParseSchemaValidationConfig(configs);
    if (!config.ok()) {
      // Configs are checked before they are stored; a topic.json edited by hand is not.
      std::fprintf(stderr, "kafka: topic %s: schema validation off: %s\n", topic.c_str(),
                   std::string(config.error().message()).c_str());
      return nullptr;
    }
    return SchemaValidator::Make(registry, topic, *config);
  };
}

}  // namespace floe::ingest

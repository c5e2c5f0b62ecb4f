#include "floe/iceberg/partition_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/json_util.h"
#include "floe/iceberg/text_util.h"

namespace floe::iceberg {

using internal::Json;

namespace internal {

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitTopLevel(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && (depth <= 0 || i == s.size())) {
      out.push_back(TrimSpace(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

std::pair<std::string_view, std::vector<std::string>> SplitTerm(std::string_view s) {
  s = TrimSpace(s);
  size_t close = s.find(')');
  size_t end = close != std::string_view::npos ? close + 1 : 0;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
  std::vector<std::string> rest;
  std::string_view tail = s.substr(end);
  while (true) {
    tail = TrimSpace(tail);
    if (tail.empty()) break;
    size_t n = 0;
    while (n < tail.size() && !std::isspace(static_cast<unsigned char>(tail[n]))) ++n;
    rest.emplace_back(tail.substr(0, n));
    tail.remove_prefix(n);
  }
  return {s.substr(0, end), std::move(rest)};
}

Result<std::pair<Transform, std::string>> ParseTransformTerm(std::string_view term) {
  term = TrimSpace(term);
  size_t open = term.find('(');
  if (open == std::string_view::npos) {
    if (term.empty()) return Status::InvalidArgument("empty partition or sort term");
    return std::make_pair(Transform::Identity(), std::string(term));
  }
  if (term.back() != ')') return Status::InvalidArgument("malformed term '{}'", term);
  std::string fn(TrimSpace(term.substr(0, open)));
  for (char& c : fn) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto args = SplitTopLevel(term.substr(open + 1, term.size() - open - 2));
  auto bad = [&]() { return Status::InvalidArgument("malformed term '{}'", term); };
  if (fn == "bucket" || fn == "truncate") {
    if (args.size() != 2) return bad();
    int32_t n = 0;
    auto [p, ec] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), n);
    if (ec != std::errc() || p != args[0].data() + args[0].size() || n <= 0) return bad();
    Transform t = fn == "bucket" ? Transform::Bucket(n) : Transform::Truncate(n);
    return std::make_pair(t, std::string(args[1]));
  }
  if (args.size() != 1 || args[0].empty()) return bad();
  Transform t = Transform::Parse(fn);
  if (!t.is_known() || t.param() != 0) {
    return Status::InvalidArgument("unknown transform '{}' in '{}'", fn, term);
  }
  return std::make_pair(t, std::string(args[0]));
}

}  // namespace internal

bool PartitionSpec::is_unpartitioned() const {
  return std::all_of(fields_.begin(), fields_.end(),
                     [](const PartitionField& f) { return f.transform.is_void(); });
}

int32_t PartitionSpec::last_assigned_field_id() const {
  int32_t last = kFirstFieldId - 1;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> out;
  for (const auto& f : fields_) {
    const NestedField* src = schema.FindField(f.source_id);
    TypePtr t;
    if (src == nullptr) {
      t = UnknownType();  // dropped source column (Java does the same)
    } else {
      auto r = f.transform.ResultType(*src->type);
      if (!r.ok()) return r.status().WithContext("partition field '{}'", f.name);
      t = std::move(*r);
    }
    out.push_back(NestedField::Optional(f.field_id, f.name, std::move(t)));
  }
  return StructType(std::move(out));
}

namespace {

// java.net.URLEncoder.encode(s, UTF_8).
std::string UrlEncode(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '.' || c == '-' || c == '*' || c == '_') {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

Result<std::string> PartitionSpec::PartitionPath(const std::vector<Literal>& values) const {
  if (values.size() != fields_.size()) {
    return Status::InvalidArgument("partition tuple has {} values for {} fields", values.size(),
                                   fields_.size());
  }
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out.push_back('/');
    out += UrlEncode(fields_[i].name);
    out.push_back('=');
    out += UrlEncode(fields_[i].transform.ToHumanString(values[i]));
  }
  return out;
}

bool PartitionSpec::CompatibleWith(const PartitionSpec& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& a = fields_[i];
    const auto& b = other.fields_[i];
    if (a.source_id != b.source_id || a.name != b.name ||
        a.transform.ToString() != b.transform.ToString()) {
      return false;
    }
  }
  return true;
}

std::string PartitionSpec::ToString() const {
  std::string s = fmt::format("spec {} [", spec_id_);
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) s += ", ";
    s += fmt::format("{}: {}: {}({})", fields_[i].field_id, fields_[i].name,
                     fields_[i].transform.ToString(), fields_[i].source_id);
  }
  return s + "]";
}

namespace {

// Reads "source-id", or v3's "source-ids" into pf (several ids: see PartitionField).
Status SourceIdsFromJson(const Json& f, PartitionField* pf) {
  auto it = f.find("source-id");
  if (it != f.end() && !it->is_null()) {
    FLOE_ASSIGN_OR_RETURN(pf->source_id, internal::AsInt32(*it, "source-id"));
    return Status::OK();
  }
  auto ids = f.find("source-ids");
  if (ids != f.end() && ids->is_array() && !ids->empty()) {
    FLOE_ASSIGN_OR_RETURN(pf->source_id, internal::AsInt32((*ids)[0], "source-ids"));
    if (ids->size() > 1) {
      for (const Json& id : *ids) {
        FLOE_ASSIGN_OR_RETURN(int32_t v, internal::AsInt32(id, "source-ids"));
        pf->source_ids.push_back(v);
      }
      pf->transform = Transform::Unknown(pf->transform.ToString());
    }
    return Status::OK();
  }
  return Status::InvalidArgument("missing 'source-id'");
}

Result<std::vector<PartitionField>> FieldsFromJson(const Json& fields) {
  if (!fields.is_array()) return Status::InvalidArgument("partition 'fields' must be an array");
  std::vector<PartitionField> out;
  int32_t next_id = PartitionSpec::kFirstFieldId;
  for (const Json& f : fields) {
    if (!f.is_object()) return Status::InvalidArgument("a partition field must be an object");
    PartitionField pf;
    FLOE_ASSIGN_OR_RETURN(pf.name, internal::GetString(f, "name"));
    FLOE_ASSIGN_OR_RETURN(std::string transform, internal::GetString(f, "transform"));
    pf.transform = Transform::Parse(transform);
    FLOE_RETURN_IF_ERROR(SourceIdsFromJson(f, &pf));
    FLOE_ASSIGN_OR_RETURN(auto id, internal::GetOptionalInt32(f, "field-id"));
    pf.field_id = id ? *id : next_id;
    next_id = std::max(next_id, pf.field_id + 1);
    out.push_back(std::move(pf));
  }
  return out;
}

}  // namespace

Status CheckProposedSpec(const PartitionSpec& spec) {
  for (const PartitionField& f : spec.fields()) {
    if (!f.transform.is_known()) {
      return Status::InvalidArgument("partition field '{}': unknown transform '{}'", f.name,
                                     f.transform.ToString());
    }
  }
  return Status::OK();
}

Result<PartitionSpec> PartitionSpecFromJsonValue(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("a partition spec must be an object");
  FLOE_ASSIGN_OR_RETURN(int32_t spec_id, internal::GetInt32(json, "spec-id"));
  FLOE_ASSIGN_OR_RETURN(const Json* fields, internal::GetMember(json, "fields"));
  FLOE_ASSIGN_OR_RETURN(auto f, FieldsFromJson(*fields));
  return PartitionSpec(spec_id, std::move(f));
}

Result<PartitionSpec> PartitionSpecFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json j, internal::ParseJson(json_text, "partition spec"));
  return PartitionSpecFromJsonValue(j);
}

Result<PartitionSpec> PartitionSpecFromV1FieldsJson(const Json& fields, int32_t spec_id) {
  FLOE_ASSIGN_OR_RETURN(auto f, FieldsFromJson(fields));
  return PartitionSpec(spec_id, std::move(f));
}

Json PartitionFieldsToJsonValue(const PartitionSpec& spec) {
  Json fields = Json::array();
  for (const auto& f : spec.fields()) {
    Json j = Json::object();
    j["name"] = f.name;
    j["transform"] = f.transform.ToString();
    if (f.source_ids.empty()) {
      j["source-id"] = f.source_id;
    } else {
      j["source-ids"] = f.source_ids;  // Java writes the array only for several sources
    }
    j["field-id"] = f.field_id;
    fields.push_back(std::move(j));
  }
  return fields;
}

Json PartitionSpecToJsonValue(const PartitionSpec& spec) {
  Json j = Json::object();
  j["spec-id"] = spec.spec_id();
  j["fields"] = PartitionFieldsToJsonValue(spec);
  return j;
}

std::string PartitionSpecToJson(const PartitionSpec& spec) {
  return internal::Dump(PartitionSpecToJsonValue(spec));
}

std::string DefaultPartitionName(std::string_view source, const Transform& t) {
  switch (t.kind()) {
    case TransformKind::kIdentity: return std::string(source);
    case TransformKind::kBucket: return fmt::format("{}_bucket", source);
    case TransformKind::kTruncate: return fmt::format("{}_trunc", source);
    case TransformKind::kYear: return fmt::format("{}_year", source);
    case TransformKind::kMonth: return fmt::format("{}_month", source);
    case TransformKind::kDay: return fmt::format("{}_day", source);
    case TransformKind::kHour: return fmt::format("{}_hour", source);
    case TransformKind::kVoid: return fmt::format("{}_null", source);
    case TransformKind::kUnknown: break;
  }
  return fmt::format("{}_{}", source, t.ToString());
}

PartitionSpecBuilder::PartitionSpecBuilder(const Schema& schema, int32_t spec_id)
    : schema_(schema), spec_id_(spec_id) {}

PartitionSpecBuilder& PartitionSpecBuilder::Identity(std::string_view s, std::string n) {
  return Add(s, Transform::Identity(), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Bucket(std::string_view s, int32_t b, std::string n) {
  if (b <= 0 && status_.ok()) status_ = Status::InvalidArgument("bucket count must be > 0");
  return Add(s, Transform::Bucket(b), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Truncate(std::string_view s, int32_t w, std::string n) {
  if (w <= 0 && status_.ok()) status_ = Status::InvalidArgument("truncate width must be > 0");
  return Add(s, Transform::Truncate(w), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Year(std::string_view s, std::string n) {
  return Add(s, Transform::Year(), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Month(std::string_view s, std::string n) {
  return Add(s, Transform::Month(), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Day(std::string_view s, std::string n) {
  return Add(s, Transform::Day(), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Hour(std::string_view s, std::string n) {
  return Add(s, Transform::Hour(), std::move(n));
}
PartitionSpecBuilder& PartitionSpecBuilder::Void(std::string_view s, std::string n) {
  return Add(s, Transform::Void(), std::move(n));
}

PartitionSpecBuilder& PartitionSpecBuilder::Add(std::string_view source, Transform t,
                                                std::string name) {
  if (!status_.ok()) return *this;
  const NestedField* f = schema_.FindFieldByName(source);
  if (f == nullptr) {
    status_ = Status::InvalidArgument("cannot partition by unknown column '{}'", source);
    return *this;
  }
  if (name.empty()) name = DefaultPartitionName(source, t);
  return AddById(f->id, std::move(t), std::move(name));
}

PartitionSpecBuilder& PartitionSpecBuilder::AddById(int32_t source_id, Transform t,
                                                    std::string name, int32_t field_id) {
  if (!status_.ok()) return *this;
  const NestedField* src = schema_.FindField(source_id);
  if (src == nullptr) {
    status_ = Status::InvalidArgument("cannot partition by unknown field id {}", source_id);
    return *this;
  }
  if (!t.is_known()) {
    status_ = Status::InvalidArgument("unknown transform '{}'", t.ToString());
    return *this;
  }
  if (!t.CanTransform(*src->type)) {
    status_ = Status::InvalidArgument("transform {} cannot partition column '{}' of type {}",
                                      t.ToString(), src->name, src->type->ToString());
    return *this;
  }
  if (name.empty()) {
    status_ = Status::InvalidArgument("partition field name must not be empty");
    return *this;
  }
  for (const auto& f : fields_) {
    if (f.name == name) {
      status_ = Status::InvalidArgument("duplicate partition field name '{}'", name);
      return *this;
    }
    if (f.source_id == source_id && f.transform.DedupName() == t.DedupName()) {
      status_ = Status::InvalidArgument("redundant partition: {} and {} on the same column '{}'",
                                        f.transform.ToString(), t.ToString(), src->name);
      return *this;
    }
  }
  // A partition name may equal a schema column only for an identity partition of it (Java
  // checkAndAddPartitionName).
  const NestedField* same = schema_.FindFieldByName(name);
  if (same != nullptr && !(t.kind() == TransformKind::kIdentity && same->id == source_id)) {
    status_ = Status::InvalidArgument(
        "partition name '{}' conflicts with a schema column of another source", name);
    return *this;
  }
  if (field_id == 0) field_id = last_field_id_ + 1;
  last_field_id_ = std::max(last_field_id_, field_id);
  fields_.push_back(PartitionField{source_id, field_id, std::move(name), std::move(t), {}});
  return *this;
}

Result<PartitionSpec> PartitionSpecBuilder::Build() const {
  FLOE_RETURN_IF_ERROR(status_);
  return PartitionSpec(spec_id_, fields_);
}

Result<PartitionSpec> ParsePartitionText(const Schema& schema, std::string_view text,
                                         int32_t spec_id) {
  PartitionSpecBuilder b(schema, spec_id);
  if (internal::TrimSpace(text).empty()) return b.Build();
  for (std::string_view part : internal::SplitTopLevel(text)) {
    auto [term, rest] = internal::SplitTerm(part);
    std::string name;
    if (rest.size() == 2 && (rest[0] == "as" || rest[0] == "AS")) {
      name = rest[1];
    } else if (!rest.empty()) {
      return Status::InvalidArgument("malformed partition term '{}'", part);
    }
    FLOE_ASSIGN_OR_RETURN(auto parsed, internal::ParseTransformTerm(term));
    b.Add(parsed.second, parsed.first, std::move(name));
  }
  return b.Build();
}

Result<EvolvedSpec> EvolveSpec(const std::vector<PartitionSpec>& specs, int32_t last_partition_id,
                               const std::vector<PartitionField>& new_fields, int32_t new_spec_id) {
  std::vector<PartitionField> fields;
  int32_t last = std::max(last_partition_id, PartitionSpec::kFirstFieldId - 1);
  for (const auto& nf : new_fields) {
    for (const auto& f : fields) {
      if (f.name == nf.name) {
        return Status::InvalidArgument("duplicate partition field name '{}'", nf.name);
      }
    }
    PartitionField out = nf;
    out.field_id = 0;
    for (const auto& spec : specs) {
      for (const auto& old : spec.fields()) {
        if (old.source_id == nf.source_id && TransformsEquivalent(old.transform, nf.transform)) {
          out.field_id = old.field_id;
          break;
        }
      }
      if (out.field_id != 0) break;
    }
    if (out.field_id == 0) out.field_id = ++last;
    fields.push_back(std::move(out));
  }
  PartitionSpec candidate(new_spec_id, std::move(fields));
  for (const auto& spec : specs) {
    if (spec.CompatibleWith(candidate) && spec.fields() == candidate.fields()) {
      return EvolvedSpec{spec, last, true};
    }
  }
  return EvolvedSpec{std::move(candidate), last, false};
}

}  // namespace floe::iceberg

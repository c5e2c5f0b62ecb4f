#include "floe/iceberg/sort_order.h"

#include <cctype>

#include "floe/base/macros.h"
#include "floe/iceberg/json_util.h"
#include "floe/iceberg/text_util.h"

namespace floe::iceberg {

using internal::Json;

std::string_view SortDirectionName(SortDirection d) {
  return d == SortDirection::kAsc ? "asc" : "desc";
}

std::string_view NullOrderName(NullOrder n) {
  return n == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
}

Status SortOrder::Validate(const Schema& schema) const {
  for (const auto& f : fields_) {
    const NestedField* src = schema.FindField(f.source_id);
    if (src == nullptr) {
      return Status::InvalidArgument("sort field source id {} is not in the schema", f.source_id);
    }
    if (!src->type->is_primitive()) {
      return Status::InvalidArgument("cannot sort by non-primitive column '{}'", src->name);
    }
    if (f.transform.is_known() && !f.transform.CanTransform(*src->type)) {
      return Status::InvalidArgument("transform {} cannot apply to sort column '{}'",
                                     f.transform.ToString(), src->name);
    }
  }
  return Status::OK();
}

Result<SortOrder> SortOrderFromJsonValue(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("a sort order must be an object");
  FLOE_ASSIGN_OR_RETURN(int32_t order_id, internal::GetInt32(json, "order-id"));
  FLOE_ASSIGN_OR_RETURN(const Json* fields, internal::GetMember(json, "fields"));
  if (!fields->is_array()) return Status::InvalidArgument("sort 'fields' must be an array");
  std::vector<SortField> out;
  for (const Json& f : *fields) {
    if (!f.is_object()) return Status::InvalidArgument("a sort field must be an object");
    SortField sf;
    FLOE_ASSIGN_OR_RETURN(std::string t, internal::GetString(f, "transform"));
    sf.transform = Transform::Parse(t);
    auto src = f.find("source-id");
    if (src != f.end() && !src->is_null()) {
      FLOE_ASSIGN_OR_RETURN(sf.source_id, internal::AsInt32(*src, "source-id"));
    } else {
      auto ids = f.find("source-ids");
      if (ids == f.end() || !ids->is_array()) {
        return Status::InvalidArgument("missing 'source-id'");
      }
      if (ids->size() != 1) {
        return Status::Unimplemented("multi-argument sort transforms are not supported");
      }
      FLOE_ASSIGN_OR_RETURN(sf.source_id, internal::AsInt32((*ids)[0], "source-ids"));
    }
    FLOE_ASSIGN_OR_RETURN(std::string dir, internal::GetString(f, "direction"));
    FLOE_ASSIGN_OR_RETURN(std::string nulls, internal::GetString(f, "null-order"));
    if (dir == "asc") {
      sf.direction = SortDirection::kAsc;
    } else if (dir == "desc") {
      sf.direction = SortDirection::kDesc;
    } else {
      return Status::InvalidArgument("invalid sort direction '{}'", dir);
    }
    if (nulls == "nulls-first") {
      sf.null_order = NullOrder::kNullsFirst;
    } else if (nulls == "nulls-last") {
      sf.null_order = NullOrder::kNullsLast;
    } else {
      return Status::InvalidArgument("invalid null order '{}'", nulls);
    }
    out.push_back(std::move(sf));
  }
  return SortOrder(order_id, std::move(out));
}

Result<SortOrder> SortOrderFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json j, internal::ParseJson(json_text, "sort order"));
  return SortOrderFromJsonValue(j);
}

Json SortOrderToJsonValue(const SortOrder& order) {
  Json fields = Json::array();
  for (const auto& f : order.fields()) {
    Json j = Json::object();
    j["transform"] = f.transform.ToString();
    j["source-id"] = f.source_id;
    j["direction"] = SortDirectionName(f.direction);
    j["null-order"] = NullOrderName(f.null_order);
    fields.push_back(std::move(j));
  }
  Json j = Json::object();
  j["order-id"] = order.order_id();
  j["fields"] = std::move(fields);
  return j;
}

std::string SortOrderToJson(const SortOrder& order) {
  return internal::Dump(SortOrderToJsonValue(order));
}

Result<SortOrder> ParseSortText(const Schema& schema, std::string_view text, int32_t order_id) {
  if (internal::TrimSpace(text).empty()) return SortOrder::Unsorted();
  std::vector<SortField> fields;
  for (std::string_view part : internal::SplitTopLevel(text)) {
    auto [term, words] = internal::SplitTerm(part);
    FLOE_ASSIGN_OR_RETURN(auto parsed, internal::ParseTransformTerm(term));
    for (auto& w : words) {
      for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    SortField f;
    f.transform = parsed.first;
    size_t i = 0;
    if (i < words.size() && (words[i] == "asc" || words[i] == "desc")) {
      f.direction = words[i] == "asc" ? SortDirection::kAsc : SortDirection::kDesc;
      ++i;
    }
    // Java SortOrder.Builder: asc() defaults to nulls first, desc() to nulls last.
    f.null_order =
        f.direction == SortDirection::kAsc ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
    if (i + 1 < words.size() && words[i] == "nulls" &&
        (words[i + 1] == "first" || words[i + 1] == "last")) {
      f.null_order = words[i + 1] == "first" ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
      i += 2;
    }
    if (i != words.size()) return Status::InvalidArgument("malformed sort term '{}'", part);
    const NestedField* src = schema.FindFieldByName(parsed.second);
    if (src == nullptr) {
      return Status::InvalidArgument("cannot sort by unknown column '{}'", parsed.second);
    }
    f.source_id = src->id;
    fields.push_back(std::move(f));
  }
  SortOrder order(order_id, std::move(fields));
  FLOE_RETURN_IF_ERROR(order.Validate(schema));
  return order;
}

}  // namespace floe::iceberg

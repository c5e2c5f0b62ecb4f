// Sort orders (spec "Sorting"): fields with transform, direction and null order; JSON and
// the CLI text form.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

enum class SortDirection : uint8_t { kAsc, kDesc };
enum class NullOrder : uint8_t { kNullsFirst, kNullsLast };

// "asc"/"desc", "nulls-first"/"nulls-last" (the JSON strings).
std::string_view SortDirectionName(SortDirection d);
std::string_view NullOrderName(NullOrder n);

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  bool operator==(const SortField& other) const = default;
};

class SortOrder {
 public:
  // The unsorted order (id 0, no fields).
  SortOrder() = default;
  SortOrder(int32_t order_id, std::vector<SortField> fields)
      : order_id_(order_id), fields_(std::move(fields)) {}
  static SortOrder Unsorted() { return SortOrder(); }

  int32_t order_id() const { return order_id_; }
  const std::vector<SortField>& fields() const { return fields_; }
  bool is_unsorted() const { return fields_.empty(); }

  // Same fields, order id ignored.
  bool SameOrder(const SortOrder& other) const { return fields_ == other.fields_; }
  // Checks that every source field exists, is primitive and accepts its transform.
  Status Validate(const Schema& schema) const;

  bool operator==(const SortOrder& other) const = default;

 private:
  int32_t order_id_ = 0;
  std::vector<SortField> fields_;
};

// {"order-id":1,"fields":[{"transform":"identity","source-id":2,"direction":"asc",
// "null-order":"nulls-first"}]}. v3 "source-ids" with one id is accepted.
Result<SortOrder> SortOrderFromJsonValue(const nlohmann::json& json);
Result<SortOrder> SortOrderFromJson(std::string_view json_text);
nlohmann::json SortOrderToJsonValue(const SortOrder& order);
std::string SortOrderToJson(const SortOrder& order);

// CLI sort text: "id desc nulls last, day(ts), bucket(16, id) asc nulls first". Terms are a
// column or a transform call as in ParsePartitionText; the default direction is asc, and
// like Java the default null order is nulls-first for asc and nulls-last for desc.
Result<SortOrder> ParseSortText(const Schema& schema, std::string_view text, int32_t order_id = 1);

}  // namespace floe::iceberg

// The Avro schemas of manifests and manifest lists per format version, as Iceberg Java
// writes them (V1Metadata / V2Metadata / V3Metadata converted by avro/TypeToSchema): field
// order, optionality (["null", T] with "default": null), docs, "field-id" / "element-id"
// properties, record names (manifest_entry, r2, r102, r508, manifest_file, k117_v118) and
// maps with int keys as arrays with logicalType "map".
#pragma once

#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/iceberg/type.h"

namespace floe::iceberg {

// The manifest_entry schema of `format_version` (1, 2 or 3) for a partition struct type.
// Partition fields map as TypeToSchema does: date as int + date, time and timestamps as
// long + time-micros / timestamp-micros / timestamp-nanos (+ adjust-to-utc), uuid as
// fixed(16) "uuid_fixed" + uuid, decimal as fixed "decimal_P_S" of the minimal size, fixed
// as "fixed_L"; a named type used twice is referenced by name the second time.
// kInvalidArgument for other versions or a non-struct partition type; kUnimplemented for
// partition field types without an Avro form.
Result<std::string> ManifestEntryAvroSchema(int format_version, const Type& partition_type);

// The manifest_file schema of `format_version` (1, 2 or 3).
Result<std::string> ManifestListAvroSchema(int format_version);

// Read schemas: the v3 schema with every field optional (so that files of any version
// and writer resolve by field id; absent fields read as null), used as Avro reader schemas.
// For manifests, `partition_json` is the writer's own partition record (its Avro JSON), so
// partition values resolve whatever Avro types the writer chose; without stats, the six
// metrics maps are left out and skipped undecoded.
std::string ManifestListReadSchema();
Result<std::string> ManifestEntryReadSchema(std::string_view partition_json, bool with_stats);

// The number of bytes of a fixed holding decimals of `precision` digits
// (Java TypeUtil.decimalRequiredBytes). REQUIRES: 1 <= precision <= 38.
int32_t DecimalRequiredBytes(int32_t precision);

}  // namespace floe::iceberg

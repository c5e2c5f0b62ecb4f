// Confluent schema references for Avro: a registered Avro schema may use named types
// (records, enums, fixed) defined in other subjects' schemas, listed in its `references`
// (Confluent Schema Registry, "Schema references"). The Avro parser knows only one
// document, so the referenced definitions are written into the schema where a name is
// first used (the same tree the Java parser builds from several documents).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::ingest {

// `schema` with the first use of every named type it does not define itself replaced by
// that type's definition from `referenced` (schema texts by reference name, transitively;
// each a named type, or a union or other schema whose own named types count too).
// Definitions keep their full names. Names neither defined nor referenced are left as
// they are (the parser reports them). kInvalidArgument when a text is not JSON.
Result<std::string> ExpandAvroReferences(std::string_view schema,
                                         const std::map<std::string, std::string>& referenced);

}  // namespace floe::ingest

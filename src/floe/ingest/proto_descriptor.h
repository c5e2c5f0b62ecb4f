// Protobuf schemas registered as a serialized FileDescriptorProto (base64), the form
// confluent-kafka's Python ProtobufSerializer sends, turned into `.proto` text, the form
// the registry stores and returns (as Confluent's registry does) and ProtoSchema parses.
//
// The FileDescriptorProto is read with a small wire-format reader (google/protobuf/
// descriptor.proto field numbers): package, dependencies, syntax, messages (fields with
// labels, types, type names, oneofs, proto3 optional, packed option; nested messages and
// enums; map entries rendered back as map<K, V>) and enums.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::ingest::proto {

// True when `schema` is not `.proto` text but (presumably) a base64 descriptor.
bool LooksLikeBase64Descriptor(std::string_view schema);

// The `.proto` text of a base64-encoded serialized FileDescriptorProto.
// kInvalidArgument for bad base64 or a malformed descriptor; kUnimplemented for groups.
Result<std::string> ProtoTextFromBase64Descriptor(std::string_view base64);

}  // namespace floe::ingest::proto

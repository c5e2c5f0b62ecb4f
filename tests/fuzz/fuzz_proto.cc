// Fuzzes the schema registry's Protobuf path with one input read three ways:
//  1. up to the first NUL byte: `.proto` text, parsed; every message then decodes the bytes
//     after the NUL as its wire format (also after a Confluent header's message indexes);
//  2. the whole input as wire-format bytes of a fixed schema with every field kind (nested
//     and repeated messages, maps, oneofs, enums, packed scalars, a Timestamp);
//  3. the whole input as a base64 FileDescriptorProto and as raw descriptor bytes, turned
//     into `.proto` text that must parse again.
// Everything must fail with a Status or succeed; a decoded batch must validate.
//
// Seeds: tests/fuzz/corpus/fuzz_proto/ (src/floe/ingest/testdata/order.proto and messages
// the protobuf package serialized).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "floe/ingest/proto_decoder.h"
#include "floe/ingest/proto_descriptor.h"
#include "floe/ingest/proto_schema.h"
#include "floe/ingest/registry_codec.h"

namespace {

namespace proto = floe::ingest::proto;

constexpr std::string_view kFixedProto = R"(syntax = "proto3";
package f;
import "google/protobuf/timestamp.proto";
message M {
  int64 a = 1; string b = 2; sint32 c = 3; repeated int32 d = 4; map<string, N> e = 5;
  N n = 6; repeated N ns = 7; E en = 8; optional double p = 9;
  oneof o { string t = 10; uint64 u = 11; }
  google.protobuf.Timestamp ts = 12; fixed32 f = 13; sfixed64 g = 14; bytes h = 15;
  bool i = 16; float j = 17; repeated string k = 18; map<int32, int64> l = 19;
  message N { string s = 1; repeated int64 v = 2 [packed = false]; }
  enum E { Z = 0; O = 1; }
}
)";

void Decode(const proto::Message& m, std::span<const uint8_t> bytes) {
  auto decoder = floe::ingest::ProtoDecoder::Make(m);
  if (!decoder.ok()) return;
  for (int i = 0; i < 2; ++i) {
    if (!(*decoder)->Read(bytes).ok()) return;
  }
  for (const auto& a : (*decoder)->Finish()) {
    if (!a.Validate().ok()) __builtin_trap();
  }
}

void DecodeAll(const proto::ProtoSchema& schema, std::span<const uint8_t> bytes) {
  int budget = 16;
  for (const auto& m : schema.messages()) {
    if (--budget < 0) break;
    Decode(*m, bytes);
  }
  std::span<const uint8_t> rest = bytes;
  auto indexes = floe::ingest::ReadMessageIndexes(&rest);
  if (indexes.ok()) {
    auto m = schema.MessageAt(*indexes);
    if (m.ok()) Decode(**m, rest);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  if (nul != std::string_view::npos) {
    auto schema = proto::ProtoSchema::Parse(input.substr(0, nul));
    if (schema.ok()) DecodeAll(**schema, {data + nul + 1, size - nul - 1});
  }
  static const auto* fixed = [] {
    auto s = proto::ProtoSchema::Parse(kFixedProto);
    if (!s.ok()) __builtin_trap();
    return s->release();
  }();
  Decode(*fixed->top_level()[0], {data, size});
  if (proto::LooksLikeBase64Descriptor(input)) {
    auto text = proto::ProtoTextFromBase64Descriptor(input);
    if (text.ok()) (void)proto::ProtoSchema::Parse(*text);
  }
  return 0;
}

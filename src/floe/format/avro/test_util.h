// Helpers shared by the Avro unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <string_view>

#include "floe/base/bytes.h"
#include "floe/base/testing.h"
#include "floe/format/avro/datum_reader.h"
#include "floe/format/avro/datum_writer.h"
#include "floe/format/avro/json_encoding.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro::testing {

// "06 66 6f 6f" -> the bytes.
inline std::string Unhex(std::string_view hex) {
  std::string out;
  int nibble = -1;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10);
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<char>(nibble * 16 + v));
      nibble = -1;
    }
  }
  return out;
}

inline std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out.push_back(' ');
    auto b = static_cast<unsigned char>(bytes[i]);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

inline SchemaPtr Parse(std::string_view json) {
  auto s = Schema::Parse(json);
  FLOE_EXPECT_OK(s) << "\n" << json;
  return s.ok() ? *s : nullptr;
}

// Decodes `count` datums of `writer` from `bytes` (read as `reader` when given), requiring
// that all bytes are consumed.
inline Result<columnar::RecordBatch> Decode(const Schema& writer, std::string_view bytes,
                                            int64_t count, const Schema* reader = nullptr,
                                            std::vector<std::string> columns = {}) {
  DatumReaderOptions options;
  options.reader_schema = reader;
  options.columns = std::move(columns);
  FLOE_ASSIGN_OR_RETURN(auto dr, DatumReader::Make(writer, options));
  ByteReader in(bytes);
  for (int64_t i = 0; i < count; ++i) FLOE_RETURN_IF_ERROR(dr->Read(&in));
  if (!in.empty()) return Status::Corrupt("{} bytes left over", in.remaining());
  return dr->Finish();
}

inline Result<std::string> Encode(const Schema& schema, const columnar::RecordBatch& batch) {
  FLOE_ASSIGN_OR_RETURN(auto dw, DatumWriter::Make(schema, *batch.schema()));
  Buffer out;
  for (int64_t i = 0; i < batch.num_rows(); ++i) FLOE_RETURN_IF_ERROR(dw->Write(batch, i, &out));
  return std::string(out.view());
}

// The rows of `batch` in the Avro JSON encoding, one per line.
inline std::string Json(const Schema& schema, const columnar::RecordBatch& batch) {
  std::string out;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    Status s = AppendJsonLine(schema, batch, i, &out);
    FLOE_EXPECT_OK(s);
  }
  return out;
}

}  // namespace floe::format::avro::testing

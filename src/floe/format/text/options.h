// Options of the JSON Lines and CSV readers and writers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe::format::text {

struct ReadOptions {
  // Rows per batch at most.
  int64_t batch_rows = 65536;
  // A batch also ends once its rows took this many input bytes (keeps list offsets and
  // memory bounded whatever the row sizes).
  size_t batch_input_bytes = size_t{256} << 20;
  // Bytes read from the file at a time.
  size_t chunk_bytes = size_t{1} << 20;
  // A longer JSON line or CSV record is an error (kInvalidArgument).
  size_t max_record_bytes = size_t{64} << 20;
  // Nesting depth of JSON values (objects and arrays) at most.
  int max_depth = 64;
  // Names match exactly; with this, a name with no exact match matches ignoring ASCII case.
  bool case_insensitive = false;
  // Unknown JSON fields and CSV columns are errors unless this is set.
  bool ignore_unknown_fields = false;
  // CSV only: the first record names the columns; without a header, columns are the
  // schema's, in order.
  bool header = true;
  // CSV only.
  char delimiter = ',';
};

struct CsvWriteOptions {
  bool header = true;
  char delimiter = ',';
};

}  // namespace floe::format::text

#include "floe/format/text/reader.h"

#include <algorithm>
#include <cstring>

#include "floe/base/macros.h"
#include "floe/format/text/chunked_input.h"
#include "floe/format/text/decoder.h"

namespace floe::format::text {

using internal::ChunkedInput;
using internal::RowDecoder;

namespace {

bool Blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

Status CheckOptions(const ReadOptions& options) {
  if (options.batch_rows <= 0 || options.max_depth <= 0 || options.max_record_bytes == 0) {
    return Status::InvalidArgument(
        "text reader: batch_rows, max_depth and max_record_bytes must "
        "be positive");
  }
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r') {
    return Status::InvalidArgument("CSV delimiter cannot be a quote or a line break");
  }
  return Status::OK();
}

}  // namespace

JsonLinesReader::JsonLinesReader(std::unique_ptr<ChunkedInput> input,
                                 std::unique_ptr<RowDecoder> decoder, ReadOptions options)
    : input_(std::move(input)), decoder_(std::move(decoder)), options_(options) {}

JsonLinesReader::~JsonLinesReader() = default;

Result<std::unique_ptr<JsonLinesReader>> JsonLinesReader::Open(std::unique_ptr<io::InputFile> file,
                                                               columnar::SchemaPtr schema,
                                                               ReadOptions options) {
  FLOE_RETURN_IF_ERROR(CheckOptions(options));
  FLOE_ASSIGN_OR_RETURN(auto decoder, RowDecoder::Make(std::move(schema), options));
  auto input = std::make_unique<ChunkedInput>(std::move(file), options.chunk_bytes);
  return std::unique_ptr<JsonLinesReader>(
      new JsonLinesReader(std::move(input), std::move(decoder), options));
}

Result<std::optional<columnar::RecordBatch>> JsonLinesReader::Next() {
  if (!error_.ok()) return error_;
  size_t batch_bytes = 0;
  size_t scanned = 0;  // leading bytes of the window known to hold no '\n'
  while (decoder_->num_rows() < options_.batch_rows && batch_bytes < options_.batch_input_bytes) {
    const char* b = input_->begin();
    const char* e = input_->end();
    const char* nl = b == e ? nullptr
                            : static_cast<const char*>(std::memchr(
                                  b + scanned, '\n', static_cast<size_t>(e - b) - scanned));
    const char* line_end = nl != nullptr ? nl : e;
    if (static_cast<size_t>(line_end - b) > options_.max_record_bytes) {
      error_ = Status::InvalidArgument("line {}: longer than the limit of {} bytes", line_ + 1,
                                       options_.max_record_bytes);
      return error_;
    }
    if (nl == nullptr && !input_->eof()) {
      scanned = input_->available();
      Status st = input_->Fill();
      if (!st.ok()) return error_ = st;
      continue;
    }
    if (nl == nullptr && b == e) break;  // end of the file
    scanned = 0;
    ++line_;
    std::string_view line(b, static_cast<size_t>(line_end - b));
    const char* next = nl != nullptr ? nl + 1 : e;
    input_->Consume(next);
    batch_bytes += static_cast<size_t>(next - b);
    if (Blank(line)) continue;
    decoder_->set_line(line_);
    Status st = decoder_->DecodeJsonRow(line);
    if (!st.ok()) return error_ = st;
  }
  if (decoder_->num_rows() == 0) return std::optional<columnar::RecordBatch>();
  return std::optional<columnar::RecordBatch>(decoder_->Finish());
}

CsvReader::CsvReader(std::unique_ptr<ChunkedInput> input, std::unique_ptr<RowDecoder> decoder,
                     ReadOptions options)
    : input_(std::move(input)), decoder_(std::move(decoder)), options_(options) {}

CsvReader::~CsvReader() = default;

Result<std::unique_ptr<CsvReader>> CsvReader::Open(std::unique_ptr<io::InputFile> file,
                                                   columnar::SchemaPtr schema,
                                                   ReadOptions options) {
  FLOE_RETURN_IF_ERROR(CheckOptions(options));
  FLOE_ASSIGN_OR_RETURN(auto decoder, RowDecoder::Make(std::move(schema), options));
  auto input = std::make_unique<ChunkedInput>(std::move(file), options.chunk_bytes);
  std::unique_ptr<CsvReader> reader(new CsvReader(std::move(input), std::move(decoder), options));
  FLOE_RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

Status CsvReader::ReadHeader() {
  special_.fill(false);
  special_[static_cast<unsigned char>(options_.delimiter)] = true;
  special_['\n'] = special_['\r'] = true;
  const size_t columns = decoder_->schema().num_fields();
  if (!options_.header) {
    for (size_t c = 0; c < columns; ++c) column_of_cell_.push_back(static_cast<int>(c));
    max_cells_ = std::max<size_t>(columns, 1);
    return Status::OK();
  }
  max_cells_ = 65536;
  FLOE_ASSIGN_OR_RETURN(Scan scan, NextRecord());
  std::vector<bool> present(columns);
  if (scan == Scan::kRecord) {
    for (const Cell& cell : cells_) {
      std::string_view name = CellText(record_, cell);
      int c = decoder_->FindColumn(name);
      if (c < 0) {
        if (!options_.ignore_unknown_fields) {
          return Status::InvalidArgument(
              "line {}: column \"{}\" of the header is not in the schema", record_line_,
              name.substr(0, 200));
        }
      } else if (present[static_cast<size_t>(c)]) {
        return Status::InvalidArgument("line {}: column \"{}\" appears twice in the header",
                                       record_line_, name.substr(0, 200));
      } else {
        present[static_cast<size_t>(c)] = true;
      }
      column_of_cell_.push_back(c);
    }
  }
  for (size_t c = 0; c < columns; ++c) {
    if (present[c]) continue;
    const auto& field = decoder_->schema().field(c);
    if (!field.nullable && scan == Scan::kRecord) {
      return Status::InvalidArgument("line {}: required column \"{}\" is not in the header",
                                     record_line_, field.name);
    }
    absent_columns_.push_back(c);
  }
  max_cells_ = std::max<size_t>(column_of_cell_.size(), 1);
  return Status::OK();
}

std::string_view CsvReader::CellText(const char* record, const Cell& cell) {
  std::string_view raw(record + cell.begin, cell.size);
  if (!cell.escaped) return raw;
  unescaped_.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    unescaped_.push_back(raw[i]);
    if (raw[i] == '"') ++i;  // the second quote of a doubled pair
  }
  return unescaped_;
}

CsvReader::Scan CsvReader::ScanRecord(const char* b, const char* e, bool eof, size_t* consumed,
                                      int64_t* newlines, Status* error) {
  cells_.clear();
  const char delim = options_.delimiter;
  const char* p = b;
  int64_t nl = 0;
  auto bad = [&](std::string_view what) {
    *error = Status::InvalidArgument("line {}: {}", next_line_ + nl, what);
    return Scan::kEnd;
  };
  while (true) {
    if (FLOE_PREDICT_FALSE(cells_.size() >= max_cells_)) {
      return bad(fmt::format("more than {} fields", max_cells_));
    }
    const char* after;
    if (p < e && *p == '"') {
      const char* q = p + 1;
      bool escaped = false;
      while (true) {
        const auto* r = static_cast<const char*>(std::memchr(q, '"', static_cast<size_t>(e - q)));
        if (r == nullptr) {
          if (eof) return bad("unterminated quoted field");
          return Scan::kNeedMore;
        }
        if (r + 1 < e && r[1] == '"') {
          escaped = true;
          q = r + 2;
          continue;
        }
        if (r + 1 == e && !eof) return Scan::kNeedMore;
        cells_.push_back(
            Cell{static_cast<size_t>(p + 1 - b), static_cast<size_t>(r - p - 1), true, escaped});
        nl += std::count(p + 1, r, '\n');
        after = r + 1;
        break;
      }
      if (after + 1 == e && *after == '\r' && !eof) return Scan::kNeedMore;
      if (after < e && *after != delim && *after != '\n' &&
          !(*after == '\r' && (after + 1 == e || after[1] == '\n'))) {
        return bad("unexpected character after a closing quote");
      }
    } else {
      const char* q = p;
      while (true) {
        while (q < e && !special_[static_cast<unsigned char>(*q)]) ++q;
        if (q < e && *q == '\r' && q + 1 < e && q[1] != '\n') {
          ++q;  // a lone CR is data
          continue;
        }
        break;
      }
      if ((q == e || (*q == '\r' && q + 1 == e)) && !eof) return Scan::kNeedMore;
      cells_.push_back(Cell{static_cast<size_t>(p - b), static_cast<size_t>(q - p), false, false});
      after = q;
    }
    if (after == e) {
      *consumed = static_cast<size_t>(e - b);
      *newlines = nl + 1;
      return Scan::kRecord;
    }
    if (*after == delim) {
      p = after + 1;
      continue;
    }
    if (*after == '\n') {
      *consumed = static_cast<size_t>(after + 1 - b);
    } else {  // CR LF, or CR at the end of the file
      *consumed = static_cast<size_t>(std::min(after + 2, e) - b);
    }
    *newlines = nl + 1;
    return Scan::kRecord;
  }
}

Result<CsvReader::Scan> CsvReader::NextRecord() {
  while (true) {
    const char* b = input_->begin();
    const char* e = input_->end();
    if (b == e) {
      if (input_->eof()) return Scan::kEnd;
      FLOE_RETURN_IF_ERROR(input_->Fill());
      continue;
    }
    size_t consumed = 0;
    int64_t newlines = 0;
    Status error;
    Scan scan = ScanRecord(b, e, input_->eof(), &consumed, &newlines, &error);
    if (!error.ok()) return error;
    if (scan == Scan::kNeedMore) {
      // Read until the window doubles, so a long record is rescanned O(log n) times.
      const size_t had = input_->available();
      if (had > options_.max_record_bytes) {
        return Status::InvalidArgument("line {}: record longer than the limit of {} bytes",
                                       next_line_, options_.max_record_bytes);
      }
      do {
        FLOE_RETURN_IF_ERROR(input_->Fill());
      } while (!input_->eof() && input_->available() < 2 * had);
      continue;
    }
    if (consumed > options_.max_record_bytes) {
      return Status::InvalidArgument("line {}: record longer than the limit of {} bytes",
                                     next_line_, options_.max_record_bytes);
    }
    record_ = b;
    record_bytes_ = consumed;
    record_line_ = next_line_;
    next_line_ += newlines;
    input_->Consume(b + consumed);
    return Scan::kRecord;
  }
}

Result<std::optional<columnar::RecordBatch>> CsvReader::Next() {
  if (!error_.ok()) return error_;
  auto fail = [&](Status st) -> Result<std::optional<columnar::RecordBatch>> {
    error_ = std::move(st);
    return error_;
  };
  const size_t width = column_of_cell_.size();
  size_t batch_bytes = 0;
  while (decoder_->num_rows() < options_.batch_rows && batch_bytes < options_.batch_input_bytes) {
    auto scan = NextRecord();
    if (!scan.ok()) return fail(scan.status());
    if (*scan == Scan::kEnd) break;
    batch_bytes += record_bytes_;
    if (cells_.size() == 1 && !cells_[0].quoted && cells_[0].size == 0 && width != 1) continue;
    if (cells_.size() != width) {
      return fail(Status::InvalidArgument("line {}: expected {} fields, found {}", record_line_,
                                          width, cells_.size()));
    }
    decoder_->set_line(record_line_);
    for (size_t j = 0; j < width; ++j) {
      const int c = column_of_cell_[j];
      if (c < 0) continue;
      const Cell& cell = cells_[j];
      Status st = !cell.quoted && cell.size == 0
                      ? decoder_->AppendNull(static_cast<size_t>(c), false)
                      : decoder_->AppendText(static_cast<size_t>(c), CellText(record_, cell));
      if (!st.ok()) return fail(std::move(st));
    }
    for (size_t c : absent_columns_) {
      Status st = decoder_->AppendNull(c, true);
      if (!st.ok()) return fail(std::move(st));
    }
    decoder_->EndRow();
  }
  if (decoder_->num_rows() == 0) return std::optional<columnar::RecordBatch>();
  return std::optional<columnar::RecordBatch>(decoder_->Finish());
}

}  // namespace floe::format::text

// DateTimePattern: the part of java.time's DateTimeFormatter pattern language that Amoro's
// table properties use (`data-expire.datetime-string-pattern` "yyyy-MM-dd",
// `tag.auto-create.tag-format` "'tag-'yyyyMMdd"), so the same property values work here.
//
// Letters: y (year; "yy" is the two-digit year 2000-2099), M (month), d (day of month),
// H (hour 0-23), m (minute), s (second); a run of one letter is one field, its length the
// zero-padded width (one letter: no padding). 'text' is literal text ('' is a quote); other
// characters that are not letters stand for themselves. Other letters (text months, zones,
// fractions) are an error. Times are UTC: floe does not depend on the host's time zone,
// where Amoro uses the JVM's default zone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"

namespace floe::optimize {

class DateTimePattern {
 public:
  // kInvalidArgument for an unterminated quote, an unsupported letter or a field too wide.
  static Result<DateTimePattern> Make(std::string_view pattern);

  // `epoch_ms` (UTC) written with the pattern: "tag-20261130".
  std::string Format(int64_t epoch_ms) const;

  // The UTC instant `text` names, which must match the whole pattern (fields missing from
  // the pattern: January, the 1st, midnight). kInvalidArgument when it does not match or a
  // field is out of range.
  Result<int64_t> Parse(std::string_view text) const;

 private:
  struct Piece {
    char letter = 0;  // 0: literal
    int width = 0;
    std::string literal;
  };
  explicit DateTimePattern(std::vector<Piece> pieces) : pieces_(std::move(pieces)) {}

  std::vector<Piece> pieces_;
};

}  // namespace floe::optimize

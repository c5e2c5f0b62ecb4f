#include "floe/optimize/datetime_pattern.h"

#include <cctype>

#include <fmt/format.h>

#include "floe/columnar/value_format.h"

namespace floe::optimize {

namespace {

constexpr int64_t kMsPerDay = 86'400'000;

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Result<DateTimePattern> DateTimePattern::Make(std::string_view pattern) {
  std::vector<Piece> pieces;
  auto literal = [&](char c) {
    if (pieces.empty() || pieces.back().letter != 0) pieces.push_back(Piece{});
    pieces.back().literal += c;
  };
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {
      // '' is a quote, inside or outside quoted text.
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
        literal('\'');
        i += 2;
        continue;
      }
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= pattern.size()) {
          return Status::InvalidArgument("date-time pattern '{}': unterminated quote", pattern);
        }
        if (pattern[j] != '\'') {
          literal(pattern[j]);
        } else if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
          literal('\'');
          ++j;
        } else {
          break;
        }
      }
      i = j + 1;
      continue;
    }
    if (!IsAsciiLetter(c)) {
      literal(c);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < pattern.size() && pattern[j] == c) ++j;
    const int width = static_cast<int>(j - i);
    const int max_width = c == 'y' ? 9 : 2;
    if (std::string_view("yMdHms").find(c) == std::string_view::npos) {
      return Status::InvalidArgument(
          "date-time pattern '{}': letter '{}' is not supported (y M d H m s)", pattern, c);
    }
    if (width > max_width) {
      return Status::InvalidArgument("date-time pattern '{}': '{}' is too wide", pattern,
                                     pattern.substr(i, j - i));
    }
    pieces.push_back(Piece{c, width, {}});
    i = j;
  }
  return DateTimePattern(std::move(pieces));
}

std::string DateTimePattern::Format(int64_t epoch_ms) const {
  const int64_t days = FloorDiv(epoch_ms, kMsPerDay);
  const int64_t ms_of_day = epoch_ms - days * kMsPerDay;
  int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  columnar::CivilFromDays(days, &year, &month, &day);
  std::string out;
  for (const Piece& p : pieces_) {
    int64_t v = 0;
    switch (p.letter) {
      case 0: out += p.literal; continue;
      case 'y': v = p.width == 2 ? ((year % 100) + 100) % 100 : year; break;
      case 'M': v = month; break;
      case 'd': v = day; break;
      case 'H': v = ms_of_day / 3'600'000; break;
      case 'm': v = ms_of_day / 60'000 % 60; break;
      default: v = ms_of_day / 1000 % 60; break;  // 's'
    }
    out += fmt::format("{:0{}d}", v, p.width);
  }
  return out;
}

Result<int64_t> DateTimePattern::Parse(std::string_view text) const {
  int64_t year = 1970;
  int64_t month = 1;
  int64_t day = 1;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  size_t at = 0;
  auto mismatch = [&]() {
    return Status::InvalidArgument("'{}' does not match the date-time pattern", text);
  };
  for (size_t k = 0; k < pieces_.size(); ++k) {
    const Piece& p = pieces_[k];
    if (p.letter == 0) {
      if (text.substr(at, p.literal.size()) != p.literal) return mismatch();
      at += p.literal.size();
      continue;
    }
    // A field followed directly by another field takes exactly its width (Java's adjacent
    // value parsing, "yyyyMMdd"); otherwise it takes its digits, at least its width.
    const bool adjacent = k + 1 < pieces_.size() && pieces_[k + 1].letter != 0;
    size_t end = at;
    const size_t max_digits = adjacent ? static_cast<size_t>(p.width) : 10;
    while (end < text.size() && end - at < max_digits &&
           std::isdigit(static_cast<unsigned char>(text[end]))) {
      ++end;
    }
    if (end - at < static_cast<size_t>(p.width) || end == at) return mismatch();
    int64_t v = 0;
    for (size_t i = at; i < end; ++i) v = v * 10 + (text[i] - '0');
    at = end;
    switch (p.letter) {
      case 'y': year = p.width == 2 ? 2000 + v : v; break;
      case 'M': month = v; break;
      case 'd': day = v; break;
      case 'H': hour = v; break;
      case 'm': minute = v; break;
      default: second = v; break;
    }
  }
  if (at != text.size()) return mismatch();
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return Status::InvalidArgument("'{}' is not a valid date-time", text);
  }
  const int64_t days =
      columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  // Day 31 of a 30-day month comes back as the 1st of the next month: not a date.
  int64_t y2 = 0;
  unsigned m2 = 0;
  unsigned d2 = 0;
  columnar::CivilFromDays(days, &y2, &m2, &d2);
  if (y2 != year || m2 != month || d2 != day) {
    return Status::InvalidArgument("'{}' is not a valid date-time", text);
  }
  return days * kMsPerDay + hour * 3'600'000 + minute * 60'000 + second * 1000;
}

}  // namespace floe::optimize

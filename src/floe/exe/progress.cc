#include "floe/exe/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace floe::exe {
namespace {

constexpr int64_t kRedrawMs = 100;
constexpr int kBarWidth = 24;

// 1234567 -> "1.2M": counts stay short on one line.
std::string Compact(int64_t n) {
  if (n < 10'000) return fmt::format("{}", n);
  if (n < 1'000'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  if (n < 1'000'000'000) return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
  return fmt::format("{:.1f}G", static_cast<double>(n) / 1e9);
}

}  // namespace

ProgressBar ProgressBar::OnTerminal(std::string label, int64_t total, std::string unit) {
  const char* off = std::getenv("FLOE_NO_PROGRESS");
  if (::isatty(STDERR_FILENO) != 1 ||
      (off != nullptr && *off != '\0' && std::string_view(off) != "0")) {
    return ProgressBar();
  }
  auto clock = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  auto sink = [](std::string_view text) {
    // Best effort: a terminal that went away must not fail the command.
    (void)!::write(STDERR_FILENO, text.data(), text.size());
  };
  return ProgressBar(std::move(label), total, std::move(unit), clock, sink);
}

ProgressBar::ProgressBar(std::string label, int64_t total, std::string unit, Clock clock, Sink sink)
    : enabled_(true),
      label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      clock_(std::move(clock)),
      sink_(std::move(sink)) {
  start_ms_ = clock_();
}

ProgressBar::ProgressBar(ProgressBar&& other) noexcept { *this = std::move(other); }

ProgressBar& ProgressBar::operator=(ProgressBar&& other) noexcept {
  if (this != &other) {
    Finish();
    enabled_ = std::exchange(other.enabled_, false);
    label_ = std::move(other.label_);
    total_ = other.total_;
    unit_ = std::move(other.unit_);
    clock_ = std::move(other.clock_);
    sink_ = std::move(other.sink_);
    start_ms_ = other.start_ms_;
    last_draw_ms_ = other.last_draw_ms_;
    done_ = other.done_;
    rows_ = other.rows_;
  }
  return *this;
}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(int64_t done, int64_t rows) {
  if (!enabled_) return;
  done_ = done;
  rows_ = rows;
  Draw(false);
}

void ProgressBar::Finish() {
  if (!enabled_) return;
  Draw(true);
  sink_("\r\x1b[K");
  enabled_ = false;
}

std::string ProgressBar::Frame(int64_t elapsed_ms) const {
  std::string out = label_;
  if (total_ > 0) {
    const int64_t done = std::clamp<int64_t>(done_, 0, total_);
    const auto filled = static_cast<int>(done * kBarWidth / total_);
    out += " [";
    out.append(static_cast<size_t>(filled), '=');
    if (filled < kBarWidth) out += '>';
    out.append(static_cast<size_t>(std::max(0, kBarWidth - filled - 1)), ' ');
    out += fmt::format("] {:3}% {}/{} {}", done * 100 / total_, done_, total_, unit_);
  } else {
    out += fmt::format(" {} {}", done_, unit_);
  }
  if (rows_ >= 0) out += fmt::format(", {} rows", Compact(rows_));
  out += fmt::format(", {:.1f}s", static_cast<double>(elapsed_ms) / 1000.0);
  return out;
}

void ProgressBar::Draw(bool force) {
  const int64_t now = clock_();
  if (!force && last_draw_ms_ != INT64_MIN && now - last_draw_ms_ < kRedrawMs) return;
  last_draw_ms_ = now;
  sink_("\r\x1b[K" + Frame(now - start_ms_));
}

}  // namespace floe::exe

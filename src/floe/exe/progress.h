// A one-line progress bar on stderr for long commands (table scan, append, upsert, delete;
// parquet rewrite). It is drawn only when stderr is a terminal, so scripts, pipes and
// --json consumers never see it, and FLOE_NO_PROGRESS=1 turns it off on a terminal too.
// Redraws are throttled (at most one per 100 ms); the last frame shows the final counts
// and is then erased, leaving the terminal as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace floe::exe {

class ProgressBar {
 public:
  using Clock = std::function<int64_t()>;              // monotonic milliseconds
  using Sink = std::function<void(std::string_view)>;  // receives terminal output

  // Progress over `total` `unit`s (files, rows), drawn on stderr when it is a terminal;
  // inert otherwise. `total` <= 0: no bar, only the counts.
  static ProgressBar OnTerminal(std::string label, int64_t total, std::string unit);

  ProgressBar() = default;  // inert
  ProgressBar(std::string label, int64_t total, std::string unit, Clock clock, Sink sink);
  // A moved-from bar is inert (it neither draws nor erases).
  ProgressBar(ProgressBar&& other) noexcept;
  ProgressBar& operator=(ProgressBar&& other) noexcept;
  ~ProgressBar();

  // `done` units of `total` so far, and the rows handled (shown when >= 0).
  void Update(int64_t done, int64_t rows = -1);
  // Draws the final counts and erases the line. Later calls do nothing.
  void Finish();

  // The text of one frame (no control characters), for tests.
  std::string Frame(int64_t elapsed_ms) const;

 private:
  void Draw(bool force);

  bool enabled_ = false;
  std::string label_;
  int64_t total_ = 0;
  std::string unit_;
  Clock clock_;
  Sink sink_;
  int64_t start_ms_ = 0;
  int64_t last_draw_ms_ = INT64_MIN;
  int64_t done_ = 0;
  int64_t rows_ = -1;
};

}  // namespace floe::exe

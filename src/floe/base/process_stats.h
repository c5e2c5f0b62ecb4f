// What this process uses of the machine, read from the kernel: for /metrics and the
// overview's history (manage/history_recorder.h). Linux; zeros where the kernel does not
// answer.
#pragma once

#include <cstdint>

namespace floe {

struct ProcessUsage {
  int64_t resident_bytes = 0;  // resident set size
  double cpu_seconds = 0;      // user and system CPU time since the process started
};

// Thread-safe.
ProcessUsage CurrentProcessUsage();

}  // namespace floe

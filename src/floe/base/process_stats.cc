#include "floe/base/process_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace floe {

ProcessUsage CurrentProcessUsage() {
  ProcessUsage usage;
  // statm: size resident shared ... in pages.
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (statm >> size >> resident) {
    usage.resident_bytes = resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  }
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    usage.cpu_seconds = seconds(ru.ru_utime) + seconds(ru.ru_stime);
  }
  return usage;
}

}  // namespace floe

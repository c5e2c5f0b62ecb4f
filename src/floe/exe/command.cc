#include "floe/exe/command.h"

#include <cstdio>

namespace floe::exe {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument: return kExitUsage;
    case StatusCode::kNotFound: return kExitNotFound;
    case StatusCode::kCorrupt: return kExitCorrupt;
    case StatusCode::kUnimplemented: return kExitUnsupported;
    default: return kExitError;
  }
}

void SetCommand(CLI::App* command, int* exit_code, std::function<Status()> body) {
  command->callback([exit_code, body = std::move(body)] {
    Status s = body();
    if (!s.ok()) std::fprintf(stderr, "floe: %s\n", s.ToString().c_str());
    *exit_code = ExitCodeFor(s);
  });
}

}  // namespace floe::exe

// `floe avro meta|cat`.
#include "floe/exe/command.h"

namespace floe::exe {

void AddAvroCommands(CLI::App& app, int* exit_code) {
  auto* avro = app.add_subcommand("avro", "Inspect Avro object container files");
  avro->require_subcommand(1);
}

}  // namespace floe::exe

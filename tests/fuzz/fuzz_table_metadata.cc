// Fuzzes Iceberg table metadata JSON and REST commits with one input:
//  1. up to the first NUL byte: a table metadata document, parsed; whatever parses is
//     written, parsed again and written again, and both texts must be equal (a trap
//     otherwise), in compact and pretty form;
//  2. the bytes after the NUL: a REST CommitTableRequest, parsed, serialized and reparsed
//     (must give the same text); its requirements are validated and its updates applied to
//     the metadata from 1 (or to an empty table, as a create) and the result built,
//     written and reparsed.
// Everything must fail with a Status or succeed; nothing may crash, hang or leak.
//
// Seeds: tests/fuzz/corpus/fuzz_table_metadata/ (Java- and pyiceberg-written metadata,
// commit requests).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/iceberg/table_update.h"

namespace {

namespace ice = floe::iceberg;

void CheckFixpoint(const ice::TableMetadata& md) {
  for (bool pretty : {false, true}) {
    std::string text = ice::TableMetadataToJson(md, pretty);
    auto again = ice::TableMetadataFromJson(text);
    if (!again.ok()) __builtin_trap();
    if (ice::TableMetadataToJson(*again, pretty) != text) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  std::string_view metadata_text = input.substr(0, nul);
  auto md = ice::TableMetadataFromJson(metadata_text);
  if (md.ok()) CheckFixpoint(*md);
  if (nul == std::string_view::npos) return 0;

  auto request = ice::CommitTableRequestFromJson(input.substr(nul + 1));
  if (!request.ok()) return 0;
  std::string text = ice::CommitTableRequestToJson(*request);
  auto reparsed = ice::CommitTableRequestFromJson(text);
  if (!reparsed.ok() || ice::CommitTableRequestToJson(*reparsed) != text) __builtin_trap();

  const ice::TableMetadata* base = md.ok() ? &*md : nullptr;
  for (const auto& r : request->requirements) (void)ice::Validate(r, base);
  if (base == nullptr) {
    auto created = ice::TableMetadataBuilder::ApplyCreate(request->updates, "u", 1);
    if (created.ok()) CheckFixpoint(*created);
    return 0;
  }
  auto builder = ice::TableMetadataBuilder::From(std::make_shared<const ice::TableMetadata>(*md));
  if (!builder.ApplyAll(request->updates).ok()) return 0;
  auto built = builder.Build(md->last_updated_ms + 1);
  if (built.ok()) CheckFixpoint(**built);
  return 0;
}

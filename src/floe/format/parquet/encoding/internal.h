// Small helpers shared by the encoding .cc files; not part of the public API.
#pragma once

#include <cstddef>
#include <cstring>

namespace floe::format::parquet::internal {

// memcpy that accepts n == 0 with null pointers (an empty Buffer has no storage), which
// memcpy itself does not.
inline void CopyBytes(void* dst, const void* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

}  // namespace floe::format::parquet::internal

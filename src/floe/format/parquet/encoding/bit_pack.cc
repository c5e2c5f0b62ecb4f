#include "floe/format/parquet/encoding/bit_pack.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "floe/base/bytes.h"
#include "floe/format/parquet/encoding/internal.h"

namespace floe::format::parquet {

namespace {

// The unrolled kernels below are straight-line loads, shifts and masks whose shift amounts
// are compile-time constants checked by `if constexpr`: UBSan's per-operation checks there
// find nothing, yet made this one file take 90 s of CPU to compile in the sanitizer tree.
// AddressSanitizer still checks every load and store.
#define FLOE_BIT_PACK_KERNEL __attribute__((no_sanitize("undefined")))

// 32 values of width W occupy exactly W little-endian 32-bit words, so a group is
// byte-aligned and every load below stays inside it: a 64-bit load at word k happens only
// when the value spills into word k + 1, a third word only when it spills into k + 2.
template <int W, int I>
[[gnu::always_inline]] FLOE_BIT_PACK_KERNEL inline uint64_t ExtractBits(const uint8_t* in) {
  constexpr int kBit = I * W;
  constexpr int kWord = kBit / 32;
  constexpr int kShift = kBit % 32;
  const uint8_t* p = in + 4 * kWord;
  uint64_t v;
  if constexpr (kShift + W <= 32) {
    v = LoadLE<uint32_t>(p) >> kShift;
  } else if constexpr (kShift + W <= 64) {
    v = LoadLE<uint64_t>(p) >> kShift;
  } else {
    v = (LoadLE<uint64_t>(p) >> kShift) |
        (static_cast<uint64_t>(LoadLE<uint32_t>(p + 8)) << (64 - kShift));
  }
  if constexpr (W < 64) v &= (uint64_t{1} << W) - 1;
  return v;
}

template <int W, typename Out, int... I>
[[gnu::always_inline]] FLOE_BIT_PACK_KERNEL inline void UnpackGroup(
    const uint8_t* in, Out* out, std::integer_sequence<int, I...>) {
  ((out[I] = static_cast<Out>(ExtractBits<W, I>(in))), ...);
}

template <int W, typename Out>
FLOE_BIT_PACK_KERNEL void UnpackWidth(const uint8_t* in, Out* out, size_t n) {
  if constexpr (W == 0) {
    std::fill_n(out, n, Out{0});
  } else if constexpr (W == 8 * sizeof(Out)) {
    internal::CopyBytes(out, in, n * sizeof(Out));  // little-endian host: packed == native
  } else {
    constexpr size_t kGroupBytes = 4 * W;
    constexpr auto kSeq = std::make_integer_sequence<int, 32>();
    const size_t groups = n / 32;
    for (size_t g = 0; g < groups; ++g) {
      UnpackGroup<W>(in, out, kSeq);
      in += kGroupBytes;
      out += 32;
    }
    const size_t rest = n % 32;
    if (rest != 0) {
      // The caller only guarantees the bytes of `rest` values: decode a zero-padded copy.
      uint8_t padded[kGroupBytes] = {};
      std::memcpy(padded, in, PackedBytes(rest, W));
      Out tmp[32];
      UnpackGroup<W>(padded, tmp, kSeq);
      std::copy_n(tmp, rest, out);
    }
  }
}

template <int W, int I, typename In>
[[gnu::always_inline]] FLOE_BIT_PACK_KERNEL inline void PackOne(In value, uint32_t* words) {
  constexpr int kBit = I * W;
  constexpr int kWord = kBit / 32;
  constexpr int kShift = kBit % 32;
  uint64_t v = value;
  if constexpr (W < 64) v &= (uint64_t{1} << W) - 1;
  words[kWord] |= static_cast<uint32_t>(v << kShift);
  if constexpr (kShift + W > 32) words[kWord + 1] |= static_cast<uint32_t>(v >> (32 - kShift));
  if constexpr (kShift + W > 64) words[kWord + 2] |= static_cast<uint32_t>(v >> (64 - kShift));
}

template <int W, typename In, int... I>
[[gnu::always_inline]] FLOE_BIT_PACK_KERNEL inline void PackGroup(
    const In* in, uint8_t* out, std::integer_sequence<int, I...>) {
  uint32_t words[W] = {};
  (PackOne<W, I>(in[I], words), ...);
  std::memcpy(out, words, sizeof(words));
}

template <int W, typename In>
FLOE_BIT_PACK_KERNEL void PackWidth(const In* in, size_t n, uint8_t* out) {
  if constexpr (W == 0) {
    return;
  } else if constexpr (W == 8 * sizeof(In)) {
    internal::CopyBytes(out, in, n * sizeof(In));
  } else {
    constexpr size_t kGroupBytes = 4 * W;
    constexpr auto kSeq = std::make_integer_sequence<int, 32>();
    const size_t groups = n / 32;
    for (size_t g = 0; g < groups; ++g) {
      PackGroup<W>(in, out, kSeq);
      in += 32;
      out += kGroupBytes;
    }
    const size_t rest = n % 32;
    if (rest != 0) {
      In tmp[32] = {};
      std::copy_n(in, rest, tmp);
      uint8_t packed[kGroupBytes];
      PackGroup<W>(tmp, packed, kSeq);
      std::memcpy(out, packed, PackedBytes(rest, W));
    }
  }
}

template <typename Out>
using UnpackFn = void (*)(const uint8_t*, Out*, size_t);
template <typename In>
using PackFn = void (*)(const In*, size_t, uint8_t*);

template <typename Out, int... W>
constexpr auto MakeUnpackTable(std::integer_sequence<int, W...>) {
  return std::array<UnpackFn<Out>, sizeof...(W)>{&UnpackWidth<W, Out>...};
}
template <typename In, int... W>
constexpr auto MakePackTable(std::integer_sequence<int, W...>) {
  return std::array<PackFn<In>, sizeof...(W)>{&PackWidth<W, In>...};
}

constexpr auto kUnpack8 = MakeUnpackTable<uint8_t>(std::make_integer_sequence<int, 9>());
constexpr auto kUnpack16 = MakeUnpackTable<uint16_t>(std::make_integer_sequence<int, 17>());
constexpr auto kUnpack32 = MakeUnpackTable<uint32_t>(std::make_integer_sequence<int, 33>());
constexpr auto kUnpack64 = MakeUnpackTable<uint64_t>(std::make_integer_sequence<int, 65>());
constexpr auto kPack32 = MakePackTable<uint32_t>(std::make_integer_sequence<int, 33>());
constexpr auto kPack64 = MakePackTable<uint64_t>(std::make_integer_sequence<int, 65>());

}  // namespace

void Unpack8(const uint8_t* in, int bit_width, uint8_t* out, size_t n) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 8);
  kUnpack8[static_cast<size_t>(bit_width)](in, out, n);
}

void Unpack16(const uint8_t* in, int bit_width, uint16_t* out, size_t n) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 16);
  kUnpack16[static_cast<size_t>(bit_width)](in, out, n);
}

void Unpack32(const uint8_t* in, int bit_width, uint32_t* out, size_t n) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 32);
  kUnpack32[static_cast<size_t>(bit_width)](in, out, n);
}

void Unpack64(const uint8_t* in, int bit_width, uint64_t* out, size_t n) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 64);
  kUnpack64[static_cast<size_t>(bit_width)](in, out, n);
}

void Pack32(const uint32_t* in, size_t n, int bit_width, uint8_t* out) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 32);
  kPack32[static_cast<size_t>(bit_width)](in, n, out);
}

void Pack64(const uint64_t* in, size_t n, int bit_width, uint8_t* out) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 64);
  kPack64[static_cast<size_t>(bit_width)](in, n, out);
}

void UnpackMsbFirst16(const uint8_t* in, uint64_t first_bit, int bit_width, uint16_t* out,
                      size_t n) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 16);
  if (bit_width == 0) {
    std::fill_n(out, n, uint16_t{0});
    return;
  }
  // Deprecated and rare: a plain bit cursor. Bytes are pulled only when needed, so no byte
  // past the last value's is read.
  in += first_bit / 8;
  const int skip = static_cast<int>(first_bit % 8);
  const uint32_t mask = (1u << bit_width) - 1;
  uint32_t acc = 0;
  int acc_bits = 0;
  if (skip != 0 && n != 0) {
    acc = *in++ & (0xFFu >> skip);
    acc_bits = 8 - skip;
  }
  for (size_t i = 0; i < n; ++i) {
    while (acc_bits < bit_width) {
      acc = (acc << 8) | *in++;
      acc_bits += 8;
    }
    acc_bits -= bit_width;
    out[i] = static_cast<uint16_t>((acc >> acc_bits) & mask);
  }
}

}  // namespace floe::format::parquet

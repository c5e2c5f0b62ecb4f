#include "floe/format/puffin/roaring.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>

namespace floe::format::puffin {

namespace {

// RoaringFormatSpec, "General layout".
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieRuns = 12347;
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr uint32_t kContainerValues = 1 << 16;
constexpr size_t kBitmapWords = kContainerValues / 64;
constexpr size_t kBitmapBytes = kContainerValues / 8;

// Clears bits [from, to) of an LSB-first bitmap.
void ClearBits(uint8_t* bits, uint64_t from, uint64_t to) {
  while (from < to && (from & 7) != 0) {
    bits[from >> 3] &= static_cast<uint8_t>(~(1u << (from & 7)));
    ++from;
  }
  if (to - from >= 8) {
    const uint64_t bytes = (to - from) >> 3;
    std::memset(bits + (from >> 3), 0, bytes);
    from += bytes << 3;
  }
  while (from < to) {
    bits[from >> 3] &= static_cast<uint8_t>(~(1u << (from & 7)));
    ++from;
  }
}

uint32_t CountWords(const std::vector<uint64_t>& words) {
  uint32_t n = 0;
  for (uint64_t w : words) n += static_cast<uint32_t>(std::popcount(w));
  return n;
}

// Sets bits [lo, hi] (inclusive) of a 1024-word bitmap.
void SetWordRange(std::vector<uint64_t>& words, uint32_t lo, uint32_t hi) {
  const uint32_t first = lo >> 6;
  const uint32_t last = hi >> 6;
  const uint64_t first_mask = ~uint64_t{0} << (lo & 63);
  const uint64_t last_mask = ~uint64_t{0} >> (63 - (hi & 63));
  if (first == last) {
    words[first] |= first_mask & last_mask;
    return;
  }
  words[first] |= first_mask;
  for (uint32_t w = first + 1; w < last; ++w) words[w] = ~uint64_t{0};
  words[last] |= last_mask;
}

}  // namespace

bool Bitmap32::Container::Contains(uint16_t low) const {
  switch (kind) {
    case Kind::kArray: return std::binary_search(array.begin(), array.end(), low);
    case Kind::kBitmap: return (words[low >> 6] >> (low & 63)) & 1;
    case Kind::kRun: {
      auto it = std::upper_bound(runs.begin(), runs.end(), low,
                                 [](uint16_t v, const Run& r) { return v < r.start; });
      if (it == runs.begin()) return false;
      --it;
      return uint32_t{low} <= uint32_t{it->start} + it->length_minus_one;
    }
  }
  return false;
}

void Bitmap32::Container::ToBitmap() {
  if (kind == Kind::kBitmap) return;
  words.assign(kBitmapWords, 0);
  if (kind == Kind::kArray) {
    for (uint16_t v : array) words[v >> 6] |= uint64_t{1} << (v & 63);
  } else {
    for (const Run& r : runs) {
      SetWordRange(words, r.start, uint32_t{r.start} + r.length_minus_one);
    }
  }
  array.clear();
  array.shrink_to_fit();
  runs.clear();
  runs.shrink_to_fit();
  kind = Kind::kBitmap;
}

void Bitmap32::Container::Normalize() {
  if (kind != Kind::kBitmap || cardinality > kMaxArrayCardinality) return;
  std::vector<uint16_t> values;
  values.reserve(cardinality);
  ForEach([&](uint32_t v) { values.push_back(static_cast<uint16_t>(v)); });
  array = std::move(values);
  words.clear();
  words.shrink_to_fit();
  kind = Kind::kArray;
}

size_t Bitmap32::Container::NumRuns() const {
  switch (kind) {
    case Kind::kArray: {
      size_t n = 0;
      for (size_t i = 0; i < array.size(); ++i) {
        if (i == 0 || array[i] != array[i - 1] + 1) ++n;
      }
      return n;
    }
    case Kind::kBitmap: {
      // A run starts at every set bit whose predecessor is clear.
      size_t n = 0;
      uint64_t carry = 0;
      for (uint64_t w : words) {
        n += static_cast<size_t>(std::popcount(w & ~((w << 1) | carry)));
        carry = w >> 63;
      }
      return n;
    }
    case Kind::kRun: return runs.size();
  }
  return 0;
}

Bitmap32::Kind Bitmap32::Container::SerializedKind() const {
  const size_t run_bytes = 2 + 4 * NumRuns();
  const size_t other_bytes = std::min<size_t>(kBitmapBytes, 2 + 2 * size_t{cardinality});
  if (run_bytes < other_bytes || (kind == Kind::kRun && run_bytes == other_bytes)) {
    return Kind::kRun;
  }
  return cardinality <= kMaxArrayCardinality ? Kind::kArray : Kind::kBitmap;
}

Bitmap32::Container* Bitmap32::FindOrInsert(uint16_t key) {
  auto it = std::lower_bound(containers_.begin(), containers_.end(), key,
                             [](const Container& c, uint16_t k) { return c.key < k; });
  if (it == containers_.end() || it->key != key) {
    it = containers_.insert(it, Container{});
    it->key = key;
  }
  return &*it;
}

const Bitmap32::Container* Bitmap32::Find(uint16_t key) const {
  auto it = std::lower_bound(containers_.begin(), containers_.end(), key,
                             [](const Container& c, uint16_t k) { return c.key < k; });
  if (it == containers_.end() || it->key != key) return nullptr;
  return &*it;
}

bool Bitmap32::Add(uint32_t value) {
  Container* c = FindOrInsert(static_cast<uint16_t>(value >> 16));
  const auto low = static_cast<uint16_t>(value);
  if (c->kind == Kind::kArray) {
    auto it = std::lower_bound(c->array.begin(), c->array.end(), low);
    if (it != c->array.end() && *it == low) return false;
    if (c->cardinality < kMaxArrayCardinality) {
      c->array.insert(it, low);
      ++c->cardinality;
      return true;
    }
    c->ToBitmap();
  } else if (c->kind == Kind::kRun) {
    if (c->Contains(low)) return false;
    c->ToBitmap();
  }
  uint64_t& word = c->words[low >> 6];
  const uint64_t bit = uint64_t{1} << (low & 63);
  if (word & bit) return false;
  word |= bit;
  ++c->cardinality;
  c->Normalize();
  return true;
}

void Bitmap32::AddRangeInContainer(Container* c, uint32_t lo, uint32_t hi) {
  if (lo == 0 && hi == kContainerValues - 1) {
    c->kind = Kind::kRun;
    c->runs.assign(1, Run{0, static_cast<uint16_t>(kContainerValues - 1)});
    c->array.clear();
    c->words.clear();
    c->cardinality = kContainerValues;
    return;
  }
  if (c->kind == Kind::kArray && c->cardinality + (hi - lo + 1) <= kMaxArrayCardinality) {
    std::vector<uint16_t> merged;
    merged.reserve(c->cardinality + (hi - lo + 1));
    auto it = c->array.begin();
    while (it != c->array.end() && *it < lo) merged.push_back(*it++);
    for (uint32_t v = lo; v <= hi; ++v) merged.push_back(static_cast<uint16_t>(v));
    while (it != c->array.end() && *it <= hi) ++it;
    merged.insert(merged.end(), it, c->array.end());
    c->array = std::move(merged);
    c->cardinality = static_cast<uint32_t>(c->array.size());
    return;
  }
  c->ToBitmap();
  SetWordRange(c->words, lo, hi);
  c->cardinality = CountWords(c->words);
  c->Normalize();
}

void Bitmap32::AddRange(uint64_t start, uint64_t end) {
  if (start >= end) return;
  for (uint64_t key = start >> 16; key <= (end - 1) >> 16; ++key) {
    const uint64_t base = key << 16;
    const uint64_t lo = std::max(start, base) - base;
    const uint64_t hi = std::min(end - 1, base + kContainerValues - 1) - base;
    AddRangeInContainer(FindOrInsert(static_cast<uint16_t>(key)), static_cast<uint32_t>(lo),
                        static_cast<uint32_t>(hi));
  }
}

bool Bitmap32::Contains(uint32_t value) const {
  const Container* c = Find(static_cast<uint16_t>(value >> 16));
  return c != nullptr && c->Contains(static_cast<uint16_t>(value));
}

uint32_t Bitmap32::Max() const {
  const Container& c = containers_.back();
  const uint32_t base = static_cast<uint32_t>(c.key) << 16;
  switch (c.kind) {
    case Kind::kArray: return base | c.array.back();
    case Kind::kBitmap:
      for (size_t w = kBitmapWords; w-- > 0;) {
        if (c.words[w] != 0) {
          return base | static_cast<uint32_t>(w * 64 + 63 - std::countl_zero(c.words[w]));
        }
      }
      break;
    case Kind::kRun: return base | (uint32_t{c.runs.back().start} + c.runs.back().length_minus_one);
  }
  return base;
}

uint64_t Bitmap32::cardinality() const {
  uint64_t n = 0;
  for (const Container& c : containers_) n += c.cardinality;
  return n;
}

void Bitmap32::MergeContainer(Container* c, const Container& other) {
  if (c->cardinality == kContainerValues) return;
  if (c->cardinality == 0 || other.cardinality == kContainerValues) {
    const uint16_t key = c->key;
    *c = other;
    c->key = key;
    return;
  }
  if (c->kind == Kind::kArray && other.kind == Kind::kArray &&
      c->cardinality + other.cardinality <= kMaxArrayCardinality) {
    std::vector<uint16_t> merged;
    merged.reserve(c->cardinality + other.cardinality);
    std::set_union(c->array.begin(), c->array.end(), other.array.begin(), other.array.end(),
                   std::back_inserter(merged));
    c->array = std::move(merged);
    c->cardinality = static_cast<uint32_t>(c->array.size());
    return;
  }
  c->ToBitmap();
  if (other.kind == Kind::kBitmap) {
    for (size_t w = 0; w < kBitmapWords; ++w) c->words[w] |= other.words[w];
  } else if (other.kind == Kind::kRun) {
    for (const Run& r : other.runs) {
      SetWordRange(c->words, r.start, uint32_t{r.start} + r.length_minus_one);
    }
  } else {
    for (uint16_t v : other.array) c->words[v >> 6] |= uint64_t{1} << (v & 63);
  }
  c->cardinality = CountWords(c->words);
  c->Normalize();
}

void Bitmap32::Merge(const Bitmap32& other) {
  for (const Container& o : other.containers_) MergeContainer(FindOrInsert(o.key), o);
}

uint64_t Bitmap32::ClearInRange(uint64_t start, uint64_t end, uint8_t* bits,
                                uint64_t bit_offset) const {
  if (start >= end) return 0;
  const uint64_t last_key = (end - 1) >> 16;
  auto it = std::lower_bound(containers_.begin(), containers_.end(), start >> 16,
                             [](const Container& c, uint64_t k) { return uint64_t{c.key} < k; });
  uint64_t cleared = 0;
  for (; it != containers_.end() && it->key <= last_key; ++it) {
    const Container& c = *it;
    const uint64_t base = uint64_t{c.key} << 16;
    const uint32_t lo = static_cast<uint32_t>(std::max(start, base) - base);
    const uint32_t hi = static_cast<uint32_t>(std::min(end, base + kContainerValues) - base);
    // Bit index of container value v: base + v - start + bit_offset.
    const uint64_t dest = base + bit_offset - start;
    switch (c.kind) {
      case Kind::kArray:
        for (auto v = std::lower_bound(c.array.begin(), c.array.end(), lo);
             v != c.array.end() && *v < hi; ++v) {
          const uint64_t b = dest + *v;
          bits[b >> 3] &= static_cast<uint8_t>(~(1u << (b & 7)));
          ++cleared;
        }
        break;
      case Kind::kBitmap:
        for (uint32_t w = lo >> 6; w <= (hi - 1) >> 6; ++w) {
          uint64_t word = c.words[w];
          if (w == lo >> 6) word &= ~uint64_t{0} << (lo & 63);
          if (w == (hi - 1) >> 6) word &= ~uint64_t{0} >> (63 - ((hi - 1) & 63));
          while (word != 0) {
            const uint64_t b = dest + w * 64 + static_cast<uint64_t>(__builtin_ctzll(word));
            bits[b >> 3] &= static_cast<uint8_t>(~(1u << (b & 7)));
            ++cleared;
            word &= word - 1;
          }
        }
        break;
      case Kind::kRun: {
        auto r = std::upper_bound(c.runs.begin(), c.runs.end(), lo,
                                  [](uint32_t v, const Run& run) { return v < run.start; });
        if (r != c.runs.begin()) --r;
        for (; r != c.runs.end() && r->start < hi; ++r) {
          const uint32_t s = std::max<uint32_t>(r->start, lo);
          const uint32_t e = std::min<uint32_t>(uint32_t{r->start} + r->length_minus_one + 1, hi);
          if (s >= e) continue;
          ClearBits(bits, dest + s, dest + e);
          cleared += e - s;
        }
        break;
      }
    }
  }
  return cleared;
}

size_t Bitmap32::PortableSizeInBytes() const {
  const size_t n = containers_.size();
  bool has_run = false;
  size_t body = 0;
  for (const Container& c : containers_) {
    switch (c.SerializedKind()) {
      case Kind::kArray: body += 2 * size_t{c.cardinality}; break;
      case Kind::kBitmap: body += kBitmapBytes; break;
      case Kind::kRun:
        body += 2 + 4 * c.NumRuns();
        has_run = true;
        break;
    }
  }
  size_t header = has_run ? 4 + (n + 7) / 8 : 8;
  header += 4 * n;
  if (!has_run || n >= kNoOffsetThreshold) header += 4 * n;
  return header + body;
}

void Bitmap32::SerializePortable(Buffer* out) const {
  const size_t n = containers_.size();
  std::vector<Kind> kinds(n);
  bool has_run = false;
  for (size_t i = 0; i < n; ++i) {
    kinds[i] = containers_[i].SerializedKind();
    has_run |= kinds[i] == Kind::kRun;
  }
  const size_t start = out->size();
  if (has_run) {
    out->AppendValue<uint32_t>(kCookieRuns | (static_cast<uint32_t>(n - 1) << 16));
    uint8_t* flags = out->AppendUninitialized((n + 7) / 8);
    std::memset(flags, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; ++i) {
      if (kinds[i] == Kind::kRun) flags[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
  } else {
    out->AppendValue<uint32_t>(kCookieNoRuns);
    out->AppendValue<uint32_t>(static_cast<uint32_t>(n));
  }
  for (const Container& c : containers_) {
    out->AppendValue<uint16_t>(c.key);
    out->AppendValue<uint16_t>(static_cast<uint16_t>(c.cardinality - 1));
  }
  const bool offsets = !has_run || n >= kNoOffsetThreshold;
  const size_t offsets_at = out->size();
  if (offsets) out->AppendUninitialized(4 * n);
  for (size_t i = 0; i < n; ++i) {
    const Container& c = containers_[i];
    if (offsets) {
      StoreLE<uint32_t>(out->data() + offsets_at + 4 * i,
                        static_cast<uint32_t>(out->size() - start));
    }
    switch (kinds[i]) {
      case Kind::kArray:
        c.ForEach([&](uint32_t v) { out->AppendValue<uint16_t>(static_cast<uint16_t>(v)); });
        break;
      case Kind::kBitmap:
        if (c.kind == Kind::kBitmap) {
          out->Append(c.words.data(), kBitmapBytes);
        } else {
          Container copy = c;
          copy.ToBitmap();
          out->Append(copy.words.data(), kBitmapBytes);
        }
        break;
      case Kind::kRun: {
        const size_t count_at = out->size();
        out->AppendValue<uint16_t>(0);
        uint32_t runs = 0;
        int64_t run_start = -1;
        int64_t prev = -2;
        auto flush = [&] {
          out->AppendValue<uint16_t>(static_cast<uint16_t>(run_start));
          out->AppendValue<uint16_t>(static_cast<uint16_t>(prev - run_start));
          ++runs;
        };
        c.ForEach([&](uint32_t v) {
          const int64_t low = v & 0xFFFF;
          if (low != prev + 1) {
            if (run_start >= 0) flush();
            run_start = low;
          }
          prev = low;
        });
        if (run_start >= 0) flush();
        StoreLE<uint16_t>(out->data() + count_at, static_cast<uint16_t>(runs));
        break;
      }
    }
  }
}

Result<Bitmap32> Bitmap32::DeserializePortable(ByteReader* in) {
  const uint8_t* begin = in->position();
  FLOE_ASSIGN_OR_RETURN(uint32_t cookie, in->ReadLE<uint32_t>());
  size_t n = 0;
  std::span<const uint8_t> run_flags;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    n = (cookie >> 16) + 1;
    FLOE_ASSIGN_OR_RETURN(run_flags, in->Take((n + 7) / 8));
  } else if (cookie == kCookieNoRuns) {
    FLOE_ASSIGN_OR_RETURN(uint32_t count, in->ReadLE<uint32_t>());
    if (count > kContainerValues) {
      return Status::Corrupt("roaring bitmap has {} containers, more than 65536", count);
    }
    n = count;
  } else {
    return Status::Corrupt("bad roaring bitmap cookie {:#x}", cookie);
  }
  auto is_run = [&](size_t i) {
    return !run_flags.empty() && ((run_flags[i / 8] >> (i % 8)) & 1) != 0;
  };
  // Every container needs at least 4 header bytes and 2 body bytes: check before allocating.
  if (n * 6 > in->remaining()) {
    return Status::Corrupt("roaring bitmap claims {} containers in {} bytes", n, in->remaining());
  }
  FLOE_ASSIGN_OR_RETURN(auto headers, in->Take(4 * n));
  std::span<const uint8_t> offsets;
  if (run_flags.empty() || n >= kNoOffsetThreshold) {
    FLOE_ASSIGN_OR_RETURN(offsets, in->Take(4 * n));
  }
  Bitmap32 result;
  result.containers_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Container c;
    c.key = LoadLE<uint16_t>(headers.data() + 4 * i);
    const uint32_t card = uint32_t{LoadLE<uint16_t>(headers.data() + 4 * i + 2)} + 1;
    if (i > 0 && c.key <= result.containers_.back().key) {
      return Status::Corrupt("roaring container keys not strictly ascending ({} after {})", c.key,
                             result.containers_.back().key);
    }
    if (!offsets.empty()) {
      const uint32_t offset = LoadLE<uint32_t>(offsets.data() + 4 * i);
      if (offset != static_cast<size_t>(in->position() - begin)) {
        return Status::Corrupt("roaring container {} offset {} does not match its position {}", i,
                               offset, in->position() - begin);
      }
    }
    if (is_run(i)) {
      FLOE_ASSIGN_OR_RETURN(uint16_t num_runs, in->ReadLE<uint16_t>());
      FLOE_ASSIGN_OR_RETURN(auto bytes, in->Take(size_t{num_runs} * 4));
      c.kind = Kind::kRun;
      c.runs.reserve(num_runs);
      uint32_t total = 0;
      int64_t prev_end = -1;
      for (size_t r = 0; r < num_runs; ++r) {
        const uint16_t start = LoadLE<uint16_t>(bytes.data() + 4 * r);
        const uint16_t len = LoadLE<uint16_t>(bytes.data() + 4 * r + 2);
        const uint32_t end = uint32_t{start} + len;
        if (end >= kContainerValues) {
          return Status::Corrupt("roaring run {}+{} passes the end of its container", start, len);
        }
        if (int64_t{start} <= prev_end) {
          return Status::Corrupt("roaring runs unsorted or overlapping at {}", start);
        }
        if (int64_t{start} == prev_end + 1 && !c.runs.empty()) {
          c.runs.back().length_minus_one = static_cast<uint16_t>(end - c.runs.back().start);
        } else {
          c.runs.push_back(Run{start, len});
        }
        total += uint32_t{len} + 1;
        prev_end = end;
      }
      c.cardinality = total;
    } else if (card > kMaxArrayCardinality) {
      FLOE_ASSIGN_OR_RETURN(auto bytes, in->Take(kBitmapBytes));
      c.kind = Kind::kBitmap;
      c.words.resize(kBitmapWords);
      std::memcpy(c.words.data(), bytes.data(), kBitmapBytes);
      c.cardinality = CountWords(c.words);
    } else {
      FLOE_ASSIGN_OR_RETURN(auto bytes, in->Take(size_t{card} * 2));
      c.kind = Kind::kArray;
      c.array.resize(card);
      for (size_t v = 0; v < card; ++v) {
        c.array[v] = LoadLE<uint16_t>(bytes.data() + 2 * v);
        if (v > 0 && c.array[v] <= c.array[v - 1]) {
          return Status::Corrupt("roaring array container values not strictly ascending");
        }
      }
      c.cardinality = card;
    }
    if (c.cardinality != card) {
      return Status::Corrupt("roaring container {} holds {} values, its header says {}", c.key,
                             c.cardinality, card);
    }
    result.containers_.push_back(std::move(c));
  }
  return result;
}

bool operator==(const Bitmap32& a, const Bitmap32& b) {
  if (a.containers_.size() != b.containers_.size()) return false;
  for (size_t i = 0; i < a.containers_.size(); ++i) {
    const auto& x = a.containers_[i];
    const auto& y = b.containers_[i];
    if (x.key != y.key || x.cardinality != y.cardinality) return false;
    std::vector<uint32_t> vx;
    std::vector<uint32_t> vy;
    x.ForEach([&](uint32_t v) { vx.push_back(v); });
    y.ForEach([&](uint32_t v) { vy.push_back(v); });
    if (vx != vy) return false;
  }
  return true;
}

}  // namespace floe::format::puffin

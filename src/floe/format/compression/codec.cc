#include "floe/format/compression/codec.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <libdeflate.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <snappy-sinksource.h>
#include <snappy.h>
#include <zstd.h>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/format/compression/snappy_block.h"

namespace floe::format {

std::string_view CompressionKindName(CompressionKind kind) {
  switch (kind) {
    case CompressionKind::kUncompressed: return "uncompressed";
    case CompressionKind::kSnappy: return "snappy";
    case CompressionKind::kGzip: return "gzip";
    case CompressionKind::kDeflate: return "deflate";
    case CompressionKind::kZstd: return "zstd";
    case CompressionKind::kLz4Raw: return "lz4_raw";
    case CompressionKind::kLz4Hadoop: return "lz4_hadoop";
    case CompressionKind::kLz4Frame: return "lz4_frame";
  }
  return "unknown";
}

Result<CompressionKind> ParseCompressionKind(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "none" || n == "uncompressed" || n == "null") return CompressionKind::kUncompressed;
  if (n == "snappy") return CompressionKind::kSnappy;
  if (n == "gzip") return CompressionKind::kGzip;
  if (n == "deflate") return CompressionKind::kDeflate;
  if (n == "zstd" || n == "zstandard") return CompressionKind::kZstd;
  if (n == "lz4" || n == "lz4_raw") return CompressionKind::kLz4Raw;
  if (n == "lz4_hadoop") return CompressionKind::kLz4Hadoop;
  if (n == "lz4_frame") return CompressionKind::kLz4Frame;
  return Status::InvalidArgument("unknown compression codec '{}'", name);
}

Status Codec::CompressPieces(std::span<const std::span<const uint8_t>> pieces, Buffer* out) {
  if (pieces.size() == 1) return Compress(pieces[0], out);
  Buffer joined;
  size_t total = 0;
  for (const auto& p : pieces) total += p.size();
  joined.Reserve(total);
  for (const auto& p : pieces) joined.Append(p);
  return Compress(joined.span(), out);
}

namespace {

Status SizeMismatch(CompressionKind kind, size_t got, size_t want) {
  return Status::Corrupt("{} data expands to {} bytes, expected {}", CompressionKindName(kind), got,
                         want);
}

// Doubles `out`'s spare room until `attempt` fits or `max_size` is passed. `attempt`
// writes into [dst, dst + cap) and returns the bytes written, or -1 for "no room",
// or a Status for malformed data.
template <typename Fn>
Status GrowAndRetry(CompressionKind kind, size_t in_size, Buffer* out, size_t max_size,
                    Fn attempt) {
  size_t base = out->size();
  size_t cap = std::min<size_t>(std::max<size_t>(in_size * 4, 4096), max_size);
  for (;;) {
    out->Resize(base + cap);
    Result<int64_t> r = attempt(out->data() + base, cap);
    if (!r.ok()) {
      out->Resize(base);
      return std::move(r).status();
    }
    if (*r >= 0) {
      out->Resize(base + static_cast<size_t>(*r));
      return Status::OK();
    }
    if (cap >= max_size) {
      out->Resize(base);
      return Status::Corrupt("{} data expands beyond the limit of {} bytes",
                             CompressionKindName(kind), max_size);
    }
    cap = std::min(cap * 2, max_size);
  }
}

class UncompressedCodec final : public Codec {
 public:
  CompressionKind kind() const override { return CompressionKind::kUncompressed; }
  Status Compress(std::span<const uint8_t> in, Buffer* out) override {
    out->Append(in);
    return Status::OK();
  }
  Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) override {
    if (in.size() != out_size) return SizeMismatch(kind(), in.size(), out_size);
    if (out_size) std::memcpy(out, in.data(), out_size);
    return Status::OK();
  }
  Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out, size_t max_size) override {
    if (in.size() > max_size) return Status::Corrupt("block larger than {} bytes", max_size);
    out->Append(in);
    return Status::OK();
  }
};

// A snappy::Source reading several buffers in sequence, so pages need not be joined.
class PiecesSource final : public snappy::Source {
 public:
  explicit PiecesSource(std::span<const std::span<const uint8_t>> pieces) : pieces_(pieces) {
    for (const auto& p : pieces) left_ += p.size();
    SkipEmpty();
  }
  size_t Available() const override { return left_; }
  const char* Peek(size_t* len) override {
    if (index_ >= pieces_.size()) {
      *len = 0;
      return nullptr;
    }
    *len = pieces_[index_].size() - offset_;
    return reinterpret_cast<const char*>(pieces_[index_].data() + offset_);
  }
  void Skip(size_t n) override {
    left_ -= n;
    while (n > 0) {
      const size_t here = std::min(n, pieces_[index_].size() - offset_);
      offset_ += here;
      n -= here;
      if (offset_ == pieces_[index_].size()) {
        ++index_;
        offset_ = 0;
      }
    }
    SkipEmpty();
  }

 private:
  void SkipEmpty() {
    while (index_ < pieces_.size() && offset_ == pieces_[index_].size()) {
      ++index_;
      offset_ = 0;
    }
  }
  std::span<const std::span<const uint8_t>> pieces_;
  size_t index_ = 0;
  size_t offset_ = 0;
  size_t left_ = 0;
};

class SnappyCodec final : public Codec {
 public:
  CompressionKind kind() const override { return CompressionKind::kSnappy; }
  Status CompressPieces(std::span<const std::span<const uint8_t>> pieces, Buffer* out) override {
    if (pieces.size() == 1) return Compress(pieces[0], out);
    PiecesSource source(pieces);
    const size_t base = out->size();
    out->Resize(base + snappy::MaxCompressedLength(source.Available()));
    snappy::UncheckedByteArraySink sink(reinterpret_cast<char*>(out->data() + base));
    const size_t n = snappy::Compress(&source, &sink);
    out->Resize(base + n);
    return Status::OK();
  }
  Status Compress(std::span<const uint8_t> in, Buffer* out) override {
    size_t base = out->size();
    out->Resize(base + snappy::MaxCompressedLength(in.size()));
    size_t n = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                        reinterpret_cast<char*>(out->data() + base), &n);
    out->Resize(base + n);
    return Status::OK();
  }
  Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) override {
    size_t n = 0;
    size_t preamble = 0;
    if (!SnappyUncompressedLength(in, &n, &preamble)) {
      return Status::Corrupt("snappy: malformed length header");
    }
    if (n != out_size) return SizeMismatch(kind(), n, out_size);
    if (!SnappyDecompress(in, out, out_size)) return Status::Corrupt("snappy: malformed data");
    return Status::OK();
  }
  Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out, size_t max_size) override {
    size_t n = 0;
    size_t preamble = 0;
    if (!SnappyUncompressedLength(in, &n, &preamble)) {
      return Status::Corrupt("snappy: malformed length header");
    }
    if (n > max_size) return Status::Corrupt("snappy block expands to {} bytes", n);
    uint8_t* dst = out->AppendUninitialized(n);
    if (!SnappyDecompress(in, dst, n)) {
      out->Resize(out->size() - n);
      return Status::Corrupt("snappy: malformed data");
    }
    return Status::OK();
  }
};

// gzip and raw deflate through libdeflate (one-shot; several times faster than zlib).
class DeflateCodec final : public Codec {
 public:
  DeflateCodec(CompressionKind kind, int level) : kind_(kind), level_(level) {}
  ~DeflateCodec() override {
    if (compressor_) libdeflate_free_compressor(compressor_);
    if (decompressor_) libdeflate_free_decompressor(decompressor_);
  }
  CompressionKind kind() const override { return kind_; }

  Status Compress(std::span<const uint8_t> in, Buffer* out) override {
    if (!compressor_) {
      compressor_ = libdeflate_alloc_compressor(level_);
      if (!compressor_) return Status::Internal("libdeflate: cannot allocate compressor");
    }
    bool gzip = kind_ == CompressionKind::kGzip;
    size_t bound = gzip ? libdeflate_gzip_compress_bound(compressor_, in.size())
                        : libdeflate_deflate_compress_bound(compressor_, in.size());
    size_t base = out->size();
    out->Resize(base + bound);
    size_t n = gzip ? libdeflate_gzip_compress(compressor_, in.data(), in.size(),
                                               out->data() + base, bound)
                    : libdeflate_deflate_compress(compressor_, in.data(), in.size(),
                                                  out->data() + base, bound);
    if (n == 0) return Status::Internal("libdeflate: compression failed");
    out->Resize(base + n);
    return Status::OK();
  }

  Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) override {
    FLOE_RETURN_IF_ERROR(EnsureDecompressor());
    size_t produced = 0;
    FLOE_RETURN_IF_ERROR(DecompressInto(in, out, out_size, &produced, /*exact=*/true));
    if (produced != out_size) return SizeMismatch(kind_, produced, out_size);
    return Status::OK();
  }

  Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out, size_t max_size) override {
    FLOE_RETURN_IF_ERROR(EnsureDecompressor());
    return GrowAndRetry(kind_, in.size(), out, max_size,
                        [&](uint8_t* dst, size_t cap) -> Result<int64_t> {
                          size_t produced = 0;
                          Status s = DecompressInto(in, dst, cap, &produced, false);
                          if (s.code() == StatusCode::kUnavailable) return -1;  // no room
                          FLOE_RETURN_IF_ERROR(s);
                          return static_cast<int64_t>(produced);
                        });
  }

 private:
  Status EnsureDecompressor() {
    if (!decompressor_) {
      decompressor_ = libdeflate_alloc_decompressor();
      if (!decompressor_) return Status::Internal("libdeflate: cannot allocate decompressor");
    }
    return Status::OK();
  }

  // Decodes into [out, out + cap). "No room" is reported as kUnavailable for the retry
  // loop. gzip input may hold several members (concatenated, as gzip(1) allows).
  Status DecompressInto(std::span<const uint8_t> in, uint8_t* out, size_t cap, size_t* produced,
                        bool exact) {
    if (kind_ == CompressionKind::kDeflate) {
      size_t n = 0;
      auto r = libdeflate_deflate_decompress(decompressor_, in.data(), in.size(), out, cap, &n);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
        return exact ? Status::Corrupt("deflate data expands beyond {} bytes", cap)
                     : Status(StatusCode::kUnavailable, "");
      }
      if (r != LIBDEFLATE_SUCCESS) return Status::Corrupt("deflate: malformed data");
      *produced = n;
      return Status::OK();
    }
    // gzip, or a zlib stream (Arrow writes and reads both under GZIP).
    if (in.size() >= 2 && in[0] != 0x1F && (in[0] & 0x0F) == 8 &&
        ((in[0] << 8) | in[1]) % 31 == 0) {
      size_t n = 0;
      auto r = libdeflate_zlib_decompress(decompressor_, in.data(), in.size(), out, cap, &n);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
        return exact ? Status::Corrupt("zlib data expands beyond {} bytes", cap)
                     : Status(StatusCode::kUnavailable, "");
      }
      if (r != LIBDEFLATE_SUCCESS) return Status::Corrupt("zlib: malformed data");
      *produced = n;
      return Status::OK();
    }
    size_t pos = 0;
    size_t total = 0;
    do {
      size_t in_used = 0;
      size_t n = 0;
      auto r = libdeflate_gzip_decompress_ex(decompressor_, in.data() + pos, in.size() - pos,
                                             out + total, cap - total, &in_used, &n);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
        return exact ? Status::Corrupt("gzip data expands beyond {} bytes", cap)
                     : Status(StatusCode::kUnavailable, "");
      }
      if (r != LIBDEFLATE_SUCCESS) return Status::Corrupt("gzip: malformed data");
      pos += in_used;
      total += n;
      // Trailing zero padding after the last member is tolerated (as gzip -d does).
      while (pos < in.size() && in[pos] == 0) ++pos;
    } while (pos < in.size());
    *produced = total;
    return Status::OK();
  }

  CompressionKind kind_;
  int level_;
  libdeflate_compressor* compressor_ = nullptr;
  libdeflate_decompressor* decompressor_ = nullptr;
};

class ZstdCodec final : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level) {}
  ~ZstdCodec() override {
    ZSTD_freeCCtx(cctx_);
    ZSTD_freeDCtx(dctx_);
  }
  CompressionKind kind() const override { return CompressionKind::kZstd; }

  Status Compress(std::span<const uint8_t> in, Buffer* out) override {
    if (!cctx_) cctx_ = ZSTD_createCCtx();
    size_t bound = ZSTD_compressBound(in.size());
    size_t base = out->size();
    out->Resize(base + bound);
    size_t n = ZSTD_compressCCtx(cctx_, out->data() + base, bound, in.data(), in.size(), level_);
    if (ZSTD_isError(n)) return Status::Internal("zstd: {}", ZSTD_getErrorName(n));
    out->Resize(base + n);
    return Status::OK();
  }

  Status CompressPieces(std::span<const std::span<const uint8_t>> pieces, Buffer* out) override {
    if (pieces.size() == 1) return Compress(pieces[0], out);
    if (!cctx_) cctx_ = ZSTD_createCCtx();
    size_t total = 0;
    for (const auto& p : pieces) total += p.size();
    ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_);
    ZSTD_CCtx_setPledgedSrcSize(cctx_, total);
    const size_t base = out->size();
    const size_t bound = ZSTD_compressBound(total);
    out->Resize(base + bound);
    ZSTD_outBuffer output{out->data() + base, bound, 0};
    for (size_t i = 0; i < pieces.size(); ++i) {
      const bool last = i + 1 == pieces.size();
      ZSTD_inBuffer input{pieces[i].data(), pieces[i].size(), 0};
      for (;;) {
        const size_t r =
            ZSTD_compressStream2(cctx_, &output, &input, last ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r)) return Status::Internal("zstd: {}", ZSTD_getErrorName(r));
        if (last ? r == 0 : input.pos == input.size) break;
      }
    }
    out->Resize(base + output.pos);
    return Status::OK();
  }

  Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) override {
    if (!dctx_) dctx_ = ZSTD_createDCtx();
    size_t n = ZSTD_decompressDCtx(dctx_, out, out_size, in.data(), in.size());
    if (ZSTD_isError(n)) return Status::Corrupt("zstd: {}", ZSTD_getErrorName(n));
    if (n != out_size) return SizeMismatch(kind(), n, out_size);
    return Status::OK();
  }

  Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out, size_t max_size) override {
    if (!dctx_) dctx_ = ZSTD_createDCtx();
    // Streaming decode: frames written by streaming encoders carry no content size.
    ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    size_t base = out->size();
    size_t produced = 0;
    for (;;) {
      if (produced >= max_size && input.pos < input.size) {
        out->Resize(base + produced);
        return Status::Corrupt("zstd data expands beyond the limit of {} bytes", max_size);
      }
      size_t room = std::min<size_t>(std::max<size_t>(in.size() * 2, 65536), max_size - produced);
      out->Resize(base + produced + room);
      ZSTD_outBuffer output{out->data() + base + produced, room, 0};
      size_t r = ZSTD_decompressStream(dctx_, &output, &input);
      if (ZSTD_isError(r)) {
        out->Resize(base);
        return Status::Corrupt("zstd: {}", ZSTD_getErrorName(r));
      }
      produced += output.pos;
      if (input.pos == input.size && output.pos < room) {
        out->Resize(base + produced);
        if (r != 0) return Status::Corrupt("zstd: truncated frame");
        return Status::OK();
      }
    }
  }

 private:
  int level_;
  ZSTD_CCtx* cctx_ = nullptr;
  ZSTD_DCtx* dctx_ = nullptr;
};

Status Lz4BlockDecompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size,
                          size_t* produced) {
  if (in.size() > INT32_MAX || out_size > INT32_MAX) {
    return Status::Corrupt("lz4 block larger than 2 GiB");
  }
  int n =
      LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out),
                          static_cast<int>(in.size()), static_cast<int>(out_size));
  if (n < 0) return Status::Corrupt("lz4: malformed block");
  *produced = static_cast<size_t>(n);
  return Status::OK();
}

class Lz4Codec final : public Codec {
 public:
  Lz4Codec(CompressionKind kind, int level) : kind_(kind), level_(level) {}
  CompressionKind kind() const override { return kind_; }

  Status Compress(std::span<const uint8_t> in, Buffer* out) override {
    // Hadoop's block stream writes nothing at all for empty input.
    if (in.empty() && kind_ == CompressionKind::kLz4Hadoop) return Status::OK();
    if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::InvalidArgument("lz4: input of {} bytes is too large", in.size());
    }
    if (kind_ == CompressionKind::kLz4Frame) {
      LZ4F_preferences_t prefs{};
      prefs.compressionLevel = level_;
      prefs.frameInfo.contentSize = in.size();
      size_t bound = LZ4F_compressFrameBound(in.size(), &prefs);
      size_t base = out->size();
      out->Resize(base + bound);
      size_t n = LZ4F_compressFrame(out->data() + base, bound, in.data(), in.size(), &prefs);
      if (LZ4F_isError(n)) return Status::Internal("lz4: {}", LZ4F_getErrorName(n));
      out->Resize(base + n);
      return Status::OK();
    }
    int bound = LZ4_compressBound(static_cast<int>(in.size()));
    size_t header = kind_ == CompressionKind::kLz4Hadoop ? 8 : 0;
    size_t base = out->size();
    out->Resize(base + header + static_cast<size_t>(bound));
    char* dst = reinterpret_cast<char*>(out->data() + base + header);
    const char* src = reinterpret_cast<const char*>(in.data());
    int n = level_ > 1 ? LZ4_compress_HC(src, dst, static_cast<int>(in.size()), bound, level_)
                       : LZ4_compress_default(src, dst, static_cast<int>(in.size()), bound);
    if (n <= 0 && !in.empty()) return Status::Internal("lz4: compression failed");
    if (header) {
      StoreBE<uint32_t>(out->data() + base, static_cast<uint32_t>(in.size()));
      StoreBE<uint32_t>(out->data() + base + 4, static_cast<uint32_t>(n));
    }
    out->Resize(base + header + static_cast<size_t>(n));
    return Status::OK();
  }

  Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) override {
    size_t produced = 0;
    switch (kind_) {
      case CompressionKind::kLz4Raw:
        FLOE_RETURN_IF_ERROR(Lz4BlockDecompress(in, out, out_size, &produced));
        break;
      case CompressionKind::kLz4Hadoop: {
        // Arrow <= 0.17 wrote bare LZ4 blocks under this code: fall back to that.
        if (!HadoopDecompress(in, out, out_size, &produced).ok() || produced != out_size) {
          FLOE_RETURN_IF_ERROR(Lz4BlockDecompress(in, out, out_size, &produced));
        }
        break;
      }
      default: {
        Buffer tmp;
        FLOE_RETURN_IF_ERROR(DecompressUnknownSize(in, &tmp, out_size));
        produced = tmp.size();
        if (produced == out_size && produced) std::memcpy(out, tmp.data(), produced);
      }
    }
    if (produced != out_size) return SizeMismatch(kind_, produced, out_size);
    return Status::OK();
  }

  Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out, size_t max_size) override {
    if (kind_ == CompressionKind::kLz4Frame) return FrameDecompress(in, out, max_size);
    if (kind_ == CompressionKind::kLz4Hadoop) {
      // Each frame header gives the frame's expanded size: grow frame by frame.
      size_t base = out->size();
      ByteReader r(in);
      Status s;
      while (s.ok() && !r.empty()) {
        Result<uint32_t> raw = r.ReadBE<uint32_t>();
        if (!raw.ok()) {
          s = std::move(raw).status();
        } else if (*raw > max_size - (out->size() - base)) {
          s = Status::Corrupt("lz4 data expands beyond the limit of {} bytes", max_size);
        } else {
          size_t at = out->size();
          out->Resize(at + *raw);
          s = HadoopFrameBlocks(r, out->data() + at, *raw);
        }
      }
      if (!s.ok()) out->Resize(base);
      return s;
    }
    return GrowAndRetry(
        kind_, in.size(), out, max_size, [&](uint8_t* dst, size_t cap) -> Result<int64_t> {
          if (in.size() > INT32_MAX) return Status::Corrupt("lz4 block too big");
          int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                      reinterpret_cast<char*>(dst), static_cast<int>(in.size()),
                                      static_cast<int>(std::min<size_t>(cap, INT32_MAX)));
          // LZ4 cannot tell "no room" from "malformed": retry up to the cap.
          if (n >= 0) return n;
          if (cap >= max_size) return Status::Corrupt("lz4: malformed block");
          return -1;
        });
  }

 private:
  // Hadoop's BlockCompressorStream: each frame is [raw len][compressed len][block], and a
  // large raw chunk may be split into several compressed blocks under one raw length.
  Status HadoopDecompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size,
                          size_t* produced) {
    ByteReader r(in);
    size_t total = 0;
    while (!r.empty()) {
      FLOE_ASSIGN_OR_RETURN(uint32_t raw, r.ReadBE<uint32_t>());
      if (raw > out_size - total) return Status::Corrupt("lz4 hadoop frame too large");
      FLOE_RETURN_IF_ERROR(HadoopFrameBlocks(r, out + total, raw));
      total += raw;
    }
    *produced = total;
    return Status::OK();
  }

  // Decodes the compressed blocks of one frame until `raw` bytes are produced.
  static Status HadoopFrameBlocks(ByteReader& r, uint8_t* out, size_t raw) {
    if (raw == 0 && r.remaining() >= 4) {
      // A frame for empty input still carries one (empty) compressed block.
      FLOE_ASSIGN_OR_RETURN(uint32_t clen, r.ReadBE<uint32_t>());
      return r.Skip(clen);
    }
    size_t done = 0;
    while (done < raw) {
      FLOE_ASSIGN_OR_RETURN(uint32_t clen, r.ReadBE<uint32_t>());
      FLOE_ASSIGN_OR_RETURN(auto block, r.Take(clen));
      size_t n = 0;
      FLOE_RETURN_IF_ERROR(Lz4BlockDecompress(block, out + done, raw - done, &n));
      if (n == 0) return Status::Corrupt("lz4 hadoop: empty block");
      done += n;
    }
    return Status::OK();
  }

  Status FrameDecompress(std::span<const uint8_t> in, Buffer* out, size_t max_size) {
    LZ4F_dctx* dctx = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
      return Status::Internal("lz4: cannot create decompression context");
    }
    size_t base = out->size();
    size_t produced = 0;
    size_t pos = 0;
    Status status;
    for (;;) {
      size_t room = std::min<size_t>(std::max<size_t>(in.size() * 2, 65536), max_size - produced);
      // With no room left, probe with a 1-byte scratch: any output means the bound is passed.
      uint8_t scratch = 0;
      uint8_t* dst = &scratch;
      size_t dst_size = 1;
      if (room > 0) {
        out->Resize(base + produced + room);
        dst = out->data() + base + produced;
        dst_size = room;
      }
      const size_t cap = dst_size;
      size_t src_size = in.size() - pos;
      size_t hint = LZ4F_decompress(dctx, dst, &dst_size, in.data() + pos, &src_size, nullptr);
      if (LZ4F_isError(hint)) {
        status = Status::Corrupt("lz4: {}", LZ4F_getErrorName(hint));
        break;
      }
      if (room == 0 && dst_size > 0) {
        status = Status::Corrupt("lz4 data expands beyond the limit of {} bytes", max_size);
        break;
      }
      pos += src_size;
      produced += dst_size;
      if (pos == in.size()) {
        if (hint == 0) break;  // every frame complete
        if (dst_size < cap) {
          status = Status::Corrupt("lz4: truncated frame");
          break;
        }
      } else if (src_size == 0 && dst_size == 0) {
        status = Status::Corrupt("lz4: decoder made no progress");
        break;
      }
    }
    LZ4F_freeDecompressionContext(dctx);
    out->Resize(status.ok() ? base + produced : base);
    return status;
  }

  CompressionKind kind_;
  int level_;
};

}  // namespace

Result<std::unique_ptr<Codec>> Codec::Make(CompressionKind kind, int level) {
  bool dflt = level == kDefaultCompressionLevel;
  switch (kind) {
    case CompressionKind::kUncompressed: return std::make_unique<UncompressedCodec>();
    case CompressionKind::kSnappy: return std::make_unique<SnappyCodec>();
    case CompressionKind::kGzip:
    case CompressionKind::kDeflate:
      if (dflt) level = 6;
      if (level < 0 || level > 12) {
        return Status::InvalidArgument("{} level must be 0-12, got {}", CompressionKindName(kind),
                                       level);
      }
      return std::make_unique<DeflateCodec>(kind, level);
    case CompressionKind::kZstd:
      if (dflt) level = 3;  // zstd's default, as Arrow and parquet-java use
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return Status::InvalidArgument("zstd level must be {}-{}, got {}", ZSTD_minCLevel(),
                                       ZSTD_maxCLevel(), level);
      }
      return std::make_unique<ZstdCodec>(level);
    case CompressionKind::kLz4Raw:
    case CompressionKind::kLz4Hadoop:
    case CompressionKind::kLz4Frame:
      if (dflt) level = 1;
      if (level < 1 || level > LZ4HC_CLEVEL_MAX) {
        return Status::InvalidArgument("lz4 level must be 1-{}, got {}", LZ4HC_CLEVEL_MAX, level);
      }
      return std::make_unique<Lz4Codec>(kind, level);
  }
  return Status::InvalidArgument("unknown compression kind");
}

}  // namespace floe::format

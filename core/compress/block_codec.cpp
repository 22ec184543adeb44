#include "compress/block_codec.hpp"

#include <blosc.h>

#include <algorithm>
#include <atomic>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

struct CodecInfo {
    Codec codec;
    const char* name;
    const char* blosc_name;  // c-blosc's compressor
    int level;               // c-blosc's clevel: LZ4's default; Zstandard's fastest
};

constexpr CodecInfo kCodecs[] = {
    {Codec::none, "none", nullptr, 0},
    {Codec::lz4, "lz4", BLOSC_LZ4_COMPNAME, 5},
    {Codec::zstd, "zstd", BLOSC_ZSTD_COMPNAME, 1},
    {Codec::zfp, "zfp", nullptr, 0},
};

std::atomic<std::size_t> g_threads{1};

const CodecInfo& info(Codec codec) {
    for (const CodecInfo& c : kCodecs) {
        if (c.codec == codec) return c;
    }
    fail(ErrorKind::corrupt, "unknown codec " + std::to_string(static_cast<int>(codec)));
}

}  // namespace

void set_codec_threads(std::size_t threads) {
    g_threads = std::max<std::size_t>(threads, 1);
}

std::size_t codec_threads() {
    return g_threads;
}

std::string_view codec_name(Codec codec) {
    return info(codec).name;
}

std::optional<Codec> codec_named(std::string_view name) {
    for (const CodecInfo& c : kCodecs) {
        if (name == c.name) return c.codec;
    }
    return std::nullopt;
}

bool is_codec(std::uint8_t value) {
    for (const CodecInfo& c : kCodecs) {
        if (static_cast<std::uint8_t>(c.codec) == value) return true;
    }
    return false;
}

std::uint8_t shuffle_unit(std::size_t element_size) {
    if (element_size == 0) return 1;  // not known: no shuffle
    if (element_size <= BLOSC_MAX_TYPESIZE) return static_cast<std::uint8_t>(element_size);
    for (std::size_t unit : {8, 4, 2}) {
        if (element_size % unit == 0) return static_cast<std::uint8_t>(unit);
    }
    return 1;
}

std::size_t compress_block(Codec codec, std::uint8_t unit, std::span<const std::byte> raw, std::span<std::byte> out) {
    const CodecInfo& c = info(codec);
    if (c.blosc_name == nullptr || raw.size() > kMaxBlockBytes || out.size() < raw.size()) return 0;
    // One byte less than the raw block: a result that does not shrink is
    // refused by c-blosc (0), and the block is stored as it is.
    const int n = blosc_compress_ctx(c.level, BLOSC_SHUFFLE, unit == 0 ? 1 : unit, raw.size(), raw.data(), out.data(),
                                     raw.size() == 0 ? 0 : raw.size() - 1, c.blosc_name, 0, 1);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
}

void decompress_block(std::span<const std::byte> stored, std::span<std::byte> out, const std::string& what) {
    // c-blosc's decompressor trusts the sizes in the block's header: they
    // are checked against the bytes at hand first.
    std::size_t claimed = 0;
    if (stored.size() < BLOSC_MIN_HEADER_LENGTH ||
        blosc_cbuffer_validate(stored.data(), stored.size(), &claimed) != 0) {
        fail(ErrorKind::corrupt, what + ": not a valid compressed block (" + std::to_string(stored.size()) + " bytes)");
    }
    if (claimed != out.size()) {
        fail(ErrorKind::corrupt, what + ": the compressed block holds " + std::to_string(claimed) +
                                     " bytes where the block has " + std::to_string(out.size()));
    }
    std::size_t compressed_bytes = 0;
    std::size_t block_bytes = 0;
    blosc_cbuffer_sizes(stored.data(), &claimed, &compressed_bytes, &block_bytes);
    if (compressed_bytes != stored.size()) {
        fail(ErrorKind::corrupt, what + ": the compressed block says it has " + std::to_string(compressed_bytes) +
                                     " bytes where " + std::to_string(stored.size()) + " are stored");
    }
    const int n = blosc_decompress_ctx(stored.data(), out.data(), out.size(), 1);
    if (n < 0 || static_cast<std::size_t>(n) != out.size()) {
        fail(ErrorKind::corrupt, what + ": the compressed block does not decompress (damaged stream)");
    }
}

}  // namespace mlckpt::core

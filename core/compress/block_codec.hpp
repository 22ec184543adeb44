// The lossless codecs a level may compress its files with, applied to one
// block of a variable at a time: the block's bytes are shuffled by the
// variable's element size (byte i of every element together, so that the
// slowly varying high bytes of smooth floating-point fields form long runs),
// then compressed with LZ4 or Zstandard, through c-blosc. Blocks are
// independent, so that they are compressed and decompressed on every core,
// and a damaged one is named alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mlckpt::core {

// Stored in files (packed_frame.hpp): values never change meaning.
enum class Codec : std::uint8_t {
    none = 0,  // the bytes as they are
    lz4 = 1,   // byte shuffle, then LZ4: fast enough for L1-L3's local disks and networks
    zstd = 2,  // byte shuffle, then Zstandard level 1: smaller, for the shared parallel file system
    zfp = 3,   // error-bounded lossy (lossy_codec.hpp): only for the variables that ask, never configured
};

// "none", "lz4", "zstd", "zfp".
std::string_view codec_name(Codec codec);
// The codec a configuration value names, nullopt for anything else.
std::optional<Codec> codec_named(std::string_view name);
// Whether `value` (read from a file) is a Codec.
bool is_codec(std::uint8_t value);

// The shuffle's element size for a variable of `element_size` bytes: itself
// when c-blosc shuffles by it (1 to 255), else the largest of 8, 4, 2, 1
// that divides it (the members of a large structure).
std::uint8_t shuffle_unit(std::size_t element_size);

// Compresses `raw` (at most kMaxBlockBytes) into `out`, whose size must be
// at least raw.size(). Returns the compressed size, or 0 when the block
// does not shrink: the caller stores it as it is.
std::size_t compress_block(Codec codec, std::uint8_t unit, std::span<const std::byte> raw, std::span<std::byte> out);

// Decompresses `stored` into `out`, which must receive exactly out.size()
// bytes. Hostile input (a header that claims another size, a truncated or
// damaged stream) throws a corrupt Error that says `what` and the defect;
// nothing is read outside `stored` or written outside `out`.
void decompress_block(std::span<const std::byte> stored, std::span<std::byte> out, const std::string& what);

// How many threads a rank's codec work may keep busy (its share of the
// node's CPUs, set at FTI_Init); 1 until set.
void set_codec_threads(std::size_t threads);
std::size_t codec_threads();

// The largest raw block the codecs take (c-blosc's limit, rounded down).
inline constexpr std::size_t kMaxBlockBytes = std::size_t{1} << 30;

}  // namespace mlckpt::core

// Keeps mutated frames past their CRC-32s: every block's and the table's
// (compress/packed_frame.hpp), so that c-blosc's decompressor sees the
// mutated blocks.
#include <span>

#include "common/byte_order.hpp"
#include "compress/packed_frame.hpp"
#include "hash/crc32.hpp"
#include "resealing_mutator.hpp"

using namespace mlckpt::core;

namespace {

std::size_t reseal(std::uint8_t* input, std::size_t size, std::size_t) {
    auto* data = reinterpret_cast<std::byte*>(input);
    if (size < kPackedTrailerBytes) return size;
    std::byte* trailer = data + size - kPackedTrailerBytes;
    const std::uint64_t blocks = load_le<std::uint32_t>(trailer + 12);
    const std::uint64_t table_bytes = blocks * kPackedTableEntryBytes;
    if (table_bytes > size - kPackedTrailerBytes) return size;
    std::byte* table = trailer - table_bytes;
    const std::uint64_t data_bytes = size - kPackedTrailerBytes - table_bytes;
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < blocks; ++i) {
        const std::uint64_t stored = load_le<std::uint32_t>(table + i * kPackedTableEntryBytes);
        if (stored > data_bytes - at) break;
        store_le(table + i * kPackedTableEntryBytes + 4, crc32_of({data + at, static_cast<std::size_t>(stored)}));
        at += stored;
    }
    Crc32 crc;
    crc.update({table, static_cast<std::size_t>(table_bytes)});
    crc.update({trailer, 24});
    store_le(trailer + 24, crc.value());
    return size;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return mlckpt::fuzz::mutate_and_reseal(data, size, max_size, seed, reseal);
}

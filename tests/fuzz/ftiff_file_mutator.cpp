// Keeps mutated FTI-FF files past their hashes: the file block's checksum of
// the block records and the file block's own MD5 (docs/formats.md, FTI-FF).
#include <algorithm>
#include <cstring>
#include <string>

#include "common/byte_order.hpp"
#include "format/ftiff/ftiff_layout.hpp"
#include "hash/md5.hpp"
#include "resealing_mutator.hpp"

using namespace mlckpt::core;
using namespace mlckpt::core::ftiff;

namespace {

std::size_t reseal(std::uint8_t* input, std::size_t size, std::size_t) {
    auto* data = reinterpret_cast<std::byte*>(input);
    const auto file_size = static_cast<std::int64_t>(size);
    if (file_size < kFileBlockBytes) return size;
    // The block records, walked as the reader walks them, up to where they
    // stop making sense.
    const std::int64_t end = std::clamp(load_le<std::int64_t>(data + 64), std::int64_t{0}, file_size);
    Md5Hasher records;
    for (std::int64_t at = kFileBlockBytes; at <= end - kBlockMetaBytes;) {
        const auto numvars = load_le<std::int32_t>(data + at);
        const auto dbsize = load_le<std::int64_t>(data + at + 4);
        if (numvars < 0 || numvars > (end - at - kBlockMetaBytes) / kChunkMetaBytes || dbsize <= 0) break;
        records.update({data + at, static_cast<std::size_t>(kBlockMetaBytes + kChunkMetaBytes * numvars)});
        if (dbsize > end - at) break;
        at += dbsize;
    }
    const std::string checksum = hex(records.finish());
    std::memcpy(data, checksum.data(), 32);
    data[32] = std::byte{0};
    // The file block's MD5 covers its bytes but its own (33 to 48).
    Md5Hasher block;
    block.update({data, 33});
    block.update({data + 49, static_cast<std::size_t>(kFileBlockBytes - 49)});
    const Md5 hash = block.finish();
    std::memcpy(data + 33, hash.data(), hash.size());
    return size;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return mlckpt::fuzz::mutate_and_reseal(data, size, max_size, seed, reseal);
}

// Keeps mutated journals past their CRC-32s: the header's and every
// record's, walked as the roll forward reads them (format/dcp/redo_journal.hpp).
#include <span>

#include "common/byte_order.hpp"
#include "hash/crc32.hpp"
#include "resealing_mutator.hpp"

using namespace mlckpt::core;

namespace {

constexpr std::size_t kHeaderBytes = 16;  // before its CRC
constexpr std::size_t kRecordHeadBytes = 20;
constexpr std::uint32_t kBytes = 1;
constexpr std::uint32_t kEnd = 3;

std::uint32_t crc_of(const std::byte* data, std::size_t size) {
    return crc32_of({data, size});
}

std::size_t reseal(std::uint8_t* input, std::size_t size, std::size_t) {
    auto* data = reinterpret_cast<std::byte*>(input);
    if (size < kHeaderBytes + 4) return size;
    store_le<std::uint32_t>(data + kHeaderBytes, crc_of(data, kHeaderBytes));
    for (std::size_t at = kHeaderBytes + 4; size - at >= kRecordHeadBytes + 4;) {
        const auto kind = load_le<std::uint32_t>(data + at);
        const auto length = load_le<std::uint64_t>(data + at + 12);
        const std::uint64_t payload = kind == kBytes ? length : 0;
        if (payload > size - at - kRecordHeadBytes - 4) break;
        const auto covered = kRecordHeadBytes + static_cast<std::size_t>(payload);
        store_le<std::uint32_t>(data + at + covered, crc_of(data + at, covered));
        if (kind == kEnd) break;
        at += covered + 4;
    }
    return size;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return mlckpt::fuzz::mutate_and_reseal(data, size, max_size, seed, reseal);
}

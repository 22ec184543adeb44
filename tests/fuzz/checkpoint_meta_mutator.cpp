// Keeps mutated metadata past its checksum: the CHECKSUM line that ends the
// text, the CRC-32 of everything before it.
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "hash/crc32.hpp"
#include "resealing_mutator.hpp"

using namespace mlckpt::core;

namespace {

std::size_t reseal(std::uint8_t* data, std::size_t size, std::size_t max_size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    // The last CHECKSUM line is replaced, as the parser finds it; without
    // one, a line is added.
    std::size_t last = text.rfind("CHECKSUM ");
    if (last != std::string_view::npos && last > 0 && text[last - 1] != '\n') last = std::string_view::npos;
    std::string sealed(text.substr(0, last));
    if (!sealed.empty() && sealed.back() != '\n') sealed += '\n';
    sealed += "CHECKSUM " + crc32_hex(crc32_of(std::as_bytes(std::span(sealed.data(), sealed.size())))) + "\n";
    if (sealed.size() > max_size) return size;
    std::memcpy(data, sealed.data(), sealed.size());
    return sealed.size();
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return mlckpt::fuzz::mutate_and_reseal(data, size, max_size, seed, reseal);
}

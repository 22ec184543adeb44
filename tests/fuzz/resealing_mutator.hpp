// The custom mutators of formats that carry their own checksums: a mutated
// input nearly always fails its checksum, and the parser behind it would
// never be reached. libFuzzer mutates; then, three times out of four, the
// checksums are made right again; the fourth keeps inputs that fail them.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace mlckpt::fuzz {

// `reseal(data, size, max_size)` returns the input's new size.
template <typename Reseal>
std::size_t mutate_and_reseal(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned int seed,
                              const Reseal& reseal) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 4 != 0) size = reseal(data, size, max_size);
    return size;
}

}  // namespace mlckpt::fuzz

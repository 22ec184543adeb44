// Test data for byte-exact file checks: a reproducible pseudo-random
// pattern, and a whole file read back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/file.hpp"

namespace mlckpt::test {

inline std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    std::uint32_t x = seed;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<std::byte>(x >> 24);
    }
    return v;
}

inline std::vector<std::byte> read_all(const std::filesystem::path& path) {
    core::File f = core::File::open_read(path);
    std::vector<std::byte> v(f.size());
    f.read_exact_at(v, 0);
    return v;
}

}  // namespace mlckpt::test

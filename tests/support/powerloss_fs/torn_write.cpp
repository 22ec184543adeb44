#include "torn_write.hpp"

#include <algorithm>

namespace powerloss {

namespace {

// splitmix64: one step of a well-mixed, reproducible sequence.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

std::size_t torn_prefix_length(off_t offset, std::size_t length, std::uint64_t seed) {
    if (length == 0) return 0;
    const off_t end = offset + static_cast<off_t>(length);
    const off_t first_page = offset / torn_page_size;
    const off_t pages = (end - 1) / torn_page_size - first_page + 1;
    if (pages == 1) return length;
    const off_t kept_pages = 1 + static_cast<off_t>(mix(seed) % static_cast<std::uint64_t>(pages - 1));
    const off_t kept_end = std::min(end, (first_page + kept_pages) * torn_page_size);
    return static_cast<std::size_t>(kept_end - offset);
}

}  // namespace powerloss

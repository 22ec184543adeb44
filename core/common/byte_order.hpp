// Fixed-width integers as explicit bytes: file formats are written field by
// field, never as a struct, so they mean the same on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace mlckpt::core {

template <typename T>
void store_le(std::byte* at, T value) {
    auto v = static_cast<std::make_unsigned_t<T>>(value);
    for (std::size_t i = 0; i < sizeof(T); ++i) at[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

// Reads a little-endian value, or a big-endian one when `big_endian`.
template <typename T>
T load(const std::byte* at, bool big_endian = false) {
    using U = std::make_unsigned_t<T>;
    U v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        std::size_t shift = 8 * (big_endian ? sizeof(T) - 1 - i : i);
        // Narrower than int, the shift is done in int: cast back explicitly.
        v = static_cast<U>(v | static_cast<U>(static_cast<U>(static_cast<std::uint8_t>(at[i])) << shift));
    }
    return static_cast<T>(v);
}

template <typename T>
T load_le(const std::byte* at) {
    return load<T>(at, false);
}

}  // namespace mlckpt::core

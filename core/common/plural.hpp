// Counts in messages: "1 node", "4 nodes".
#pragma once

#include <cstddef>
#include <string>

namespace mlckpt::core {

// `n` and the noun, with an "s" unless n is 1 (the nouns of the messages
// take a plain "s").
inline std::string plural(std::size_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace mlckpt::core

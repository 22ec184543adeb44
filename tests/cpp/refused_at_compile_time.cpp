// Protections the wrapper refuses at compile time, one per MLCKPT_REFUSED
// value; tests/cpp/CMakeLists.txt expects each static_assert's message.
// Without MLCKPT_REFUSED the file compiles: the refusals come from the
// protected type alone.
#include <cstdint>
#include <vector>

#include "mlckpt/mlckpt.hpp"

void protect_one(mlckpt::Session& s) {
#if !defined(MLCKPT_REFUSED)
    std::vector<std::uint8_t> flags(8);
    s.protect(1, flags);
#elif MLCKPT_REFUSED == 1
    std::vector<bool> flags(8);  // packed bits, no bool array
    s.protect(1, flags);
#elif MLCKPT_REFUSED == 2
    static double field[16];
    double* pointer = field;  // meant: protect(1, pointer, 16)
    s.protect(1, pointer);
#elif MLCKPT_REFUSED == 3
    const std::vector<std::uint8_t> flags(8);  // recovery could not write it
    s.protect(1, flags);
#endif
}

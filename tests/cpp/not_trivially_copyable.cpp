// Must not compile: a std::string is not trivially copyable, so it cannot be
// saved and restored as raw bytes (tests/cpp/CMakeLists.txt expects the
// static_assert's message).
#include <string>
#include <vector>

#include "mlckpt/mlckpt.hpp"

void protect_strings(mlckpt::Session& s, std::vector<std::string>& names) {
    s.protect(1, names);
}

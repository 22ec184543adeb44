// Names read from files (a metadata record, a container header, an
// execution id) are used to build paths: they must name a file in a
// directory, never reach another one.
#pragma once

#include <algorithm>
#include <string_view>

namespace mlckpt::core {

// Printable ASCII, at most 255 bytes, no '/', not "." or "..".
inline bool is_file_name(std::string_view name) {
    if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
    return std::all_of(name.begin(), name.end(), [](char ch) {
        const auto byte = static_cast<unsigned char>(ch);
        return byte >= 0x20 && byte < 0x7f && ch != '/';
    });
}

}  // namespace mlckpt::core

// Every entry below a directory with its content (files), target (links)
// or nothing (directories): two snapshots compare equal when the tree was
// left untouched, bit for bit.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace mlckpt::test {

inline std::map<std::string, std::string> tree_snapshot(const std::filesystem::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const std::string name = entry.path().lexically_relative(root).string();
        if (entry.is_symlink()) {
            out[name] = "-> " + std::filesystem::read_symlink(entry.path()).string();
        } else if (entry.is_regular_file()) {
            std::ifstream in(entry.path(), std::ios::binary);
            out[name] = std::string(std::istreambuf_iterator<char>(in), {});
        } else {
            out[name] = "(directory)";
        }
    }
    return out;
}

}  // namespace mlckpt::test

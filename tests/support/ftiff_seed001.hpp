// The seven-checkpoint example of the FTI-FF specification (seed 001): its
// protect calls and its expected container layouts, shared by the unit test
// of the container model and the end-to-end test through the C API.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace mlckpt::test::seed001 {

// (variable id, number of FTI_INTG elements) protected before each checkpoint.
inline const std::vector<std::vector<std::pair<int, std::int64_t>>>& protect_calls() {
    static const std::vector<std::vector<std::pair<int, std::int64_t>>> steps = {
        {{1, 1000000}, {2, 2000000}, {3, 3000000}},
        {{4, 4000000}},
        {{2, 6000000}, {3, 7000000}},
        {{5, 5000000}},
        {{2, 5000000}, {3, 6000000}},
        {{2, 8000000}, {3, 9000000}},
        {{2, 1000000}, {3, 2000000}},
    };
    return steps;
}

constexpr std::int64_t kFinalFileSize = 108000732;

// The record lines of a DATASTRUCTURE dump, trimmed, without pointers and hashes.
inline std::vector<std::string> records(const std::string& dump_text) {
    std::vector<std::string> out;
    std::istringstream in(dump_text);
    for (std::string line; std::getline(in, line);) {
        auto b = line.find_first_not_of(' ');
        if (b == std::string::npos) continue;
        line = line.substr(b);
        if (line[0] == '*' || line[0] == '-' || line.rfind("hash", 0) == 0) continue;
        out.push_back(line);
    }
    return out;
}

// Expected records by checkpoint, from ftiff_seed001.txt in `data_dir`;
// empty when the file cannot be read.
inline std::vector<std::vector<std::string>> expected_checkpoints(const std::string& data_dir) {
    std::ifstream in(data_dir + "/ftiff_seed001.txt");
    std::vector<std::vector<std::string>> out;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("CHECKPOINT", 0) == 0) {
            out.emplace_back();
        } else if (!line.empty() && line[0] != '#' && line != "END" && !out.empty()) {
            out.back().push_back(line);
        }
    }
    return out;
}

}  // namespace mlckpt::test::seed001

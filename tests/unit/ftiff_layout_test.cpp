// The FTI-FF container model reproduces, field for field, the seven
// checkpoints of the example in the FTI-FF specification (seed 001).
#include "format/ftiff_layout.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace mlckpt::core::ftiff {
namespace {

// The record lines of a DATASTRUCTURE dump, trimmed, without pointers and hashes.
std::vector<std::string> records(const std::string& dump_text) {
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

// Expected dumps from tests/unit/data/ftiff_seed001.txt, by checkpoint.
std::vector<std::vector<std::string>> seed_checkpoints() {
    std::ifstream in(MLCKPT_TEST_DATA_DIR "/ftiff_seed001.txt");
    EXPECT_TRUE(in.good());
    std::vector<std::vector<std::string>> out;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("CHECKPOINT", 0) == 0) {
            out.emplace_back();
        } else if (!line.empty() && line[0] != '#' && line != "END") {
            out.back().push_back(line);
        }
    }
    return out;
}

TEST(FtiffLayout, ReproducesTheSevenCheckpointsOfTheSpecification) {
    auto expected = seed_checkpoints();
    ASSERT_EQ(expected.size(), 7u);
    const std::int64_t kInt = 4;  // FTI_INTG
    std::vector<VariableExtent> protect;
    auto set = [&](int id, std::int64_t count) {
        for (auto& v : protect) {
            if (v.id == id) {
                v.bytes = count * kInt;
                return;
            }
        }
        protect.push_back({id, count * kInt});
    };
    // The protect calls of the specification, checkpoint by checkpoint.
    std::vector<std::vector<std::pair<int, std::int64_t>>> steps = {
        {{1, 1000000}, {2, 2000000}, {3, 3000000}},
        {{4, 4000000}},
        {{2, 6000000}, {3, 7000000}},
        {{5, 5000000}},
        {{2, 5000000}, {3, 6000000}},
        {{2, 8000000}, {3, 9000000}},
        {{2, 1000000}, {3, 2000000}},
    };
    Layout layout;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        for (auto [id, count] : steps[i]) set(id, count);
        layout.update(protect);
        EXPECT_EQ(records(dump(layout)), expected[i]) << "checkpoint " << i + 1;
    }
    // The file ends after the last container of the last block.
    const Block& last = layout.blocks().back();
    EXPECT_EQ(layout.file_size(), last.offset + last.dbsize);
    EXPECT_EQ(layout.file_size(), 108000732);
    EXPECT_EQ(layout.data_size(), (1000000 + 1000000 + 2000000 + 4000000 + 5000000) * kInt);
}

TEST(FtiffLayout, UnchangedSizesAddNoBlock) {
    Layout layout;
    layout.update({{7, 100}, {8, 0}});
    layout.update({{7, 100}, {8, 0}});
    ASSERT_EQ(layout.blocks().size(), 1u);
    EXPECT_EQ(layout.blocks()[0].chunks[1].container_size, 0);
    EXPECT_FALSE(layout.blocks()[0].chunks[1].has_content);
    EXPECT_EQ(layout.blocks()[0].chunks[0].fptr, kFileBlockBytes + kBlockMetaBytes + 2 * kChunkMetaBytes);
    EXPECT_EQ(layout.chunks_of(7).size(), 1u);
}

}  // namespace
}  // namespace mlckpt::core::ftiff

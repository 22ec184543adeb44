// The FTI-FF container model reproduces, field for field, the seven
// checkpoints of the example in the FTI-FF specification (seed 001).
#include "format/ftiff/ftiff_layout.hpp"

#include <gtest/gtest.h>

#include "ftiff_seed001.hpp"

namespace mlckpt::core::ftiff {
namespace {

using test::seed001::records;

TEST(FtiffLayout, ReproducesTheSevenCheckpointsOfTheSpecification) {
    auto expected = test::seed001::expected_checkpoints(MLCKPT_TEST_DATA_DIR);
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
    const auto& steps = test::seed001::protect_calls();
    Layout layout;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        for (auto [id, count] : steps[i]) set(id, count);
        layout.update(protect);
        EXPECT_EQ(records(dump(layout)), expected[i]) << "checkpoint " << i + 1;
    }
    // The file ends after the last container of the last block.
    const Block& last = layout.blocks().back();
    EXPECT_EQ(layout.file_size(), last.offset + last.dbsize);
    EXPECT_EQ(layout.file_size(), test::seed001::kFinalFileSize);
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

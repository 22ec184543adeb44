#include "checkpoint/snapshot_copy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/error.hpp"

namespace mlckpt::core {
namespace {

Variable variable_of(int id, std::vector<std::uint32_t>& data) {
    return Variable{id, data.data(), static_cast<std::int64_t>(data.size()), 0, sizeof(std::uint32_t)};
}

// The copies hold what the variables held when take() ran, page-aligned,
// and stay as they are when the application changes its data.
TEST(SnapshotCopy, CopiesAreIndependentOfTheData) {
    std::vector<std::uint32_t> a(1000);
    std::vector<std::uint32_t> b(5);
    std::iota(a.begin(), a.end(), 7u);
    std::iota(b.begin(), b.end(), 100u);
    const std::vector<Variable> vars = {variable_of(3, a), variable_of(9, b)};
    SnapshotCopy copy(1 << 20);
    std::vector<Variable> copies = copy.take(vars);
    ASSERT_EQ(copies.size(), 2u);
    std::fill(a.begin(), a.end(), 0u);
    std::fill(b.begin(), b.end(), 0u);
    for (std::size_t i = 0; i < copies.size(); ++i) {
        EXPECT_EQ(copies[i].id, vars[i].id);
        EXPECT_EQ(copies[i].bytes(), vars[i].bytes());
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(copies[i].ptr) % 4096, 0u) << "page-aligned for direct writes";
    }
    const auto* first = static_cast<const std::uint32_t*>(copies[0].ptr);
    const auto* second = static_cast<const std::uint32_t*>(copies[1].ptr);
    EXPECT_EQ(first[0], 7u);
    EXPECT_EQ(first[999], 1006u);
    EXPECT_EQ(second[4], 104u);
    EXPECT_EQ(SnapshotCopy::footprint(vars), 8192u) << "each copy rounded up to 4 KiB";
}

// The region is kept from one checkpoint to the next while the data fits.
TEST(SnapshotCopy, RegionIsReusedAndGrowsWithTheData) {
    std::vector<std::uint32_t> a(100, 1u);
    SnapshotCopy copy(1 << 20);
    void* first = copy.take({variable_of(1, a)})[0].ptr;
    EXPECT_EQ(copy.take({variable_of(1, a)})[0].ptr, first);
    EXPECT_EQ(copy.held(), 4096u);
    a.resize(5000, 2u);
    std::vector<Variable> grown = copy.take({variable_of(1, a)});
    EXPECT_EQ(copy.held(), 20480u);
    EXPECT_EQ(static_cast<const std::uint32_t*>(grown[0].ptr)[4999], 2u);
}

TEST(SnapshotCopy, DataOverTheBudgetIsRefused) {
    std::vector<std::uint32_t> a(2000);
    SnapshotCopy copy(4096);
    try {
        copy.take({variable_of(1, a)});
        FAIL() << "8000 bytes (8192 with rounding) taken within a 4096-byte budget";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exceeds the budget of 4096"), std::string::npos) << e.what();
    }
    EXPECT_EQ(copy.held(), 0u);
}

// Empty variables (FTI_Protect with count 0) have nothing to copy.
TEST(SnapshotCopy, EmptyVariables) {
    std::vector<std::uint32_t> none;
    SnapshotCopy copy(4096);
    std::vector<Variable> copies = copy.take({variable_of(1, none)});
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(copies[0].bytes(), 0u);
}

}  // namespace
}  // namespace mlckpt::core

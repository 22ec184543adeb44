// Variables that change size across a restart, and per-variable recovery.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

std::size_t stored_ints(int rank) {
    return 100 + 10 * static_cast<std::size_t>(rank);
}
constexpr std::size_t kStoredDoubles = 50;

TEST(Resize, GrowAndShrinkWithRealloc) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int rank = app_rank();
    if (phase() == 1) {
        std::vector<int> ints(stored_ints(rank));
        std::vector<double> doubles(kStoredDoubles);
        for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int>(pattern(rank, 0, 1, i));
        for (std::size_t i = 0; i < doubles.size(); ++i)
            doubles[i] = static_cast<double>(pattern(rank, 1, 1, i) % 1000);
        ASSERT_FTI(FTI_SCES, FTI_Protect(0, ints.data(), static_cast<int64_t>(ints.size()), FTI_INTG));
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, doubles.data(), kStoredDoubles, FTI_DBLE));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        return;
    }
    // The restarted run starts with buffers of the wrong sizes: too small and too large.
    auto* ints = static_cast<int*>(std::malloc(10 * sizeof(int)));
    auto* doubles = static_cast<double*>(std::malloc(500 * sizeof(double)));
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, ints, 10, FTI_INTG));
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, doubles, 500, FTI_DBLE));
    EXPECT_FTI(FTI_NREC, FTI_Recover());
    EXPECT_NE(std::string(FTI_LastError()).find("variable 0: the checkpoint holds"), std::string::npos)
        << FTI_LastError();
    EXPECT_EQ(FTI_GetStoredSize(0), static_cast<int64_t>(stored_ints(rank) * sizeof(int)));
    EXPECT_EQ(FTI_GetStoredSize(1), static_cast<int64_t>(kStoredDoubles * sizeof(double)));
    EXPECT_EQ(FTI_GetStoredSize(77), 0);

    ints = static_cast<int*>(FTI_Realloc(0, ints));
    ASSERT_NE(ints, nullptr) << FTI_LastError();
    doubles = static_cast<double*>(FTI_Realloc(1, doubles));
    ASSERT_NE(doubles, nullptr) << FTI_LastError();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    for (std::size_t i = 0; i < stored_ints(rank); ++i) {
        ASSERT_EQ(ints[i], static_cast<int>(pattern(rank, 0, 1, i))) << i;
    }
    for (std::size_t i = 0; i < kStoredDoubles; ++i) {
        ASSERT_EQ(doubles[i], static_cast<double>(pattern(rank, 1, 1, i) % 1000)) << i;
    }
    // The buffers FTI_Realloc returned are protected: a new checkpoint has their sizes.
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    std::free(ints);
    std::free(doubles);
}

TEST(Resize, ReprotectBetweenCheckpoints) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int rank = app_rank();
    std::vector<std::uint64_t> large(2000 + static_cast<std::size_t>(rank));
    if (phase() == 1) {
        std::vector<std::uint64_t> small(10, 7);
        ASSERT_FTI(FTI_SCES, FTI_Protect(3, small.data(), 10, FTI_ULNG));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        for (std::size_t i = 0; i < large.size(); ++i) large[i] = pattern(rank, 3, 2, i);
        ASSERT_FTI(FTI_SCES, FTI_Protect(3, large.data(), static_cast<int64_t>(large.size()), FTI_ULNG));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        return;
    }
    EXPECT_EQ(FTI_GetStoredSize(3), static_cast<int64_t>(large.size() * 8));
    ASSERT_FTI(FTI_SCES, FTI_Protect(3, large.data(), static_cast<int64_t>(large.size()), FTI_ULNG));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    for (std::size_t i = 0; i < large.size(); ++i) ASSERT_EQ(large[i], pattern(rank, 3, 2, i));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(RecoverVar, RandomOrder) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(5);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(9, FTI_L1));
        return;
    }
    EXPECT_FTI(FTI_NSCS, FTI_RecoverVar(0));  // before FTI_RecoverVarInit
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarInit());
    std::vector<int> order = {0, 1, 2, 3, 4};
    std::mt19937 rng(static_cast<unsigned>(1234 + app_rank()));
    std::shuffle(order.begin(), order.end(), rng);
    for (int id : order) ASSERT_FTI(FTI_SCES, FTI_RecoverVar(id));
    EXPECT_FTI(FTI_NSCS, FTI_RecoverVar(42));  // not protected
    EXPECT_NE(std::string(FTI_LastError()).find("variable id 42 is not protected"), std::string::npos);
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarFinalize());
    EXPECT_TRUE(d.matches(5));
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test

// FTI_BitFlip and FTI_GetConfig through the C API: the configured bits and
// nothing else change, and what a checkpoint's checksums can and cannot see
// of a flip; the configuration as FTI's structure reports it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

int last_rank() {
    return world_size() - 1;  // no heads in these scenarios: the last application rank
}

// Values unique to (rank, version, element), so that one element's bytes can
// be found in a checkpoint file.
std::vector<double> values(int rank, int version, std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 1e6 * version + 1000.0 * rank + static_cast<double>(i) + 0.318309886;
    return v;
}

std::vector<unsigned char> bytes_of(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    return {p, p + n};
}

// Element by element, the bits that differ between two arrays of T as Bits.
template <typename Bits, typename T>
std::vector<Bits> xor_of(const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<Bits> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        Bits x;
        Bits y;
        std::memcpy(&x, &a[i], sizeof x);
        std::memcpy(&y, &b[i], sizeof y);
        out[i] = x ^ y;
    }
    return out;
}

template <typename Bits>
std::vector<Bits> only(std::size_t n, std::size_t index, Bits mask) {
    std::vector<Bits> out(n);
    out[index] = mask;
    return out;
}

bool error_says(const std::string& text) {
    return std::string(FTI_LastError()).find(text) != std::string::npos;
}

// [injection]: the last rank flips bit 30 (a mantissa bit of a double, an
// exponent bit of a float) of element 3, three times in all.
TEST(BitFlip, FlipsExactlyTheConfiguredBits) {
    ConfigOptions o;
    o.injection = {{"rank", std::to_string(last_rank())}, {"index", "3"}, {"position", "30"}, {"number", "3"}};
    std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::vector<double> doubles = values(app_rank(), 1, 8);
    std::vector<float> floats(8, 1.25f);
    std::vector<std::int32_t> ints(8, 7);
    std::vector<double> two = values(app_rank(), 2, 2);
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, doubles.data(), 8, FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Protect(2, floats.data(), 8, FTI_SFLT));
    ASSERT_FTI(FTI_SCES, FTI_Protect(3, ints.data(), 8, FTI_INTG));
    ASSERT_FTI(FTI_SCES, FTI_Protect(4, two.data(), 2, FTI_DBLE));
    const std::vector<double> d0 = doubles;
    const std::vector<float> f0 = floats;

    if (app_rank() != last_rank()) {
        // Not the configured rank: nothing happens, quietly, as in FTI.
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(1));
        EXPECT_TRUE(error_says("flips no bits")) << FTI_LastError();
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(3));
        EXPECT_EQ(doubles, d0);
    } else {
        EXPECT_FTI(FTI_SCES, FTI_BitFlip(1));
        EXPECT_EQ((xor_of<std::uint64_t>(d0, doubles)), only<std::uint64_t>(8, 3, std::uint64_t{1} << 30));
        EXPECT_FTI(FTI_SCES, FTI_BitFlip(2));
        EXPECT_EQ((xor_of<std::uint32_t>(f0, floats)), only<std::uint32_t>(8, 3, std::uint32_t{1} << 30));
        // Variables that cannot take the flip are errors, and count nothing.
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(3));
        EXPECT_TRUE(error_says("FTI_BitFlip: variable 3 has type handle")) << FTI_LastError();
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(4));
        EXPECT_TRUE(error_says("[injection] index = 3 is not an element of variable 4; allowed: 0 to 1"))
            << FTI_LastError();
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(99));
        EXPECT_TRUE(error_says("variable 99 is not protected")) << FTI_LastError();
        // The third flip of the same bit gives the value back; then none is left.
        EXPECT_FTI(FTI_SCES, FTI_BitFlip(1));
        EXPECT_EQ(doubles, d0);
        EXPECT_FTI(FTI_NSCS, FTI_BitFlip(1));
        EXPECT_TRUE(error_says("the 3 bit flips of")) << FTI_LastError();
        EXPECT_EQ(doubles, d0);
    }
    EXPECT_EQ(ints, std::vector<std::int32_t>(8, 7));
    EXPECT_EQ(two, values(app_rank(), 2, 2));

    FTIT_allConfiguration c = FTI_GetConfig(cfg.c_str(), FTI_COMM_WORLD);
    EXPECT_EQ(c.injection.rank, last_rank());
    EXPECT_EQ(c.injection.index, 3);
    EXPECT_EQ(c.injection.position, 30);
    EXPECT_EQ(c.injection.number, 3);
    EXPECT_EQ(c.injection.frequency, -1);
    EXPECT_EQ(c.injection.counter, app_rank() == last_rank() ? 3 : 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// What a restart's checksums detect. Checkpoint 1 (L4) is taken after a
// flip in memory: it records the flipped value faithfully, and no checksum
// can tell. Checkpoint 2 (L1) is taken of clean data; then the bits the
// next FTI_BitFlip changes in memory are changed the same way in the last
// rank's file of checkpoint 2: a flip in the stored data. The restart finds
// checkpoint 2 failing its checksum (CRC-32 of POSIX files, MD5 of FTI-FF
// chunks) and every rank falls back to checkpoint 1, whose recorded flip
// comes back as it was taken.
TEST(BitFlip, DetectedInTheFileNotInMemory) {
    constexpr std::size_t kCount = 64;
    constexpr std::size_t kIndex = 5;
    constexpr int kBit = 44;
    ConfigOptions o;
    o.injection = {{"rank", std::to_string(last_rank())},
                   {"index", std::to_string(kIndex)},
                   {"position", std::to_string(kBit)},
                   {"number", "2"}};
    std::string cfg = config(o);
    const bool flipper = world_rank() == last_rank();
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        static std::vector<double> data;  // the session points at it until the process ends
        data = values(app_rank(), 1, kCount);
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, data.data(), kCount, FTI_DBLE));
        EXPECT_FTI(flipper ? FTI_SCES : FTI_NSCS, FTI_BitFlip(1));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        const std::vector<double> v2 = values(app_rank(), 2, kCount);
        std::copy(v2.begin(), v2.end(), data.begin());  // in place: the protected buffer stays
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
        if (flipper) {
            const std::vector<double> clean = data;
            ASSERT_FTI(FTI_SCES, FTI_BitFlip(1));
            std::vector<unsigned char> before = bytes_of(clean.data(), kCount * sizeof(double));
            std::vector<unsigned char> after = bytes_of(data.data(), kCount * sizeof(double));
            // The clean element's bytes, found once in the file, take the flip.
            const std::size_t first = kIndex * sizeof(double);
            std::vector<unsigned char> element(before.begin() + first, before.begin() + first + sizeof(double));
            fs::path file = the_file(data_file(2, app_rank()));
            std::vector<unsigned char> content;
            {
                std::ifstream in(file, std::ios::binary);
                content.assign(std::istreambuf_iterator<char>(in), {});
            }
            auto at = std::search(content.begin(), content.end(), element.begin(), element.end());
            ASSERT_NE(at, content.end());
            ASSERT_EQ(std::search(at + 1, content.end(), element.begin(), element.end()), content.end());
            int changed = 0;
            for (std::size_t b = 0; b < before.size(); ++b) {
                if (before[b] == after[b]) continue;
                ASSERT_EQ(b / sizeof(double), kIndex) << "a byte outside the configured element changed";
                at[static_cast<std::ptrdiff_t>(b - first)] ^= static_cast<unsigned char>(before[b] ^ after[b]);
                ++changed;
            }
            ASSERT_EQ(changed, 1) << "one bit, so one byte";
            std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
            out.seekp(at - content.begin());
            out.write(reinterpret_cast<const char*>(&*at), sizeof(double));  // the element, flipped
            ASSERT_TRUE(out.good());
        }
        world_barrier();
        return;  // a crash: no FTI_Finalize
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    std::vector<double> data(kCount);
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, data.data(), kCount, FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    const std::vector<double> v1 = values(app_rank(), 1, kCount);
    EXPECT_EQ((xor_of<std::uint64_t>(v1, data)),
              only<std::uint64_t>(kCount, kIndex, flipper ? std::uint64_t{1} << kBit : 0))
        << "checkpoint 1, with the flip it recorded";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// FTI_GetConfig: what FTI's own test programs read (configuration.ioMode is
// 1000 + ckpt_io), and the session's directories, topology and state.
TEST(GetConfig, ReportsTheSession) {
    std::string cfg = config();
    // Before FTI_Init: zeroes, and an error.
    FTIT_allConfiguration none = FTI_GetConfig(cfg.c_str(), MPI_COMM_WORLD);
    EXPECT_EQ(none.configuration.ioMode, 0);
    EXPECT_EQ(none.execution.initSCES, 0);
    EXPECT_TRUE(error_says("FTI_GetConfig: the library is not initialized")) << FTI_LastError();

    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    FTIT_allConfiguration c = FTI_GetConfig(cfg.c_str(), FTI_COMM_WORLD);
    EXPECT_STREQ(FTI_LastError(), "");
    EXPECT_EQ(c.configuration.ioMode, 1000 + std::stoi(io_mode()));
    EXPECT_STREQ(c.configuration.cfgFile, cfg.c_str());
    EXPECT_EQ(c.configuration.verbosity, 2);
    EXPECT_EQ(c.configuration.blockSize, 64 * 1024);
    EXPECT_EQ(c.configuration.transferSize, 16 * 1024 * 1024);
    EXPECT_EQ(c.configuration.test, 1);
    EXPECT_EQ(c.configuration.generalTag, 2612);
    EXPECT_EQ(c.configuration.maxVarId, 1048575);
    EXPECT_STREQ(c.configuration.suffix, "fti");
    const std::string exec_id = c.execution.id;
    ASSERT_FALSE(exec_id.empty());
    const int node_size = world_size() % 2 == 0 ? 2 : 1;
    const int node = world_rank() / node_size;
    EXPECT_EQ(c.configuration.localDir, (local_dir() / ("node" + std::to_string(node)) / exec_id).string());
    EXPECT_EQ(c.configuration.glbalDir, (global_dir() / exec_id).string());
    EXPECT_EQ(c.configuration.metadDir, (meta_dir() / exec_id).string());
    EXPECT_TRUE(fs::is_directory(c.configuration.localDir));
    EXPECT_EQ(c.execution.reco, 0);
    EXPECT_EQ(c.execution.initSCES, 1);
    EXPECT_FALSE(c.execution.hasCkpt);
    EXPECT_EQ(c.topology.nbProc, world_size());
    EXPECT_EQ(c.topology.myRank, world_rank());
    EXPECT_EQ(c.topology.splitRank, app_rank());
    EXPECT_EQ(c.topology.nodeSize, node_size);
    EXPECT_EQ(c.topology.nbNodes, world_size() / node_size);
    EXPECT_EQ(c.topology.nodeID, node);
    EXPECT_EQ(c.topology.nodeRank, world_rank() % node_size);
    EXPECT_EQ(c.topology.headRank, node * node_size);
    EXPECT_EQ(c.topology.amIaHead, 0);
    EXPECT_EQ(c.topology.nbHeads, 0);
    for (int level = 1; level <= 4; ++level) {
        EXPECT_EQ(c.checkpoint[level].isInline, 1) << level;
        EXPECT_FALSE(c.checkpoint[level].hasCkpt) << level;
    }
    EXPECT_EQ(c.injection.number, 0);
    EXPECT_EQ(c.injection.frequency, -1);

    std::vector<double> data(16, 1.0);
    ASSERT_FTI(FTI_SCES, FTI_Protect(3, data.data(), 16, FTI_DBLE));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(5, FTI_L1));
    // Another path is told with a warning; the session's configuration is returned.
    c = FTI_GetConfig("/nonexistent/other.fti", MPI_COMM_NULL);
    EXPECT_EQ(c.configuration.ioMode, 1000 + std::stoi(io_mode()));
    EXPECT_TRUE(c.execution.hasCkpt);
    EXPECT_EQ(c.execution.ckptId, 5u);
    EXPECT_EQ(c.execution.ckptLvel, 1);
    EXPECT_EQ(c.execution.nbVar, 1u);
    EXPECT_EQ(c.execution.ckptSize, 16 * 8);
    EXPECT_TRUE(c.checkpoint[1].hasCkpt);
    EXPECT_FALSE(c.checkpoint[4].hasCkpt);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());

    FTIT_allConfiguration after = FTI_GetConfig(cfg.c_str(), MPI_COMM_WORLD);
    EXPECT_EQ(after.configuration.ioMode, 0);
    EXPECT_TRUE(error_says("not initialized")) << FTI_LastError();
}

// With heads (registered in head mode only: node_size 2, so world ranks 0
// and 2 are heads): a head that returned FTI_HEAD gets its own view.
TEST(GetConfig, HeadsAndApplicationRanks) {
    std::string cfg = config();
    int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    FTIT_allConfiguration c = FTI_GetConfig(cfg.c_str(), MPI_COMM_WORLD);
    EXPECT_EQ(c.topology.nbHeads, 1);
    EXPECT_EQ(c.topology.nbApprocs, 1);
    EXPECT_EQ(c.topology.headRank, world_rank() - world_rank() % 2);
    if (rc == FTI_HEAD) {  // after the application ranks finalized
        EXPECT_EQ(world_rank() % 2, 0);
        EXPECT_EQ(c.topology.amIaHead, 1);
        EXPECT_EQ(c.topology.nodeRank, 0);
        EXPECT_EQ(c.topology.splitRank, world_rank() / 2);
        EXPECT_EQ(c.topology.body[0], world_rank() + 1);
    } else {
        ASSERT_EQ(rc, FTI_SCES) << FTI_LastError();
        EXPECT_EQ(c.topology.amIaHead, 0);
        EXPECT_EQ(c.topology.nodeRank, 1);
        EXPECT_EQ(c.topology.splitRank, app_rank());
        EXPECT_EQ(c.configuration.keepHeadsAlive, true);
        EXPECT_EQ(c.checkpoint[4].isInline, 0);
        EXPECT_EQ(c.checkpoint[1].isInline, 1);
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test

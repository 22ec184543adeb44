// Passes over the data on several threads: every index once, the same
// checksums as one thread, and a rank's share of its host's CPUs.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "common/parallel_ranges.hpp"
#include "format/dcp/dcp_writer.hpp"
#include "hash/crc32.hpp"
#include "hash/md5.hpp"
#include "test_bytes.hpp"
#include "topology/cpu_share.hpp"

namespace mlckpt::core {
namespace {

TEST(ForRanges, VisitsEveryIndexOnceWhateverTheThreads) {
    for (std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
        for (std::size_t threads : {1u, 2u, 3u, 8u}) {
            std::vector<std::atomic<int>> seen(count);
            for_ranges(count, threads, [&](std::size_t begin, std::size_t end) {
                ASSERT_LE(begin, end);
                for (std::size_t i = begin; i < end; ++i) seen[i]++;
            });
            for (std::size_t i = 0; i < count; ++i)
                EXPECT_EQ(seen[i], 1) << count << " items, " << threads << " threads";
        }
    }
}

TEST(ForRanges, RethrowsAfterEveryRangeIsDone) {
    std::atomic<int> finished{0};
    EXPECT_THROW(for_ranges(4, 4,
                            [&](std::size_t begin, std::size_t) {
                                if (begin == 2) throw std::runtime_error("range 2");
                                finished++;
                            }),
                 std::runtime_error);
    EXPECT_EQ(finished, 3);
}

TEST(BlockDigests, SameOnSeveralThreadsAsOnOne) {
    const std::vector<std::byte> data = test::pattern(5 * 16384 + 123, 7);
    const std::vector<std::uint32_t> one = block_crcs(data, 16384, 1);
    ASSERT_EQ(one.size(), 6u);
    for (std::size_t k = 0; k < one.size(); ++k) {
        const std::size_t pos = k * 16384;
        EXPECT_EQ(one[k], crc32_of(std::span(data).subspan(pos, std::min<std::size_t>(16384, data.size() - pos))));
    }
    EXPECT_EQ(block_crcs(data, 16384, 3), one);
    EXPECT_EQ(block_crcs(data, 16384, 16), one);

    DcpOptions md5{DcpMode::md5, 16384, 1};
    DcpOptions md5_threads{DcpMode::md5, 16384, 4};
    const std::vector<ftiff::Md5> digests = block_digests(data, md5);
    EXPECT_EQ(digests[5], md5_of(std::span(data).subspan(5 * 16384)));
    EXPECT_EQ(block_digests(data, md5_threads), digests);
}

cpu_set_t cpus(std::initializer_list<int> list) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : list) CPU_SET(c, &set);
    return set;
}

TEST(CpuShare, CountsEachCpuAsTheShareItsRanksLeave) {
    const cpu_set_t both = cpus({0, 1});
    EXPECT_EQ(cpu_share_of(both, std::vector{both}), 2);                    // alone, unbound
    EXPECT_EQ(cpu_share_of(both, std::vector{both, both, both, both}), 1);  // four ranks on two cores
    const cpu_set_t first = cpus({0});
    EXPECT_EQ(cpu_share_of(first, std::vector{first, cpus({1})}), 1);  // bound to a core each
    const cpu_set_t four = cpus({0, 1, 2, 3});
    EXPECT_EQ(cpu_share_of(four, std::vector{four, cpus({4, 5, 6, 7})}), 4);  // bound to four cores each
    EXPECT_EQ(cpu_share_of(four, std::vector{four, four}), 2);
    EXPECT_EQ(cpu_share_of(four, std::vector{four, cpus({0, 1})}), 3);  // two CPUs to itself, two shared
}

TEST(CpuShare, CountsTheCpusOfTheJobBoundToNoRank) {
    const cpu_set_t two = cpus({0, 1});
    EXPECT_EQ(cpus_bound_to_none(std::vector{cpus({0})}, two), 1);  // one rank bound to one of two cores
    EXPECT_EQ(cpus_bound_to_none(std::vector{cpus({0}), cpus({1})}, two), 0);
    EXPECT_EQ(cpus_bound_to_none(std::vector{two, two}, two), 0);  // unbound
    EXPECT_EQ(cpus_bound_to_none(std::vector{cpus({1}), cpus({3})}, cpus({0, 1, 2, 3, 4, 5, 6, 7})), 6);
    // A job given CPUs 4-7 of a shared node: the node's other CPUs are not its own.
    EXPECT_EQ(cpus_bound_to_none(std::vector{cpus({4}), cpus({5})}, cpus({4, 5, 6, 7})), 2);
    EXPECT_EQ(cpus_bound_to_none(std::vector{cpus({4}), cpus({5})}, cpus({4, 5})), 0);
}

// The job's CPUs are those of the process that launched this one: here the
// test runner, which no launcher bound, so at least this process's own.
TEST(CpuShare, TheJobsCpusIncludeThisProcesssOwn) {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
    const cpu_set_t job = job_cpus();
    EXPECT_GE(CPU_COUNT(&job), 1);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &mine)) {
            EXPECT_TRUE(CPU_ISSET(cpu, &job)) << "CPU " << cpu;
        }
    }
}

}  // namespace
}  // namespace mlckpt::core

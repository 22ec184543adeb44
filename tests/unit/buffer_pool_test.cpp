// Buffers handed back are kept for the next call of about their size, up to
// kIdleLimit bytes, aligned for direct I/O, until release_idle_buffers().
#include "io/buffer_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "io/direct_io.hpp"

namespace mlckpt::core {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

class BufferPool : public ::testing::Test {
  protected:
    void SetUp() override { release_idle_buffers(); }
    void TearDown() override { release_idle_buffers(); }
};

TEST_F(BufferPool, AlignedAndWritableOverTheSizeAskedFor) {
    PooledBuffer b = take_buffer(3 * kMiB + 5);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.size(), 3 * kMiB + 5);
    EXPECT_TRUE(is_direct_aligned(b.data()));
    std::memset(b.data(), 0xab, b.size());
    EXPECT_EQ(b.data()[b.size() - 1], std::byte{0xab});
}

TEST_F(BufferPool, LargeBuffersAreAlignedForHugePages) {
    PooledBuffer large = take_buffer(8 * kMiB);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % kHugePage, 0u);
    { PooledBuffer odd = take_buffer(3 * kMiB); }
    EXPECT_EQ(idle_buffer_bytes(), 4 * kMiB) << "3 MiB rounded up to two huge pages";
    PooledBuffer small = take_buffer(kMiB);
    EXPECT_TRUE(is_direct_aligned(small.data()));
}

TEST_F(BufferPool, ABufferHandedBackServesTheNextCallOfItsSize) {
    std::byte* first = nullptr;
    {
        PooledBuffer b = take_buffer(8 * kMiB);
        first = b.data();
    }
    EXPECT_EQ(idle_buffer_bytes(), 8 * kMiB);
    PooledBuffer again = take_buffer(8 * kMiB);
    EXPECT_EQ(again.data(), first);
    EXPECT_EQ(idle_buffer_bytes(), 0u);
}

TEST_F(BufferPool, AKeptBufferServesUpToTwiceWhatIsAskedNotMore) {
    { PooledBuffer b = take_buffer(8 * kMiB); }
    PooledBuffer small = take_buffer(kMiB);  // 8 MiB would be eight times too much
    EXPECT_EQ(idle_buffer_bytes(), 8 * kMiB);
    PooledBuffer larger = take_buffer(9 * kMiB);  // too small for it
    EXPECT_EQ(idle_buffer_bytes(), 8 * kMiB);
    PooledBuffer half = take_buffer(4 * kMiB);
    EXPECT_EQ(idle_buffer_bytes(), 0u) << "a 4 MiB call takes the kept 8 MiB buffer";
    EXPECT_EQ(half.size(), 4 * kMiB);
}

TEST_F(BufferPool, KeepsAtMostTheIdleLimit) {
    {
        std::vector<PooledBuffer> many;
        for (std::size_t n = 0; n < kIdleLimit / (8 * kMiB) + 3; ++n) many.push_back(take_buffer(8 * kMiB));
    }
    EXPECT_EQ(idle_buffer_bytes(), kIdleLimit) << "the buffers beyond the limit are freed";
}

TEST_F(BufferPool, ReleaseFreesEverythingKept) {
    { PooledBuffer a = take_buffer(kMiB), b = take_buffer(2 * kMiB); }
    EXPECT_EQ(idle_buffer_bytes(), 3 * kMiB);
    release_idle_buffers();
    EXPECT_EQ(idle_buffer_bytes(), 0u);
}

TEST_F(BufferPool, MovingHandsOverTheBufferOnce) {
    PooledBuffer a = take_buffer(kMiB);
    std::byte* data = a.data();
    PooledBuffer b = std::move(a);
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
    EXPECT_EQ(b.data(), data);
    PooledBuffer c = take_buffer(2 * kMiB);
    c = std::move(b);  // c's own buffer goes back
    EXPECT_EQ(c.data(), data);
    EXPECT_EQ(idle_buffer_bytes(), 2 * kMiB);
}

#if defined(__SANITIZE_ADDRESS__)
TEST_F(BufferPool, AKeptBufferIsPoisonedForTheAddressSanitizer) {
    std::byte* stale = nullptr;
    {
        PooledBuffer b = take_buffer(kMiB);
        stale = b.data();
    }
    EXPECT_DEATH(stale[10] = std::byte{1}, "use-after-poison");
}
#endif

}  // namespace
}  // namespace mlckpt::core

// Large aligned buffers kept from one checkpoint to the next. Memory the
// process has not touched yet costs a page fault per 4 KiB on first use
// (on a VM whose balloon hands free memory back to the host, a fault in
// the host as well): for the 8 MiB staging buffer of a direct write, a few
// milliseconds of every checkpoint, several percent of one at 64 MiB per
// rank. Buffers handed back wait here for the next call of their size,
// up to kIdleLimit bytes, until the session ends. A recovery is a new
// process, whose buffers are all new: large ones are made of huge pages.
#pragma once

#include <cstddef>

namespace mlckpt::core {

// A buffer taken from the pool, aligned for direct I/O (kDirectAlign);
// goes back to the pool when destroyed. Its bytes are not initialised: a
// kept buffer holds whatever its previous user left.
class PooledBuffer {
  public:
    PooledBuffer() = default;
    PooledBuffer(PooledBuffer&& other) noexcept;
    PooledBuffer& operator=(PooledBuffer&& other) noexcept;
    PooledBuffer(const PooledBuffer&) = delete;
    PooledBuffer& operator=(const PooledBuffer&) = delete;
    ~PooledBuffer();

    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }  // what was asked for
    explicit operator bool() const { return data_ != nullptr; }

  private:
    friend PooledBuffer take_buffer(std::size_t bytes);
    PooledBuffer(std::byte* data, std::size_t size, std::size_t capacity)
        : data_(data), size_(size), capacity_(capacity) {}
    void give_back() noexcept;

    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;  // what was allocated
};

// Buffers of this size and more are aligned to it and asked to be backed
// by transparent huge pages (MADV_HUGEPAGE); their capacity is rounded up
// to a multiple of it.
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// What the pool keeps at most between uses: the buffers of an L3
// checkpoint (two sequential writers of two 8 MiB batches) and the encoder's.
inline constexpr std::size_t kIdleLimit = std::size_t{64} << 20;

// `bytes` (> 0) of aligned memory: a kept buffer of at least `bytes` and at
// most twice as many when there is one, else a new one. Throws
// std::bad_alloc when memory is short.
PooledBuffer take_buffer(std::size_t bytes);

// Frees every kept buffer: the application gets the memory back at
// FTI_Finalize.
void release_idle_buffers() noexcept;

// Bytes the pool keeps now (tests).
std::size_t idle_buffer_bytes() noexcept;

}  // namespace mlckpt::core

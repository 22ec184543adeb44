// Writes a file front to back from pieces that arrive one after another (a
// partner's file from the network, parity from the encoder), around the page
// cache. The pieces are gathered into an aligned batch buffer; a full batch
// is written directly by a worker while the caller fills the other one, so
// the transfer or the encoding goes on while the disk works, and the page
// cache's copy and reclaim are not paid for bytes nobody reads back soon.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <span>

#include "io/direct_io.hpp"
#include "io/direct_writer.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

class SequentialWriter {
  public:
    static constexpr std::size_t kDefaultBatch = std::size_t{8} << 20;
    // The batch for a file of `bytes`: the default, or the file's size
    // rounded up to kDirectAlign when smaller, so that a small file does
    // not keep two default batches in the buffer pool.
    static std::size_t batch_for(std::uint64_t bytes) {
        const std::uint64_t aligned =
            (std::max<std::uint64_t>(bytes, 1) + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
        return static_cast<std::size_t>(std::min<std::uint64_t>(kDefaultBatch, aligned));
    }

    // Writes into `file`, new and empty (File::create). batch_bytes: a
    // multiple of kDirectAlign.
    explicit SequentialWriter(File file, std::size_t batch_bytes = kDefaultBatch);
    SequentialWriter(const SequentialWriter&) = delete;
    SequentialWriter& operator=(const SequentialWriter&) = delete;
    // Waits for a write in flight; the file is left as it is (the caller
    // removes an unfinished file).
    ~SequentialWriter();

    // Appends `piece`. Throws the reason of an earlier batch's failed write.
    void append(std::span<const std::byte> piece);
    // Writes what is left, makes the file durable and closes it. Throws like
    // File::write_all_at and File::sync.
    void finish();

    std::uint64_t size() const { return written_ + filled_; }

  private:
    // Hands the current batch to the worker once the previous one is on disk.
    void submit();
    void wait_for_batch();

    std::size_t batch_bytes_;
    PooledBuffer batches_[2];
    File file_;
    DirectWriter direct_;  // on file_
    int current_ = 0;
    std::size_t filled_ = 0;     // bytes of the current batch
    std::uint64_t written_ = 0;  // file offset of the current batch
    std::future<void> in_flight_;
};

}  // namespace mlckpt::core

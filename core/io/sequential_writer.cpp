#include "io/sequential_writer.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

std::size_t checked_batch(std::size_t bytes) {
    if (bytes == 0 || bytes % kDirectAlign != 0) {
        fail(ErrorKind::usage, "sequential writer batch of " + std::to_string(bytes) + " bytes is not a multiple of " +
                                   std::to_string(kDirectAlign));
    }
    return bytes;
}

}  // namespace

SequentialWriter::SequentialWriter(File file, std::size_t batch_bytes)
    : batch_bytes_(checked_batch(batch_bytes)),
      batches_{take_buffer(batch_bytes_), take_buffer(batch_bytes_)},
      file_(std::move(file)),
      direct_(file_, kDirectAlign) {}  // the batches are aligned: no staging copy

SequentialWriter::~SequentialWriter() {
    if (in_flight_.valid()) in_flight_.wait();
}

void SequentialWriter::wait_for_batch() {
    if (in_flight_.valid()) in_flight_.get();  // rethrows the worker's failure
}

void SequentialWriter::submit() {
    wait_for_batch();
    std::span<const std::byte> batch(batches_[current_].data(), filled_);
    const std::uint64_t offset = written_;
    in_flight_ = std::async(std::launch::async, [this, batch, offset] {
        direct_.write_at(batch, offset);
        // Refused by the file system: the batch is in the page cache; start
        // its writeback so that the final sync finds little left to do.
        if (!direct_.direct()) file_.start_writeback(offset, batch.size());
    });
    written_ += filled_;
    filled_ = 0;
    current_ = 1 - current_;
}

void SequentialWriter::append(std::span<const std::byte> piece) {
    while (!piece.empty()) {
        const std::size_t n = std::min(piece.size(), batch_bytes_ - filled_);
        std::memcpy(batches_[current_].data() + filled_, piece.data(), n);
        filled_ += n;
        piece = piece.subspan(n);
        if (filled_ == batch_bytes_) submit();
    }
}

void SequentialWriter::finish() {
    if (filled_ > 0) submit();  // the tail past the last aligned offset goes through the page cache
    wait_for_batch();
    file_.sync();
    file_.close();
}

}  // namespace mlckpt::core

#include "io/direct_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <new>

namespace mlckpt::core {

bool is_direct_aligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % kDirectAlign == 0;
}

AlignedBytes allocate_aligned(std::size_t bytes) {
    const std::size_t rounded = (bytes + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
    AlignedBytes memory(static_cast<std::byte*>(std::aligned_alloc(kDirectAlign, rounded)), std::free);
    if (!memory) throw std::bad_alloc();
    return memory;
}

DirectDescriptor::DirectDescriptor(const std::filesystem::path& path, int open_flags, std::size_t staging_bytes)
    : staging_bytes_(staging_bytes), staging_(nullptr, std::free) {
    do {
        fd_ = ::open(path.c_str(), open_flags | O_DIRECT | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) return;
    staging_.reset(static_cast<std::byte*>(std::aligned_alloc(kDirectAlign, staging_bytes_)));
    if (!staging_) close();
}

DirectDescriptor::~DirectDescriptor() {
    close();
}

void DirectDescriptor::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace mlckpt::core

#include "io/direct_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <new>

namespace mlckpt::core {

bool is_direct_aligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % kDirectAlign == 0;
}

DirectDescriptor::DirectDescriptor(const std::filesystem::path& path, int open_flags, std::size_t staging_bytes) {
    do {
        fd_ = ::open(path.c_str(), open_flags | O_DIRECT | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) return;
    try {
        staging_ = take_buffer(staging_bytes);
    } catch (const std::bad_alloc&) {
        close();
    }
}

DirectDescriptor::~DirectDescriptor() {
    close();
}

void DirectDescriptor::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace mlckpt::core

#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace mlckpt::core {

MappedFile::MappedFile(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(ErrorKind::io, "cannot open '" + path.string() + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int err = errno;
        ::close(fd);
        fail(ErrorKind::io, "'" + path.string() + "' is not a readable regular file" +
                                (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
    }
    length_ = static_cast<std::size_t>(st.st_size);
    if (length_ > 0) {
        address_ = ::mmap(nullptr, length_, PROT_READ, MAP_SHARED, fd, 0);
        if (address_ == MAP_FAILED) {
            const int err = errno;
            address_ = nullptr;
            ::close(fd);
            fail(ErrorKind::io, "cannot map '" + path.string() + "': " + std::strerror(err));
        }
    }
    ::close(fd);  // the mapping keeps the file
}

MappedFile::MappedFile(MappedFile&& other) noexcept : address_(other.address_), length_(other.length_) {
    other.address_ = nullptr;
    other.length_ = 0;
}

MappedFile::~MappedFile() {
    if (address_ != nullptr) ::munmap(address_, length_);
}

}  // namespace mlckpt::core

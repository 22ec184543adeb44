// A whole file mapped read-only: its bytes as a span, without a copy, for
// as long as the object lives.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace mlckpt::core {

class MappedFile {
  public:
    // Throws an io Error naming the file when it cannot be opened or mapped.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&&) = delete;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(address_), length_}; }

  private:
    void* address_ = nullptr;
    std::size_t length_ = 0;
};

}  // namespace mlckpt::core

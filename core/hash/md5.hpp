// MD5 through OpenSSL's EVP interface, incremental.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

namespace mlckpt::core {

class Md5Hasher {
  public:
    Md5Hasher();
    ~Md5Hasher();
    Md5Hasher(const Md5Hasher&) = delete;
    Md5Hasher& operator=(const Md5Hasher&) = delete;

    void update(std::span<const std::byte> data);
    std::array<std::uint8_t, 16> finish();  // the hasher can be reused after this

  private:
    struct State;
    std::unique_ptr<State> state_;
};

std::array<std::uint8_t, 16> md5_of(std::span<const std::byte> data);

}  // namespace mlckpt::core

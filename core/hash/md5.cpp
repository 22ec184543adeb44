#include "hash/md5.hpp"

#include <openssl/evp.h>

#include "common/error.hpp"

namespace mlckpt::core {

struct Md5Hasher::State {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~State() { EVP_MD_CTX_free(ctx); }
};

Md5Hasher::Md5Hasher() : state_(std::make_unique<State>()) {
    if (state_->ctx == nullptr || EVP_DigestInit_ex(state_->ctx, EVP_md5(), nullptr) != 1) {
        fail(ErrorKind::io, "OpenSSL cannot provide MD5");
    }
}

Md5Hasher::~Md5Hasher() = default;

void Md5Hasher::update(std::span<const std::byte> data) {
    if (!data.empty() && EVP_DigestUpdate(state_->ctx, data.data(), data.size()) != 1) {
        fail(ErrorKind::io, "MD5 update failed");
    }
}

std::array<std::uint8_t, 16> Md5Hasher::finish() {
    std::array<std::uint8_t, 16> out{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(state_->ctx, out.data(), &len) != 1 || len != out.size() ||
        EVP_DigestInit_ex(state_->ctx, EVP_md5(), nullptr) != 1) {
        fail(ErrorKind::io, "MD5 finalization failed");
    }
    return out;
}

std::array<std::uint8_t, 16> md5_of(std::span<const std::byte> data) {
    Md5Hasher h;
    h.update(data);
    return h.finish();
}

}  // namespace mlckpt::core

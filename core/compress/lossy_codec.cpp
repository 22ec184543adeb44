#include "compress/lossy_codec.hpp"

#include <zfp.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "common/byte_order.hpp"
#include "common/error.hpp"

namespace mlckpt::core {

namespace {

constexpr std::size_t kExponentBytes = 4;

// Bits per ZFP block of four values: a little more than the values' own,
// so that a stream never needs more than the raw bytes (plus a word) to
// decode, and a hostile one cannot make the decoder read further.
unsigned max_bits_per_block(std::uint8_t unit) {
    return 4 * 8 * unit + 64;
}

// The bytes a decoder may read for `values` values: every block at its cap,
// rounded up to ZFP's 64-bit words, and one word more.
std::size_t readable_bytes(std::uint8_t unit, std::size_t values) {
    const std::size_t bits = (values + 3) / 4 * max_bits_per_block(unit);
    return (bits + 63) / 64 * 8 + 8;
}

struct StreamDeleter {
    void operator()(zfp_stream* z) const { zfp_stream_close(z); }
};
struct BitStreamDeleter {
    void operator()(bitstream* b) const { stream_close(b); }
};
struct FieldDeleter {
    void operator()(zfp_field* f) const { zfp_field_free(f); }
};

zfp_type type_of(std::uint8_t unit) {
    return unit == 4 ? zfp_type_float : zfp_type_double;
}

// A ZFP stream on `buffer` set for `minexp`, with the capped bits per block.
std::unique_ptr<zfp_stream, StreamDeleter> open_stream(std::uint8_t unit, int minexp, void* buffer, std::size_t bytes,
                                                       std::unique_ptr<bitstream, BitStreamDeleter>& bits) {
    bits.reset(stream_open(buffer, bytes));
    std::unique_ptr<zfp_stream, StreamDeleter> z(zfp_stream_open(bits.get()));
    if (!bits || !z || !zfp_stream_set_params(z.get(), 1, max_bits_per_block(unit), ZFP_MAX_PREC, minexp)) {
        fail(ErrorKind::io, "cannot set up a ZFP stream");
    }
    return z;
}

template <typename T>
bool within(std::span<const std::byte> raw, std::span<const std::byte> back, double bound) {
    const std::size_t n = raw.size() / sizeof(T);
    for (std::size_t i = 0; i < n; ++i) {
        T a;
        T b;
        std::memcpy(&a, raw.data() + i * sizeof(T), sizeof(T));
        std::memcpy(&b, back.data() + i * sizeof(T), sizeof(T));
        if (!std::isfinite(a) || !std::isfinite(b) ||
            std::fabs(static_cast<double>(a) - static_cast<double>(b)) > bound) {
            return false;
        }
    }
    return true;
}

void decode(std::uint8_t unit, int minexp, std::span<std::byte> stream, std::span<std::byte> out) {
    std::unique_ptr<bitstream, BitStreamDeleter> bits;
    auto z = open_stream(unit, minexp, stream.data(), stream.size(), bits);
    std::unique_ptr<zfp_field, FieldDeleter> field(zfp_field_1d(out.data(), type_of(unit), out.size() / unit));
    zfp_stream_rewind(z.get());
    if (!field || zfp_decompress(z.get(), field.get()) == 0) fail(ErrorKind::corrupt, "ZFP stream does not decode");
}

}  // namespace

std::size_t compress_lossy_block(std::uint8_t unit, double bound, std::span<const std::byte> raw,
                                 std::span<std::byte> out, std::span<std::byte> reconstructed) {
    if ((unit != 4 && unit != 8) || raw.size() % unit != 0 || raw.empty() || !(bound > 0) || out.size() < raw.size() ||
        reconstructed.size() < raw.size()) {
        return 0;
    }
    const std::size_t values = raw.size() / unit;
    // The exponent of the bound, as ZFP's accuracy mode sets it.
    int minexp = 0;
    {
        std::unique_ptr<zfp_stream, StreamDeleter> probe(zfp_stream_open(nullptr));
        zfp_stream_set_accuracy(probe.get(), bound);
        zfp_stream_params(probe.get(), nullptr, nullptr, nullptr, &minexp);
    }
    std::vector<std::byte> stream(readable_bytes(unit, values));
    std::unique_ptr<bitstream, BitStreamDeleter> bits;
    auto z = open_stream(unit, minexp, stream.data(), stream.size(), bits);
    // ZFP reads its input through a non-const pointer; it does not write it.
    std::unique_ptr<zfp_field, FieldDeleter> field(
        zfp_field_1d(const_cast<std::byte*>(raw.data()), type_of(unit), values));
    zfp_stream_rewind(z.get());
    const std::size_t size = field ? zfp_compress(z.get(), field.get()) : 0;
    if (size == 0 || kExponentBytes + size >= raw.size()) return 0;
    try {
        decode(unit, minexp, stream, reconstructed.first(raw.size()));
    } catch (const Error&) {
        return 0;
    }
    const bool ok = unit == 4 ? within<float>(raw, reconstructed, bound) : within<double>(raw, reconstructed, bound);
    if (!ok) return 0;
    store_le<std::int32_t>(out.data(), minexp);
    std::memcpy(out.data() + kExponentBytes, stream.data(), size);
    return kExponentBytes + size;
}

void decompress_lossy_block(std::uint8_t unit, std::span<const std::byte> stored, std::span<std::byte> out,
                            const std::string& what) {
    if ((unit != 4 && unit != 8) || out.size() % unit != 0) {
        fail(ErrorKind::corrupt, what + ": a lossy block of elements of " + std::to_string(unit) +
                                     " bytes (allowed: 4, float, or 8, double)");
    }
    if (stored.size() <= kExponentBytes)
        fail(ErrorKind::corrupt, what + ": a lossy block of " + std::to_string(stored.size()) + " bytes");
    const auto minexp = load_le<std::int32_t>(stored.data());
    if (minexp < ZFP_MIN_EXP - 64 || minexp > 1100) {
        fail(ErrorKind::corrupt, what + ": a lossy block with exponent " + std::to_string(minexp));
    }
    // The stream in a buffer as long as the capped decoder may read.
    const std::size_t values = out.size() / unit;
    std::vector<std::byte> stream(std::max(readable_bytes(unit, values), stored.size()));
    std::memcpy(stream.data(), stored.data() + kExponentBytes, stored.size() - kExponentBytes);
    try {
        decode(unit, minexp, stream, out);
    } catch (const Error& e) {
        fail(ErrorKind::corrupt, what + ": " + e.what());
    }
}

}  // namespace mlckpt::core

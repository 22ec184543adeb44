// The packed frame of a compressed variable (compress/packed_frame.hpp):
// round trips of every codec and shuffle unit, incompressible data stored
// as it is, and hostile frames refused with a message before anything is
// sized by them.
#include "compress/packed_frame.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "common/byte_order.hpp"
#include "compress/lossy_codec.hpp"
#include "expect_error.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {
namespace {

using test::error_message;

std::vector<std::byte> smooth_doubles(std::size_t count) {
    std::vector<double> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = 300.0 + 20.0 * std::sin(static_cast<double>(i) * 1e-3);
    std::vector<std::byte> out(count * sizeof(double));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

std::vector<std::byte> random_bytes(std::size_t count, unsigned seed) {
    std::mt19937_64 g(seed);
    std::vector<std::byte> out(count);
    for (auto& b : out) b = static_cast<std::byte>(g() & 0xff);
    return out;
}

// Encodes `raw` fed in pieces of `piece` bytes; the frame.
std::vector<std::byte> encode(Codec codec, std::uint8_t unit, std::size_t block, std::span<const std::byte> raw,
                              std::size_t piece = SIZE_MAX, std::size_t threads = 2) {
    std::vector<std::byte> frame;
    PackedEncoder enc(codec, unit, block, threads,
                      [&](std::span<const std::byte> p) { frame.insert(frame.end(), p.begin(), p.end()); });
    for (std::size_t done = 0; done < raw.size();) {
        const std::size_t n = std::min(piece, raw.size() - done);
        enc.feed(raw.subspan(done, n));
        done += n;
    }
    enc.finish();
    EXPECT_EQ(enc.frame_bytes(), frame.size());
    EXPECT_EQ(enc.raw_size(), raw.size());
    EXPECT_EQ(enc.raw_crc(), crc32_of(raw));
    return frame;
}

struct Decoded {
    PackedTrailer trailer;
    std::vector<PackedBlock> blocks;
    std::vector<std::byte> raw;
};

Decoded decode(std::span<const std::byte> frame) {
    Decoded d;
    d.trailer = parse_packed_trailer(frame.last(kPackedTrailerBytes), frame.size(), "test frame");
    const auto table_at = frame.size() - kPackedTrailerBytes - d.trailer.table_bytes();
    d.blocks =
        parse_packed_table(d.trailer, frame.subspan(table_at, d.trailer.table_bytes()), frame.size(), "test frame");
    d.raw.resize(d.trailer.raw_size);
    const std::uint32_t crc = decode_packed_blocks(d.trailer, d.blocks, frame.first(table_at), d.raw, 2, "test frame");
    EXPECT_EQ(crc, crc32_of(d.raw));
    return d;
}

TEST(PackedFrame, RoundTripsEveryCodecUnitAndPieceSize) {
    const std::vector<std::byte> smooth = smooth_doubles(50000);  // 400,000 bytes
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        for (std::uint8_t unit : {std::uint8_t{1}, std::uint8_t{4}, std::uint8_t{8}, std::uint8_t{24}}) {
            for (std::size_t piece : {std::size_t{1000}, std::size_t{65536}, SIZE_MAX}) {
                const auto frame = encode(codec, unit, 32768, smooth, piece);
                const Decoded d = decode(frame);
                EXPECT_EQ(d.raw, smooth) << codec_name(codec) << " unit " << int{unit} << " piece " << piece;
                EXPECT_EQ(d.trailer.codec, codec);
                EXPECT_EQ(d.trailer.block_bytes % unit, 0u) << "blocks hold whole elements";
            }
        }
    }
}

TEST(PackedFrame, SmoothFieldsShrink) {
    const std::vector<std::byte> smooth = smooth_doubles(1 << 17);
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        const auto frame = encode(codec, 8, 1 << 20, smooth);
        EXPECT_LT(frame.size() * 10, smooth.size() * 8) << codec_name(codec);
    }
}

TEST(PackedFrame, RandomBytesCostAtMostThreePercent) {
    const std::vector<std::byte> noise = random_bytes(4 << 20, 7);
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        const auto frame = encode(codec, 1, 1 << 20, noise);
        EXPECT_LE(frame.size(), noise.size() * 103 / 100) << codec_name(codec);
        const Decoded d = decode(frame);
        for (const PackedBlock& b : d.blocks) EXPECT_TRUE(b.as_is()) << "incompressible blocks are stored as they are";
        EXPECT_EQ(d.raw, noise);
    }
}

TEST(PackedFrame, EmptyAndOneByteVariables) {
    for (std::size_t n : {0, 1}) {
        const std::vector<std::byte> raw(n, std::byte{42});
        const auto frame = encode(Codec::lz4, 8, 4096, raw);
        EXPECT_EQ(decode(frame).raw, raw);
    }
}

TEST(PackedFrame, DamagedBlockIsNamed) {
    const std::vector<std::byte> smooth = smooth_doubles(20000);
    auto frame = encode(Codec::zstd, 8, 16384, smooth);
    const Decoded d = decode(frame);
    ASSERT_GE(d.blocks.size(), 5u);
    frame[static_cast<std::size_t>(d.blocks[3].offset + d.blocks[3].stored / 2)] ^= std::byte{0x10};
    const std::string msg = error_message(ErrorKind::corrupt, [&] { decode(frame); });
    EXPECT_NE(msg.find("block 3 of " + std::to_string(d.blocks.size())), std::string::npos) << msg;
    EXPECT_NE(msg.find("raw bytes 49152..65536"), std::string::npos) << msg;
}

// A frame whose table and trailer are consistent (the CRC resealed) but
// whose block is hostile: c-blosc's header claims another size.
TEST(PackedFrame, HostileBlockHeaderIsRefused) {
    const std::vector<std::byte> smooth = smooth_doubles(4096);
    auto frame = encode(Codec::lz4, 8, 32768, smooth);
    Decoded d = decode(frame);
    ASSERT_EQ(d.blocks.size(), 1u);
    ASSERT_FALSE(d.blocks[0].as_is());
    // c-blosc's header: bytes 4..8 are the raw size it decompresses to.
    store_le<std::uint32_t>(frame.data() + 4, 0x7fff0000u);
    const std::uint32_t crc = crc32_of(std::span(frame).first(d.blocks[0].stored));
    const std::size_t table_at = frame.size() - kPackedTrailerBytes - kPackedTableEntryBytes;
    store_le(frame.data() + table_at + 4, crc);
    Crc32 table_crc;
    table_crc.update(std::span(frame).subspan(table_at, kPackedTableEntryBytes + 24));
    store_le(frame.data() + frame.size() - 8, table_crc.value());
    const std::string msg = error_message(ErrorKind::corrupt, [&] { decode(frame); });
    EXPECT_NE(msg.find("block 0 of 1"), std::string::npos) << msg;
}

TEST(PackedFrame, HostileTrailersAreRefusedBeforeAnythingIsSized) {
    const std::vector<std::byte> smooth = smooth_doubles(4096);
    const auto good = encode(Codec::lz4, 8, 8192, smooth);
    auto trailer_of = [](std::vector<std::byte> frame) { return frame; };
    auto refuse = [&](const std::function<void(std::byte*)>& damage, const std::string& expected) {
        auto frame = trailer_of(good);
        damage(frame.data() + frame.size() - kPackedTrailerBytes);
        const std::string msg = error_message(ErrorKind::corrupt, [&] { decode(frame); });
        EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    };
    refuse([](std::byte* t) { t[28] = std::byte{0}; }, "no MLCZ mark");
    refuse([](std::byte* t) { store_le<std::uint16_t>(t + 18, 9); }, "version 9");
    refuse([](std::byte* t) { t[16] = std::byte{77}; }, "unknown codec 77");
    refuse([](std::byte* t) { t[16] = std::byte{0}; }, "unknown codec 0");
    refuse([](std::byte* t) { t[17] = std::byte{0}; }, "shuffle unit of 0");
    refuse([](std::byte* t) { store_le<std::uint32_t>(t + 8, 0); }, "blocks of 0 bytes");
    // A huge raw size with a consistent block count: the table would not fit.
    refuse(
        [](std::byte* t) {
            store_le<std::uint64_t>(t, std::uint64_t{1} << 50);
            store_le<std::uint32_t>(t + 8, 1u << 30);
            store_le<std::uint32_t>(t + 12, 1u << 20);
        },
        "does not fit");
    refuse([](std::byte* t) { store_le<std::uint32_t>(t + 12, 3); }, "3 blocks of 8192 bytes");
    refuse([](std::byte* t) { store_le<std::uint32_t>(t + 24, 1); }, "block table fails its checksum");
    // Truncated frames.
    for (std::size_t cut : {std::size_t{1}, std::size_t{40}, good.size() - 1}) {
        std::vector<std::byte> frame(good.begin(), good.end() - static_cast<std::ptrdiff_t>(cut));
        const std::string msg = error_message(ErrorKind::corrupt, [&] {
            if (frame.size() < kPackedTrailerBytes) {
                parse_packed_trailer({}, frame.size(), "test frame");
            } else {
                decode(frame);
            }
        });
        EXPECT_NE(msg.find("not a valid compressed variable"), std::string::npos) << msg;
    }
}

template <typename T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

template <typename T>
double max_error(std::span<const std::byte> a, std::span<const std::byte> b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size() / sizeof(T); ++i) {
        T x;
        T y;
        std::memcpy(&x, a.data() + i * sizeof(T), sizeof(T));
        std::memcpy(&y, b.data() + i * sizeof(T), sizeof(T));
        worst = std::max(worst, std::fabs(static_cast<double>(x) - static_cast<double>(y)));
    }
    return worst;
}

// A lossy frame of `raw` (elements of `unit` bytes) within `bound`; the CRC
// the encoder recorded goes to `crc`.
std::vector<std::byte> lossy_frame(std::uint8_t unit, std::size_t block, std::span<const std::byte> raw, double bound,
                                   std::uint32_t* crc = nullptr) {
    std::vector<std::byte> frame;
    PackedEncoder enc(
        Codec::zfp, unit, block, 2,
        [&](std::span<const std::byte> p) { frame.insert(frame.end(), p.begin(), p.end()); }, bound);
    enc.feed(raw);
    enc.finish();
    if (crc != nullptr) *crc = enc.raw_crc();
    return frame;
}

// Lossy frames (FTI_SetErrorBound): every value within the bound, fewer
// bytes, and the frame's CRC is that of the values a restart gets.
TEST(PackedFrame, LossyDoublesAndFloatsStayWithinTheirBound) {
    std::vector<double> d(40000);
    std::vector<float> f(40000);
    std::mt19937 g(11);
    std::normal_distribution<double> noise(0, 1e-3);
    for (std::size_t i = 0; i < d.size(); ++i) {
        d[i] = 300 + 20 * std::sin(static_cast<double>(i) * 1e-3) + noise(g);
        f[i] = static_cast<float>(d[i]);
    }
    for (double bound : {1e-2, 1e-5}) {
        const auto raw = bytes_of(d);
        std::uint32_t crc = 0;
        const auto frame = lossy_frame(8, 65536, raw, bound, &crc);
        const Decoded back = decode(frame);
        EXPECT_EQ(back.trailer.codec, Codec::zfp);
        EXPECT_LE(max_error<double>(raw, back.raw), bound);
        EXPECT_NE(back.raw, raw) << "lossy: not bit for bit";
        EXPECT_EQ(crc, crc32_of(back.raw)) << "the CRC of what a restart gets";
        EXPECT_LT(frame.size(), raw.size() / 2) << "bound " << bound;
    }
    const auto raw = bytes_of(f);
    const auto frame = lossy_frame(4, 32768, raw, 1e-3);
    EXPECT_LE(max_error<float>(raw, decode(frame).raw), 1e-3);
}

// Blocks that cannot be bounded (NaN, infinities) are stored as they are.
TEST(PackedFrame, LossyBlocksWithNonFiniteValuesAreStoredAsTheyAre) {
    std::vector<double> d(4096, 1.5);
    d[100] = std::nan("");
    d[1000] = INFINITY;  // both in block 0 of 2
    const auto raw = bytes_of(d);
    std::vector<std::byte> out(raw.size());
    std::vector<std::byte> back(raw.size());
    EXPECT_EQ(compress_lossy_block(8, 1e-3, raw, out, back), 0u);
    const auto frame = lossy_frame(8, 16384, raw, 1e-3);
    const Decoded dec = decode(frame);
    EXPECT_TRUE(dec.blocks[0].as_is());
    EXPECT_EQ(std::memcmp(dec.raw.data(), raw.data(), 16384), 0) << "the block with the NaN, bit for bit";
    ASSERT_EQ(dec.blocks.size(), 2u);
    EXPECT_FALSE(dec.blocks[1].as_is()) << "a block of finite values is compressed";
}

TEST(PackedFrame, HostileLossyBlocksAreRefused) {
    std::vector<double> d(2048, 2.0);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] += std::sin(static_cast<double>(i));
    const auto raw = bytes_of(d);
    std::vector<std::byte> out(raw.size());
    std::vector<std::byte> back(raw.size());
    const std::size_t n = compress_lossy_block(8, 1e-4, raw, out, back);
    ASSERT_GT(n, 0u);
    std::vector<std::byte> decoded(raw.size());
    decompress_lossy_block(8, std::span(out).first(n), decoded, "block");
    EXPECT_EQ(decoded, back);
    std::vector<std::byte> bad(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
    store_le<std::int32_t>(bad.data(), 5000);
    EXPECT_NE(error_message(ErrorKind::corrupt, [&] { decompress_lossy_block(8, bad, decoded, "block"); })
                  .find("exponent 5000"),
              std::string::npos);
    EXPECT_NE(error_message(ErrorKind::corrupt, [&] { decompress_lossy_block(2, bad, decoded, "block"); })
                  .find("elements of 2 bytes"),
              std::string::npos);
    // Garbage after a valid exponent decodes into the buffer, or is refused:
    // never a read or write outside it (AddressSanitizer checks).
    std::vector<std::byte> garbage(64, std::byte{0xff});
    store_le<std::int32_t>(garbage.data(), -20);
    try {
        decompress_lossy_block(8, garbage, decoded, "block");
    } catch (const Error&) {
    }
}

TEST(Codec, NamesAndShuffleUnits) {
    EXPECT_EQ(codec_named("lz4"), Codec::lz4);
    EXPECT_EQ(codec_named("zstd"), Codec::zstd);
    EXPECT_EQ(codec_named("none"), Codec::none);
    EXPECT_FALSE(codec_named("gzip").has_value());
    EXPECT_EQ(shuffle_unit(0), 1);
    EXPECT_EQ(shuffle_unit(8), 8);
    EXPECT_EQ(shuffle_unit(255), 255);
    EXPECT_EQ(shuffle_unit(256), 8);
    EXPECT_EQ(shuffle_unit(300), 4);
    EXPECT_EQ(shuffle_unit(257), 1);
}

}  // namespace
}  // namespace mlckpt::core

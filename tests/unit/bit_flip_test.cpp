// FTI_BitFlip's core: which rank, element and bit, how many flips and how
// often, compared bit for bit.
#include "runtime/bit_flip.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mlckpt::core {
namespace {

template <typename T>
Variable variable_of(std::vector<T>& data, int type, int id = 7) {
    return {id, data.data(), static_cast<std::int64_t>(data.size()), type, sizeof(T)};
}

template <typename Bits, typename T>
std::vector<Bits> bits_of(const std::vector<T>& data) {
    std::vector<Bits> out(data.size());
    std::memcpy(out.data(), data.data(), data.size() * sizeof(T));
    return out;
}

// The elements' bits after XOR before: exactly `mask` at `index`, 0 elsewhere.
template <typename Bits, typename T>
void expect_only_flipped(const std::vector<T>& before, const std::vector<T>& after, std::size_t index, Bits mask) {
    std::vector<Bits> a = bits_of<Bits>(before);
    std::vector<Bits> b = bits_of<Bits>(after);
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i] ^ b[i], i == index ? mask : Bits{0}) << "element " << i;
    }
}

std::string error_of(const std::function<void()>& step) {
    try {
        step();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(BitFlip, FlipsTheConfiguredBitOfADouble) {
    for (int position : {0, 31, 32, 52, 63}) {
        std::vector<double> data{1.5, -2.25, 3.0, 1e300};
        std::vector<double> before = data;
        Variable var = variable_of(data, kDouble);
        flip_bit(var, 2, position, "c.fti: [injection] ");
        expect_only_flipped<std::uint64_t>(before, data, 2, std::uint64_t{1} << position);
    }
}

TEST(BitFlip, FlipsTheConfiguredBitOfAFloat) {
    for (int position : {0, 22, 23, 31}) {
        std::vector<float> data{1.5f, -2.25f, 3.0f};
        std::vector<float> before = data;
        Variable var = variable_of(data, kFloat);
        flip_bit(var, 0, position, "c.fti: [injection] ");
        expect_only_flipped<std::uint32_t>(before, data, 0, std::uint32_t{1} << position);
    }
    // The sign bit, as a value: 1.5 becomes -1.5.
    std::vector<float> one{1.5f};
    Variable var = variable_of(one, kFloat);
    flip_bit(var, 0, 31, "");
    EXPECT_EQ(one[0], -1.5f);
}

TEST(BitFlip, RefusesWhatTheVariableCannotTake) {
    std::vector<double> doubles(4);
    std::vector<float> floats(4);
    std::vector<std::int32_t> ints(4);
    const std::string where = "c.fti: [injection] ";
    Variable d = variable_of(doubles, kDouble);
    Variable f = variable_of(floats, kFloat);
    Variable i = variable_of(ints, kInt);
    EXPECT_NE(error_of([&] { flip_bit(i, 0, 0, where); }).find("FTI_SFLT or FTI_DBLE only"), std::string::npos);
    EXPECT_NE(error_of([&] {
                  flip_bit(d, 4, 0, where);
              }).find("c.fti: [injection] index = 4 is not an element of variable 7; allowed: 0 to 3"),
              std::string::npos);
    EXPECT_NE(error_of([&] { flip_bit(d, -1, 0, where); }).find("index = -1"), std::string::npos);
    EXPECT_NE(error_of([&] {
                  flip_bit(f, 0, 32, where);
              }).find("c.fti: [injection] position = 32 is not a bit of a float (variable 7); allowed: 0 to 31"),
              std::string::npos);
    EXPECT_NE(error_of([&] { flip_bit(d, 0, 64, where); }).find("allowed: 0 to 63"), std::string::npos);
    EXPECT_NE(error_of([&] { flip_bit(d, 0, -1, where); }).find("position = -1"), std::string::npos);
    EXPECT_EQ(doubles, std::vector<double>(4));
    EXPECT_EQ(floats, std::vector<float>(4));
}

TEST(BitFlip, OnlyTheConfiguredRankFlips) {
    std::vector<double> data{1.0, 2.0};
    Variable var = variable_of(data, kDouble);
    BitFlipInjector injector({/*rank*/ 1, /*index*/ 1, /*position*/ 63, /*number*/ 5, /*frequency*/ -1}, "c.fti", 0.0);
    BitFlipResult r = injector.inject(7, &var, 0, 1.0);
    EXPECT_FALSE(r.flipped);
    EXPECT_NE(r.message.find("application rank 0 flips no bits (c.fti: [injection] rank = 1)"), std::string::npos)
        << r.message;
    EXPECT_EQ(data[1], 2.0);
    r = injector.inject(7, &var, 1, 1.0);
    EXPECT_TRUE(r.flipped);
    EXPECT_EQ(r.message, "Injecting bit-flip in dataset 7, index 1, bit 63 : 2.000000 => -2.000000");
    EXPECT_EQ(data[1], -2.0);
    EXPECT_EQ(injector.count(), 1);
}

// `number` flips in all, each of the same bit: an even number restores the value.
TEST(BitFlip, NumberBoundsTheFlips) {
    std::vector<double> data{1.0, 2.0, 3.0};
    const std::vector<double> original = data;
    Variable var = variable_of(data, kDouble);
    BitFlipInjector injector({0, 2, 1, 3, -1}, "c.fti", 0.0);
    for (int call = 1; call <= 3; ++call) {
        std::vector<double> before = data;
        ASSERT_TRUE(injector.inject(7, &var, 0, call).flipped) << call;
        expect_only_flipped<std::uint64_t>(before, data, 2, std::uint64_t{2});
    }
    BitFlipResult r = injector.inject(7, &var, 0, 10.0);
    EXPECT_FALSE(r.flipped);
    EXPECT_NE(r.message.find("the 3 bit flips of c.fti: [injection] number are done"), std::string::npos) << r.message;
    expect_only_flipped<std::uint64_t>(original, data, 2, std::uint64_t{2});
    EXPECT_EQ(injector.count(), 3);

    BitFlipInjector off({0, 0, 0, 0, -1}, "c.fti", 0.0);  // FTI's default: number = 0
    r = off.inject(7, &var, 0, 1.0);
    EXPECT_FALSE(r.flipped);
    EXPECT_NE(r.message.find("number = 0: no bit flips"), std::string::npos) << r.message;
}

// A flip is due once more than `frequency` seconds passed since the start
// (FTI_Init) or the last flip.
TEST(BitFlip, FrequencySpacesTheFlips) {
    std::vector<float> data{1.0f};
    Variable var = variable_of(data, kFloat);
    BitFlipInjector injector({0, 0, 0, 10, 5}, "c.fti", 100.0);
    EXPECT_FALSE(injector.inject(7, &var, 0, 104.0).flipped);
    EXPECT_FALSE(injector.inject(7, &var, 0, 105.0).flipped);  // not more than 5 s yet
    EXPECT_TRUE(injector.inject(7, &var, 0, 105.5).flipped);
    EXPECT_EQ(injector.last(), 105.5);
    EXPECT_FALSE(injector.inject(7, &var, 0, 110.0).flipped);
    EXPECT_TRUE(injector.inject(7, &var, 0, 110.75).flipped);
    EXPECT_EQ(injector.count(), 2);
    EXPECT_EQ(data[0], 1.0f);
}

// A variable that cannot take the flip is an error at once, before the
// flip is due, and counts nothing.
TEST(BitFlip, UnfitVariablesAreErrors) {
    std::vector<std::int64_t> longs(8);
    std::vector<double> two(2);
    Variable l = variable_of(longs, kLong, 3);
    Variable d = variable_of(two, kDouble, 4);
    BitFlipInjector injector({0, 5, 3, 2, 1000}, "c.fti", 0.0);
    EXPECT_NE(error_of([&] { injector.inject(3, &l, 0, 1.0); }).find("variable 3 has type handle 3"),
              std::string::npos);
    EXPECT_NE(error_of([&] { injector.inject(4, &d, 0, 1.0); }).find("index = 5 is not an element of variable 4"),
              std::string::npos);
    EXPECT_EQ(error_of([&] { injector.inject(9, nullptr, 0, 1.0); }), "variable 9 is not protected");
    EXPECT_EQ(injector.count(), 0);
}

}  // namespace
}  // namespace mlckpt::core

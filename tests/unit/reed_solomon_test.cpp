#include "levels/reed_solomon.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "common/error.hpp"

namespace mlckpt::core {
namespace {

// Encodes k random data fragments, then rebuilds every fragment from every
// choice of k survivors (exhaustively for small k, sampled for large k).
void check_any_k_of_2k(int k, std::size_t length, int samples) {
    ReedSolomon rs(k);
    std::mt19937 rng(static_cast<unsigned>(k));
    std::vector<std::vector<unsigned char>> frag(static_cast<std::size_t>(2 * k), std::vector<unsigned char>(length));
    for (int i = 0; i < k; ++i) {
        for (auto& b : frag[static_cast<std::size_t>(i)]) b = static_cast<unsigned char>(rng());
    }
    std::vector<int> data_rows, parity_rows;
    for (int i = 0; i < k; ++i) {
        data_rows.push_back(i);
        parity_rows.push_back(k + i);
    }
    auto encode = rs.plan(data_rows, parity_rows);
    std::vector<const unsigned char*> in;
    std::vector<unsigned char*> out;
    for (int i = 0; i < k; ++i) {
        in.push_back(frag[static_cast<std::size_t>(i)].data());
        out.push_back(frag[static_cast<std::size_t>(k + i)].data());
    }
    ReedSolomon::apply(encode, length, in, out);

    for (int s = 0; s < samples; ++s) {
        std::vector<int> rows(static_cast<std::size_t>(2 * k));
        for (int i = 0; i < 2 * k; ++i) rows[static_cast<std::size_t>(i)] = i;
        std::shuffle(rows.begin(), rows.end(), rng);
        std::vector<int> survivors(rows.begin(), rows.begin() + k);
        std::vector<int> lost(rows.begin() + k, rows.end());
        auto decode = rs.plan(survivors, lost);
        std::vector<const unsigned char*> sin;
        for (int r : survivors) sin.push_back(frag[static_cast<std::size_t>(r)].data());
        std::vector<std::vector<unsigned char>> rebuilt(lost.size(), std::vector<unsigned char>(length));
        std::vector<unsigned char*> sout;
        for (auto& b : rebuilt) sout.push_back(b.data());
        ReedSolomon::apply(decode, length, sin, sout);
        for (std::size_t t = 0; t < lost.size(); ++t) {
            ASSERT_EQ(rebuilt[t], frag[static_cast<std::size_t>(lost[t])]) << "k=" << k << " row " << lost[t];
        }
    }
}

TEST(ReedSolomon, AnyKOfTwoKRebuildsEverything) {
    check_any_k_of_2k(2, 1000, 20);
    check_any_k_of_2k(3, 4097, 30);
    check_any_k_of_2k(4, 64, 50);
    check_any_k_of_2k(8, 333, 30);
    check_any_k_of_2k(32, 128, 10);
}

// d data and p parity fragments (SCR's Reed-Solomon sets): any d of the
// d + p rebuild the others.
void check_any_d_of_d_plus_p(int d, int p, std::size_t length, int samples) {
    const ReedSolomon rs(d, p);
    ASSERT_EQ(rs.data(), d);
    ASSERT_EQ(rs.parity(), p);
    std::mt19937 rng(static_cast<unsigned>(d * 100 + p));
    const auto n = static_cast<std::size_t>(d + p);
    std::vector<std::vector<unsigned char>> frag(n, std::vector<unsigned char>(length));
    std::vector<int> data_rows, parity_rows;
    std::vector<const unsigned char*> in;
    std::vector<unsigned char*> out;
    for (int i = 0; i < d + p; ++i) {
        auto& f = frag[static_cast<std::size_t>(i)];
        if (i < d) {
            for (auto& b : f) b = static_cast<unsigned char>(rng());
            data_rows.push_back(i);
            in.push_back(f.data());
        } else {
            parity_rows.push_back(i);
            out.push_back(f.data());
        }
    }
    ReedSolomon::apply(rs.plan(data_rows, parity_rows), length, in, out);
    for (int s = 0; s < samples; ++s) {
        std::vector<int> rows(n);
        std::iota(rows.begin(), rows.end(), 0);
        std::shuffle(rows.begin(), rows.end(), rng);
        const std::vector<int> survivors(rows.begin(), rows.begin() + d);
        const std::vector<int> lost(rows.begin() + d, rows.end());
        std::vector<const unsigned char*> sin;
        for (int r : survivors) sin.push_back(frag[static_cast<std::size_t>(r)].data());
        std::vector<std::vector<unsigned char>> rebuilt(lost.size(), std::vector<unsigned char>(length));
        std::vector<unsigned char*> sout;
        for (auto& b : rebuilt) sout.push_back(b.data());
        ReedSolomon::apply(rs.plan(survivors, lost), length, sin, sout);
        for (std::size_t t = 0; t < lost.size(); ++t) {
            ASSERT_EQ(rebuilt[t], frag[static_cast<std::size_t>(lost[t])]) << d << "+" << p << " row " << lost[t];
        }
    }
}

TEST(ReedSolomon, AnyDataCountOfDataPlusParityRebuildsEverything) {
    check_any_d_of_d_plus_p(3, 1, 1000, 10);  // XOR-like: one lost of four
    check_any_d_of_d_plus_p(6, 2, 777, 30);   // SCR's default: 2 of a set of 8
    check_any_d_of_d_plus_p(1, 3, 64, 10);    // 3 of 4: every fragment a copy's worth
    check_any_d_of_d_plus_p(20, 11, 129, 10);
}

TEST(ReedSolomon, RejectsImpossibleShapes) {
    EXPECT_THROW(ReedSolomon(0, 2), Error);
    EXPECT_THROW(ReedSolomon(2, 0), Error);
    EXPECT_THROW(ReedSolomon(200, 56), Error);
    EXPECT_THROW(ReedSolomon(3, 1).plan({0, 1, 2}, {4}), Error) << "no row 4 in 3 + 1";
}

TEST(ReedSolomon, RejectsTooFewFragments) {
    ReedSolomon rs(4);
    EXPECT_THROW(rs.plan({0, 1, 2}, {3}), Error);
    EXPECT_THROW(rs.plan({0, 1, 1, 2}, {3}), Error);
}

}  // namespace
}  // namespace mlckpt::core

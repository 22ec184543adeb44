#include "levels/reed_solomon.hpp"

#include <isa-l/erasure_code.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace mlckpt::core {

ReedSolomon::ReedSolomon(int data, int parity) : data_(data), parity_(parity) {
    if (data < 1 || parity < 1 || data + parity > 255) {
        fail(ErrorKind::usage, "a Reed-Solomon code of " + std::to_string(data) + " data and " +
                                   std::to_string(parity) + " parity fragments is invalid (each at least 1, " +
                                   "at most 255 in all)");
    }
    matrix_.resize(static_cast<std::size_t>((data + parity) * data));
    // Identity on top, Cauchy below: every data x data submatrix is invertible.
    gf_gen_cauchy1_matrix(matrix_.data(), data + parity, data);
}

ReedSolomon::Plan ReedSolomon::plan(const std::vector<int>& sources, const std::vector<int>& targets) const {
    const auto k = static_cast<std::size_t>(data_);
    std::vector<int> sorted = sources;
    std::sort(sorted.begin(), sorted.end());
    if (sources.size() != k || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || sorted.front() < 0 ||
        sorted.back() >= data_ + parity_) {
        fail(ErrorKind::not_recoverable, "Reed-Solomon decoding needs " + std::to_string(data_) +
                                             " distinct fragments, " + std::to_string(sources.size()) + " given");
    }
    for (int row : targets) {
        if (row < 0 || row >= data_ + parity_) {
            fail(ErrorKind::usage, "Reed-Solomon fragment " + std::to_string(row) + " does not exist");
        }
    }
    // B = rows `sources` of the generator; fragment r = A[r] * B^-1 * sources.
    std::vector<unsigned char> b(k * k);
    std::vector<unsigned char> inverse(k * k);
    for (std::size_t i = 0; i < k; ++i) {
        std::copy_n(&matrix_[static_cast<std::size_t>(sources[i]) * k], k, &b[i * k]);
    }
    if (gf_invert_matrix(b.data(), inverse.data(), data_) != 0) {
        fail(ErrorKind::not_recoverable, "Reed-Solomon decoding matrix is singular");
    }
    std::vector<unsigned char> coefficients(targets.size() * k, 0);
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const unsigned char* row = &matrix_[static_cast<std::size_t>(targets[t]) * k];
        for (std::size_t j = 0; j < k; ++j) {
            unsigned char c = 0;
            for (std::size_t i = 0; i < k; ++i) c ^= gf_mul(row[i], inverse[i * k + j]);
            coefficients[t * k + j] = c;
        }
    }
    Plan p{sources, targets, std::vector<unsigned char>(32 * k * targets.size())};
    if (!targets.empty()) {
        ec_init_tables(data_, static_cast<int>(targets.size()), coefficients.data(), p.tables.data());
    }
    return p;
}

void ReedSolomon::apply(const Plan& plan, std::size_t length, const std::vector<const unsigned char*>& in,
                        const std::vector<unsigned char*>& out) {
    if (plan.targets.empty() || length == 0) return;
    // ISA-L takes non-const pointers but only reads the sources.
    std::vector<unsigned char*> sources(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) sources[i] = const_cast<unsigned char*>(in[i]);
    std::vector<unsigned char*> targets = out;
    ec_encode_data(static_cast<int>(length), static_cast<int>(plan.sources.size()),
                   static_cast<int>(plan.targets.size()), const_cast<unsigned char*>(plan.tables.data()),
                   sources.data(), targets.data());
}

}  // namespace mlckpt::core

// Reed-Solomon erasure code with k data and k parity fragments (ISA-L, GF(2^8)).
// Fragment rows 0..k-1 are the data, rows k..2k-1 the parity; any k of the
// 2k fragments determine all the others.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace mlckpt::core {

class ReedSolomon {
  public:
    explicit ReedSolomon(int k);  // 1 <= k <= 127

    int k() const { return k_; }

    // Prepares computing the fragments `targets` (rows) from the k fragments
    // `sources` (rows, distinct). Throws when sources are not k distinct rows.
    struct Plan {
        std::vector<int> sources;
        std::vector<int> targets;
        std::vector<unsigned char> tables;  // ISA-L expanded coefficients
    };
    Plan plan(const std::vector<int>& sources, const std::vector<int>& targets) const;

    // out[t] = fragment targets[t], from in[s] = fragment sources[s]; every
    // buffer holds `length` bytes.
    static void apply(const Plan& plan, std::size_t length, const std::vector<const unsigned char*>& in,
                      const std::vector<unsigned char*>& out);

  private:
    int k_;
    std::vector<unsigned char> matrix_;  // 2k x k, row-major
};

}  // namespace mlckpt::core

// Reed-Solomon erasure code over GF(2^8) (ISA-L): `data` data fragments and
// `parity` parity fragments. Fragment rows 0..data-1 are the data, rows
// data..data+parity-1 the parity; any `data` of the fragments determine all
// the others. FTI's L3 is the square code (k data, k parity); SCR's RS sets
// take n - k data and k parity.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace mlckpt::core {

class ReedSolomon {
  public:
    explicit ReedSolomon(int k) : ReedSolomon(k, k) {}
    // 1 <= data, 1 <= parity, data + parity <= 255.
    ReedSolomon(int data, int parity);

    int data() const { return data_; }
    int parity() const { return parity_; }

    // Prepares computing the fragments `targets` (rows) from `data` distinct
    // fragments `sources` (rows). Throws when they are not.
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
    int data_;
    int parity_;
    std::vector<unsigned char> matrix_;  // (data + parity) x data, row-major
};

}  // namespace mlckpt::core

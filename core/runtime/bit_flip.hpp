// FTI_BitFlip: silent data corruption on purpose, where and as often as the
// [injection] section says, for testing an application's detection of it.
#pragma once

#include <string>
#include <utility>

#include "config/config.hpp"
#include "registry/registry.hpp"

namespace mlckpt::core {

// What one call did: a flip, or why there was none (not this rank, all the
// flips done, too early).
struct BitFlipResult {
    bool flipped = false;
    std::string message;
};

class BitFlipInjector {
  public:
    // `start`: the time (seconds, MPI_Wtime) of FTI_Init.
    BitFlipInjector(Injection plan, std::string config_path, double start)
        : plan_(plan), path_(std::move(config_path)), last_(start) {}

    // Flips bit `position` of element `index` of `var` (null: not
    // protected) on application rank `rank`, when a flip is due at `now`.
    // Throws a usage Error when the variable cannot take the flip: not
    // protected, neither float nor double, index or bit out of range.
    BitFlipResult inject(int id, const Variable* var, int rank, double now);

    const Injection& plan() const { return plan_; }
    int count() const { return count_; }   // flips made so far
    double last() const { return last_; }  // FTI_Init, or the last flip

  private:
    Injection plan_;
    std::string path_;
    int count_ = 0;
    double last_;
};

// Throws a usage Error naming `where` (the [injection] section) when
// `var` is neither float nor double, or has no element `index`, or its
// elements no bit `position`.
void check_bit_flip(const Variable& var, int index, int position, const std::string& where);

// Flips bit `position` (0 = least significant, of the value's bits as an
// integer of the same width) of element `index` of a float or double
// variable after check_bit_flip; returns the element before and after, as
// text.
std::string flip_bit(const Variable& var, int index, int position, const std::string& where);

}  // namespace mlckpt::core

#include "runtime/bit_flip.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

// The flip on the value's bits as an unsigned integer of its width, so that
// `position` means the same bit whatever the byte order.
template <typename Real, typename Bits>
std::string flip_element(std::byte* at, int position) {
    static_assert(sizeof(Real) == sizeof(Bits));
    Real before;
    std::memcpy(&before, at, sizeof before);
    Bits bits;
    std::memcpy(&bits, at, sizeof bits);
    bits ^= Bits{1} << position;
    std::memcpy(at, &bits, sizeof bits);
    Real after;
    std::memcpy(&after, at, sizeof after);
    char text[128];
    std::snprintf(text, sizeof text, "%f => %f", static_cast<double>(before), static_cast<double>(after));
    return text;
}

}  // namespace

void check_bit_flip(const Variable& var, int index, int position, const std::string& where) {
    const bool is_float = var.type == kFloat;
    if (!is_float && var.type != kDouble) {
        fail(ErrorKind::usage, "variable " + std::to_string(var.id) + " has type handle " + std::to_string(var.type) +
                                   "; bits are flipped in variables of FTI_SFLT or FTI_DBLE only");
    }
    if (index < 0 || index >= var.count) {
        fail(ErrorKind::usage, where + "index = " + std::to_string(index) + " is not an element of variable " +
                                   std::to_string(var.id) + "; allowed: 0 to " + std::to_string(var.count - 1));
    }
    const int bits = is_float ? 32 : 64;
    if (position < 0 || position >= bits) {
        fail(ErrorKind::usage, where + "position = " + std::to_string(position) + " is not a bit of a " +
                                   (is_float ? "float" : "double") + " (variable " + std::to_string(var.id) +
                                   "); allowed: 0 to " + std::to_string(bits - 1));
    }
}

std::string flip_bit(const Variable& var, int index, int position, const std::string& where) {
    check_bit_flip(var, index, position, where);
    const bool is_float = var.type == kFloat;
    std::byte* at = static_cast<std::byte*>(var.ptr) + static_cast<std::size_t>(index) * var.element_size;
    return is_float ? flip_element<float, std::uint32_t>(at, position)
                    : flip_element<double, std::uint64_t>(at, position);
}

BitFlipResult BitFlipInjector::inject(int id, const Variable* var, int rank, double now) {
    const std::string where = path_ + ": [injection] ";
    if (rank != plan_.rank) {
        return {false, "application rank " + std::to_string(rank) + " flips no bits (" + where +
                           "rank = " + std::to_string(plan_.rank) + ")"};
    }
    if (count_ >= plan_.number) {
        return {false, plan_.number <= 0
                           ? where + "number = " + std::to_string(plan_.number) + ": no bit flips"
                           : "the " + std::to_string(plan_.number) + " bit flips of " + where + "number are done"};
    }
    if (var == nullptr) fail(ErrorKind::usage, "variable " + std::to_string(id) + " is not protected");
    check_bit_flip(*var, plan_.index, plan_.position, where);  // told at once, not when the flip is due
    if (now - last_ <= plan_.frequency) {
        return {false, "the next bit flip is due more than " + std::to_string(plan_.frequency) +
                           " s after the last one (" + where + "frequency)"};
    }
    std::string change = flip_bit(*var, plan_.index, plan_.position, where);
    ++count_;
    last_ = now;
    // FTI's words.
    return {true, "Injecting bit-flip in dataset " + std::to_string(id) + ", index " + std::to_string(plan_.index) +
                      ", bit " + std::to_string(plan_.position) + " : " + change};
}

}  // namespace mlckpt::core

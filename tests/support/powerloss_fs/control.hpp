// The power switch of one mount and the commands of its control file
// (.powerloss at the mount's root): it counts the operations that change
// durable state, freezes the file system after the K-th once armed (the
// power is off: everything fails with EIO), and says so when read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace powerloss {

struct Command {
    enum class Kind { cut, arm, disarm, freeze, reset, sync };
    Kind kind;
    std::uint64_t count = 0;  // of `arm`
};

// The commands of a write to the control file, one a line; nothing when a
// line is not a command.
std::optional<std::vector<Command>> parse_commands(std::string_view text);

class PowerSwitch {
  public:
    bool frozen() const { return frozen_; }
    // After each operation that changed durable state.
    void count_operation();
    void arm(std::uint64_t operations);
    void disarm() { armed_ = false; }
    void freeze() { frozen_ = true; }
    void reset_count() { operations_ = 0; }
    // The power is back: nothing frozen, nothing armed.
    void power_on();

    struct Pending {
        std::size_t bytes;
        std::size_t directory_operations;
    };
    // The text a read of the control file returns.
    std::string status(const Pending& pending, std::string_view model, std::string_view label) const;

  private:
    std::uint64_t operations_ = 0;
    std::uint64_t cuts_ = 0;
    std::uint64_t remaining_ = 0;  // operations until the freeze, when armed
    bool armed_ = false;
    bool frozen_ = false;
};

}  // namespace powerloss

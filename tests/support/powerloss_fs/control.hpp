// The power switch of one mount and the commands of its control file
// (.powerloss at the mount's root): it counts the operations that change
// durable state, freezes the file system after the K-th once armed (the
// power is off: everything fails with EIO) or cuts one node's power there,
// and says so when read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace powerloss {

struct Command {
    enum class Kind { cut, arm, arm_node, node_size, disarm, freeze, reset, sync };
    Kind kind = Kind::cut;
    std::uint64_t count = 0;  // of `arm`, `arm-node`; the ranks of `node-size`
    int node = -1;            // of `arm-node`
    std::string storage;      // of `arm-node`: the node's storage, a path below the mount's root
};

// The power cut of one node: its processes stop, what is not durable in its
// storage is lost, and so are its writes to the shared storage that were not
// synced; the other nodes keep going.
struct NodeCut {
    int node = -1;
    std::string storage;
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
    // Armed so that the K-th operation cuts one node's power, not all.
    void arm_node(std::uint64_t operations, NodeCut cut);
    void disarm() {
        armed_ = false;
        node_cut_.reset();
    }
    // The node cut the last counted operation brought, once.
    std::optional<NodeCut> take_due_node_cut() { return std::exchange(due_, std::nullopt); }
    // The node without power, until power_on().
    std::optional<int> node_down() const { return node_down_; }
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
    std::optional<NodeCut> node_cut_;  // armed for one node
    std::optional<NodeCut> due_;
    std::optional<int> node_down_;
};

}  // namespace powerloss

// The checkpoint levels as data. What a level number means wherever it is
// read (where the level's files live, the redundancy that protects them,
// whether its files are updated in place), and what a run's configuration
// makes of each level (its interval, codec and file format, whether its
// work is done before FTI_Checkpoint returns or after the commit). Every
// rule about levels is a question to this module, which alone compares
// level numbers (tests/support/check_level_rules.py holds the rest of the
// code to that); FTI's API levels are parsed in config/api_level.hpp.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "compress/block_codec.hpp"
#include "config/config.hpp"
#include "format/io_mode.hpp"

namespace mlckpt::core {

// The level numbers that catalogs, metadata files and FTI's API share.
inline constexpr int kL1 = 1;        // the node's own storage
inline constexpr int kL2 = 2;        // plus a copy on the next node of the group
inline constexpr int kL3 = 3;        // plus Reed-Solomon parity over the group
inline constexpr int kL4 = 4;        // the parallel file system
inline constexpr int kDcpLevel = 8;  // L4 differential (FTI_L4_DCP)

// The levels FTI's configuration sets an interval, an inline flag and a
// codec for (ckpt_l<L>, inline_l<L>, [compression] l<L>), in order.
inline constexpr std::array<int, 4> kBaseLevels{kL1, kL2, kL3, kL4};
// The levels kept on node-local storage, in order.
inline constexpr std::array<int, 3> kNodeLocalLevels{kL1, kL2, kL3};

// Where a level's files live.
enum class Tier {
    node_local,  // ckpt_dir on each node: lost with the node
    global,      // glbl_dir on the parallel file system
};

// What rebuilds the files a group of nodes lost.
enum class GroupRedundancy {
    none,
    partner_copy,  // each node keeps a copy of its left neighbour's files
    reed_solomon,  // each node keeps parity over the group's files
};

// How a group's redundancy is made, as a level's configuration sets it
// and a checkpoint's metadata records it.
struct RedundancyScheme {
    GroupRedundancy kind = GroupRedundancy::none;
    // Reed-Solomon only. 0: FTI's L3, each member keeps parity as large as
    // the group's largest file, and the group survives the loss of half of
    // its nodes. k >= 1: SCR's Reed-Solomon sets, k parity chunks per
    // stripe rotating over the group, which survives the loss of any k of
    // its nodes ([basic] l3_failures, SCR_SET_FAILURES).
    int set_failures = 0;
};

// What a level number means, whatever the configuration.
struct LevelTraits {
    int number;
    const char* name;  // for messages: "L1" to "L4", "L4 differential"
    Tier tier;
    GroupRedundancy redundancy;
    // One file per rank updated in place from one checkpoint to the next
    // (only the blocks that changed), in FTI-FF, under its own names.
    bool differential;
};

// The level `number` means, or nullptr when no checkpoint has that level
// (a damaged catalog or metadata file).
const LevelTraits* find_level(int number);
// The same, throwing a corrupt Error naming the number when there is none.
const LevelTraits& level_traits(int number);

// For messages: "L1" to "L4", "L4 differential"; "level N" for others.
std::string level_name(int number);
bool is_base_level(int number);         // L1 to L4
bool is_node_local(int number);         // L1 to L3
bool is_global(int number);             // L4 or L4 differential
bool is_differential(int number);       // L4 differential
bool is_full_l4(int number);            // L4, not differential: a whole copy on the parallel file system
bool has_group_redundancy(int number);  // L2, L3
GroupRedundancy redundancy_kind(int number);
// The level FTI reports and ranks a checkpoint at: L4 for L4 differential.
int reported_level(int number);
// Whether a checkpoint of level `newer` makes one of `older` redundant:
// levels rank as FTI ranks them (reported_level), and a checkpoint makes
// those of its own rank and below redundant.
bool supersedes(int newer, int older);
// Of two copies of one checkpoint (an L4 checkpoint's L1 copy and its L4
// one), whether the one at level `a` is read before the one at `b`: the
// nearer storage first.
bool read_first(int a, int b);
// For messages: "partner copy", "Reed-Solomon".
const char* redundancy_name(GroupRedundancy kind);

// The most nodes of a Reed-Solomon group.
inline constexpr int kMaxParityGroup = 32;
// The scheme the configuration makes of level `number`'s redundancy.
RedundancyScheme scheme_of(const Config& config, int number);
// Why groups of `group_size` nodes cannot hold `scheme`'s redundancy, or
// nothing when they can.
std::optional<std::string> group_size_problem(const RedundancyScheme& scheme, int group_size);

// The format of a level's files when the configuration asks for
// `configured`: L4 differential files are FTI-FF; the shared modes (one
// file for all ranks) write one POSIX file per rank below L4.
IoMode format_at(IoMode configured, int number);

// One level as a run's configuration makes it.
struct LevelDescriptor {
    const LevelTraits* traits = nullptr;
    double interval_minutes = 0.0;  // ckpt_l<L>: FTI_Snapshot's interval; 0 = off
    Codec codec = Codec::none;      // of its files ([compression] l<L>)
    IoMode format = IoMode::posix;  // of its files (format_at)
    RedundancyScheme redundancy;    // what rebuilds its files when nodes are lost
    // The level's work (partner copy, parity, L4 copy) is done before
    // FTI_Checkpoint returns (inline_l<L> = 1).
    bool inline_work = true;
    // Checkpoints of this level are committed with the rank's file alone,
    // and the level's work is done from the file after the commit: by the
    // node's head (head = 1) or by a thread of the rank itself
    // (checkpoint/background_promotion.hpp). An in-memory snapshot
    // (async_snapshot = 1) is promoted the same way.
    bool promoted_after_commit = false;
    bool handed_to_head = false;  // promoted after the commit, by the node's head
    // The level the application ranks write and commit a checkpoint of this
    // level at: an L4 checkpoint completed after the commit is first
    // committed at L1, an L2 or L3 one at its level.
    int committed_at = 0;
};

// Every level of a run, built once from its configuration.
class Levels {
  public:
    explicit Levels(const Config& config);

    // Base levels and L4 differential; throws a usage Error for others.
    const LevelDescriptor& operator[](int number) const;
    // Whether some level is promoted after its commit.
    bool any_promoted_after_commit() const;
    // Whether some level's files are compressed.
    bool any_compressed() const;
    // ckpt_l1..ckpt_l4, minutes (FTI_Snapshot's schedule).
    std::array<double, 4> intervals() const;

  private:
    std::array<LevelDescriptor, 5> levels_{};  // kBaseLevels, then L4 differential
};

// What the configuration sets for base level `number` (L1 to L4).
const LevelSettings& settings_of(const Config& config, int number);

}  // namespace mlckpt::core

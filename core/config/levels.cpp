#include "config/levels.hpp"

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

constexpr std::array<LevelTraits, 5> kTraits{{
    {kL1, "L1", Tier::node_local, GroupRedundancy::none, false},
    {kL2, "L2", Tier::node_local, GroupRedundancy::partner_copy, false},
    {kL3, "L3", Tier::node_local, GroupRedundancy::reed_solomon, false},
    {kL4, "L4", Tier::global, GroupRedundancy::none, false},
    {kDcpLevel, "L4 differential", Tier::global, GroupRedundancy::none, true},
}};

// The slot of a level in kTraits and in Levels, or -1.
int slot_of(int number) {
    for (std::size_t i = 0; i < kTraits.size(); ++i) {
        if (kTraits[i].number == number) return static_cast<int>(i);
    }
    return -1;
}

}  // namespace

const LevelTraits* find_level(int number) {
    const int slot = slot_of(number);
    return slot < 0 ? nullptr : &kTraits[static_cast<std::size_t>(slot)];
}

const LevelTraits& level_traits(int number) {
    const LevelTraits* traits = find_level(number);
    if (traits == nullptr) {
        fail(ErrorKind::corrupt, "checkpoint level " + std::to_string(number) +
                                     " is no level mlckpt keeps; allowed: 1 to 4, 8 (L4 differential)");
    }
    return *traits;
}

std::string level_name(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr ? traits->name : "level " + std::to_string(number);
}

bool is_base_level(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr && !traits->differential;
}

bool is_node_local(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr && traits->tier == Tier::node_local;
}

bool is_global(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr && traits->tier == Tier::global;
}

bool is_differential(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr && traits->differential;
}

bool is_full_l4(int number) {
    return is_global(number) && !is_differential(number);
}

GroupRedundancy redundancy_kind(int number) {
    const LevelTraits* traits = find_level(number);
    return traits != nullptr ? traits->redundancy : GroupRedundancy::none;
}

bool has_group_redundancy(int number) {
    return redundancy_kind(number) != GroupRedundancy::none;
}

int reported_level(int number) {
    return is_differential(number) ? kL4 : number;
}

bool supersedes(int newer, int older) {
    return reported_level(older) <= reported_level(newer);
}

bool read_first(int a, int b) {
    return a < b;
}

const char* redundancy_name(GroupRedundancy kind) {
    switch (kind) {
        case GroupRedundancy::partner_copy:
            return "partner copy";
        case GroupRedundancy::reed_solomon:
            return "Reed-Solomon";
        case GroupRedundancy::none:
            break;
    }
    return "none";
}

RedundancyScheme scheme_of(const Config& config, int number) {
    RedundancyScheme scheme{redundancy_kind(number), 0};
    if (scheme.kind == GroupRedundancy::reed_solomon) scheme.set_failures = config.l3_failures;
    return scheme;
}

std::optional<std::string> group_size_problem(const RedundancyScheme& scheme, int group_size) {
    if (scheme.kind != GroupRedundancy::reed_solomon) return std::nullopt;
    if (group_size > kMaxParityGroup) {
        return "Reed-Solomon groups have at most " + std::to_string(kMaxParityGroup) + " nodes";
    }
    if (scheme.set_failures > 0 && scheme.set_failures >= group_size) {
        return "Reed-Solomon sets that survive " + std::to_string(scheme.set_failures) +
               " lost nodes ([basic] l3_failures) need groups of more than " + std::to_string(scheme.set_failures) +
               " nodes";
    }
    return std::nullopt;
}

IoMode format_at(IoMode configured, int number) {
    if (is_differential(number)) return IoMode::ftiff;
    if (is_shared(configured) && !is_global(number)) return IoMode::posix;
    return configured;
}

const LevelSettings& settings_of(const Config& config, int number) {
    switch (number) {
        case kL1:
            return config.l1;
        case kL2:
            return config.l2;
        case kL3:
            return config.l3;
        case kL4:
            return config.l4;
        default:
            fail(ErrorKind::usage, level_name(number) + " has no settings of its own; allowed: L1 to L4");
    }
}

Levels::Levels(const Config& config) {
    for (std::size_t i = 0; i < kTraits.size(); ++i) {
        const LevelTraits& traits = kTraits[i];
        LevelDescriptor& d = levels_[i];
        d.traits = &traits;
        d.format = format_at(config.ckpt_io, traits.number);
        d.redundancy = scheme_of(config, traits.number);
        if (traits.differential) {
            // Written at L4 and in place, by the ranks themselves, uncompressed (each
            // block keeps its place in the file).
            d.inline_work = true;
            d.committed_at = traits.number;
            continue;
        }
        const LevelSettings& s = settings_of(config, traits.number);
        d.interval_minutes = s.interval_minutes;
        d.codec = s.codec;
        // L1 has no work after its file: always inline.
        const bool has_work = traits.tier == Tier::global || traits.redundancy != GroupRedundancy::none;
        d.inline_work = !has_work || s.inline_work;
        d.promoted_after_commit = has_work && (!d.inline_work || config.async_snapshot);
        d.handed_to_head = config.head && d.promoted_after_commit;
        // Without a file on the parallel file system yet, an L4 checkpoint's
        // commit is that of its L1 files; L2 and L3 ones are committed at
        // their level with the file alone.
        d.committed_at = d.promoted_after_commit && traits.tier == Tier::global ? kL1 : traits.number;
    }
}

const LevelDescriptor& Levels::operator[](int number) const {
    const int slot = slot_of(number);
    if (slot < 0) {
        fail(ErrorKind::usage,
             "checkpoint level " + std::to_string(number) + " is invalid; allowed: 1 to 4, 8 (L4 differential)");
    }
    return levels_[static_cast<std::size_t>(slot)];
}

bool Levels::any_promoted_after_commit() const {
    for (const LevelDescriptor& d : levels_) {
        if (d.promoted_after_commit) return true;
    }
    return false;
}

bool Levels::any_compressed() const {
    for (const LevelDescriptor& d : levels_) {
        if (d.codec != Codec::none) return true;
    }
    return false;
}

std::array<double, 4> Levels::intervals() const {
    std::array<double, 4> out{};
    for (std::size_t i = 0; i < kBaseLevels.size(); ++i) out[i] = (*this)[kBaseLevels[i]].interval_minutes;
    return out;
}

}  // namespace mlckpt::core

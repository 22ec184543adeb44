#include "recovery/restart_rules.hpp"

#include <vector>

#include "common/error.hpp"
#include "levels/redundancy.hpp"

namespace mlckpt::core {

bool tried_before(const CheckpointRef& a, const CheckpointRef& b) {
    return a.seq != b.seq ? a.seq > b.seq : read_first(a.level, b.level);
}

std::optional<std::string> misfit(const CheckpointMeta& meta, const RunShape& run) {
    if (run.app_ranks && meta.ranks != *run.app_ranks) {
        return "it was written by " + std::to_string(meta.ranks) + " application ranks, this run has " +
               std::to_string(*run.app_ranks) + "; restart with the same number of ranks";
    }
    if (has_group_redundancy(meta.level) &&
        (meta.node_size != run.node_size || meta.group_size != run.group_size || !run.groups_valid)) {
        return "it was written with node_size = " + std::to_string(meta.node_size) +
               " and group_size = " + std::to_string(meta.group_size) +
               "; its partner copies or parity need the same groups (this run: node_size = " +
               std::to_string(run.node_size) + ", group_size = " + std::to_string(run.group_size) + ")";
    }
    return std::nullopt;
}

std::optional<std::string> grouped_loss_beyond_repair(const CheckpointMeta& meta,
                                                      const std::function<bool(int)>& data_sound,
                                                      const std::function<bool(int)>& redundancy_sound) {
    const Redundancy* redundancy = redundancy_of(meta);
    if (redundancy == nullptr) return "level " + std::to_string(meta.level) + " keeps no redundancy";
    std::vector<GroupView> groups;
    try {
        groups = groups_of(meta);
    } catch (const Error& e) {
        return std::string(e.what());
    }
    std::string lost;
    for (const GroupView& g : groups) {
        std::vector<Holdings> held;
        for (int rank : g.app_ranks) held.push_back({data_sound(rank), redundancy_sound(rank)});
        if (std::optional<std::string> why = redundancy->loss_beyond_repair(g, held)) {
            lost += (lost.empty() ? "" : "; ") + *why;
        }
    }
    if (lost.empty()) return std::nullopt;
    return lost;
}

}  // namespace mlckpt::core

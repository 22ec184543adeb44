#include "config/cross_checks.hpp"

#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "config/levels.hpp"

namespace mlckpt::core {

void check_container_files(const Config& c, const Topology& t) {
    if (c.ckpt_io == IoMode::container && c.container_files > t.app_size) {
        fail(ErrorKind::config, c.path + ": [advanced] container_files = '" + std::to_string(c.container_files) +
                                    "': more files than the " + std::to_string(t.app_size) +
                                    " application ranks; allowed: 1 to " + std::to_string(t.app_size));
    }
}

void check_groups(const Config& c, const Topology& t) {
    for (int level : kBaseLevels) {
        const double minutes = settings_of(c, level).interval_minutes;
        if (has_group_redundancy(level) && minutes > 0 && !t.groups_valid) {
            char value[32];
            std::snprintf(value, sizeof value, "%g", minutes);
            fail(ErrorKind::config, c.path + ": [basic] ckpt_l" + std::to_string(level) + " = '" + value + "': level " +
                                        std::to_string(level) + " needs groups, but " + t.groups_problem +
                                        "; allowed: 0, or a group_size of at least 2 "
                                        "that divides the number of nodes");
        }
    }
}

}  // namespace mlckpt::core

#include "config/api_level.hpp"

#include "common/error.hpp"
#include "config/levels.hpp"

namespace mlckpt::core {

bool is_single_file_level(int api_level) {
    return api_level == kSingleFileLevel;
}

ApiLevel parse_api_level(int requested, bool dcp_enabled, const std::string& config_path) {
    if (is_single_file_level(requested) || is_base_level(requested)) return {requested, {}};
    if (requested == kDcpLevel) {
        if (dcp_enabled) return {requested, {}};
        return {kL4, "FTI_L4_DCP requested, but differential checkpoints are off ([basic] enable_dcp = 1 in " +
                         config_path + " turns them on); taking a full L4 checkpoint"};
    }
    // FTI adds 4 to a level for its differential checkpoint, which only L4 has.
    const int base = requested - kL4;
    if (is_node_local(base)) {
        return {base, "checkpoint level " + std::to_string(requested) +
                          ": differential checkpoints exist at L4 only; taking an L" + std::to_string(base) +
                          " checkpoint"};
    }
    fail(ErrorKind::usage, "checkpoint level " + std::to_string(requested) +
                               " is invalid; allowed: FTI_L1 (1), FTI_L2 (2), FTI_L3 (3), "
                               "FTI_L4 (4), FTI_L4_DCP (8), FTI_L4_H5_SINGLE (9)");
}

}  // namespace mlckpt::core

// The levels FTI's API accepts at FTI_Checkpoint and FTI_InitICP, and the
// level each one is taken at: the one place that reads FTI's numbers.
#pragma once

#include <string>

namespace mlckpt::core {

// FTI_L4_H5_SINGLE: one HDF5 file for all ranks, on the parallel file
// system (checkpoint/global_file.hpp). Asked for at the API, never stored
// as a checkpoint's level.
inline constexpr int kSingleFileLevel = 9;

bool is_single_file_level(int api_level);

// A level asked for at the API, as it is taken.
struct ApiLevel {
    int level = 0;  // a level of config/levels.hpp, or kSingleFileLevel
    // What was taken instead of what was asked, for rank 0 to log; empty
    // when the level is taken as asked.
    std::string warning;
};

// FTI_L1 to FTI_L4 as they are; 5 to 7 as L1 to L3 (FTI's differential
// numbers of levels that have no differential checkpoints); FTI_L4_DCP
// (8) as L4 when differential checkpoints are off (`dcp_enabled`, set in
// `config_path`); FTI_L4_H5_SINGLE (9). Throws a usage Error naming the
// allowed levels for any other number.
ApiLevel parse_api_level(int requested, bool dcp_enabled, const std::string& config_path);

}  // namespace mlckpt::core

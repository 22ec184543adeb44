// `mlckpt verify`'s walk over one execution: every checkpoint that its
// metadata (or a copy of it beside the data) records, every file of each
// checked against its record, and whether a restart can use it, by the
// restart's own rules.
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"
#include "verify_report.hpp"

namespace mlckpt::tools::verifying {

// The checkpoints of execution `exec_id` under `config`, in the order a
// restart tries them (archived ones last).
std::vector<CheckpointReport> verify_execution(core::Config config, const std::string& exec_id);

}  // namespace mlckpt::tools::verifying

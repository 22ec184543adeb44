// The directories of an execution as a whole: claiming a new execution id,
// and undoing what a failed FTI_Init made of them.
#pragma once

#include <string>

#include "config/config.hpp"
#include "storage/layout.hpp"

namespace mlckpt::core {

// Rank 0 of a fresh run: a new execution id in FTI's form (local time),
// claimed by creating its metadata directory, which fails if another job
// took it first (the next free "-<n>" suffix is taken then).
std::string claim_new_exec_id(const Config& c);

// After a failed FTI_Init of a fresh run: removes the directories it made
// for its execution on `node` (and the global and metadata ones when
// `global`), as long as they are empty.
void remove_empty_exec_dirs(const StorageLayout& layout, int node, bool global) noexcept;

}  // namespace mlckpt::core

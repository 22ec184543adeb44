// Checks of the configuration against itself and against the run's
// topology, made at FTI_Init so that what cannot work fails there, not at
// the first checkpoint. Each throws a config Error naming the key, its value
// and what is allowed.
#pragma once

#include "config/config.hpp"
#include "topology/topology.hpp"

namespace mlckpt::core {

// A container has at most one physical file per application rank.
void check_container_files(const Config& c, const Topology& t);
// Snapshots at L2 or L3 need groups.
void check_groups(const Config& c, const Topology& t);

}  // namespace mlckpt::core

// How many CPUs a rank can keep busy during a checkpoint without taking one
// from another rank of its host: the CPUs its binding allows, each counted
// as the share the host's other ranks bound to it leave. One rank alone on
// a 2-core host, unbound: 2; four ranks sharing those 2 cores: 1 (never
// less); ranks bound to one core each: 1.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <span>

namespace mlckpt::core {

// `mine` among the CPU sets of every rank of the host (`mine` included).
int cpu_share_of(const cpu_set_t& mine, std::span<const cpu_set_t> host);
// CPUs among the host's first `online` that no rank is bound to.
int cpus_bound_to_none(std::span<const cpu_set_t> host, int online);

struct CpuShare {
    int cpus = 1;    // cpu_share_of: what the rank's threads may keep busy
    int bound = 1;   // CPUs of the rank's own binding
    int unused = 0;  // CPUs of the host bound to no rank
};
// Collective over `host`, the ranks that share this rank's memory.
CpuShare cpu_share(MPI_Comm host);

}  // namespace mlckpt::core

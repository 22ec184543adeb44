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
// CPUs of `usable` that no rank of the host is bound to.
int cpus_bound_to_none(std::span<const cpu_set_t> host, const cpu_set_t& usable);
// The CPUs the job may use on this host: those of the process that launched
// the rank (mpiexec's daemon, the resource manager's step), which a cgroup
// cpuset of the job limits as it limits the ranks; the host's online CPUs
// when that is unknown. Online CPUs alone would count, on a shared node,
// CPUs the job was never given.
cpu_set_t job_cpus();

struct CpuShare {
    int cpus = 1;    // cpu_share_of: what the rank's threads may keep busy
    int bound = 1;   // CPUs of the rank's own binding
    int unused = 0;  // CPUs of the job on this host bound to no rank
};
// Collective over `host`, the ranks that share this rank's memory.
CpuShare cpu_share(MPI_Comm host);

}  // namespace mlckpt::core

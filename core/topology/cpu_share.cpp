#include "topology/cpu_share.hpp"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "mpi/collective.hpp"

namespace mlckpt::core {

int cpu_share_of(const cpu_set_t& mine, std::span<const cpu_set_t> host) {
    double share = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &mine)) continue;
        const auto users =
            std::count_if(host.begin(), host.end(), [&](const cpu_set_t& s) { return CPU_ISSET(cpu, &s); });
        share += 1.0 / static_cast<double>(std::max<std::ptrdiff_t>(users, 1));
    }
    return std::max(1, static_cast<int>(share + 1e-9));
}

int cpus_bound_to_none(std::span<const cpu_set_t> host, const cpu_set_t& usable) {
    int unused = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &usable)) continue;
        if (std::none_of(host.begin(), host.end(), [&](const cpu_set_t& s) { return CPU_ISSET(cpu, &s); })) ++unused;
    }
    return unused;
}

cpu_set_t job_cpus() {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(getppid(), sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0) return cpus;
    CPU_ZERO(&cpus);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < std::min<long>(online, CPU_SETSIZE); ++cpu) CPU_SET(static_cast<int>(cpu), &cpus);
    return cpus;
}

CpuShare cpu_share(MPI_Comm host) {
    int size = 0;
    check_mpi(MPI_Comm_size(host, &size), "MPI_Comm_size");
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
        CPU_ZERO(&mine);
        CPU_SET(0, &mine);  // unknown: one CPU, the safe side
    }
    std::vector<cpu_set_t> all(static_cast<std::size_t>(size));
    allgather(&mine, all.data(), sizeof mine, MPI_BYTE, host, "the CPUs of the host's ranks");
    return {cpu_share_of(mine, all), CPU_COUNT(&mine), cpus_bound_to_none(all, job_cpus())};
}

}  // namespace mlckpt::core

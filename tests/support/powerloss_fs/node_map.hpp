// Which node of a test's launch a process runs on, for a power cut of one
// node: the harness marks the processes of its launches with
// MLCKPT_POWERLOSS_MOUNT=<this mount's path>, Open MPI gives each its
// OMPI_COMM_WORLD_RANK, and the simulated nodes hold ranks_per_node
// consecutive ranks (local_test = 1). Processes without the mark (the
// harness, the tools it runs) are on no node.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace powerloss {

class NodeMap {
  public:
    explicit NodeMap(const std::string& mountpoint);

    // 0: the launches have no nodes; no process is on one.
    void set_ranks_per_node(int ranks) { ranks_per_node_ = ranks; }
    // The node of the process that thread `tid` belongs to (FUSE names the
    // calling thread), remembered per process until forget_processes().
    std::optional<int> node_of_thread(pid_t tid);
    // Every marked process on `node` now (a scan of /proc).
    std::vector<pid_t> processes_on(int node) const;
    // Between launches: process ids are reused.
    void forget_processes() { node_of_process_.clear(); }

  private:
    std::optional<int> read_node(pid_t pid) const;

    std::string mark_;
    int ranks_per_node_ = 0;
    std::map<pid_t, std::optional<int>> node_of_process_;
};

}  // namespace powerloss

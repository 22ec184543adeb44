// The state machine behind scr.h: one per SCR_Init .. SCR_Finalize. An
// application writes its own files into a dataset (SCR_Start_output,
// SCR_Route_file, SCR_Complete_output); the dataset is committed through the
// same store as FTI checkpoints (metadata in the prefix, written last and
// atomically) at the level SCR_COPY_TYPE chooses, with the same L2 partner
// copies and L3 Reed-Solomon parity, and copied to the prefix (L4) when it
// is output or its flush is due. Collective methods must be called by every
// rank; each either succeeds everywhere or throws the same Error everywhere.
#pragma once

#include <mpi.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mpi/collective.hpp"
#include "scr/dataset_list.hpp"
#include "scr/dataset_restart.hpp"
#include "scr/routed_files.hpp"
#include "scr/scr_parameters.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// Everything of a prefix that is the library's own lies below this
// directory of it, the one SCR keeps its index in: the datasets' metadata
// (<prefix>/.scr/ckpt<seq>.l<L>.meta) and the halt file. The node-local
// cache mirrors it below SCR_CACHE_BASE (<cache>/node<N>/.scr/). It is the
// execution id of the StorageLayout. Removing it starts the job afresh, as
// removing SCR's .scr does: SCR_Init then removes what the cache holds.
inline constexpr const char* kScrPrefixDir = ".scr";

class ScrSession {
  public:
    // Collective over `world`. Throws a config Error for bad parameters.
    ScrSession(ScrSettings settings, MPI_Comm world, fs::path cwd);
    ~ScrSession();
    ScrSession(const ScrSession&) = delete;
    ScrSession& operator=(const ScrSession&) = delete;

    const Logger& log() const { return ctx_.log; }
    const ScrSettings& settings() const { return settings_; }

    void start_output(const std::string& name, int flags);  // collective; name "" gives a default name
    // Local. The path to write (output phase) or read (restart phase) the
    // file the application names; outside both, `name` itself.
    std::string route_file(const std::string& name);
    void complete_output(bool valid);  // collective
    bool need_checkpoint();            // collective

    // The name of the checkpoint a restart would load (verified, repaired
    // from partner copies or parity when needed), if any. Collective.
    std::optional<std::string> have_restart();
    std::string start_restart();        // collective
    void complete_restart(bool valid);  // collective

    void set_current(const std::string& name);  // collective
    void drop(const std::string& name);         // collective
    void remove(const std::string& name);       // collective
    bool should_exit();                         // collective
    void finalize();                            // collective

  private:
    enum class Phase { idle, output, restart };
    struct Output {
        CheckpointRef ref;
        CheckpointMeta label;           // name, flags
        std::vector<RoutedName> names;  // in routing order
        std::vector<fs::path> paths;    // where each is written
    };

    void init();
    int cache_level() const;
    // SCR_COPY_TYPE as the datasets are cached: SINGLE, PARTNER, XOR or RS.
    std::string copy_type_name() const;
    void require_phase(Phase phase, const char* call) const;
    std::vector<FileRecord> seal_files(const Output& out, std::optional<std::string>& problem) const;
    // Collective: the dataset's redundancy and its commit; on failure
    // nothing is committed.
    void commit_output(const Output& out, std::vector<FileRecord> records);
    void flush_to_prefix(const CheckpointRef& cached, const std::vector<FileRecord>& records,
                         const CheckpointMeta& label);
    void discard_output(const Output& out) noexcept;

    ScrSettings settings_;
    fs::path cwd_;
    Communicator world_;
    Context ctx_;
    AppCommunicators comms_;
    Phase phase_ = Phase::idle;
    std::optional<Output> output_;
    DatasetList datasets_;
    std::optional<LoadedDataset> loaded_;
    std::set<std::uint64_t> failed_;              // datasets a restart of this run could not use
    std::optional<std::uint64_t> current_limit_;  // SCR_Current / SCR_CURRENT: newest dataset considered
    int last_checkpoint_id_ = 0;                  // SCR's checkpoint id of the newest checkpoint known
    int need_calls_ = 0;
    double last_checkpoint_end_ = 0;
    bool finalized_ = false;
};

}  // namespace mlckpt::core

// The datasets of an SCR prefix (scr.h) as `mlckpt index` sees them,
// offline and serially: their committed copies (metadata in
// <prefix>/.mlckpt/), each file of a copy checked against its record, what
// the L2 partner copies and L3 Reed-Solomon parity can still rebuild, and
// the rebuild itself, file by file, without MPI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "storage/layout.hpp"

namespace mlckpt::tools {

namespace fs = std::filesystem;

// One committed copy of a dataset: in the cache (L1-L3) or the prefix (L4).
struct DatasetCopy {
    core::CheckpointRef ref;
    core::CheckpointMeta meta;
    fs::path meta_path;
};

// A metadata file of the prefix that cannot be read.
struct UnreadableMeta {
    std::uint64_t seq = 0;
    int level = 0;
    fs::path path;
    std::string problem;
};

// A dataset: its copies, cache first (the order a restart tries them).
struct DatasetEntry {
    std::uint64_t seq = 0;
    std::vector<DatasetCopy> copies;

    const core::CheckpointMeta& meta() const { return copies.front().meta; }
};

// What a copy's files are, as checked.
struct CopyCheck {
    enum class State { intact, rebuildable, beyond_repair, not_visible };
    State state = State::intact;
    std::vector<std::string> problems;  // one per damaged file, naming it
    std::string reason;                 // beyond_repair, not_visible: why
    std::vector<bool> data_ok;          // by rank: every file of the rank verifies
    std::vector<bool> redundancy_ok;    // by holder: its partner copy or parity file verifies
};

const char* state_name(CopyCheck::State state);

class ScrPrefix {
  public:
    ScrPrefix(const fs::path& prefix, const fs::path& cache);

    const core::StorageLayout& layout() const { return layout_; }
    const fs::path& metadata_dir() const { return meta_dir_; }

    // Every dataset that a metadata file of the prefix records, newest
    // first; FTI checkpoints in the same directory are left out.
    std::vector<DatasetEntry> datasets(std::vector<UnreadableMeta>& unreadable) const;

    // Checks every file of `copy` (the application's files, then the
    // partner copies or parity files) against its record.
    CopyCheck check(const DatasetCopy& copy) const;

    // L2 and L3: rebuilds what `check` found lost or damaged in `copy`
    // (temporary names, sync, rename; each file checked against its
    // record first), adding each file written to `written`. Throws a
    // not_recoverable Error, writing nothing, when too much is lost; an
    // Error naming every rank or set whose rebuild failed (its temporary
    // files removed) once the others are rebuilt.
    void rebuild(const DatasetCopy& copy, const CopyCheck& check, std::vector<fs::path>& written) const;

    // Where rank `record.rank`'s file `record` of `copy` lives.
    fs::path file_path(const DatasetCopy& copy, const core::FileRecord& record) const;
    // Where `holder`'s partner copy or parity file of `copy` lives.
    fs::path redundancy_path(const DatasetCopy& copy, const core::FileRecord& record) const;

  private:
    bool cache_visible() const;
    // Each returns what failed, in words ("" when nothing did).
    std::string rebuild_partner(const DatasetCopy& copy, const CopyCheck& check, std::vector<fs::path>& written) const;
    void rebuild_group(const DatasetCopy& copy, const CopyCheck& check, const std::vector<int>& group,
                       std::vector<fs::path>& written) const;

    fs::path cache_;
    fs::path meta_dir_;
    core::StorageLayout layout_;
};

// The application ranks of each L3 group of `meta`, in ring order, as the
// run that wrote it formed them (from the nodes its records name). Throws a
// corrupt Error when the records do not describe whole groups.
std::vector<std::vector<int>> parity_groups(const core::CheckpointMeta& meta);

}  // namespace mlckpt::tools

// The datasets scr.h committed, newest first, each copy (cached, or in the
// prefix at L4) with the header of its metadata and this rank's records
// (store/rank_meta.hpp); and SCR's rules of which copies a newly committed
// one makes redundant, retired metadata first.
#pragma once

#include <string>
#include <vector>

#include "scr/dataset_restart.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// SCR_FLAG_CHECKPOINT and SCR_FLAG_OUTPUT, as scr.h defines them.
inline constexpr int kScrCheckpoint = 1;
inline constexpr int kScrOutput = 2;

class DatasetList {
  public:
    explicit DatasetList(Context& ctx) : ctx_(ctx) {}

    // Collective: the datasets of the catalog, as their metadata says (an
    // FTI checkpoint in the same directories is not one).
    void load();
    const std::vector<DatasetInfo>& all() const { return datasets_; }
    const DatasetInfo* find(const std::string& name) const;  // its newest copy
    std::vector<DatasetInfo> copies_of(const std::string& name) const;
    // Collective: committed copy `ref`, the newest.
    void add(const CheckpointRef& ref);
    // Forgets the copies of `name` (SCR_Drop: their files stay).
    void forget(const std::string& name);

    // Collective, after copy `committed` was added: retires invalid
    // datasets, older ones of its name, cached checkpoints beyond
    // `cache_size`, cached copies of output that is in the prefix now,
    // prefix copies of checkpoints beyond `prefix_size` (0: no limit), and
    // the metadata of prefix copies whose files it overwrote.
    void retire_after(const CheckpointRef& committed, int cache_size, int prefix_size);
    // Collective: `victims` go, metadata first; their files in the prefix
    // too when `remove_prefix_files` (the application's own files).
    void retire(const std::vector<DatasetInfo>& victims, bool remove_prefix_files);

  private:
    // Collective: those of `others` (copies in the prefix) with a file that
    // `newest` wrote again.
    std::vector<DatasetInfo> overwritten_by(const DatasetInfo& newest, const std::vector<DatasetInfo>& others) const;

    Context& ctx_;
    std::vector<DatasetInfo> datasets_;
};

}  // namespace mlckpt::core

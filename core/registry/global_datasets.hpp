// The global datasets of FTI_DefineGlobalDataset and the subsets of
// FTI_AddSubset: arrays that span the application ranks, each rank's
// protected variables covering hyperslabs of them. They are written into
// one HDF5 file shared by all ranks (FTI_L4_H5_SINGLE), from which a run on
// a different number of ranks can restart ([restart] failure = 3).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlckpt::core {

// At most as many dimensions as FTI (and FTI_DefineDataset) allow.
inline constexpr int kMaxDatasetRank = 32;

struct GlobalDataset {
    int id = 0;
    std::string name;
    int group = 0;                    // in the GroupTree
    std::vector<std::uint64_t> dims;  // slowest-varying first
    int type = 0;                     // the element type, a TypeTable handle
};

// Where protected variable `var` lies in global dataset `dataset`:
// H5Sselect_hyperslab's start and count.
struct Subset {
    int dataset = 0;
    std::vector<std::uint64_t> offset;
    std::vector<std::uint64_t> count;

    std::uint64_t elements() const;
};

class GlobalDatasets {
  public:
    // A usage Error for a taken id, a bad name, or a rank outside 1..32.
    void define(int id, std::vector<std::uint64_t> dims, const std::string& name, int group, int type);
    // FTI_UpdateGlobalDataset: a new shape (the rank may change too).
    void update(int id, std::vector<std::uint64_t> dims);
    // FTI_AddSubset: variable `var` becomes the subset of dataset `id`
    // (replacing any subset it had); FTI_UpdateSubset moves a subset that
    // exists. The offset and count must have the dataset's rank.
    void add_subset(int var, int id, std::vector<std::uint64_t> offset, std::vector<std::uint64_t> count);
    void update_subset(int var, int id, std::vector<std::uint64_t> offset, std::vector<std::uint64_t> count);

    bool empty() const { return datasets_.empty(); }
    const GlobalDataset& at(int id) const;  // a usage Error naming an unknown id
    GlobalDataset& at(int id);
    const std::map<int, GlobalDataset>& datasets() const { return datasets_; }
    const Subset* subset_of(int var) const;
    const std::map<int, Subset>& subsets() const { return subsets_; }  // by variable id

  private:
    void check_rank(const GlobalDataset& d, const std::vector<std::uint64_t>& offset,
                    const std::vector<std::uint64_t>& count) const;

    std::map<int, GlobalDataset> datasets_;
    std::map<int, Subset> subsets_;
};

// The product of `dims` (1 for none); saturates at UINT64_MAX.
std::uint64_t elements_of(const std::vector<std::uint64_t>& dims);
// "{4, 8}": for messages.
std::string shape_text(const std::vector<std::uint64_t>& dims);

}  // namespace mlckpt::core

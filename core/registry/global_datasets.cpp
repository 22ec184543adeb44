#include "registry/global_datasets.hpp"

#include <limits>

#include "common/error.hpp"
#include "registry/h5_groups.hpp"

namespace mlckpt::core {

namespace {

void check_dims(int id, const std::vector<std::uint64_t>& dims) {
    if (dims.empty() || dims.size() > static_cast<std::size_t>(kMaxDatasetRank)) {
        fail(ErrorKind::usage, "global dataset " + std::to_string(id) + ": rank " + std::to_string(dims.size()) +
                                   " is invalid; allowed: 1 to " + std::to_string(kMaxDatasetRank));
    }
}

}  // namespace

std::uint64_t elements_of(const std::vector<std::uint64_t>& dims) {
    std::uint64_t n = 1;
    for (std::uint64_t d : dims) {
        if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d)
            return std::numeric_limits<std::uint64_t>::max();
        n *= d;
    }
    return n;
}

std::uint64_t Subset::elements() const {
    return elements_of(count);
}

void GlobalDatasets::define(int id, std::vector<std::uint64_t> dims, const std::string& name, int group, int type) {
    if (datasets_.count(id) != 0) {
        fail(ErrorKind::usage, "global dataset id " + std::to_string(id) + " is already taken");
    }
    check_dims(id, dims);
    validate_h5_name(name, "global dataset name");
    datasets_[id] = GlobalDataset{id, name, group, std::move(dims), type};
}

void GlobalDatasets::update(int id, std::vector<std::uint64_t> dims) {
    GlobalDataset& d = at(id);
    // FTI lets a restarting application clear the shape ({0, ..}) before
    // FTI_RecoverDatasetDimension fills it in, so zero lengths are allowed.
    check_dims(id, dims);
    d.dims = std::move(dims);
}

void GlobalDatasets::check_rank(const GlobalDataset& d, const std::vector<std::uint64_t>& offset,
                                const std::vector<std::uint64_t>& count) const {
    if (offset.size() != d.dims.size() || count.size() != d.dims.size()) {
        fail(ErrorKind::usage, "global dataset " + std::to_string(d.id) + " ('" + d.name + "') has rank " +
                                   std::to_string(d.dims.size()) + ", but the subset has rank " +
                                   std::to_string(count.size()));
    }
}

void GlobalDatasets::add_subset(int var, int id, std::vector<std::uint64_t> offset, std::vector<std::uint64_t> count) {
    check_rank(at(id), offset, count);
    subsets_[var] = Subset{id, std::move(offset), std::move(count)};
}

void GlobalDatasets::update_subset(int var, int id, std::vector<std::uint64_t> offset,
                                   std::vector<std::uint64_t> count) {
    check_rank(at(id), offset, count);
    auto it = subsets_.find(var);
    if (it == subsets_.end() || it->second.dataset != id) {
        fail(ErrorKind::usage, "variable " + std::to_string(var) + " is not a subset of global dataset " +
                                   std::to_string(id) + "; add it with FTI_AddSubset first");
    }
    it->second.offset = std::move(offset);
    it->second.count = std::move(count);
}

const GlobalDataset& GlobalDatasets::at(int id) const {
    auto it = datasets_.find(id);
    if (it == datasets_.end()) {
        fail(ErrorKind::usage,
             "global dataset id " + std::to_string(id) + " is unknown; define it with FTI_DefineGlobalDataset");
    }
    return it->second;
}

GlobalDataset& GlobalDatasets::at(int id) {
    return const_cast<GlobalDataset&>(static_cast<const GlobalDatasets&>(*this).at(id));
}

const Subset* GlobalDatasets::subset_of(int var) const {
    auto it = subsets_.find(var);
    return it == subsets_.end() ? nullptr : &it->second;
}

std::string shape_text(const std::vector<std::uint64_t>& dims) {
    std::string s = "{";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "}";
}

}  // namespace mlckpt::core

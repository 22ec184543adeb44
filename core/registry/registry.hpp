// The protected variables of a session, in the order they were first
// protected, and the name -> id bindings of FTI_setIDFromString.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "registry/global_datasets.hpp"
#include "registry/h5_groups.hpp"
#include "registry/types.hpp"

namespace mlckpt::core {

struct Variable {
    int id = 0;
    void* ptr = nullptr;
    std::int64_t count = 0;
    int type = 0;
    std::size_t element_size = 0;
    // FTI_SetErrorBound: float and double variables stored lossily, each
    // element within this absolute error, by levels that compress; 0: exact.
    double error_bound = 0;

    std::uint64_t bytes() const { return static_cast<std::uint64_t>(count) * element_size; }
    std::span<std::byte> data() const { return {static_cast<std::byte*>(ptr), static_cast<std::size_t>(bytes())}; }
};

// How a variable appears in an HDF5 checkpoint (FTI_DefineDataset,
// FTI_SetAttribute); what is not set takes FTI's defaults: "Dataset_<id>",
// one dimension of `count` elements, the root group.
struct DatasetDefinition {
    std::string name;                 // "" for the default
    std::vector<std::uint64_t> dims;  // empty for the default
    int group = 0;                    // in the GroupTree
    std::optional<std::string> attribute_name;
    std::optional<std::vector<std::uint64_t>> attribute_dim;
};

class Registry {
  public:
    explicit Registry(int max_var_id) : max_var_id_(max_var_id) {}

    TypeTable& types() { return types_; }
    const TypeTable& types() const { return types_; }

    // Registers or updates a variable; validates every argument. An update
    // keeps the variable's dataset name and group, and its shape while the
    // shape still holds `count` elements.
    void protect(int id, void* ptr, std::int64_t count, int type);
    // FTI_SetErrorBound: `bound` > 0 lets the checkpoints of levels that
    // compress store variable `id` (float or double) within that absolute
    // error; 0 makes it exact again. Kept when the variable is protected
    // again as float or double.
    void set_error_bound(int id, double bound);

    GroupTree& groups() { return groups_; }
    const GroupTree& groups() const { return groups_; }
    // FTI_DefineDataset: `dims` (empty: keep the shape) must hold the
    // variable's count; `name` "" keeps the name, `group` < 0 the group.
    void define_dataset(int id, std::vector<std::uint64_t> dims, const std::string& name, int group);
    DatasetDefinition& dataset(int id);  // of a protected variable
    const DatasetDefinition* find_dataset(int id) const;
    // FTI_DefineGlobalDataset .. FTI_UpdateSubset (FTI_L4_H5_SINGLE).
    GlobalDatasets& global_datasets() { return global_; }
    const GlobalDatasets& global_datasets() const { return global_; }

    const Variable* find(int id) const;
    const Variable& at(int id) const;  // throws a usage Error naming the id
    const std::vector<Variable>& variables() const { return vars_; }
    std::uint64_t total_bytes() const;

    // Returns the id bound to `name`, binding the lowest free id first.
    int bind_name(const std::string& name);
    std::optional<int> id_of(const std::string& name) const;
    std::string name_of(int id) const;  // "" when unnamed
    // Restores bindings found in a checkpoint (names stay bound to their ids).
    void restore_name(const std::string& name, int id);

  private:
    bool id_in_use(int id) const;
    void bind(const std::string& name, int id);

    // Lookups by id are constant time, so that a run protecting 100,000
    // variables (FTI's default max_var_id) does not spend quadratic time
    // protecting, naming and checkpointing them.

    int max_var_id_;
    TypeTable types_;
    GroupTree groups_;
    GlobalDatasets global_;
    std::vector<Variable> vars_;
    std::unordered_map<int, std::size_t> position_;  // id -> index in vars_
    std::map<int, DatasetDefinition> datasets_;
    std::map<std::string, int> names_;
    std::unordered_map<int, std::string> name_of_id_;  // the first in name order, as names_ lists them
    // No id is ever released: every id below this one is in use.
    int lowest_maybe_free_ = 0;
};

// Names are stored in checkpoint metadata: printable, 1 to 255 characters.
void validate_variable_name(const std::string& name);

}  // namespace mlckpt::core

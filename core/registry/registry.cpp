#include "registry/registry.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

// Elements of a shape; an empty shape (the default) counts as -1, no count.
std::int64_t element_count(const std::vector<std::uint64_t>& dims) {
    if (dims.empty()) return -1;
    std::uint64_t n = 1;
    for (std::uint64_t d : dims) n *= d;
    return static_cast<std::int64_t>(n);
}

}  // namespace

void Registry::set_error_bound(int id, double bound) {
    auto at = position_.find(id);
    if (at == position_.end()) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + " is not protected; FTI_Protect it first");
    }
    Variable& v = vars_[at->second];
    if (v.type != kFloat && v.type != kDouble) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) +
                                   " is not of type FTI_SFLT or FTI_DBLE: error bounds apply to float and double "
                                   "variables only");
    }
    if (!std::isfinite(bound) || bound < 0) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + ": error bound " + std::to_string(bound) +
                                   " is invalid; allowed: a finite number > 0, or 0 for exact storage");
    }
    v.error_bound = bound;
}

void Registry::protect(int id, void* ptr, std::int64_t count, int type) {
    if (id < 0 || id > max_var_id_) {
        fail(ErrorKind::usage, "variable id " + std::to_string(id) + " is invalid; allowed: 0 to " +
                                   std::to_string(max_var_id_) + " ([basic] max_var_id)");
    }
    if (count < 0) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + ": count " + std::to_string(count) +
                                   " is negative; allowed: count >= 0");
    }
    if (ptr == nullptr && count > 0) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + ": null pointer for " + std::to_string(count) +
                                   " elements; allowed: a valid buffer, or NULL with count 0");
    }
    std::size_t elem = types_.at(type).size;
    if (static_cast<std::uint64_t>(count) >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / elem) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + ": " + std::to_string(count) + " elements of " +
                                   std::to_string(elem) + " bytes overflow a 64-bit size");
    }
    Variable v{id, ptr, count, type, elem};
    if (auto at = position_.find(id); at != position_.end()) {
        if (type == kFloat || type == kDouble) v.error_bound = vars_[at->second].error_bound;
        vars_[at->second] = v;
        if (auto it = datasets_.find(id); it != datasets_.end() && element_count(it->second.dims) != count) {
            it->second.dims.clear();
        }
        return;
    }
    position_.emplace(id, vars_.size());
    vars_.push_back(v);
    datasets_.erase(id);
}

void Registry::define_dataset(int id, std::vector<std::uint64_t> dims, const std::string& name, int group) {
    const Variable& v = at(id);
    if (!dims.empty() && element_count(dims) != v.count) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + ": a dataset of " +
                                   std::to_string(element_count(dims)) + " elements does not fit its count " +
                                   std::to_string(v.count));
    }
    if (!name.empty()) validate_h5_name(name, "dataset name");
    if (group >= 0 && !groups_.contains(group)) {
        fail(ErrorKind::usage, "group id " + std::to_string(group) + " is unknown; make groups with FTI_InitGroup");
    }
    DatasetDefinition& d = dataset(id);
    if (!dims.empty()) d.dims = std::move(dims);
    if (!name.empty()) d.name = name;
    if (group >= 0) d.group = group;
}

DatasetDefinition& Registry::dataset(int id) {
    at(id);  // protected, or a usage Error
    return datasets_[id];
}

const DatasetDefinition* Registry::find_dataset(int id) const {
    auto it = datasets_.find(id);
    return it == datasets_.end() ? nullptr : &it->second;
}

const Variable* Registry::find(int id) const {
    auto at = position_.find(id);
    return at == position_.end() ? nullptr : &vars_[at->second];
}

const Variable& Registry::at(int id) const {
    const Variable* v = find(id);
    if (v == nullptr) {
        fail(ErrorKind::usage, "variable id " + std::to_string(id) + " is not protected; call FTI_Protect first");
    }
    return *v;
}

std::uint64_t Registry::total_bytes() const {
    std::uint64_t total = 0;
    for (const Variable& v : vars_) total += v.bytes();
    return total;
}

bool Registry::id_in_use(int id) const {
    return position_.contains(id) || name_of_id_.contains(id);
}

void Registry::bind(const std::string& name, int id) {
    if (!names_.emplace(name, id).second) return;
    auto [it, added] = name_of_id_.emplace(id, name);
    if (!added && name < it->second) it->second = name;
}

int Registry::bind_name(const std::string& name) {
    validate_variable_name(name);
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    while (id_in_use(lowest_maybe_free_)) ++lowest_maybe_free_;
    const int id = lowest_maybe_free_;
    if (id > max_var_id_) {
        fail(ErrorKind::usage, "no free variable id for '" + name + "': all ids up to " + std::to_string(max_var_id_) +
                                   " ([basic] max_var_id) are used");
    }
    bind(name, id);
    return id;
}

std::optional<int> Registry::id_of(const std::string& name) const {
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    return std::nullopt;
}

std::string Registry::name_of(int id) const {
    auto it = name_of_id_.find(id);
    return it == name_of_id_.end() ? std::string() : it->second;
}

void Registry::restore_name(const std::string& name, int id) {
    bind(name, id);
}

void validate_variable_name(const std::string& name) {
    if (name.empty() || name.size() > 255) {
        fail(ErrorKind::usage, "variable name of " + std::to_string(name.size()) +
                                   " characters is invalid; allowed: 1 to 255 characters");
    }
    for (unsigned char c : name) {
        if (c < 0x20 || c == 0x7f) {
            fail(ErrorKind::usage, "variable name '" + name +
                                       "' contains a control character; allowed: printable "
                                       "characters");
        }
    }
}

}  // namespace mlckpt::core

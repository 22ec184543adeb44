#include "format/hdf5/hdf5_named_types.hpp"

#include "format/hdf5/hdf5_types.hpp"

namespace mlckpt::core::h5 {

namespace {

bool committable(const Type& type) {
    return type.kind != Type::Kind::primitive && !type.name.empty() && type.name != "." &&
           type.name.find('/') == std::string::npos;
}

}  // namespace

hid_t NamedTypes::dataset_type(const std::shared_ptr<const Type>& type) {
    const std::string group = path_text(type->group);
    const std::string path = (group == "/" ? group : group + "/") + type->name;
    if (!committable(*type) || reserved_.count(path) != 0) {
        transient_ = make_datatype(*type, site_);
        return transient_.get();
    }
    if (auto it = made_.find(type.get()); it != made_.end()) return it->second.get();
    Handle made = make_datatype(*type, site_);
    // HDF5 leaves a type whose commit failed transient: the datasets then
    // carry it inline.
    H5Tcommit2(file_, path.c_str(), made.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    return made_.emplace(type.get(), std::move(made)).first->second.get();
}

}  // namespace mlckpt::core::h5
